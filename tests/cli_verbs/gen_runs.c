/* SPDX-License-Identifier: MIT */
/*
 * gen_runs.c - write the synthetic runs the CLI verb tests read:
 *   gen_runs DIR
 * base.h5       kernel 200 calls ~ N(1 ms, 5 %), io, setup (1 call per rank),
 *               rare (3 calls per rank), worker_task on a second thread
 * slower.h5     kernel +20 %, setup +20 %, rare +50 %   (violations)
 * slight.h5     kernel +2 %, setup +2 %, rare +1 %       (within a 10 % budget)
 * noisy.h5      kernel: same distribution, 4 calls replaced by 15 ms outliers
 *               (total +28 %, but the per-call distribution is unchanged)
 * newregion.h5  as base (another seed) plus region "extra" (new)
 * allslower.h5  every duration x 1.3 (a machine in a slower state)
 * tail.h5       every third kernel call waits 10 ms more (a lock): a tail
 * empty.h5      one rank, no regions, no calls
 * onecall.h5    one region with one call
 * disjoint.h5   regions that no other run has
 * weird.h5      names with quotes, backslashes, control characters, UTF-8,
 *               separators (; , newline)
 * chatty.h5     a region with 150000 calls of 0.5 us (chatty warning)
 * lines.h5      as base, with line samples on both ranks: kernel at
 *               src/solver.c:42 (100 + 101 samples, 0.1 ms each) and :43
 *               (30 per rank), io at src/io.c:7 (10, rank 0 only)
 * wrong_layout.h5  an HDF5 file that is no run (one dataset "/data")
 * bad_shape.h5  the Python per-region layout with 3 start times and 2 end
 *               times (wrongly shaped)
 * repeats/base/run1..4.h5, repeats/same/run1..4.h5   as base (other seeds)
 * repeats/slower/run1..4.h5                          kernel +20 %
 * ranks1.h5, ranks8.h5  "work" (60 calls of ~2 ms per rank) on 1 and 8
 *               ranks, and "io" on rank 0 only: the same per rank
 * calls2x.h5    as ranks1.h5 with 120 calls of "work"
 * scale1.h5, scale2.h5, scale4.h5  a strong-scaling study: "divided"
 *               (80 ms of work split over the ranks), "replicated" (20 ms
 *               on every rank), "halo" (a little more with more ranks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "scope_profiler.h"
#include "sp_h5.h"
#include "synth_runs.h"

static int write_run(sp_run *run, const char *dir, const char *name)
{
    char path[4096 + 64]; /* dir (< 4096) + "/" + a short name */
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!run) {
        fprintf(stderr, "gen_runs: cannot build %s\n", name);
        return 1;
    }
    int rc = sp_h5_write(run, path);
    if (rc)
        fprintf(stderr, "gen_runs: %s: %s\n", path, sp_last_error());
    sp_run_free(run);
    return rc ? 1 : 0;
}

static sp_run *simple_run(const char *const *names, size_t n, int calls_each)
{
    sy_calls l = {0};
    int64_t t = 0;
    for (size_t g = 0; g < n; g++)
        for (int i = 0; i < calls_each; i++, t += 2000000)
            sy_add(&l, 0, 0, names[g], t, t + 1000000 + (int64_t)(g * 1000 + (size_t)i * 10));
    sp_run *run = sy_build(&l, 1);
    free(l.c);
    return run;
}

static sp_run *chatty_run(void)
{
    sy_calls l = {0};
    int64_t t = 0;
    sy_add(&l, 0, 0, "main", 0, 0);
    for (int i = 0; i < 150000; i++, t += 1000)
        sy_add(&l, 0, 0, "tiny", t, t + 500);
    sy_add(&l, 0, 0, "big", t, t + 2000000);
    t += 2000000;
    l.c[0].end = t;
    sp_run *run = sy_build(&l, 1);
    free(l.c);
    return run;
}

/* Add line sample rows to rank r: (region, file, line, function, samples). */
static void add_lines(sp_run *run, size_t r, const char *const *regions, const char *const *files,
                      const int *linenos, const char *const *funcs, const unsigned *samples,
                      size_t n)
{
    sp_rank_data *rk = &run->ranks[r];
    rk->nlines = n;
    rk->line_region = calloc(n, sizeof *rk->line_region);
    rk->line_file = calloc(n, sizeof *rk->line_file);
    rk->line_lineno = calloc(n, sizeof *rk->line_lineno);
    rk->line_function = calloc(n, sizeof *rk->line_function);
    rk->line_samples = calloc(n, sizeof *rk->line_samples);
    rk->line_time_ns = calloc(n, sizeof *rk->line_time_ns);
    for (size_t i = 0; i < n; i++) {
        rk->line_region[i] = sp_run_region_id(run, regions[i]);
        rk->line_file[i] = strdup(files[i]);
        rk->line_lineno[i] = linenos[i];
        rk->line_function[i] = strdup(funcs[i]);
        rk->line_samples[i] = samples[i];
        rk->line_time_ns[i] = (int64_t)samples[i] * 100000; /* 0.1 ms period */
    }
}

static sp_run *lines_run(void)
{
    sy_spec s;
    sy_spec_init(&s, 1);
    sp_run *run = sy_make(&s);
    if (!run)
        return NULL;
    static const char *const reg[] = {"kernel", "kernel", "io"};
    static const char *const file[] = {"src/solver.c", "src/solver.c", "src/io.c"};
    static const int line[] = {42, 43, 7};
    static const char *const func[] = {"assemble", "assemble", "write_out"};
    static const unsigned s0[] = {100, 30, 10}, s1[] = {101, 30};
    add_lines(run, 0, reg, file, line, func, s0, 3);
    add_lines(run, 1, reg, file, line, func, s1, 2);
    return run;
}

/* A 1-D int64 dataset of n zeros at path (intermediate groups created). */
static int put_dataset(hid_t file, const char *path, hsize_t n)
{
    int64_t v[4] = {0, 1, 2, 3};
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(file, path, H5T_STD_I64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 || H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (ds >= 0)
        H5Dclose(ds);
    H5Sclose(space);
    H5Pclose(lcpl);
    return rc;
}

static int write_hdf5(const char *dir, const char *name, int shape)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 1;
    int rc = shape ? put_dataset(f, "/rank0/regions/solve/start_times", 3) ||
                         put_dataset(f, "/rank0/regions/solve/end_times", 2)
                   : put_dataset(f, "/data", 4);
    H5Fclose(f);
    if (rc)
        fprintf(stderr, "gen_runs: cannot write %s\n", path);
    return rc;
}

/* "work" on every rank (calls of ~dur_ms), "io" on rank 0 (40 x 0.5 ms). */
static sp_run *per_rank_run(uint64_t seed, size_t nranks, int calls, double dur_ms)
{
    sy_rng rng = {seed};
    sy_calls l = {0};
    for (size_t r = 0; r < nranks; r++) {
        int64_t at = 0;
        for (int i = 0; i < calls; i++) {
            int64_t d = (int64_t)sy_normal(&rng, dur_ms * SY_MS, 0.02 * dur_ms * SY_MS);
            sy_add(&l, (int)r, 0, "work", at, at + d);
            at += d + 1000;
        }
        for (int i = 0; r == 0 && i < 40; i++, at += 600000)
            sy_add(&l, 0, 0, "io", at, at + (int64_t)sy_normal(&rng, 0.5 * SY_MS, 0.01 * SY_MS));
    }
    sp_run *run = sy_build(&l, nranks);
    free(l.c);
    return run;
}

/* One run of a strong-scaling study on nranks ranks (see the header). */
static sp_run *scaling_run(size_t nranks)
{
    sy_rng rng = {nranks};
    sy_calls l = {0};
    for (size_t r = 0; r < nranks; r++) {
        int64_t at = 0;
        for (int i = 0; i < 10; i++) {
            double j = 1 + 0.01 * (2 * sy_uniform(&rng) - 1);
            int64_t d = (int64_t)(8 * SY_MS / (double)nranks * j);
            sy_add(&l, (int)r, 0, "divided", at, at + d);
            at += d;
            d = (int64_t)(2 * SY_MS * j);
            sy_add(&l, (int)r, 0, "replicated", at, at + d);
            at += d;
            d = (int64_t)(0.2 * SY_MS * (1 + 0.25 * (double)(nranks - 1)) * j);
            sy_add(&l, (int)r, 0, "halo", at, at + d);
            at += d;
        }
    }
    sp_run *run = sy_build(&l, nranks);
    free(l.c);
    return run;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: gen_runs DIR [NOISY_SEED]\n");
        return 2;
    }
    const char *dir = argv[1];
    int fails = 0;
    sy_spec s;

    sy_spec_init(&s, 1);
    fails += write_run(sy_make(&s), dir, "base.h5");

    sy_spec_init(&s, 2);
    s.kernel_factor = 1.20;
    s.setup_factor = 1.20;
    s.rare_factor = 1.50;
    fails += write_run(sy_make(&s), dir, "slower.h5");

    sy_spec_init(&s, 3);
    s.kernel_factor = 1.02;
    s.setup_factor = 1.02;
    s.rare_factor = 1.01;
    fails += write_run(sy_make(&s), dir, "slight.h5");

    sy_spec_init(&s, argc == 3 ? strtoull(argv[2], NULL, 10) : SY_NOISY_SEED);
    s.kernel_outliers = 4;
    fails += write_run(sy_make(&s), dir, "noisy.h5");

    sy_spec_init(&s, 5);
    s.extra_region = true;
    fails += write_run(sy_make(&s), dir, "newregion.h5");

    sy_spec_init(&s, 6);
    s.all_factor = 1.3;
    fails += write_run(sy_make(&s), dir, "allslower.h5");

    sy_spec_init(&s, 7);
    s.kernel_wait_every = 3;
    s.kernel_wait_ms = 10;
    fails += write_run(sy_make(&s), dir, "tail.h5");

    sp_run *empty = sp_run_new();
    if (empty && sp_run_set_ranks(empty, 1) == 0) {
        empty->ranks[0].nthreads = 0;
    }
    fails += write_run(empty, dir, "empty.h5");

    static const char *const one[] = {"only"};
    fails += write_run(simple_run(one, 1, 1), dir, "onecall.h5");

    static const char *const disjoint[] = {"alpha", "beta"};
    fails += write_run(simple_run(disjoint, 2, 5), dir, "disjoint.h5");

    static const char *const weird[] = {"quote\"back\\slash",
                                        "tab\there",
                                        "ctrl\x01\x1f",
                                        "semi;colon,comma",
                                        "new\nline",
                                        "donn\xc3\xa9"
                                        "es \xe2\x86\x92 \xce\xbb",
                                        "<b>&amp;</b>"};
    fails += write_run(simple_run(weird, sizeof weird / sizeof *weird, 3), dir, "weird.h5");

    fails += write_run(chatty_run(), dir, "chatty.h5");
    fails += write_run(lines_run(), dir, "lines.h5");
    char sub[4096];
    static const char *const kinds[] = {"base", "same", "slower"};
    for (int k = 0; k < 3; k++) {
        snprintf(sub, sizeof sub, "%s/repeats", dir);
        mkdir(sub, 0777);
        snprintf(sub, sizeof sub, "%s/repeats/%s", dir, kinds[k]);
        mkdir(sub, 0777);
        for (int i = 1; i <= 4; i++) {
            sy_spec_init(&s, 1000 + 10 * (uint64_t)k + (uint64_t)i);
            s.kernel_factor = k == 2 ? 1.20 : 1.0;
            char name[32];
            snprintf(name, sizeof name, "run%d.h5", i);
            fails += write_run(sy_make(&s), sub, name);
        }
    }
    fails += write_run(per_rank_run(11, 1, 60, 2.0), dir, "ranks1.h5");
    fails += write_run(per_rank_run(12, 8, 60, 2.0), dir, "ranks8.h5");
    fails += write_run(per_rank_run(13, 1, 120, 2.0), dir, "calls2x.h5");
    fails += write_run(scaling_run(1), dir, "scale1.h5");
    fails += write_run(scaling_run(2), dir, "scale2.h5");
    fails += write_run(scaling_run(4), dir, "scale4.h5");
    fails += write_hdf5(dir, "wrong_layout.h5", 0);
    fails += write_hdf5(dir, "bad_shape.h5", 1);
    return fails ? 1 : 0;
}
