/* SPDX-License-Identifier: MIT */
/*
 * test_h5_v2.c - schema version 2: in-memory runs written and read back
 * exactly; names that are not UTF-8; the files of a recording (main file,
 * part in SWMR mode) read while open, after a kill (a child that exits
 * without closing anything), and turned into the finished file.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_h5_v2.h"
#include "sp_test.h"

static sp_run *read_back(const char *path)
{
    int st = 0;
    sp_run *run = sp_h5_read(path, &st);
    if (!run)
        fprintf(stderr, "read %s: %s\n", path, sp_last_error());
    return run;
}

static void test_sample_run_roundtrip(void)
{
    sp_run *run = h5t_sample_run();
    char path[4096];
    h5t_join(path, sizeof path, h5t_tmpdir("v2"), "sample.h5");
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    sp_run *back = read_back(path);
    ASSERT(back);
    ASSERT_EQ_I(back->schema_version, 2);
    ASSERT_STREQ(back->layout, "scope-profiler");
    const char *d = h5t_runs_differ(run, back);
    ASSERT_MSG(!d, "%s", d);
    ASSERT(sp_kvlist_get(&back->meta, "file_state") == NULL); /* a finished file */
    sp_run_free(back);
    sp_run_free(run);
}

static void test_synthetic_roundtrip(void)
{
    sp_run *run = h5t_synthetic_run(200000, 37, 4);
    char path[4096];
    h5t_join(path, sizeof path, h5t_tmpdir("v2"), "synthetic.h5");
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    sp_run *back = read_back(path);
    ASSERT(back);
    const char *d = h5t_runs_differ(run, back);
    ASSERT_MSG(!d, "%s", d);
    sp_run_free(back);
    sp_run_free(run);
}

static void test_names_that_are_not_utf8(void)
{
    sp_run *run = sp_run_new();
    ASSERT(run && sp_run_set_ranks(run, 1) == 0);
    ASSERT_EQ_I(sp_run_intern_region(run, "caf\xE9 latin-1"), 0); /* Latin-1 e-acute */
    ASSERT_EQ_I(sp_run_intern_region(run, "ok \xE2\x9C\x93"), 1);
    static const int64_t tids[] = {7};
    static const char *const names[] = {"w\xFFrker"};
    h5t_set_threads(&run->ranks[0], 1, tids, names);
    static const h5t_call calls[] = {{0, 10, 100, 0, -1}, {0, 20, 30, 1, 0}};
    h5t_set_calls(&run->ranks[0], calls, 2);
    ASSERT_EQ_I(sp_kvlist_set(&run->meta, "note", "bad \x80 byte"), 0);
    char path[4096];
    h5t_join(path, sizeof path, h5t_tmpdir("v2"), "bytes.h5");
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    sp_run *back = read_back(path);
    ASSERT(back);
    ASSERT_STREQ(back->region_names[0], "caf\\xe9 latin-1");
    ASSERT_STREQ(back->region_names[1], "ok \xE2\x9C\x93");
    ASSERT_STREQ(back->ranks[0].threads[0].name, "w\\xffrker");
    ASSERT_STREQ(sp_kvlist_get(&back->meta, "note"), "bad \\x80 byte");
    ASSERT_EQ_U(back->ranks[0].ncalls, 2);
    sp_run_free(back);
    sp_run_free(run);
}

/* ---- the files of a recording ---- */

static void fill_rows(sp_v2_batch_rows *rows, const char *const *regions, size_t nregions)
{
    static const int64_t tid[] = {4242};
    static const char *const tname[] = {"main"};
    memset(rows, 0, sizeof *rows);
    rows->nregions = nregions;
    rows->region_names = regions;
    rows->nthreads = 1;
    rows->thread_tids = tid;
    rows->thread_names = tname;
}

/* A recording of `calls` calls of "outer > inner x2" on one thread, with a
 * clock of 2 ticks per ns; flushed after every `per_flush` calls. The last
 * outer call is left open. Returns 0 or an SP_E* code. */
static int record(const char *path, int calls, int per_flush, bool close_part)
{
    sp_kvlist meta = {0, 0, NULL};
    sp_kvlist_set(&meta, "hostname", "v2-test");
    int rc = sp_v2_main_create(path, 1, &meta);
    sp_kvlist_free(&meta);
    if (rc)
        return rc;
    char *part_path = sp_v2_part_path(path, 0);
    sp_v2_part_setup s = {.rank = 0, .p0_ticks = 1000, .p0_ns = 500,
                          .compress = SP_V2_COMPRESS_AUTO};
    sp_v2_part *p = NULL;
    sp_v2_claim claim;
    rc = sp_v2_part_create(part_path, &s, &p, &claim);
    free(part_path);
    if (claim.fd >= 0)
        close(claim.fd); /* this test's readers do not ask whether it is live */
    if (rc)
        return rc;
    static const char *const names[] = {"outer", "inner"};
    sp_v2_events ev;
    memset(&ev, 0, sizeof ev);
    int64_t t = 2000;
    bool first = true;
    for (int i = 0; i < calls && rc == 0; i++) {
        sp_v2_events_add(&ev, 0, t, 0);
        sp_v2_events_add(&ev, 0, t += 10, 1);
        sp_v2_events_add(&ev, 0, t += 100, -1);
        sp_v2_events_add(&ev, 0, t += 10, 1);
        sp_v2_events_add(&ev, 0, t += 100, -1);
        if (i + 1 < calls)
            sp_v2_events_add(&ev, 0, t += 10, -1);
        t += 10;
        if ((i + 1) % per_flush == 0 || i + 1 == calls) {
            sp_v2_batch_rows rows;
            fill_rows(&rows, names, 2);
            if (!first)
                memset(&rows, 0, sizeof rows); /* the rows went with the first batch */
            first = false;
            rc = sp_v2_part_append(p, &rows, &ev);
            if (rc == 0)
                rc = sp_v2_part_flush(p, 1000 + 2 * (t - 1000), 500 + (t - 1000));
            sp_v2_events_clear(&ev);
        }
    }
    sp_v2_events_free(&ev);
    if (close_part)
        rc = rc ? rc : sp_v2_part_close(p);
    return rc;
}

static void check_recording(const char *path, size_t outer_calls)
{
    sp_run *run = read_back(path);
    ASSERT(run);
    if (!run)
        return;
    ASSERT_EQ_I(run->schema_version, 2);
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "hostname"), "v2-test");
    ASSERT(sp_kvlist_get(&run->meta, "file_state") != NULL);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 3 * outer_calls);
    ASSERT_EQ_U(rk->nthreads, 1);
    ASSERT_STREQ(rk->threads[0].name, "main");
    /* 2 ticks per ns: an inner call of 100 ticks lasts 50 ns */
    for (size_t i = 0; i < rk->ncalls; i++) {
        if (rk->region[i] == 1)
            ASSERT_EQ_I(rk->end_ns[i] - rk->start_ns[i], 50);
        else
            ASSERT_EQ_I(rk->parent[i], -1);
    }
    sp_run_free(run);
}

static void test_recording_killed_and_open(void)
{
    char path[4096];
    const char *dir = h5t_tmpdir("v2");
    h5t_join(path, sizeof path, dir, "killed.h5");
    /* A child records 3 flushes and is killed with the part still open. */
    pid_t pid = fork();
    if (pid == 0) {
        int rc = record(path, 300, 100, false);
        if (rc == 0)
            kill(getpid(), SIGKILL);
        _exit(3);
    }
    int status;
    waitpid(pid, &status, 0);
    ASSERT_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child recorded nothing");
    check_recording(path, 300);

    /* Closed parts (a run that never finalized) read the same way. */
    h5t_join(path, sizeof path, dir, "unfinished.h5");
    ASSERT_EQ_I(record(path, 50, 7, true), 0);
    check_recording(path, 50);
}

static void test_recording_becomes_finished_file(void)
{
    char path[4096];
    h5t_join(path, sizeof path, h5t_tmpdir("v2"), "final.h5");
    ASSERT_EQ_I(record(path, 40, 8, true), 0);
    sp_run *streamed = read_back(path);
    ASSERT(streamed);
    /* The finished file: the part's events copied, plus one more call. */
    sp_run *skel = sp_run_new();
    ASSERT(skel && sp_run_set_ranks(skel, 1) == 0);
    sp_run_intern_region(skel, "outer");
    sp_run_intern_region(skel, "inner");
    static const int64_t tid[] = {4242};
    static const char *const tname[] = {"main"};
    h5t_set_threads(&skel->ranks[0], 1, tid, tname);
    sp_kvlist_set(&skel->meta, "hostname", "v2-test-final");
    sp_v2_events extra;
    memset(&extra, 0, sizeof extra);
    int64_t t_last = 2000 + 40 * 240 - 10;
    sp_v2_events_add(&extra, 0, t_last, -1); /* closes the last outer call */
    char *tmp = sp_v2_tmp_name(path), *part = sp_v2_part_path(path, 0);
    int64_t ticks[2] = {1000, 1000 + 2 * 40 * 240}, ns[2] = {500, 500 + 40 * 240};
    sp_v2_rank_source src = {.run = skel, .r = 0, .part_path = part, .extra = &extra,
                             .clock_ticks = ticks, .clock_ns = ns, .nclock = 2};
    ASSERT_MSG(sp_v2_final_root(tmp, path, 1, &skel->meta) == 0, "%s", sp_last_error());
    ASSERT_MSG(sp_v2_final_rank(tmp, path, &src) == 0, "%s", sp_last_error());
    ASSERT_MSG(sp_v2_final_publish(tmp, path) == 0, "%s", sp_last_error());
    unlink(part);
    sp_run *fin = read_back(path);
    ASSERT(fin);
    ASSERT(sp_kvlist_get(&fin->meta, "file_state") == NULL);
    ASSERT_STREQ(sp_kvlist_get(&fin->meta, "hostname"), "v2-test-final");
    ASSERT_EQ_U(fin->ranks[0].ncalls, streamed->ranks[0].ncalls);
    for (size_t i = 0; i < fin->ranks[0].ncalls; i++)
        ASSERT_EQ_I(fin->ranks[0].start_ns[i], streamed->ranks[0].start_ns[i]);
    free(tmp);
    free(part);
    sp_v2_events_free(&extra);
    sp_run_free(fin);
    sp_run_free(streamed);
    sp_run_free(skel);
}

int main(void)
{
    RUN(test_sample_run_roundtrip);
    RUN(test_synthetic_roundtrip);
    RUN(test_names_that_are_not_utf8);
    RUN(test_recording_killed_and_open);
    RUN(test_recording_becomes_finished_file);
    int failed = sp_test_summary();
    h5t_cleanup(failed);
    return failed;
}
