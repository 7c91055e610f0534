/* SPDX-License-Identifier: MIT */
/*
 * make_golden_v2.c - write the schema-v2 golden files into DIR:
 *
 *   small.h5                 a finished file: 2 ranks, each with its own
 *                            region table (rank 1 has a Latin-1 name), a
 *                            thread name that is not UTF-8, a clock of 2
 *                            ticks per ns, dropped calls, region flags,
 *                            line and counter rows
 *   killed.h5                the file a killed 2-rank job leaves: the main
 *   killed.h5.rank0.part     file (links), rank 0's part as a SIGKILL left
 *                            it (SWMR, open for writing, one call still
 *                            open), rank 1's part never created
 *
 *     h5_make_golden_v2 data/golden/v2
 *
 * Run by hand only, once: the files are committed and test_h5_golden.c
 * checks their exact contents, so every later build must keep reading
 * them. Never regenerate them; a new schema version gets a new directory.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_h5_v2.h"

/* ns = 500 + (ticks - 1000) / 2 */
static const sp_v2_clock_map clock_map = {1000, 500, 0.5};

static int add_rank(const char *tmp, const char *path, sp_run *run, size_t r)
{
    sp_v2_events ev;
    memset(&ev, 0, sizeof ev);
    int rc = sp_v2_events_from_calls(&run->ranks[r], 0, &clock_map, &ev);
    int64_t ticks[2] = {1000, 1000 + 2 * 200000}, ns[2] = {500, 500 + 200000};
    sp_v2_rank_source src = {.run = run, .r = r, .extra = &ev, .clock_ticks = ticks,
                             .clock_ns = ns, .nclock = 2, .compress = SP_V2_COMPRESS_DEFLATE};
    if (rc == 0)
        rc = sp_v2_final_rank(tmp, path, &src);
    sp_v2_events_free(&ev);
    return rc;
}

/* Each rank of the golden run has its own region table: this is rank r's
 * run (one rank at index 0, numbered r). */
static sp_run *rank_run(int r)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) != 0)
        abort();
    sp_rank_data *rk = &run->ranks[0];
    rk->rank = r;
    if (r == 0) {
        static const char *const regions[] = {"main", "solve", "io/write data.v2 \xE2\x9C\x93",
                                              "assemble", "halo exchange"};
        for (int i = 0; i < 5; i++)
            sp_run_intern_region(run, regions[i]);
        static const int64_t tids[] = {4100, 4101};
        static const char *const names[] = {"main", "w\xF6rker"}; /* Latin-1 o-umlaut */
        h5t_set_threads(rk, 2, tids, names);
        static const h5t_call calls[] = {
            {0, 1000, 100000, 0, -1}, {0, 2000, 60000, 1, 0}, {0, 3000, 13000, 3, 1},
            {0, 14000, 24000, 3, 1},  {0, 61000, 91000, 2, 0}, {1, 5000, 45000, 2, -1},
        };
        h5t_set_calls(rk, calls, 6);
        rk->dropped = calloc(5, sizeof *rk->dropped);
        rk->dropped[4] = 1;
        sp_kvlist_set(&rk->meta, "hostname", "golden-host");
        run->region_flags = calloc(5, sizeof *run->region_flags);
        run->nregion_flags = 5;
        run->region_flags[3] = 1; /* traced */
        /* One line row and one counter row. */
        rk->nlines = 1;
        rk->line_region = malloc(sizeof(int32_t));
        rk->line_file = malloc(sizeof(char *));
        rk->line_lineno = malloc(sizeof(int32_t));
        rk->line_function = malloc(sizeof(char *));
        rk->line_samples = malloc(sizeof(uint64_t));
        rk->line_time_ns = malloc(sizeof(int64_t));
        rk->line_region[0] = 3;
        rk->line_file[0] = strdup("/home/golden/src/assemble.c");
        rk->line_lineno[0] = 42;
        rk->line_function[0] = strdup("assemble");
        rk->line_samples[0] = 7;
        rk->line_time_ns[0] = 7000000;
        rk->ncounters = 1;
        rk->counter_region = malloc(sizeof(int32_t));
        rk->counter_thread = malloc(sizeof(int32_t));
        rk->counter_cpu = malloc(sizeof(int32_t));
        rk->counter_source = malloc(sizeof(int32_t));
        rk->counter_name = malloc(sizeof(char *));
        rk->counter_value = malloc(sizeof(double));
        rk->counter_calls = malloc(sizeof(uint64_t));
        rk->counter_region[0] = 1;
        rk->counter_thread[0] = 0;
        rk->counter_cpu[0] = -1;
        rk->counter_source[0] = 0;
        rk->counter_name[0] = strdup("page-faults");
        rk->counter_value[0] = 12;
        rk->counter_calls[0] = 1;
    } else {
        sp_run_intern_region(run, "main");
        sp_run_intern_region(run, "caf\xE9"); /* Latin-1: bytes kept */
        rk->clock_offset_ns = -2500;
        rk->clock_offset_err_ns = 40;
        static const int64_t tids[] = {4200};
        static const char *const names[] = {"main"};
        h5t_set_threads(rk, 1, tids, names);
        static const h5t_call calls[] = {{0, 1500, 99000, 0, -1}, {0, 2500, 70000, 1, 0}};
        h5t_set_calls(rk, calls, 2);
        sp_kvlist_set(&rk->meta, "hostname", "golden-host-2");
    }
    return run;
}

static int make_small(const char *path)
{
    sp_kvlist meta = {0, 0, NULL};
    static const char *const kv[][2] = {
        {"timestamp", "2026-01-01T12:00:00.000000+00:00"}, {"hostname", "golden-host"},
        {"clock_source", "tsc"}, {"mpi_size", "2"}, {"num_threads", "3"},
        {"note", "caf\xC3\xA9 \xE2\x9C\x93"},
    };
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        sp_kvlist_set(&meta, kv[i][0], kv[i][1]);
    char *tmp = sp_v2_tmp_name(path);
    int rc = sp_v2_final_root(tmp, path, 2, &meta);
    for (int r = 0; r < 2 && rc == 0; r++) {
        sp_run *run = rank_run(r);
        rc = add_rank(tmp, path, run, 0);
        sp_run_free(run);
    }
    if (rc == 0)
        rc = sp_v2_final_publish(tmp, path);
    free(tmp);
    sp_kvlist_free(&meta);
    return rc;
}

/* The child streams rank 0 of a 2-rank job and is killed: a flushed call
 * (solve), a flushed call still open (main), an unflushed call (lost). */
static void killed_child(const char *path)
{
    sp_kvlist meta = {0, 0, NULL};
    sp_kvlist_set(&meta, "timestamp", "2026-01-02T08:00:00.000000+00:00");
    sp_kvlist_set(&meta, "hostname", "golden-host");
    sp_kvlist_set(&meta, "mpi_size", "2");
    sp_kvlist rmeta = {0, 0, NULL};
    sp_kvlist_set(&rmeta, "hostname", "golden-host");
    char *part = sp_v2_part_path(path, 0);
    sp_v2_part *p = NULL;
    sp_v2_part_setup s = {.rank = 0, .rank_meta = &rmeta, .p0_ticks = 1000, .p0_ns = 500,
                          .compress = SP_V2_COMPRESS_DEFLATE};
    sp_v2_claim claim; /* held until _exit: the part is a killed run's */
    if (sp_v2_main_create(path, 2, &meta) != 0 || sp_v2_part_create(part, &s, &p, &claim) != 0)
        _exit(3);
    static const char *const regions[] = {"main", "solve"};
    static const int64_t tid[] = {4100};
    static const char *const tname[] = {"main"};
    sp_v2_batch_rows rows = {.nregions = 2, .region_names = regions, .nthreads = 1,
                             .thread_tids = tid, .thread_names = tname};
    sp_v2_events ev;
    memset(&ev, 0, sizeof ev);
    sp_v2_events_add(&ev, 0, 3000, 0);  /* main begins at 1500 ns */
    sp_v2_events_add(&ev, 0, 5000, 1);  /* solve: 2500 .. 4500 ns */
    sp_v2_events_add(&ev, 0, 9000, -1);
    if (sp_v2_part_append(p, &rows, &ev) != 0 || sp_v2_part_flush(p, 21000, 10500) != 0)
        _exit(3);
    sp_v2_events_clear(&ev);
    sp_v2_events_add(&ev, 0, 30000, 1); /* appended, never flushed */
    sp_v2_part_append(p, NULL, &ev);
    kill(getpid(), SIGKILL);
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    char small[4096], killed[4096];
    h5t_join(small, sizeof small, argv[1], "small.h5");
    h5t_join(killed, sizeof killed, argv[1], "killed.h5");
    if (make_small(small) != 0) {
        fprintf(stderr, "%s\n", sp_last_error());
        return 1;
    }
    pid_t pid = fork();
    if (pid == 0)
        killed_child(killed);
    int st;
    waitpid(pid, &st, 0);
    if (!WIFSIGNALED(st)) {
        fprintf(stderr, "the killed writer failed before its kill\n");
        return 1;
    }
    return 0;
}
