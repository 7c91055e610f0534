/* SPDX-License-Identifier: MIT */
/* Filters, sort keys, sorted listings, time span and the public run API. */
#include "run_builder.h"
#include "sp_error.h"
#include "sp_test.h"

static void test_sort_key_parse(void)
{
    static const char *names[] = {"total", "own", "calls", "mean", "min",
                                  "max",   "std", "p95",   "name"};
    for (int k = 0; k < 9; k++) {
        sp_sort_key key = SP_SORT_NAME;
        ASSERT_EQ_I(sp_sort_key_parse(names[k], &key), 0);
        ASSERT_STREQ(names[k], names[key]);
    }
    sp_sort_key key;
    ASSERT_EQ_I(sp_sort_key_parse("bogus", &key), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "'bogus'");
    ASSERT_CONTAINS(sp_last_error(), "total, own, calls");
    ASSERT_EQ_I(sp_sort_key_parse("Total", &key), SP_EINVAL);
}

static void test_filter(void)
{
    sp_region_filter *f = sp_region_filter_new("^(solve|apply)", "bc$");
    ASSERT(f);
    ASSERT(sp_region_filter_match(f, "solve"));
    ASSERT(!sp_region_filter_match(f, "apply_bc")); /* excluded */
    ASSERT(sp_region_filter_match(f, "apply_rhs"));
    ASSERT(!sp_region_filter_match(f, "main")); /* not included */
    sp_region_filter_free(f);

    f = sp_region_filter_new(NULL, "mesh");
    ASSERT(f);
    ASSERT(sp_region_filter_match(f, "main"));
    ASSERT(!sp_region_filter_match(f, "refine_mesh"));
    sp_region_filter_free(f);

    ASSERT(sp_region_filter_match(NULL, "anything"));
    sp_region_filter_free(NULL);
}

static void test_bad_regex(void)
{
    ASSERT(sp_region_filter_new("(", NULL) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "invalid --include regex '('");
    ASSERT(sp_region_filter_new("ok", "a{2") == NULL);
    ASSERT_CONTAINS(sp_last_error(), "invalid --exclude regex 'a{2'");
}

static int32_t id_of(const sp_run *run, const char *name)
{
    return sp_run_region_id(run, name);
}

static void test_sorted_regions(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    int32_t *ids = NULL;
    /* not analyzed yet: the listing analyzes lazily */
    long n = sp_run_sorted_regions(run, SP_SORT_TOTAL, NULL, &ids);
    ASSERT_EQ_I(n, 6);
    ASSERT(run->analyzed);
    /* totals: main 20, solve 12, assemble 9, setup 6, refine_mesh 4 (its
     * outermost call: recursion counted once), bc 3 */
    const char *by_total[] = {"main",  "solve",       "assemble_matrix",
                              "setup", "refine_mesh", "apply_bc"};
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_I(ids[i], id_of(run, by_total[i]));
    free(ids);

    n = sp_run_sorted_regions(run, SP_SORT_NAME, NULL, &ids);
    ASSERT_EQ_I(n, 6);
    const char *by_name[] = {"apply_bc",    "assemble_matrix", "main",
                             "refine_mesh", "setup",           "solve"};
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_I(ids[i], id_of(run, by_name[i]));
    free(ids);

    /* calls: refine_mesh 4; then 3 each, ties by name; then 1 each */
    n = sp_run_sorted_regions(run, SP_SORT_CALLS, NULL, &ids);
    const char *by_calls[] = {"refine_mesh", "apply_bc", "assemble_matrix",
                              "solve",       "main",     "setup"};
    for (int i = 0; i < 6; i++)
        ASSERT_EQ_I(ids[i], id_of(run, by_calls[i]));
    free(ids);

    /* own: main 2, setup 2, refine 4, assemble 9, bc 3, solve 0 */
    n = sp_run_sorted_regions(run, SP_SORT_OWN, NULL, &ids);
    ASSERT_EQ_I(ids[0], id_of(run, "assemble_matrix"));
    ASSERT_EQ_I(ids[1], id_of(run, "refine_mesh"));
    ASSERT_EQ_I(ids[5], id_of(run, "solve"));
    free(ids);

    sp_region_filter *f = sp_region_filter_new("a", "^main$");
    n = sp_run_sorted_regions(run, SP_SORT_MAX, f, &ids);
    ASSERT_EQ_I(n, 2); /* apply_bc, assemble_matrix */
    ASSERT_EQ_I(ids[0], id_of(run, "assemble_matrix"));
    ASSERT_EQ_I(ids[1], id_of(run, "apply_bc"));
    free(ids);
    sp_region_filter_free(f);

    f = sp_region_filter_new("nothing-matches", NULL);
    n = sp_run_sorted_regions(run, SP_SORT_TOTAL, f, &ids);
    ASSERT_EQ_I(n, 0);
    free(ids);
    sp_region_filter_free(f);
    sp_run_free(run);
}

static void test_time_span(void)
{
    tb_call c[] = {
        {0, 0, "a", 100, 200}, {0, 1, "b", 50, 120}, {1, 0, "a", 10, 20}, {1, 0, "a", 30, 400}};
    sp_run *run = tb_build(c, 4, 2, 2);
    ASSERT(run);
    int64_t t0, t1;
    ASSERT_EQ_I(sp_run_time_span(run, &t0, &t1), 0);
    ASSERT_EQ_I(t0, 10);
    ASSERT_EQ_I(t1, 400);
    run->ranks[1].clock_offset_ns = 100; /* rank 1: [110, 120], [130, 500] */
    ASSERT_EQ_I(sp_run_time_span(run, &t0, &t1), 0);
    ASSERT_EQ_I(t0, 50);
    ASSERT_EQ_I(t1, 500);
    run->ranks[1].clock_offset_ns = -100;
    ASSERT_EQ_I(sp_run_time_span(run, &t0, &t1), 0);
    ASSERT_EQ_I(t0, -90);
    ASSERT_EQ_I(t1, 300);
    sp_run_free(run);

    run = sp_run_new();
    ASSERT_EQ_I(sp_run_time_span(run, &t0, &t1), SP_ENOENT);
    sp_run_free(run);
}

static void test_public_run_api(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    ASSERT_EQ_I(sp_kvlist_set(&run->meta, "problem_size", "128"), 0);
    ASSERT_EQ_U(sp_run_num_regions(run), 6);
    ASSERT_EQ_U(sp_run_num_ranks(run), 1);
    /* accessors analyze a hand-built run on first use */
    const sp_run_region *r = sp_run_find(run, "solve");
    ASSERT(r);
    ASSERT(run->analyzed);
    ASSERT_STREQ(sp_run_region_name(r), "solve");
    ASSERT_EQ_U(sp_run_region_num_calls(r), 3);
    ASSERT_NEAR(sp_run_region_total_s(r), 0.012, 1e-12);
    const sp_run_region *r0 = sp_run_region_at(run, 0);
    ASSERT(r0);
    ASSERT_STREQ(sp_run_region_name(r0), "main");
    ASSERT(sp_run_region_at(run, 6) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "out of range");
    ASSERT(sp_run_find(run, "nope") == NULL);
    ASSERT_CONTAINS(sp_last_error(), "'nope'");
    ASSERT_STREQ(sp_run_metadata(run, "problem_size"), "128");
    ASSERT(sp_run_metadata(run, "missing") == NULL);
    ASSERT_EQ_U(sp_run_num_regions(NULL), 0);
    ASSERT_EQ_U(sp_run_region_num_calls(NULL), 0);
    sp_run_free(run);
}

static void test_read_h5_errors(void)
{
    /* The reader's own errors pass through unchanged. */
    ASSERT(sp_read_h5(SP_TEST_BINARY_DIR "/no-such-file.h5") == NULL);
    ASSERT(strlen(sp_last_error()) > 0);
    ASSERT(sp_read_h5(NULL) == NULL);
}

int main(void)
{
    RUN(test_sort_key_parse);
    RUN(test_filter);
    RUN(test_bad_regex);
    RUN(test_sorted_regions);
    RUN(test_time_span);
    RUN(test_public_run_api);
    RUN(test_read_h5_errors);
    return sp_test_summary();
}
