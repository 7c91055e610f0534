/* SPDX-License-Identifier: MIT */
/*
 * test_h5py_reads_with_schema_md.c - h5py, knowing only SCHEMA.md, reads
 * files of schema versions 1 and 2 and finds the counts, totals, call paths
 * and metadata this test computed from the run in memory (or from the run
 * our reader found in the file). The Python code is the snippets of
 * SCHEMA.md, kept identical in read_with_schema_md.py (version 1) and
 * read_v2_with_schema_md.py (version 2). Version 2 files: one written from
 * memory, the golden files (finished, and killed), and runs the recorder
 * streamed: finished, and killed with SIGKILL while recording.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "h5test_util.h"
#include "scope_profiler.h"
#include "sp_h5.h"
#include "sp_sched.h"
#include "sp_h5_v2.h"
#include "sp_test.h"

#define SCRIPT SP_H5_TEST_SOURCE_DIR "/read_with_schema_md.py"
#define SCRIPT_V2 SP_H5_TEST_SOURCE_DIR "/read_v2_with_schema_md.py"
#define BEGIN_MARK "# --- begin SCHEMA.md snippet ---"
#define END_MARK "# --- end SCHEMA.md snippet ---"
#define BEGIN_MARK_V2 "# --- begin SCHEMA.md v2 snippet ---"
#define END_MARK_V2 "# --- end SCHEMA.md v2 snippet ---"

static char dir[4096];

/* The text between the markers (a pointer into s, terminated in place). */
static char *snippet(char *s, const char *begin, const char *end)
{
    char *b = s ? strstr(s, begin) : NULL;
    char *e = b ? strstr(b, end) : NULL;
    if (!e)
        return NULL;
    *e = '\0';
    return b;
}

static void same_snippet(const char *script, const char *begin, const char *end)
{
    char *md = h5t_read_text(SP_SCHEMA_MD), *py = h5t_read_text(script);
    ASSERT_MSG(md && py, "cannot read %s or %s", SP_SCHEMA_MD, script);
    char *a = snippet(md, begin, end), *b = snippet(py, begin, end);
    ASSERT_MSG(a, "SCHEMA.md has no snippet markers %s", begin);
    ASSERT_MSG(b, "%s has no snippet markers", script);
    ASSERT(a && strlen(a) > 500); /* the real snippet, not an empty block */
    ASSERT_MSG(a && b && strcmp(a, b) == 0, "the snippet in SCHEMA.md and in %s differ", script);
    free(md);
    free(py);
}

static void test_snippet_matches_schema_md(void) { same_snippet(SCRIPT, BEGIN_MARK, END_MARK); }

static void test_v2_snippet_matches_schema_md(void)
{
    same_snippet(SCRIPT_V2, BEGIN_MARK_V2, END_MARK_V2);
}

/* Facts about run, computed from the model in memory. */
static int write_expected(const sp_run *run, const char *path, int corrupt)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t g = 0; g < run->nregions; g++) {
        uint64_t calls = 0, dropped = 0;
        int64_t total = 0;
        for (size_t r = 0; r < run->nranks; r++) {
            const sp_rank_data *rk = &run->ranks[r];
            for (size_t i = 0; i < rk->ncalls; i++)
                if (rk->region[i] == (int32_t)g) {
                    calls++;
                    total += rk->end_ns[i] - rk->start_ns[i];
                }
            dropped += rk->dropped ? rk->dropped[g] : 0;
        }
        if (corrupt && g == 1)
            total += 1;
        fprintf(f, "region\t%s\t%llu\t%lld\t%llu\n", run->region_names[g],
                (unsigned long long)calls, (long long)total, (unsigned long long)dropped);
    }
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        /* Every call of small runs; about 50 spread over large ones (h5py
         * rebuilds a rank's calls for every path it is asked). */
        size_t step = rk->ncalls > 200 ? rk->ncalls / 50 : 1;
        for (size_t i = 0; i < rk->ncalls; i += step) {
            /* The chain of parents, outermost first. */
            int64_t chain[64];
            size_t depth = 0;
            for (int64_t c = (int64_t)i; c >= 0 && depth < 64; c = rk->parent[c])
                chain[depth++] = c;
            fprintf(f, "path\t%zu\t%zu\t", r, i);
            for (size_t d = depth; d-- > 0;)
                fprintf(f, "%s%s", run->region_names[rk->region[chain[d]]], d ? " > " : "");
            fputc('\n', f);
        }
    }
    for (size_t m = 0; m < run->meta.n; m++)
        fprintf(f, "meta\t%s\t%s\n", run->meta.items[m].key, run->meta.items[m].value);
    return fclose(f);
}

static int run_script_as(const char *script, const char *h5, const char *expected)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", SP_PYTHON3, script, h5, expected);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run_script(const char *h5, const char *expected)
{
    return run_script_as(SCRIPT, h5, expected);
}

/* h5py reads a v2 file as our reader does (the facts from our reader). */
static int v2_agrees(const char *h5, int corrupt)
{
    char expected[4096];
    h5t_join(expected, sizeof expected, dir, "v2.tsv");
    int st;
    sp_run *run = sp_h5_read(h5, &st);
    if (!run) {
        fprintf(stderr, "%s\n", sp_last_error());
        return -1;
    }
    /* Keys our reader adds to unfinished files are not in the file. */
    sp_kvlist meta = run->meta;
    sp_kvlist kept = {0, 0, NULL};
    for (size_t i = 0; i < meta.n; i++)
        if (strcmp(meta.items[i].key, "file_state") && strcmp(meta.items[i].key, "incomplete_ranks"))
            sp_kvlist_set(&kept, meta.items[i].key, meta.items[i].value);
    run->meta = kept;
    int rc = write_expected(run, expected, corrupt);
    FILE *f = rc == 0 ? fopen(expected, "a") : NULL;
    for (size_t r = 0; f && r < run->nranks; r++) { /* the v2 facts: waits for a CPU */
        sp_sched_summary s;
        sp_sched_rank_summary(&run->ranks[r], &s);
        if (s.measured)
            fprintf(f, "wait\t%zu\t%.17g\n", r, s.wait_share);
        else
            fprintf(f, "wait\t%zu\tnone\n", r);
    }
    if (!f || fclose(f) != 0)
        rc = -1;
    rc = rc == 0 ? run_script_as(SCRIPT_V2, h5, expected) : -1;
    sp_kvlist_free(&kept);
    run->meta = meta;
    sp_run_free(run);
    return rc;
}

static void test_h5py_reads_v2_from_memory(void)
{
    char h5[4096];
    h5t_join(h5, sizeof h5, dir, "sample-v2.h5");
    sp_run *run = h5t_sample_run();
    ASSERT_MSG(sp_h5_write_v2(run, h5) == 0, "%s", sp_last_error());
    ASSERT_EQ_I(v2_agrees(h5, 0), 0);
    ASSERT_EQ_I(v2_agrees(h5, 1), 1); /* the check can fail */
    sp_run_free(run);
}

static void test_h5py_reads_the_v2_golden_files(void)
{
    ASSERT_EQ_I(v2_agrees(SP_TEST_DATA_DIR "/golden/v2/small.h5", 0), 0);
    ASSERT_EQ_I(v2_agrees(SP_TEST_DATA_DIR "/golden/v2/killed.h5", 0), 0);
}

/* A recording: 3 threads, nesting, names with odd bytes, ~50k calls. */
static void *worker(void *arg)
{
    long id = (long)arg;
    char name[32];
    snprintf(name, sizeof name, "work %ld \xE9", id); /* a Latin-1 byte */
    sp_region *w = sp_region_get(name), *inner = sp_region_get("inner");
    for (int i = 0; i < 5000; i++) {
        sp_region_begin(w);
        for (int k = 0; k < 3; k++) {
            sp_region_begin(inner);
            sp_region_end(inner);
        }
        sp_region_end(w);
    }
    return NULL;
}

static void record(const char *path, bool killed)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    o.flush_interval = 0.05;
    if (sp_setup(&o) != 0)
        _exit(3);
    sp_metadata_set("case", killed ? "killed" : "finished");
    SP_SCOPE("main")
    {
        pthread_t t[3];
        for (long i = 0; i < 3; i++)
            pthread_create(&t[i], NULL, worker, (void *)i);
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
        if (killed) { /* flushed twice over, then killed with "main" open */
            usleep(300000);
            kill(getpid(), SIGKILL);
        }
    }
    _exit(sp_finalize(false, NULL) == 0 ? 0 : 4);
}

static void test_h5py_reads_recorded_runs(void)
{
    char h5[4096];
    for (int killed = 0; killed < 2; killed++) {
        h5t_join(h5, sizeof h5, dir, killed ? "killed-v2.h5" : "recorded-v2.h5");
        pid_t pid = fork();
        if (pid == 0)
            record(h5, killed);
        int st;
        waitpid(pid, &st, 0);
        if (killed)
            ASSERT_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the recording was not killed");
        else
            ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the recording failed");
        int rc;
        sp_run *run = sp_h5_read(h5, &rc);
        ASSERT_MSG(run, "%s", sp_last_error());
        ASSERT_EQ_U(run->ranks[0].ncalls, 1 + 3 * 5000 * 4); /* every call is there */
        ASSERT((sp_kvlist_get(&run->meta, "file_state") != NULL) == (killed != 0));
        sp_run_free(run);
        ASSERT_EQ_I(v2_agrees(h5, 0), 0);
    }
}

static void test_h5py_reads_our_file(void)
{
    char h5[4096], expected[4096];
    h5t_join(h5, sizeof h5, dir, "sample.h5");
    h5t_join(expected, sizeof expected, dir, "expected.tsv");
    sp_run *run = h5t_sample_run();
    ASSERT_MSG(sp_h5_write(run, h5) == 0, "%s", sp_last_error());
    ASSERT(write_expected(run, expected, 0) == 0);
    ASSERT_EQ_I(run_script(h5, expected), 0);

    /* The check can fail: one wrong total must be reported. */
    ASSERT(write_expected(run, expected, 1) == 0);
    ASSERT_EQ_I(run_script(h5, expected), 1);
    sp_run_free(run);
}

static void test_h5py_reads_the_golden_file(void)
{
    /* The golden file too, against the run our reader finds in it. */
    char expected[4096];
    h5t_join(expected, sizeof expected, dir, "golden.tsv");
    int st;
    sp_run *run = sp_h5_read(SP_TEST_DATA_DIR "/golden/v1/small.h5", &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT(write_expected(run, expected, 0) == 0);
    ASSERT_EQ_I(run_script(SP_TEST_DATA_DIR "/golden/v1/small.h5", expected), 0);
    sp_run_free(run);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s", h5t_tmpdir("h5py"));
    RUN(test_snippet_matches_schema_md);
    RUN(test_h5py_reads_our_file);
    RUN(test_h5py_reads_the_golden_file);
    RUN(test_v2_snippet_matches_schema_md);
    RUN(test_h5py_reads_v2_from_memory);
    RUN(test_h5py_reads_the_v2_golden_files);
    RUN(test_h5py_reads_recorded_runs);
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
