/* SPDX-License-Identifier: MIT */
/*
 * bench_h5_layout.c - write and read N calls over 10,000 regions in several
 * storage layouts and print seconds and MB/s (not run by ctest).
 *
 *     bench_h5_layout [N_CALLS [DIR [VARIANTS [ROUNDS]]]]
 *     (defaults: 10000000, /tmp, all, 3)
 *
 * VARIANTS is a comma list of: contig, chunk64k, chunk1m, deflate,
 * per-region, default. Every variant writes without fsync (to compare the
 * layouts, not the disk) except "default" (exactly sp_h5_write()). "Cold"
 * reads follow posix_fadvise(DONTNEED) on the file, so they come from disk;
 * "warm" reads come from the page cache. MB/s counts the 32 bytes of model
 * data per call (start, end, parent: 8 bytes; region, thread: 4 bytes).
 * Variants run interleaved, ROUNDS times; the medians are printed (single
 * runs on a VM vary by several times). The figures in h5schema/SCHEMA.md
 * come from this program.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5_internal.h"

#define NREGIONS 10000
#define NTHREADS 4

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* The Python package's 0.2.1 layout: one group per region per rank with
 * exactly sized start_times/end_times (calls bucketed by region first). */
static int write_per_region(const sp_run *run, const char *path)
{
    const sp_rank_data *rk = &run->ranks[0];
    size_t n = rk->ncalls, nreg = run->nregions;
    size_t *first = calloc(nreg + 1, sizeof *first);
    int64_t *s = malloc(n * sizeof *s), *e = malloc(n * sizeof *e);
    if (!first || !s || !e)
        return -1;
    for (size_t i = 0; i < n; i++)
        first[rk->region[i] + 1]++;
    for (size_t r = 0; r < nreg; r++)
        first[r + 1] += first[r];
    size_t *fill = malloc(nreg * sizeof *fill);
    memcpy(fill, first, nreg * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        size_t k = fill[rk->region[i]]++;
        s[k] = rk->start_ns[i];
        e[k] = rk->end_ns[i];
    }
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t meta = H5Gcreate2(f, "metadata", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t rank = H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t regions = H5Gcreate2(rank, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = f >= 0 && regions >= 0 ? 0 : -1;
    for (size_t r = 0; r < nreg && rc == 0; r++) {
        char name[32];
        snprintf(name, sizeof name, "region %zu", r); /* no '/' : one level */
        hsize_t dims[1] = {first[r + 1] - first[r]};
        hid_t g = H5Gcreate2(regions, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t sp = H5Screate_simple(1, dims, NULL);
        hid_t ds = H5Dcreate2(g, "start_times", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t de = H5Dcreate2(g, "end_times", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0 || ds < 0 || de < 0 ||
            (dims[0] && (H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s + first[r]) < 0 ||
                         H5Dwrite(de, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, e + first[r]) < 0)))
            rc = -1;
        H5Dclose(ds);
        H5Dclose(de);
        H5Sclose(sp);
        H5Gclose(g);
    }
    H5Gclose(regions);
    H5Gclose(rank);
    H5Gclose(meta);
    if (H5Fclose(f) < 0)
        rc = -1;
    free(first);
    free(fill);
    free(s);
    free(e);
    return rc;
}

typedef struct variant {
    const char *name;
    size_t chunk_min, chunk_target;
    int deflate;
    bool fsync;
    bool per_region;
} variant;

static const variant variants[] = {
    {"contig", 0, 0, 0, false, false},
    {"chunk64k", 1, (size_t)1 << 16, 0, false, false},
    {"chunk1m", 1, (size_t)1 << 20, 0, false, false},
    {"deflate", 1, (size_t)1 << 20, 1, false, false},
    {"per-region", 0, 0, 0, false, true},
    {"default", 0, 0, 0, true, false}, /* options filled from the defaults */
};

static bool wanted(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
            return true;
    return false;
}

typedef struct result {
    double write_s, cold_s, warm_s, size_mb;
} result;

/* One write and two reads of variant va; 0 or -1. */
static int measure(const variant *va, const sp_run *run, const char *dir, result *res)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_h5_%s.h5", dir, va->name);
    sp__h5_write_options o;
    sp__h5_write_options_default(&o);
    if (strcmp(va->name, "default") != 0) {
        o.chunk_min = va->chunk_min;
        o.chunk_target = va->chunk_target;
        o.deflate = va->deflate;
        o.fsync = va->fsync;
    }
    double t = now();
    int rc = va->per_region ? write_per_region(run, path) : sp__h5_write_opts(run, path, &o);
    res->write_s = now() - t;
    if (rc != 0) {
        fprintf(stderr, "%s: write failed: %s\n", va->name, sp_last_error());
        return -1;
    }
    res->size_mb = (double)h5t_file_size(path) / 1e6;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            drop_cache(path);
        int st;
        t = now();
        sp_run *back = sp_h5_read(path, &st);
        *(pass ? &res->warm_s : &res->cold_s) = now() - t;
        if (!back || back->ranks[0].ncalls != run->ranks[0].ncalls) {
            fprintf(stderr, "%s: read failed: %s\n", va->name, sp_last_error());
            return -1;
        }
        sp_run_free(back);
    }
    unlink(path);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define NVARIANTS (sizeof variants / sizeof variants[0])
#define MAX_ROUNDS 15

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    const char *list = argc > 3 && strcmp(argv[3], "all") != 0 ? argv[3] : NULL;
    int rounds = argc > 4 ? atoi(argv[4]) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 3;
    double t = now();
    sp_run *run = h5t_synthetic_run(n, NREGIONS, NTHREADS);
    double mb = (double)n * 32 / 1e6;
    printf("%zu calls, %d regions, %d threads: %.0f MB of call data (built in %.1f s); "
           "medians of %d rounds\n",
           n, NREGIONS, NTHREADS, mb, now() - t, rounds);
    static result res[NVARIANTS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (size_t v = 0; v < NVARIANTS; v++)
            if (wanted(list, variants[v].name) && measure(&variants[v], run, dir, &res[v][r]) < 0)
                return 1;
    printf("%-11s %9s %10s %8s %9s %9s %9s %9s\n", "variant", "write s", "write MB/s",
           "file MB", "cold rd s", "cold MB/s", "warm rd s", "warm MB/s");
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (!wanted(list, variants[v].name))
            continue;
        double w[MAX_ROUNDS], c[MAX_ROUNDS], h[MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            w[r] = res[v][r].write_s;
            c[r] = res[v][r].cold_s;
            h[r] = res[v][r].warm_s;
        }
        double tw = median(w, rounds), tc = median(c, rounds), th = median(h, rounds);
        printf("%-11s %9.2f %10.0f %8.1f %9.2f %9.0f %9.2f %9.0f\n", variants[v].name, tw,
               mb / tw, res[v][0].size_mb, tc, mb / tc, th, mb / th);
    }
    sp_run_free(run);
    return 0;
}
