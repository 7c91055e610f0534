/* SPDX-License-Identifier: MIT */
/*
 * make_golden.c - write data/golden/v1/small.h5, the schema-v1 golden file.
 *
 *     h5_make_golden data/golden/v1/small.h5
 *
 * Run by hand only, once per schema version: the file is committed and
 * test_h5_golden.c checks its exact contents, so every later build must keep
 * reading it. Never regenerate an existing version's golden file; a new
 * schema version gets a new directory (data/golden/v2/...) and a new maker.
 * Everything below is fixed by hand (no clock, no host), and the writer
 * stores no object times, so the output is byte-for-byte reproducible.
 */
#include <stdio.h>
#include <stdlib.h>

#include "h5test_util.h"
#include "sp_h5.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.h5\n", argv[0]);
        return 2;
    }
    sp_run *run = sp_run_new();
    static const char *const regions[] = {
        "main",                             /* 0 */
        "solve",                            /* 1 */
        "io/write data.v2 \xE2\x9C\x93",    /* 2: '/', '.', ' ', U+2713 */
        "assemble",                         /* 3 */
        "halo exchange",                    /* 4: never called, drops only */
    };
    for (int i = 0; i < 5; i++)
        if (sp_run_intern_region(run, regions[i]) != i)
            return 1;
    static const char *const meta[][2] = {
        {"timestamp", "2026-01-01T12:00:00.000000+00:00"},
        {"hostname", "golden-host"},
        {"user", "golden"},
        {"command_line", "./solver --steps 2"},
        {"working_directory", "/home/golden/run"},
        {"scope_profiler_version", "0.1.0"},
        {"compiler", "GCC 12.2.0"},
        {"platform", "Linux-6.1.0-x86_64"},
        {"cpu_model", "Golden CPU @ 2.00GHz"},
        {"total_cores", "8"},
        {"clock_source", "tsc"},
        {"clock_calibration", "2000000000"},
        {"mpi_size", "2"},
        {"num_threads", "3"},
        {"omp_num_threads", "2"},
        {"SLURM_JOB_ID", "123456"},
        {"problem_size", "128"},
        {"note", "caf\xC3\xA9 \xE2\x9C\x93"},
    };
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
        if (sp_kvlist_set(&run->meta, meta[i][0], meta[i][1]) != 0)
            return 1;
    if (sp_run_set_ranks(run, 2) != 0)
        return 1;

    /* Rank 0: thread 0 "main": main > solve > assemble x2, main > io;
     * thread 1 "worker": io once. One call of "halo exchange" was dropped. */
    sp_rank_data *r0 = &run->ranks[0];
    static const int64_t tids0[] = {4100, 4101};
    static const char *const names0[] = {"main", "worker"};
    h5t_set_threads(r0, 2, tids0, names0);
    static const h5t_call calls0[] = {
        {0, 1000, 100000, 0, -1}, /* 0 main */
        {0, 2000, 60000, 1, 0},   /* 1 solve */
        {0, 3000, 13000, 3, 1},   /* 2 assemble */
        {0, 14000, 24000, 3, 1},  /* 3 assemble */
        {0, 61000, 91000, 2, 0},  /* 4 io */
        {1, 5000, 45000, 2, -1},  /* 5 io, worker thread */
    };
    h5t_set_calls(r0, calls0, 6);
    r0->dropped = calloc(5, sizeof *r0->dropped);
    r0->dropped[4] = 1;
    if (sp_kvlist_set(&r0->meta, "hostname", "golden-host") != 0)
        return 1;

    /* Rank 1: one thread, clock offset, main > solve. */
    sp_rank_data *r1 = &run->ranks[1];
    r1->clock_offset_ns = -2500;
    r1->clock_offset_err_ns = 40;
    static const int64_t tids1[] = {4200};
    static const char *const names1[] = {"main"};
    h5t_set_threads(r1, 1, tids1, names1);
    static const h5t_call calls1[] = {
        {0, 1500, 99000, 0, -1},
        {0, 2500, 70000, 1, 0},
    };
    h5t_set_calls(r1, calls1, 2);
    if (sp_kvlist_set(&r1->meta, "hostname", "golden-host-2") != 0)
        return 1;

    int rc = sp_h5_write(run, argv[1]);
    if (rc != 0)
        fprintf(stderr, "%s\n", sp_last_error());
    sp_run_free(run);
    return rc ? 1 : 0;
}
