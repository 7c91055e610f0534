/* SPDX-License-Identifier: MIT */
/* Statistics of known durations, and the int64 sort behind them. */
#include "run_builder.h"
#include "sp_hist.h"
#include "sp_analysis_internal.h"
#include "sp_test.h"

#define NS 1e-9
#define TOL 1e-15

static void test_five_values(void)
{
    int64_t d[] = {5, 1, 4, 2, 3};
    sp_stats st;
    sp_stats_from_durations(d, 5, &st);
    ASSERT_EQ_U(st.calls, 5);
    for (int i = 0; i < 5; i++) /* sorted in place */
        ASSERT_EQ_I(d[i], i + 1);
    ASSERT_NEAR(st.total_s, 15 * NS, TOL);
    ASSERT_NEAR(st.mean_s, 3 * NS, TOL);
    ASSERT_NEAR(st.min_s, 1 * NS, TOL);
    ASSERT_NEAR(st.max_s, 5 * NS, TOL);
    ASSERT_NEAR(st.std_s, sqrt(2.0) * NS, TOL); /* population: var = 10 / 5 */
    ASSERT_NEAR(st.p50_s, 3 * NS, TOL);
    ASSERT_NEAR(st.p95_s, 4.8 * NS, TOL); /* h = 0.95 * 4 = 3.8 -> 4 + 0.8 */
    ASSERT_NEAR(st.p99_s, 4.96 * NS, TOL);
    ASSERT_NEAR(st.own_s, 0, 0);
}

static void test_even_count_median(void)
{
    int64_t d[] = {4, 1, 3, 2};
    sp_stats st;
    sp_stats_from_durations(d, 4, &st);
    ASSERT_NEAR(st.p50_s, 2.5 * NS, TOL);
    ASSERT_NEAR(st.std_s, sqrt(1.25) * NS, TOL);
}

static void test_empty_and_single(void)
{
    sp_stats st;
    memset(&st, 0xff, sizeof st);
    sp_stats_from_durations(NULL, 0, &st);
    ASSERT_EQ_U(st.calls, 0);
    ASSERT_NEAR(st.total_s, 0, 0);
    ASSERT_NEAR(st.p99_s, 0, 0);
    int64_t one = 7 * MS;
    sp_stats_from_durations(&one, 1, &st);
    ASSERT_EQ_U(st.calls, 1);
    ASSERT_NEAR(st.p50_s, 0.007, TOL);
    ASSERT_NEAR(st.p99_s, 0.007, TOL);
    ASSERT_NEAR(st.std_s, 0, 0);
}

/* 1..1000 shuffled: large enough for the radix path. */
static void test_thousand(void)
{
    enum { N = 1000 };
    int64_t *d = malloc(N * sizeof *d);
    for (int i = 0; i < N; i++)
        d[i] = i + 1;
    srand(42);
    for (int i = N - 1; i > 0; i--) {
        int j = rand() % (i + 1);
        int64_t t = d[i];
        d[i] = d[j];
        d[j] = t;
    }
    sp_stats st;
    sp_stats_from_durations(d, N, &st);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_I(d[i], i + 1);
    free(d);
    ASSERT_NEAR(st.mean_s, 500.5 * NS, TOL);
    ASSERT_NEAR(st.p50_s, 500.5 * NS, TOL);
    ASSERT_NEAR(st.p95_s, 950.05 * NS, 1e-14);
    ASSERT_NEAR(st.p99_s, 990.01 * NS, 1e-14);
    ASSERT_NEAR(st.std_s, sqrt((N * (double)N - 1) / 12.0) * NS, 1e-14);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Radix sort must agree with qsort on negatives, duplicates, huge values. */
static void test_sort_matches_qsort(void)
{
    enum { N = 5000 };
    int64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *tmp = malloc(N * sizeof *tmp);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        int64_t v = (int64_t)x;
        if (i % 3 == 0)
            v %= 1000; /* many small values, some negative, duplicates */
        if (i % 7 == 0)
            v = INT64_MIN + i;
        a[i] = b[i] = v;
    }
    a[N - 1] = b[N - 1] = INT64_MAX;
    sp__sort_i64(a, N, tmp);
    qsort(b, N, sizeof *b, cmp64);
    int same = memcmp(a, b, N * sizeof *a) == 0;
    free(a);
    free(b);
    free(tmp);
    ASSERT(same);
}

/* Stats through sp_run_analyze: per rank and all ranks from one scatter. */
static void test_region_stats_per_rank(void)
{
    tb_call c[] = {
        {0, 0, "work", 0, 1 * MS},         {0, 0, "work", 2 * MS, 4 * MS},
        {1, 0, "work", 0, 3 * MS},         {1, 0, "work", 5 * MS, 9 * MS},
        {1, 0, "other", 10 * MS, 11 * MS},
    };
    sp_run *run = tb_build(c, 5, 2, 1);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    const sp_run_region *w = &run->regions[sp_run_region_id(run, "work")];
    ASSERT_EQ_U(w->all.calls, 4);
    ASSERT_NEAR(w->all.total_s, 0.010, TOL);
    /* {1, 2, 3, 4} ms: percentiles come from the histogram (sp_hist.h) */
    ASSERT_NEAR(w->all.p50_s, 0.0025, 0.0025 * SP_HIST_REL_ERROR);
    ASSERT_NEAR(w->all.min_s, 0.001, TOL);
    ASSERT_NEAR(w->all.max_s, 0.004, TOL);
    ASSERT_EQ_U(w->per_rank[0].calls, 2);
    ASSERT_NEAR(w->per_rank[0].total_s, 0.003, TOL);
    ASSERT_NEAR(w->per_rank[0].mean_s, 0.0015, TOL);
    ASSERT_EQ_U(w->per_rank[1].calls, 2);
    ASSERT_NEAR(w->per_rank[1].total_s, 0.007, TOL);
    ASSERT_NEAR(w->per_rank[1].own_s, 0.007, TOL);
    const sp_run_region *o = &run->regions[sp_run_region_id(run, "other")];
    ASSERT_EQ_U(o->per_rank[0].calls, 0); /* absent on rank 0 */
    ASSERT_NEAR(o->per_rank[0].total_s, 0, 0);
    ASSERT_EQ_U(o->all.calls, 1);
    sp_run_free(run);
}

/* Own time: duration minus direct children; recursion never double counts. */
static void test_own_time(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    const sp_run_region *r = &run->regions[sp_run_region_id(run, "refine_mesh")];
    ASSERT_EQ_U(r->all.calls, 4);
    /* 4 + 3 + 2 + 1 ms of calls, but the nested ones are inside the
     * outermost: recursion counted once */
    ASSERT_NEAR(r->all.total_s, 0.004, TOL);
    ASSERT_NEAR(r->all.own_s, 0.004, TOL);   /* 1 ms per level */
    const sp_run_region *m = &run->regions[sp_run_region_id(run, "main")];
    ASSERT_NEAR(m->all.own_s, 0.002, TOL);
    const sp_run_region *s = &run->regions[sp_run_region_id(run, "setup")];
    ASSERT_NEAR(s->all.own_s, 0.002, TOL);
    const sp_run_region *sv = &run->regions[sp_run_region_id(run, "solve")];
    ASSERT_NEAR(sv->all.own_s, 0.0, TOL);
    /* The own times add up to the wall time of the single top call. */
    double own = 0;
    for (size_t g = 0; g < run->nregions; g++)
        own += run->regions[g].all.own_s;
    ASSERT_NEAR(own, 0.020, 1e-12);
    sp_run_free(run);
}

static void test_dropped_summed(void)
{
    tb_call c[] = {{0, 0, "a", 0, 10}, {1, 0, "a", 0, 10}};
    sp_run *run = tb_build(c, 2, 2, 1);
    ASSERT(run);
    for (int r = 0; r < 2; r++) {
        run->ranks[r].dropped = calloc(1, sizeof(uint64_t));
        run->ranks[r].dropped[0] = (uint64_t)(r + 2);
    }
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_U(run->regions[0].dropped, 5);
    sp_run_free(run);
}

int main(void)
{
    RUN(test_five_values);
    RUN(test_even_count_median);
    RUN(test_empty_and_single);
    RUN(test_thousand);
    RUN(test_sort_matches_qsort);
    RUN(test_region_stats_per_rank);
    RUN(test_own_time);
    RUN(test_dropped_summed);
    return sp_test_summary();
}
