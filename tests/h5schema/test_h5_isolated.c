/* SPDX-License-Identifier: MIT */
/*
 * test_h5_isolated.c - reading in a child process (sp_h5_read_isolated.c)
 * and the run's trip through the pipe (sp_h5_wire.c):
 * - every field of a run with calls, threads, metadata, dropped calls, line
 *   samples, counters and region flags survives the trip;
 * - a truncated stream, or one whose counts lie, is refused without
 *   allocating what it claims;
 * - the golden file read in a child equals the golden file read in-process,
 *   and the child's error (missing file, bad file) comes back as it was;
 * - a child that crashes (SIGSEGV), hangs (killed at the timeout), is
 *   cancelled (killed at once) or sends garbage becomes an error message.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_error.h"
#include "sp_h5.h"
#include "sp_h5_internal.h"
#include "sp_h5_wire.h"
#include "sp_test.h"

static char *dup_s(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

/* The sample run (calls, threads, metadata, dropped calls, line samples,
 * counters) plus what it leaves out: layout, schema version, region flags. */
static sp_run *full_run(void)
{
    sp_run *run = h5t_sample_run();
    run->schema_version = 1;
    if (!run->layout)
        run->layout = dup_s("scope-profiler");
    if (!run->region_flags) {
        run->nregion_flags = 2;
        run->region_flags = calloc(2, sizeof *run->region_flags);
        run->region_flags[1] = SP_REGION_FLAG_TRACED;
    }
    return run;
}

/* Write run (or an error) to a temporary file and decode it back. */
static void trip(const sp_run *run, int status, const char *msg, int *rc, sp_run **out)
{
    *out = NULL;
    *rc = 1;
    char path[] = "/tmp/sp-wire-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    unlink(path);
    ASSERT_EQ_I(sp__h5_wire_write(fd, run, status, msg), 0);
    lseek(fd, 0, SEEK_SET);
    sp__read_budget b;
    ASSERT_EQ_I(sp__read_budget_begin(&b, "trip", -1), 0);
    bool timed_out = true;
    *rc = sp__h5_wire_read(fd, -1, "trip", 10, out, &timed_out);
    sp__read_budget_end(&b);
    close(fd);
    ASSERT(!timed_out);
}

static void test_every_field_survives(void)
{
    sp_run *run = full_run();
    int rc;
    sp_run *back;
    trip(run, 0, NULL, &rc, &back);
    ASSERT_EQ_I(rc, 0);
    ASSERT(back != NULL);
    const char *diff = h5t_runs_differ(run, back);
    ASSERT_MSG(diff == NULL, "%s", diff ? diff : "");
    ASSERT_EQ_I(back->schema_version, 1);
    ASSERT_STREQ(back->layout, "scope-profiler");
    ASSERT_EQ_U(back->nregion_flags, run->nregion_flags);
    for (size_t g = 0; g < run->nregion_flags; g++)
        ASSERT_EQ_I(back->region_flags[g], run->region_flags[g]);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *a = &run->ranks[r], *b = &back->ranks[r];
        ASSERT_EQ_U(b->nlines, a->nlines);
        for (size_t i = 0; i < a->nlines; i++) {
            ASSERT_EQ_I(b->line_region[i], a->line_region[i]);
            ASSERT_STREQ(b->line_file[i], a->line_file[i]);
            ASSERT_EQ_I(b->line_lineno[i], a->line_lineno[i]);
            ASSERT_STREQ(b->line_function[i], a->line_function[i]);
            ASSERT_EQ_U(b->line_samples[i], a->line_samples[i]);
            ASSERT_EQ_I(b->line_time_ns[i], a->line_time_ns[i]);
        }
        ASSERT_EQ_U(b->ncounters, a->ncounters);
        for (size_t i = 0; i < a->ncounters; i++) {
            ASSERT_STREQ(b->counter_name[i], a->counter_name[i]);
            ASSERT_EQ_I(b->counter_region[i], a->counter_region[i]);
            ASSERT_EQ_I(b->counter_thread[i], a->counter_thread[i]);
            ASSERT_EQ_I(b->counter_cpu[i], a->counter_cpu[i]);
            ASSERT_EQ_I(b->counter_source[i], a->counter_source[i]);
            ASSERT(b->counter_value[i] == a->counter_value[i]);
            ASSERT_EQ_U(b->counter_calls[i], a->counter_calls[i]);
        }
    }
    ASSERT(run->ranks[0].nlines > 0 && run->ranks[0].ncounters > 0); /* both were tried */
    sp_run_free(back);
    sp_run_free(run);
}

static void test_error_is_passed_on(void)
{
    int rc;
    sp_run *back;
    trip(NULL, SP_EVERSION, "'x.h5' was written with schema version 9", &rc, &back);
    ASSERT(back == NULL);
    ASSERT_EQ_I(rc, SP_EVERSION);
    ASSERT_STREQ(sp_last_error(), "'x.h5' was written with schema version 9");
}

/* Every prefix of a valid stream is refused (never a crash or a hang). */
static void test_truncated_streams_are_refused(void)
{
    sp_run *run = full_run();
    char path[] = "/tmp/sp-wire-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    ASSERT_EQ_I(sp__h5_wire_write(fd, run, 0, NULL), 0);
    off_t size = lseek(fd, 0, SEEK_END);
    ASSERT(size > 100);
    char *all = malloc((size_t)size);
    ASSERT_EQ_I(pread(fd, all, (size_t)size, 0), size);
    close(fd);
    unlink(path);
    for (off_t cut = 0; cut < size; cut += 13) {
        char p2[] = "/tmp/sp-wire-XXXXXX";
        int f2 = mkstemp(p2);
        unlink(p2);
        ASSERT_EQ_I(write(f2, all, (size_t)cut), cut);
        lseek(f2, 0, SEEK_SET);
        sp__read_budget b;
        sp__read_budget_begin(&b, "cut", -1);
        sp_run *out = NULL;
        bool to;
        int rc = sp__h5_wire_read(f2, -1, "cut", 10, &out, &to);
        sp__read_budget_end(&b);
        close(f2);
        ASSERT_MSG(rc < 0 && out == NULL, "a stream cut at %lld bytes was accepted",
                   (long long)cut);
    }
    free(all);
    sp_run_free(run);
}

/* A stream that claims 2^40 regions is refused by the budget, not malloc'ed. */
static void test_lying_counts_are_refused(void)
{
    char path[] = "/tmp/sp-wire-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    uint32_t head[2] = {0x53505752u, 3}; /* magic, wire version */
    int32_t status = 0, schema = 1;
    uint64_t zero = 0, layout_len = 1, nregions = (uint64_t)1 << 30;
    ASSERT_EQ_I(write(fd, head, sizeof head), (ssize_t)sizeof head);
    ASSERT_EQ_I(write(fd, &status, 4), 4);
    ASSERT_EQ_I(write(fd, &zero, 8), 8); /* message "" */
    ASSERT_EQ_I(write(fd, &schema, 4), 4);
    ASSERT_EQ_I(write(fd, &layout_len, 8), 8);
    ASSERT_EQ_I(write(fd, "x", 1), 1);
    ASSERT_EQ_I(write(fd, &zero, 8), 8); /* no metadata */
    ASSERT_EQ_I(write(fd, &nregions, 8), 8);
    lseek(fd, 0, SEEK_SET);
    setenv(SP_READ_LIMIT_ENV, "64M", 1);
    sp__read_budget b;
    ASSERT_EQ_I(sp__read_budget_begin(&b, "lie", -1), 0);
    sp_run *out = NULL;
    bool to;
    int rc = sp__h5_wire_read(fd, -1, "lie", 10, &out, &to);
    sp__read_budget_end(&b);
    unsetenv(SP_READ_LIMIT_ENV);
    close(fd);
    ASSERT(out == NULL);
    ASSERT_EQ_I(rc, SP_ENOMEM);
    ASSERT_CONTAINS(sp_last_error(), "over the read limit of 64.0 MiB");
}

static void test_golden_file_in_a_child(void)
{
    const char *golden = SP_TEST_DATA_DIR "/golden/v1/small.h5";
    int st = 1;
    sp_run *a = sp_h5_read(golden, &st);
    ASSERT_EQ_I(st, 0);
    sp_run *b = sp_h5_read_isolated(golden, NULL, &st);
    ASSERT_MSG(st == 0 && b != NULL, "%s", sp_last_error());
    const char *diff = h5t_runs_differ(a, b);
    ASSERT_MSG(diff == NULL, "%s", diff ? diff : "");
    ASSERT_STREQ(b->source_path, golden);
    ASSERT_STREQ(b->layout, a->layout);
    sp_run_free(a);
    sp_run_free(b);

    b = sp_h5_read_isolated(SP_TEST_DATA_DIR "/no-such-file.h5", NULL, &st);
    ASSERT(b == NULL);
    ASSERT_EQ_I(st, SP_ENOENT);
    ASSERT_CONTAINS(sp_last_error(), "no-such-file.h5");
    b = sp_h5_read_isolated(SP_TEST_DATA_DIR "/README.md", NULL, &st);
    ASSERT(b == NULL);
    ASSERT_EQ_I(st, SP_EFORMAT);
    ASSERT_CONTAINS(sp_last_error(), "is not an HDF5 file");
}

/* The parent's side when the child misbehaves: a helper that crashes, one
 * that never answers, one that sends garbage. */
static void test_crash_and_hang_become_errors(void)
{
    const char *golden = SP_TEST_DATA_DIR "/golden/v1/small.h5";
    int st = 0;
    const char *const crash[] = {"/bin/sh", "-c", "kill -SEGV $$", "sh", NULL};
    sp_h5_isolation how = {crash, 10, -1};
    sp_run *r = sp_h5_read_isolated(golden, &how, &st);
    ASSERT(r == NULL);
    ASSERT_EQ_I(st, SP_EFORMAT);
    ASSERT_CONTAINS(sp_last_error(), "crashed the HDF5 library (a segmentation fault)");

    const char *const hang[] = {"/bin/sh", "-c", "exec sleep 30", "sh", NULL};
    how = (sp_h5_isolation){hang, 1, -1};
    r = sp_h5_read_isolated(golden, &how, &st);
    ASSERT(r == NULL);
    ASSERT_EQ_I(st, SP_EIO);
    ASSERT_CONTAINS(sp_last_error(), "took longer than 1 s and was stopped");
    ASSERT_CONTAINS(sp_last_error(), SP_READ_TIMEOUT_ENV);

    /* Cancelled (the viewer's load replaced or its window closed): the
     * child is killed at once, long before its 30 s timeout. */
    int cancel[2];
    ASSERT_EQ_I(pipe(cancel), 0);
    ASSERT_EQ_I(write(cancel[1], "x", 1), 1);
    how = (sp_h5_isolation){hang, 30, cancel[0]};
    r = sp_h5_read_isolated(golden, &how, &st);
    close(cancel[0]);
    close(cancel[1]);
    ASSERT(r == NULL);
    ASSERT_CONTAINS(sp_last_error(), "reading was cancelled");

    const char *const garbage[] = {"/bin/sh", "-c", "echo hello", "sh", NULL};
    how = (sp_h5_isolation){garbage, 10, -1};
    r = sp_h5_read_isolated(golden, &how, &st);
    ASSERT(r == NULL);
    ASSERT_CONTAINS(sp_last_error(), "sent back a damaged run");

    const char *const missing[] = {"/nonexistent/helper", NULL};
    how = (sp_h5_isolation){missing, 10, -1};
    r = sp_h5_read_isolated(golden, &how, &st);
    ASSERT(r == NULL);
    ASSERT_CONTAINS(sp_last_error(), "/nonexistent/helper");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(test_every_field_survives);
    RUN(test_error_is_passed_on);
    RUN(test_truncated_streams_are_refused);
    RUN(test_lying_counts_are_refused);
    RUN(test_golden_file_in_a_child);
    RUN(test_crash_and_hang_become_errors);
    return sp_test_summary();
}
