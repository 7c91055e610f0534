/* SPDX-License-Identifier: MIT */
/*
 * test_h5py_reads_with_schema_md.c - h5py, knowing only SCHEMA.md, reads a
 * file our writer wrote and finds the counts, totals, call paths and
 * metadata this test computed from the run in memory. The Python code is
 * the snippet of SCHEMA.md, kept identical in read_with_schema_md.py.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_test.h"

#define SCRIPT SP_H5_TEST_SOURCE_DIR "/read_with_schema_md.py"
#define BEGIN_MARK "# --- begin SCHEMA.md snippet ---"
#define END_MARK "# --- end SCHEMA.md snippet ---"

static char dir[4096];

/* The text between the markers (a pointer into s, terminated in place). */
static char *snippet(char *s)
{
    char *b = s ? strstr(s, BEGIN_MARK) : NULL;
    char *e = b ? strstr(b, END_MARK) : NULL;
    if (!e)
        return NULL;
    *e = '\0';
    return b;
}

static void test_snippet_matches_schema_md(void)
{
    char *md = h5t_read_text(SP_SCHEMA_MD), *py = h5t_read_text(SCRIPT);
    ASSERT_MSG(md && py, "cannot read %s or %s", SP_SCHEMA_MD, SCRIPT);
    char *a = snippet(md), *b = snippet(py);
    ASSERT_MSG(a, "SCHEMA.md has no snippet markers");
    ASSERT_MSG(b, "%s has no snippet markers", SCRIPT);
    ASSERT(strlen(a) > 500); /* the real snippet, not an empty block */
    ASSERT_MSG(strcmp(a, b) == 0, "the snippet in SCHEMA.md and in %s differ", SCRIPT);
    free(md);
    free(py);
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
        for (size_t i = 0; i < rk->ncalls; i++) {
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

static int run_script(const char *h5, const char *expected)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", SP_PYTHON3, SCRIPT, h5, expected);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
