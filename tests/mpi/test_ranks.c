/* SPDX-License-Identifier: MIT */
/*
 * test_ranks.c - cross-rank statistics (analysis/sp_ranks.h): the real
 * 4-rank run of the Python package (data/python-0.2.1/py_mpi4_imbalance.h5,
 * compute sleeps 2 ms x (rank + 1), exchange is a barrier), and hand-built
 * runs with a region missing on some ranks, rank lists and rank selection.
 */
#include "../analysis/run_builder.h"
#include "sp_h5.h"
#include "sp_ranks.h"
#include "sp_test.h"

static sp_run *py_run;

/* The per-rank total of region name on rank r, from the raw calls. */
static double raw_total(const sp_run *run, const char *name, size_t r)
{
    int32_t id = sp_run_region_id(run, name);
    const sp_rank_data *rk = &run->ranks[r];
    int64_t ns = 0;
    for (size_t k = 0; k < rk->ncalls; k++)
        if (rk->region[k] == id)
            ns += rk->end_ns[k] - rk->start_ns[k];
    return (double)ns * 1e-9;
}

static void test_py_mpi4_compute(void)
{
    ASSERT(py_run != NULL);
    ASSERT_EQ_U(sp_run_num_ranks(py_run), 4);
    sp_rank_region s;
    ASSERT_EQ_I(sp_rank_region_stats(py_run, sp_run_region_id(py_run, "compute"), NULL, &s), 0);
    double max = 0, sum = 0;
    for (size_t r = 0; r < 4; r++) {
        double t = raw_total(py_run, "compute", r);
        sum += t;
        max = t > max ? t : max;
    }
    ASSERT_NEAR(s.max_total_s, max, 1e-9);
    ASSERT_NEAR(s.mean_total_s, sum / 4, 1e-9);
    ASSERT_NEAR(s.imbalance, max / (sum / 4), 1e-6);
    /* 2, 4, 6, 8 ms per call: max / mean = 8 / 5 = 1.6 */
    ASSERT_MSG(s.imbalance > 1.5 && s.imbalance < 1.7, "compute imbalance %.3f, want ~1.6",
               s.imbalance);
    ASSERT_NEAR(s.imbalance_pct, (s.imbalance - 1) * 100, 1e-9);
    ASSERT_EQ_I(s.slowest_rank, 3);
    ASSERT_EQ_I(s.fastest_rank, 0);
    ASSERT_EQ_U(s.nhave, 4);
    ASSERT_EQ_U(s.nmissing, 0);
    ASSERT_EQ_U(s.calls, 20);
    sp_rank_region_free(&s);
}

static void test_py_mpi4_exchange(void)
{
    sp_rank_region s;
    ASSERT_EQ_I(sp_rank_region_stats(py_run, sp_run_region_id(py_run, "exchange"), NULL, &s), 0);
    /* The fast ranks wait in the barrier: rank 0 waits longest. */
    ASSERT_EQ_I(s.slowest_rank, 0);
    ASSERT_EQ_I(s.fastest_rank, 3);
    for (size_t r = 1; r < 4; r++)
        ASSERT(raw_total(py_run, "exchange", 0) > raw_total(py_run, "exchange", r));
    sp_rank_region_free(&s);
}

/* Rank 0: a 4 ms, rank 1: a 2 ms + b 1 ms, rank 2: nothing, rank 3: a 6 ms. */
static sp_run *uneven_run(void)
{
    const tb_call c[] = {
        {0, 0, "a", 0, 4 * MS}, {1, 0, "a", 0, 2 * MS},      {1, 0, "b", 3 * MS, 4 * MS},
        {3, 0, "a", 0, 3 * MS}, {3, 0, "a", 3 * MS, 6 * MS},
    };
    return tb_build(c, sizeof c / sizeof *c, 4, 1);
}

static void test_missing_ranks_count_zero(void)
{
    sp_run *run = uneven_run();
    ASSERT(run != NULL);
    sp_rank_region s;
    ASSERT_EQ_I(sp_rank_region_stats(run, sp_run_region_id(run, "a"), NULL, &s), 0);
    ASSERT_EQ_U(s.nranks, 4);
    ASSERT_EQ_U(s.nhave, 3);
    ASSERT_EQ_U(s.calls, 4);
    ASSERT_EQ_U(s.calls_min, 0); /* rank 2 */
    ASSERT_EQ_U(s.calls_max, 2); /* rank 3 */
    ASSERT_NEAR(s.total_s, 0.012, 1e-12);
    ASSERT_NEAR(s.mean_total_s, 0.003, 1e-12); /* 12 ms over all 4 ranks */
    ASSERT_NEAR(s.mean_have_s, 0.004, 1e-12);  /* 12 ms over the 3 that have it */
    ASSERT_NEAR(s.min_total_s, 0.0, 1e-12);
    ASSERT_NEAR(s.max_total_s, 0.006, 1e-12);
    ASSERT_EQ_I(s.slowest_rank, 3);
    ASSERT_EQ_I(s.fastest_rank, 2); /* the rank without it: 0 s */
    ASSERT_NEAR(s.imbalance, 2.0, 1e-12);
    ASSERT_NEAR(s.imbalance_pct, 100.0, 1e-9);
    ASSERT_EQ_U(s.nmissing, 1);
    ASSERT_EQ_I(s.missing[0], 2);
    sp_rank_region_free(&s);

    /* b only on rank 1: imbalance = number of ranks. */
    ASSERT_EQ_I(sp_rank_region_stats(run, sp_run_region_id(run, "b"), NULL, &s), 0);
    ASSERT_NEAR(s.imbalance, 4.0, 1e-12);
    ASSERT_EQ_U(s.nmissing, 3);
    sp_rank_region_free(&s);
    ASSERT(sp_rank_region_stats(run, 99, NULL, &s) == SP_EINVAL);
    sp_rank_region_free(&s);
    sp_run_free(run);
}

static void test_selection(void)
{
    sp_run *run = uneven_run();
    bool *sel = NULL;
    size_t count = 0;
    ASSERT_EQ_I(sp_rank_list_parse("0-1,3", 4, &sel, &count), 0);
    ASSERT_EQ_U(count, 3);
    ASSERT(sel[0] && sel[1] && !sel[2] && sel[3]);
    sp_rank_region s;
    ASSERT_EQ_I(sp_rank_region_stats(run, sp_run_region_id(run, "a"), sel, &s), 0);
    ASSERT_EQ_U(s.nranks, 3);
    ASSERT_EQ_U(s.nmissing, 0);
    ASSERT_NEAR(s.mean_total_s, 0.004, 1e-12);
    ASSERT_NEAR(s.imbalance, 1.5, 1e-12);
    ASSERT_EQ_I(s.fastest_rank, 1);
    sp_rank_region_free(&s);

    /* keep_ranks: the run's own statistics cover the kept ranks only. */
    bool keep[4] = {true, false, false, true};
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "a")), 4);
    ASSERT_EQ_I(sp_run_keep_ranks(run, keep), 0);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_U(sp_run_num_ranks(run), 4); /* ranks stay, numbered as before */
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "a")), 3);
    ASSERT_NEAR(sp_run_region_total_s(sp_run_find(run, "a")), 0.010, 1e-12);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "b")), 0);
    ASSERT_EQ_U(run->ranks[1].ncalls, 0);
    ASSERT_EQ_U(run->ranks[1].nthreads, 1); /* the thread table stays */
    free(sel);
    sp_run_free(run);
}

static void test_rank_lists(void)
{
    bool *sel = NULL;
    size_t count = 0;
    char buf[64];
    ASSERT_EQ_I(sp_rank_list_parse("5,0-2,2", 8, &sel, &count), 0);
    ASSERT_EQ_U(count, 4);
    sp_rank_list_format(sel, 8, buf, sizeof buf);
    ASSERT_STREQ(buf, "0-2,5");
    free(sel);
    sp_rank_list_format(NULL, 3, buf, sizeof buf);
    ASSERT_STREQ(buf, "0-2");
    const char *bad[] = {"", "x", "1,", "-1", "3-1", "0-8", "8", "1;2", "2-"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ASSERT_MSG(sp_rank_list_parse(bad[i], 8, &sel, &count) == SP_EINVAL,
                   "'%s' should be refused", bad[i]);
        ASSERT(sel == NULL);
        ASSERT(*sp_last_error());
    }
    ASSERT_EQ_I(sp_rank_list_parse("0-8", 8, &sel, &count), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "rank 8 is out of range");
}

static void test_print(void)
{
    sp_run *run = uneven_run();
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ASSERT(out != NULL);
    ASSERT_EQ_I(sp_print_ranks(run, NULL, NULL, SP_RANKS_SORT_IMBALANCE, true, out), 0);
    fclose(out);
    ASSERT_CONTAINS(text, "imbalance");
    ASSERT_CONTAINS(text, "4.00 (+300%)"); /* b */
    ASSERT_CONTAINS(text, "2.00 (+100%)"); /* a */
    ASSERT_CONTAINS(text, "without it (0 calls, counted as 0 s): 2");
    /* Calls per rank, never the sum over ranks (4 for a): "0-2". */
    ASSERT_CONTAINS(text, "calls/rank");
    const char *a = strstr(text, "\na ");
    ASSERT(a && strstr(a, " 0-2 ") && strstr(a, " 0-2 ") < strchr(a + 1, '\n'));
    /* Sorted by imbalance: b (4.00) before a (2.00). */
    ASSERT(strstr(text, "\nb ") && strstr(text, "\na ") &&
           strstr(text, "\nb ") < strstr(text, "\na "));
    free(text);
    sp_run_free(run);
}

int main(void)
{
    int st = 0;
    py_run = sp_h5_read(SP_TEST_DATA_DIR "/python-0.2.1/py_mpi4_imbalance.h5", &st);
    RUN(test_py_mpi4_compute);
    RUN(test_py_mpi4_exchange);
    RUN(test_missing_ranks_count_zero);
    RUN(test_selection);
    RUN(test_rank_lists);
    RUN(test_print);
    sp_run_free(py_run);
    return sp_test_summary();
}
