/* SPDX-License-Identifier: MIT */
/*
 * test_figures.c - the rank rule (sp_figures.h), estimate marks, and the
 * colour maps (sp_colors.h) on hand-built runs with known answers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sp_test.h"

#include "run_builder.h"
#include "sp_analysis_internal.h"
#include "sp_colors.h"
#include "sp_figures.h"
#include "sp_ranks.h"

static int32_t node_of(const sp_run *run, const char *path0, const char *path1)
{
    int32_t g0 = sp_run_region_id(run, path0), g1 = path1 ? sp_run_region_id(run, path1) : -1;
    for (size_t n = 1; n < run->tree.nnodes; n++) {
        const sp_tree_node *nd = &run->tree.nodes[n];
        if (!path1 && nd->depth == 1 && nd->region == g0)
            return (int32_t)n;
        if (path1 && nd->depth == 2 && nd->region == g1 && run->tree.nodes[nd->parent].region == g0)
            return (int32_t)n;
    }
    return -1;
}

/* Three ranks: main [0, 30/20/10 ms] with work nested (2 calls each), and
 * "io" on rank 0 only. */
static sp_run *three_ranks(void)
{
    tb_call c[] = {
        {0, 0, "main", 0, 30 * MS},       {0, 0, "work", 1 * MS, 11 * MS},
        {0, 0, "work", 12 * MS, 22 * MS}, {0, 0, "io", 23 * MS, 29 * MS},
        {1, 0, "main", 0, 20 * MS},       {1, 0, "work", 1 * MS, 6 * MS},
        {1, 0, "work", 7 * MS, 12 * MS},  {2, 0, "main", 0, 10 * MS},
        {2, 0, "work", 1 * MS, 3 * MS},   {2, 0, "work", 4 * MS, 6 * MS},
    };
    sp_run *run = tb_build(c, sizeof c / sizeof *c, 3, 1);
    if (run)
        sp_run_analyze(run);
    return run;
}

static void test_mean_max_sum_per_rank(void)
{
    sp_run *run = three_ranks();
    ASSERT(run);
    sp_figures *fg = sp_figures_new(run);
    ASSERT(fg);
    ASSERT_EQ_U(fg->nranks, 3);
    ASSERT(fg->two_columns);
    ASSERT(!fg->threads);
    ASSERT(fg->has_span);
    ASSERT_NEAR(fg->span_s, 0.030, 1e-12);
    int32_t m = node_of(run, "main", NULL), w = node_of(run, "main", "work"),
            io = node_of(run, "main", "io");
    ASSERT(m > 0 && w > 0 && io > 0);
    /* main: 30, 20, 10 ms -> mean 20, max 30, sum 60 */
    ASSERT_NEAR(fg->node_incl[m].mean_s, 0.020, 1e-12);
    ASSERT_NEAR(fg->node_incl[m].max_s, 0.030, 1e-12);
    ASSERT_NEAR(fg->node_incl[m].sum_s, 0.060, 1e-12);
    /* work: 20, 10, 4 ms -> mean 34/3 */
    ASSERT_NEAR(fg->node_incl[w].mean_s, 0.034 / 3, 1e-12);
    ASSERT_NEAR(fg->node_incl[w].max_s, 0.020, 1e-12);
    /* io only on rank 0 (6 ms): the others count 0 s and 0 calls */
    ASSERT_NEAR(fg->node_incl[io].mean_s, 0.002, 1e-12);
    ASSERT_NEAR(fg->node_incl[io].max_s, 0.006, 1e-12);
    ASSERT_EQ_U(fg->node_calls[io].min, 0);
    ASSERT_EQ_U(fg->node_calls[io].max, 1);
    ASSERT_EQ_U(fg->node_calls[io].nhave, 1);
    ASSERT_EQ_U(fg->node_calls[w].min, 2);
    ASSERT_EQ_U(fg->node_calls[w].max, 2);
    ASSERT_EQ_U(fg->node_calls[w].sum, 6);
    /* own of main: 4, 10, 6 ms -> mean 20/3 ms, max 10 */
    ASSERT_NEAR(fg->node_own[m].mean_s, 0.020 / 3, 1e-12);
    ASSERT_NEAR(fg->node_own[m].max_s, 0.010, 1e-12);
    /* the mean is additive: parent = own + children */
    ASSERT_NEAR(fg->node_incl[m].mean_s,
                fg->node_own[m].mean_s + fg->node_incl[w].mean_s + fg->node_incl[io].mean_s, 1e-12);
    /* per region the same numbers (no recursion here) */
    int32_t gw = sp_run_region_id(run, "work");
    ASSERT_NEAR(fg->region_total[gw].mean_s, 0.034 / 3, 1e-12);
    ASSERT_NEAR(fg->region_total[gw].sum_s, run->regions[gw].all.total_s, 1e-12);
    char buf[64];
    ASSERT_STREQ(sp_fig_format_calls_range(&fg->node_calls[io], SP_FIG_EXACT, buf, sizeof buf),
                 "0-1");
    ASSERT_STREQ(sp_fig_format_calls_range(&fg->node_calls[w], SP_FIG_EXACT, buf, sizeof buf), "2");
    ASSERT_STREQ(sp_figures_ranks_text(fg, buf, sizeof buf), "3 ranks");
    sp_figures_free(fg);
    sp_run_free(run);
}

static void test_selection_counts_selected_ranks(void)
{
    sp_run *run = three_ranks();
    ASSERT(run);
    bool keep[3] = {false, true, false};
    ASSERT_EQ_I(sp_run_keep_ranks(run, keep), 0);
    sp_figures *fg = sp_figures_new(run);
    ASSERT(fg);
    ASSERT_EQ_U(fg->nranks, 1);
    ASSERT_EQ_U(fg->nranks_file, 3);
    ASSERT(!fg->two_columns); /* one rank: the seed's single column */
    char buf[64];
    ASSERT_STREQ(sp_figures_ranks_text(fg, buf, sizeof buf), "1 of 3 ranks");
    int32_t m = node_of(run, "main", NULL);
    ASSERT_NEAR(fg->node_incl[m].mean_s, 0.020, 1e-12); /* rank 1 alone, not / 3 */
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_TOTAL, NULL, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "Ranks:     1 of 3 (selected)");
    free(text);
    sp_figures_free(fg);
    sp_run_free(run);
}

static void test_threads_of_a_rank(void)
{
    /* one rank, worker on 4 threads at once (10, 12, 14, 16 ms) */
    tb_call c[] = {
        {0, 0, "main", 0, 20 * MS},        {0, 0, "worker", 1 * MS, 11 * MS},
        {0, 1, "worker", 1 * MS, 13 * MS}, {0, 2, "worker", 1 * MS, 15 * MS},
        {0, 3, "worker", 1 * MS, 17 * MS},
    };
    sp_run *run = tb_build(c, sizeof c / sizeof *c, 1, 4);
    ASSERT(run);
    sp_figures *fg = sp_figures_new(run);
    ASSERT(fg);
    ASSERT(fg->threads);
    ASSERT(fg->two_columns);
    int32_t g = sp_run_region_id(run, "worker");
    ASSERT_NEAR(fg->region_total[g].mean_s, 0.013, 1e-12); /* mean of the threads */
    ASSERT_NEAR(fg->region_total[g].max_s, 0.016, 1e-12);  /* the slowest thread */
    ASSERT_NEAR(fg->region_total[g].sum_s, 0.052, 1e-12);
    ASSERT_EQ_U(fg->region_calls[g].max, 4); /* calls of the rank */
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_summary(run, "t.h5", f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "time per thread");
    ASSERT_CONTAINS(text, "Times are per thread");
    /* thread 0's worker is nested in main (another call path); threads
     * 1-3 run it at the top: 12, 14, 16 ms */
    ASSERT_CONTAINS(text, "│ worker (3x)    0.014000  0.016000");
    free(text);
    sp_figures_free(fg);
    sp_run_free(run);
}

static int set_flag(sp_run *run, const char *name, int32_t flag)
{
    if (!run->region_flags) {
        run->region_flags = calloc(run->nregions, sizeof *run->region_flags);
        run->nregion_flags = run->nregions;
    }
    int32_t g = sp_run_region_id(run, name);
    if (!run->region_flags || g < 0)
        return -1;
    run->region_flags[g] |= flag;
    return 0;
}

static void test_estimates_marked(void)
{
    tb_call c[] = {
        {0, 0, "main", 0, 20 * MS},
        {0, 0, "solve", 1 * MS, 9 * MS},
        {0, 0, "solve", 10 * MS, 19 * MS},
        {0, 0, "tiny", 11 * MS, 12 * MS},
    };
    sp_run *run = tb_build(c, sizeof c / sizeof *c, 1, 1);
    ASSERT(run);
    ASSERT_EQ_I(set_flag(run, "solve", SP_REGION_FLAG_SAMPLED), 0);
    ASSERT_EQ_I(set_flag(run, "main", SP_REGION_FLAG_SAMPLED), 0);
    ASSERT_EQ_I(set_flag(run, "tiny", SP_REGION_FLAG_THROTTLED), 0);
    sp_kvlist_set(&run->meta, "stack_sample_hz", "500");
    ASSERT_NEAR(sp_run_sample_period_s(run), 0.002, 1e-15);
    ASSERT_EQ_I(sp_region_fig_kind(run, sp_run_region_id(run, "solve")), SP_FIG_ESTIMATE);
    ASSERT_EQ_I(sp_region_fig_kind(run, sp_run_region_id(run, "tiny")), SP_FIG_LOWER_BOUND);
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_summary(run, "s.h5", f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "solve (~2x)");
    ASSERT_CONTAINS(text, "~0.017000");
    ASSERT_CONTAINS(text, "tiny (>=1x)");
    ASSERT_CONTAINS(text, ">=0.001000");
    ASSERT_CONTAINS(text, "every 2 ms of CPU time");
    ASSERT_CONTAINS(text, "Throttled (>=)");
    free(text);
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_TOTAL, NULL, f));
    ASSERT_EQ_I(rc, 0);
    /* sampled: no min, max, std, p95 */
    const char *row = strstr(text, "\nsolve ");
    ASSERT(row);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    ASSERT_MSG(strstr(line, "~2") && strstr(line, "~0.017000") && strstr(line, "-  "), "row: %s",
               line);
    ASSERT_CONTAINS(text, "every 2 ms of CPU time");
    free(text);
    sp_run_free(run);
}

/* 14 regions with distinct totals: the 12 largest pairwise CIE76 >= 10. */
static void test_colors_apart(void)
{
    tb_call c[14];
    static const char *const names[14] = {"r00", "r01", "r02", "r03", "r04", "r05", "r06",
                                          "r07", "r08", "r09", "r10", "r11", "r12", "r13"};
    int64_t t = 0;
    for (int i = 0; i < 14; i++) { /* r13 the largest ... r00 the smallest */
        c[i] = (tb_call){0, 0, names[i], t, t + (i + 1) * MS};
        t += (i + 1) * MS + MS;
    }
    sp_run *run = tb_build(c, 14, 1, 1);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    sp_color_map *m = sp_color_map_for_run(run);
    ASSERT(m);
    ASSERT_EQ_U(sp_color_map_count(m), 14);
    ASSERT_STREQ(sp_color_map_name(m, 0), "r13");
    double worst = 1e9;
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++) {
            uint32_t a = sp_color_map_rgb(m, sp_color_map_name(m, (size_t)i));
            uint32_t b = sp_color_map_rgb(m, sp_color_map_name(m, (size_t)j));
            double d = sp_color_cie76(a, b);
            if (d < worst)
                worst = d;
        }
    printf("minimum CIE76 distance among the 12 largest regions: %.1f\n", worst);
    ASSERT_MSG(worst >= 10.0, "colours too close: %.1f", worst);
    /* and against the neutral grey of merged boxes */
    for (int i = 0; i < SP_PALETTE_SIZE; i++)
        ASSERT(sp_color_cie76(sp_palette_rgb(i), 0xB4B9C0) >= 10.0);
    /* the largest region gets the first colour, deterministic */
    ASSERT_EQ_U(sp_color_map_rgb(m, "r13"), sp_palette_rgb(0));
    ASSERT_EQ_I(sp_color_map_slot(m, "r13"), 0);
    /* a name the map does not hold: the stable hash */
    ASSERT_EQ_I(sp_color_map_slot(m, "not there"), sp_palette_hash_slot("not there"));
    char hex[8];
    ASSERT_STREQ(sp_color_hex(0x4E79A7, hex), "#4e79a7");
    sp_color_map_free(m);
    sp_run_free(run);
}

/* A comparison: one map for both runs colours a name alike in both. */
static void test_colors_shared_by_runs(void)
{
    tb_call a[] = {{0, 0, "solve", 0, 10 * MS}, {0, 0, "io", 11 * MS, 12 * MS}};
    tb_call b[] = {
        {0, 0, "solve", 0, 1 * MS}, {0, 0, "io", 2 * MS, 30 * MS}, {0, 0, "new", 31 * MS, 32 * MS}};
    sp_run *ra = tb_build(a, 2, 1, 1), *rb = tb_build(b, 3, 1, 1);
    ASSERT(ra && rb);
    const sp_run *both[2] = {ra, rb};
    sp_color_map *m = sp_color_map_new(both, 2);
    ASSERT(m);
    ASSERT_EQ_U(sp_color_map_count(m), 3);
    /* io has the larger time (30 ms in b) */
    ASSERT_STREQ(sp_color_map_name(m, 0), "io");
    ASSERT_STREQ(sp_color_map_name(m, 1), "solve");
    ASSERT(sp_color_map_rgb(m, "io") != sp_color_map_rgb(m, "solve"));
    ASSERT(sp_color_map_rgb(m, "new") != sp_color_map_rgb(m, "io"));
    sp_color_map_free(m);
    sp_run_free(ra);
    sp_run_free(rb);
}

/* Seconds are printed without printf (common/sp_numfmt.c, exact integer
 * arithmetic): every figure must read exactly as "%.6f" would print it. */
static void test_format_s_as_printf(void)
{
    static const sp_fig_kind kinds[] = {SP_FIG_EXACT, SP_FIG_ESTIMATE, SP_FIG_LOWER_BOUND};
    static const char *marks[] = {"", "~", ">="};
    double special[] = {0.0, -0.0, 5e-7, -5e-7, 1.5e-6, 2.5e-6, 1.0000005, 0.1, 0.7, -1e-9,
                        999999.9999995, 999999.999999, 1e6, 1e7, 1e300, -1e300, NAN, INFINITY,
                        -INFINITY, 4.9999999999e-7, 123456.7890125};
    char got[400], want[400];
    size_t nspecial = sizeof special / sizeof *special;
    uint64_t x = 88172645463325252ull; /* xorshift: the same values every run */
    for (size_t i = 0; i < nspecial + 300000; i++) {
        double v;
        if (i < nspecial) {
            v = special[i];
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t ns = (int64_t)(x % 4000000000000ull) >> (x % 30); /* ns, all scales */
            v = (x & 1 ? -1.0 : 1.0) * (double)ns * (i % 3 ? 1e-9 : 1e-12);
        }
        for (size_t k = 0; k < 3; k++) {
            sp_fig_format_s(v, kinds[k], got, sizeof got);
            snprintf(want, sizeof want, "%s%.6f", marks[k], v);
            if (strcmp(got, want) != 0) {
                fprintf(stderr, "%.17g: got %s, printf %s\n", v, got, want);
                ASSERT_STREQ(got, want);
                return;
            }
        }
    }
    /* cut like snprintf */
    ASSERT_STREQ(sp_fig_format_s(123.456789, SP_FIG_LOWER_BOUND, got, 6), ">=123");
    ASSERT_STREQ(sp_fig_format_s(1e300, SP_FIG_EXACT, got, 4), "100");
}

int main(void)
{
    RUN(test_mean_max_sum_per_rank);
    RUN(test_selection_counts_selected_ranks);
    RUN(test_threads_of_a_rank);
    RUN(test_estimates_marked);
    RUN(test_colors_apart);
    RUN(test_colors_shared_by_runs);
    RUN(test_format_s_as_printf);
    return sp_test_summary();
}
