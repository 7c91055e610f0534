/* SPDX-License-Identifier: MIT */
/*
 * check_mpi_file.c - read a file written by mpi_record under mpirun with the
 * C reader (the serial library: the reader needs no MPI) and check it holds
 * exactly what mpi_case.h says every rank recorded.
 *
 *   check_mpi_file FILE NRANKS MODE [--mpi-regions] [--no-mpi]
 *
 * MODE: "mpi" for a run under mpirun, "none" for the MPI library without
 * MPI (schema 2 has no mpi_writer key: every rank streams its own part),
 * "streamed" for the file a failed sp_finalize left: the main file and the
 * parts, every call still there.
 */
#include <dirent.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_case.h"
#include "sp_h5.h"
#include "sp_model.h"
#include "sp_test.h"

static const char *path, *writer;
static int nranks;
static bool mpi_regions;
static sp_run *run;

static long count_region(const sp_rank_data *rk, int32_t id)
{
    long n = 0;
    for (size_t k = 0; k < rk->ncalls; k++)
        n += rk->region[k] == id;
    return n;
}

static const char *name_of(int32_t id)
{
    return id >= 0 && (size_t)id < run->nregions ? run->region_names[id] : "?";
}

static void test_job(void)
{
    ASSERT_EQ_I(run->nranks, nranks);
    char want[16];
    snprintf(want, sizeof want, "%d", nranks);
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "mpi_size"), want);
    ASSERT(sp_kvlist_get(&run->meta, "mpi_writer") == NULL);
    ASSERT_EQ_I(run->schema_version, 2);
    if (strcmp(writer, "streamed") == 0) /* the parts, as the ranks closed them */
        ASSERT(sp_kvlist_get(&run->meta, "file_state") != NULL);
    else
        ASSERT(sp_kvlist_get(&run->meta, "file_state") == NULL); /* a finished file */
    size_t threads = 0;
    for (size_t r = 0; r < run->nranks; r++)
        threads += run->ranks[r].nthreads;
    snprintf(want, sizeof want, "%zu", threads);
    if (strcmp(writer, "streamed") == 0) /* the facts of setup: no thread count yet */
        ASSERT(sp_kvlist_get(&run->meta, "num_threads") == NULL);
    else
        ASSERT_STREQ(sp_kvlist_get(&run->meta, "num_threads"), want);
}

/* Every region of every rank, with exact counts; nothing else. */
static void test_counts(void)
{
    for (int r = 0; r < nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        ASSERT_EQ_I(rk->rank, r);
        ASSERT_MSG(sp_kvlist_get(&rk->meta, "hostname") && sp_kvlist_get(&rk->meta, "pid"),
                   "rank %d: hostname and pid in its metadata", r);
        long work = 0, expected_total = 0;
        for (int t = 0; t < SP_CASE_THREADS; t++)
            work += sp_case_work_calls(r, t);
        char only[64];
        sp_case_only_name(r, only, sizeof only);
        const struct {
            const char *name;
            long calls;
        } want[] = {
            {"work", work},
            {"inner", work},
            {"step", sp_case_records(r) ? SP_CASE_STEPS : 0},
            {only, sp_case_records(r) ? r + 1 : 0},
            {"MPI_Allreduce", mpi_regions ? SP_CASE_STEPS : 0},
            {"MPI_Barrier", mpi_regions ? SP_CASE_STEPS : 0},
        };
        for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
            int32_t id = sp_run_region_id(run, want[i].name);
            long got = id >= 0 ? count_region(rk, id) : 0;
            ASSERT_MSG(got == want[i].calls, "rank %d: %ld calls of '%s', want %ld", r, got,
                       want[i].name, want[i].calls);
            expected_total += want[i].calls;
        }
        ASSERT_MSG((long)rk->ncalls == expected_total,
                   "rank %d: %zu calls in all, want %ld (an unexpected region?)", r, rk->ncalls,
                   expected_total);
        /* Threads: the recording ones; the silent rank has none (or only
         * its main thread, for its MPI calls). */
        size_t want_threads = sp_case_records(r) ? SP_CASE_THREADS : mpi_regions ? 1 : 0;
        ASSERT_MSG(rk->nthreads == want_threads, "rank %d: %zu threads, want %zu", r, rk->nthreads,
                   want_threads);
    }
}

/* "work" per thread: (r + 1) * (t + 1) for t = 0 .. T-1, in some order. */
static void test_threads(void)
{
    int32_t work = sp_run_region_id(run, "work");
    for (int r = 0; r < nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (!sp_case_records(r))
            continue;
        bool seen[SP_CASE_THREADS] = {false};
        for (size_t t = 0; t < rk->nthreads; t++) {
            long n = 0;
            for (size_t k = 0; k < rk->ncalls; k++)
                n += rk->region[k] == work && rk->thread[k] == (int32_t)t;
            int which = (int)(n / (r + 1)) - 1;
            ASSERT_MSG(n % (r + 1) == 0 && which >= 0 && which < SP_CASE_THREADS && !seen[which],
                       "rank %d thread %zu: %ld calls of work", r, t, n);
            seen[which] = true;
        }
    }
}

/* inner under work; MPI calls under step (top level on the silent rank). */
static void test_nesting(void)
{
    for (int r = 0; r < nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t k = 0; k < rk->ncalls; k++) {
            const char *name = name_of(rk->region[k]);
            int64_t p = rk->parent[k];
            const char *parent = p >= 0 ? name_of(rk->region[p]) : "(top)";
            const char *want = "(top)";
            if (strcmp(name, "inner") == 0)
                want = "work";
            else if (strstr(name, "MPI_") == name && sp_case_records(r))
                want = "step";
            ASSERT_MSG(strcmp(parent, want) == 0, "rank %d call %zu (%s): parent %s, want %s", r, k,
                       name, parent, want);
        }
    }
}

static void test_clock_offsets(void)
{
    ASSERT_EQ_I(run->ranks[0].clock_offset_ns, 0);
    ASSERT_EQ_I(run->ranks[0].clock_offset_err_ns, 0);
    for (int r = 1; r < nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        /* One host: every rank reads the same CLOCK_MONOTONIC, so the true
         * offset is 0 and the estimate lies within its error bound. */
        ASSERT_MSG(rk->clock_offset_err_ns >= 0, "rank %d: error %lld", r,
                   (long long)rk->clock_offset_err_ns);
        ASSERT_MSG(llabs(rk->clock_offset_ns) <= rk->clock_offset_err_ns,
                   "rank %d: |offset| %lld > error %lld", r, (long long)rk->clock_offset_ns,
                   (long long)rk->clock_offset_err_ns);
    }
}

/* Published atomically: nothing called "<file>.tmp.*" is left. */
static void test_no_temporary(void)
{
    char *copy = strdup(path), *copy2 = strdup(path);
    const char *dir = dirname(copy), *base = basename(copy2);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    DIR *d = opendir(dir);
    ASSERT(d != NULL);
    struct dirent *e;
    int left = 0;
    while ((e = readdir(d)) != NULL)
        left += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    free(copy);
    free(copy2);
    ASSERT_EQ_I(left, 0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: check_mpi_file FILE NRANKS WRITER [--mpi-regions]\n");
        return 2;
    }
    path = argv[1];
    nranks = atoi(argv[2]);
    writer = argv[3];
    for (int i = 4; i < argc; i++)
        mpi_regions |= strcmp(argv[i], "--mpi-regions") == 0;
    int st = 0;
    run = sp_h5_read(path, &st);
    if (!run) {
        fprintf(stderr, "check_mpi_file: %s\n", sp_last_error());
        return 1;
    }
    RUN(test_job);
    RUN(test_counts);
    RUN(test_threads);
    RUN(test_nesting);
    RUN(test_clock_offsets);
    RUN(test_no_temporary);
    sp_run_free(run);
    return sp_test_summary();
}
