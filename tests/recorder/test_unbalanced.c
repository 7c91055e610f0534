/* SPDX-License-Identifier: MIT */
/* test_unbalanced.c - misuse never crashes or corrupts: ends without begins,
 * mismatched ends, calls left open, finalize without setup, and calls
 * dropped when no event chunk can be had (injected failures). */
#include "rec_util.h"
#include "sp_recorder.h"
#include "sp_stream.h"
#include "sp_test.h"

static void test_finalize_without_setup(void)
{
    rec_clear_env();
    sp_run *run = (sp_run *)&run;
    ASSERT_EQ_I(sp_finalize(true, &run), SP_ESTATE);
    ASSERT(run == NULL);
    ASSERT_CONTAINS(sp_last_error(), "sp_setup");
}

static void test_end_without_begin(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/unmatched.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *a = sp_region_get("orphan_end"), *b = sp_region_get("fine");
    sp_region_end(a);
    sp_region_begin(b);
    sp_region_end(a); /* not open: ignored, b stays open */
    sp_region_end(b);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), SP_EUNBALANCED);
    ASSERT_CONTAINS(sp_last_error(), "2 end(s) without a matching begin: orphan_end");
    ASSERT(rec_exists(path)); /* the file is still written */
    ASSERT_EQ_U(run->ranks[0].ncalls, 1);
    ASSERT_EQ_U(rec_count(run, "fine"), 1);
    sp_run_free(run);
    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "%s", sp_last_error());
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(back, "fine")), 1);
    sp_run_free(back);
    unlink(path);
    rmdir(dir);
}

static void test_mismatched_end(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *a = sp_region_get("mm_outer"), *b = sp_region_get("mm_inner"),
              *c = sp_region_get("mm_after");
    sp_region_begin(a);
    sp_region_begin(b);
    sp_region_end(a); /* b is on top: closes b, then a */
    sp_region_begin(c);
    sp_region_end(c);
    sp_region_end(b); /* no longer open */
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), SP_EUNBALANCED);
    const char *msg = sp_last_error();
    ASSERT_CONTAINS(msg, "1 call(s) closed by a mismatched end: 'mm_outer' ended while "
                         "'mm_inner' was open");
    ASSERT_CONTAINS(msg, "1 end(s) without a matching begin: mm_inner");
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 3);
    long ia = rec_call(run, "mm_outer", 0), ib = rec_call(run, "mm_inner", 0),
         ic = rec_call(run, "mm_after", 0);
    ASSERT_EQ_I(rk->parent[ib], ia);
    ASSERT_EQ_I(rk->end_ns[ib], rk->end_ns[ia]); /* closed at the same instant */
    ASSERT_EQ_I(rk->parent[ic], -1);
    sp_run_free(run);
}

static void test_open_at_finalize(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/open.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *a = sp_region_get("left_open"), *b = sp_region_get("left_open_inner");
    sp_region_begin(a);
    sp_region_begin(b);
    int64_t d[2];
    ASSERT_EQ_U(sp_region_durations_ns(a, d, 2), 0); /* open calls have no duration */
    ASSERT_EQ_U(sp_region_num_calls(a), 1);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), SP_EUNBALANCED);
    ASSERT_CONTAINS(sp_last_error(), "2 call(s) still open at finalize");
    ASSERT_CONTAINS(sp_last_error(), "left_open, left_open_inner");
    ASSERT(rec_exists(path));
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 2);
    for (size_t i = 0; i < 2; i++)
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
    ASSERT_EQ_I(rk->parent[rec_call(run, "left_open_inner", 0)], rec_call(run, "left_open", 0));
    sp_run_free(run);
    /* Ends arriving after finalize are harmless. */
    sp_region_end(b);
    sp_region_end(a);
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(a);
    sp_region_end(a);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0); /* the new session is clean */
    unlink(path);
    rmdir(dir);
}

static void finalize_quiet(void *arg) { *(int *)arg = sp_finalize(false, NULL); }
static void finalize_loud(void *arg) { *(int *)arg = sp_finalize(true, NULL); }

static void test_warnings_only_when_verbose(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    char out[16384];
    int rc = 0;
    sp_region *a = sp_region_get("warn_open");

    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(a);
    rec_capture_stdout(finalize_quiet, &rc, out, sizeof out);
    ASSERT_EQ_I(rc, SP_EUNBALANCED);
    ASSERT_STREQ(out, "");

    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(a);
    rec_capture_stdout(finalize_loud, &rc, out, sizeof out);
    ASSERT_EQ_I(rc, SP_EUNBALANCED);
    ASSERT_CONTAINS(out, "warning: unbalanced regions: 1 call(s) still open");
    ASSERT_CONTAINS(out, "warn_open");
}

/* Events a fresh chunk takes before the thread needs another one. */
#define CHUNK_HOT (SP__CHUNK_EVENTS - SP__CHUNK_RESERVE)

static void test_dropped_calls(void)
{
    /* No chunk to be had (injected): new calls are counted as dropped, the
     * calls recorded before keep their ends (the chunk's reserve), and the
     * thread records again once chunks come back. */
    rec_clear_env();
    sp_options o = rec_mem_options();
    o.buffer_limit = 4;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *outer = sp_region_get("drop_outer"), *d = sp_region_get("dropped");
    sp_region_begin(outer); /* the thread's first chunk */
    sp__test_fail_alloc_after(0);
    const int pairs = 10000; /* more than one chunk holds */
    for (int i = 0; i < pairs; i++) {
        sp_region_begin(d);
        sp_region_end(d);
    }
    sp_region_begin(d); /* nested calls while dropping: dropped, nesting intact */
    sp_region_begin(outer);
    sp_region_end(outer);
    sp_region_end(d);
    sp_region_end(outer); /* recorded before: its end goes into the reserve */
    uint64_t kept = sp_region_num_calls(d), lost = sp_region_dropped_calls(d);
    /* outer's begin, then pairs up to the hot limit; the last end goes
     * into the reserve */
    ASSERT_EQ_U(kept, CHUNK_HOT / 2);
    ASSERT_EQ_U(kept + lost, (uint64_t)pairs + 1);
    ASSERT_EQ_U(sp_region_dropped_calls(outer), 1);
    ASSERT_EQ_U(sp_region_capacity(d), 4096); /* the seed's buffer for 2696 calls */
    /* Chunks are back: recording resumes (tried every 64th dropped call). */
    sp__test_fail_alloc_after(-1);
    for (int i = 0; i < 200; i++) {
        sp_region_begin(d);
        sp_region_end(d);
    }
    uint64_t resumed = sp_region_num_calls(d) - kept;
    ASSERT_MSG(resumed > 0 && resumed <= 200, "%llu calls after the drops",
               (unsigned long long)resumed);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0); /* balanced despite the drops */
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 1 + kept + resumed);
    ASSERT(rk->dropped != NULL);
    ASSERT_EQ_U(rk->dropped[sp_run_region_id(run, "dropped")], lost + 200 - resumed);
    ASSERT_EQ_U(rk->dropped[sp_run_region_id(run, "drop_outer")], 1);
    long o0 = rec_call(run, "drop_outer", 0);
    ASSERT_EQ_I(rk->parent[o0], -1);
    for (size_t k = 0; k < kept; k++)
        ASSERT_EQ_I(rk->parent[rec_call(run, "dropped", k)], o0);
    ASSERT(rk->end_ns[o0] >= rk->end_ns[rec_call(run, "dropped", kept - 1)]);
    sp_run_free(run);
    ASSERT_EQ_U(sp_region_dropped_calls(d), lost + 200 - resumed); /* after finalize too */

    /* verbose finalize reports drops */
    char out[16384];
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp__test_fail_alloc_after(0);
    sp_region_begin(sp_region_get("dropped_new")); /* not even a first chunk */
    sp_region_end(sp_region_get("dropped_new"));
    sp__test_fail_alloc_after(-1);
    int rc = -100;
    rec_capture_stdout(finalize_loud, &rc, out, sizeof out);
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(out, "1 call(s) dropped");
    ASSERT_CONTAINS(out, "dropped_new");
}

static void test_ends_beyond_the_reserve(void)
{
    /* Recorded calls open deeper than the chunk's reserve when chunks run
     * out: the ends that find no room leave their calls open; finalize
     * closes them and says so. Nothing crashes, the run stays sane. */
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *deep = sp_region_get("deep_open"), *f = sp_region_get("deep_filler");
    const int depth = SP__CHUNK_RESERVE + 36;
    for (int i = 0; i < depth; i++)
        sp_region_begin(deep);
    sp__test_fail_alloc_after(0);
    while (sp_region_dropped_calls(f) == 0) { /* fill the chunk to its hot limit */
        sp_region_begin(f);
        sp_region_end(f);
    }
    for (int i = 0; i < depth; i++)
        sp_region_end(deep);
    sp__test_fail_alloc_after(-1);
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    ASSERT_EQ_I(rc, SP_EUNBALANCED);
    ASSERT_CONTAINS(sp_last_error(), "36 call(s) still open at finalize");
    ASSERT_CONTAINS(sp_last_error(), "deep_open");
    ASSERT_EQ_U(rec_count(run, "deep_open"), (size_t)depth);
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; i < rk->ncalls; i++)
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
    sp_run_free(run);

    /* The next session records normally again. */
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(deep);
    sp_region_end(deep);
    ASSERT_EQ_U(sp_region_num_calls(deep), 1);
    ASSERT_EQ_U(sp_region_dropped_calls(deep), 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

int main(void)
{
    RUN(test_finalize_without_setup);
    RUN(test_end_without_begin);
    RUN(test_mismatched_end);
    RUN(test_open_at_finalize);
    RUN(test_warnings_only_when_verbose);
    RUN(test_dropped_calls);
    RUN(test_ends_beyond_the_reserve);
    return sp_test_summary();
}
