/* SPDX-License-Identifier: MIT */
/*
 * test_plots_charts.c - rank bars, heat map, call tree, histogram, duration
 * over time and comparison drawn from hand-built runs: colours where
 * expected, text drawn, empty states, argument checks, call tree hits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_builder.h"
#include "plot_fixture.h"
#include "sp_plot_internal.h"
#include "sp_test.h"

static sp_run *g_run; /* mock solver, 4 ranks, analysed */

static bool needs_run(void)
{
    if (!g_run)
        g_run = fixture_mock_run(4, 30, 0.5, true);
    return g_run != NULL;
}

static size_t count_region(fx_image *im, const char *name)
{
    return fx_count_color(im, 0, 0, im->w, im->h, fx_region_color(g_run, name, false), 3);
}

static void test_rank_bars(void)
{
    ASSERT(needs_run());
    fx_image im;
    fx_image_new(&im, 800, 500);
    int32_t reg = sp_run_region_id(g_run, "assemble_matrix");
    ASSERT_EQ_I(sp_plot_rank_bars(im.cr, 800, 500, g_run, reg, SP_RANK_TOTAL, NULL), 0);
    fx_image_save(&im, "test-rank-bars.png");
    /* Bars of ranks 0..2 in the region colour, in the left three quarters. */
    size_t bars = fx_count_color(&im, 0, 0, 600, 500, fx_region_color(g_run, "assemble_matrix", false), 3);
    ASSERT_MSG(bars > 20000, "%zu bar pixels", bars);
    /* Rank 3 (the slowest, right quarter) is emphasised in a darker shade. */
    ASSERT(fx_count_color(&im, 620, 0, 800, 500, fx_region_color(g_run, "assemble_matrix", false), 3) < 200);
    /* Text: title and tick labels. */
    ASSERT(fx_count_dark(&im, 0, 0, 400, 30, 100) > 100);
    ASSERT(fx_count_dark(&im, 0, 60, 60, 470, 160) > 50);
    /* Other metrics draw too. */
    for (int m = SP_RANK_MEAN; m <= SP_RANK_CALLS; m++)
        ASSERT_EQ_I(sp_plot_rank_bars(im.cr, 800, 500, g_run, reg, (sp_rank_metric)m, NULL), 0);
    sp_rank_metric mt;
    ASSERT_EQ_I(sp_rank_metric_parse("Mean", &mt), 0);
    ASSERT_EQ_I(mt, SP_RANK_MEAN);
    ASSERT(sp_rank_metric_parse("median", &mt) == SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "median");
    fx_image_free(&im);
}

static void test_heatmap(void)
{
    ASSERT(needs_run());
    fx_image im;
    fx_image_new(&im, 1000, 400);
    ASSERT_EQ_I(sp_plot_rank_heatmap(im.cr, 1000, 400, g_run, SP_RANK_TOTAL, NULL, 0, NULL), 0);
    fx_image_save(&im, "test-heatmap.png");
    /* Every region's colour appears in its column marker. */
    const char *names[] = {"main", "solve", "assemble_matrix", "apply_bc", "halo_exchange"};
    for (size_t i = 0; i < 5; i++)
        ASSERT_MSG(count_region(&im, names[i]) > 20, "%s: %zu", names[i], count_region(&im, names[i]));
    /* The imbalanced region shows both ends of the diverging ramp: rank 0
     * below its mean (blue-ish), rank 3 above (red-ish). */
    size_t blue = 0, red = 0;
    cairo_surface_flush(im.surf);
    const unsigned char *px = cairo_image_surface_get_data(im.surf);
    int stride = cairo_image_surface_get_stride(im.surf);
    for (int y = 0; y < 400; y++)
        for (int x = 0; x < 1000; x++) {
            uint32_t p = *(const uint32_t *)(px + y * stride + 4 * x);
            int r = p >> 16 & 255, g = p >> 8 & 255, b = p & 255;
            blue += b > r + 40 && b > g;
            red += r > b + 60 && r > g + 60;
        }
    ASSERT_MSG(blue > 500 && red > 500, "blue %zu red %zu", blue, red);
    /* An explicit column list shows only those. */
    int32_t cols[2] = {sp_run_region_id(g_run, "setup"), sp_run_region_id(g_run, "apply_bc")};
    ASSERT_EQ_I(sp_plot_rank_heatmap(im.cr, 1000, 400, g_run, SP_RANK_CALLS, cols, 2, NULL), 0);
    ASSERT(count_region(&im, "setup") > 20);
    ASSERT_EQ_U(count_region(&im, "assemble_matrix"), 0);
    fx_image_free(&im);
}

/* 8 ranks: "even" on every rank, "only_rank0" on rank 0 alone (+700 % there
 * against the mean over ranks), "not_on_7" on ranks 0-6 (-100 % on rank 7).
 * The colour scale runs from -100 % (a rank cannot spend less than nothing;
 * one scale for both sides ran to -1000 %) to +1000 % (700 rounded up to a
 * 1-2-5 step); every cell value is whole or left out, never "332 …". */
static void test_heatmap_scale_and_values(void)
{
    tb_call c[32];
    size_t n = 0;
    for (int r = 0; r < 8; r++) {
        c[n++] = (tb_call){r, 0, "main", 0, 2000 * MS};
        c[n++] = (tb_call){r, 0, "even", 0, (300 + 10 * r) * MS};
        if (r < 7)
            c[n++] = (tb_call){r, 0, "not_on_7", 400 * MS, 600 * MS};
        if (r == 0)
            c[n++] = (tb_call){r, 0, "only_rank0", 700 * MS, 1032 * MS};
    }
    sp_run *run = tb_build(c, n, 8, 1);
    ASSERT(run && sp_run_analyze(run) == 0);
    fx_image im;
    fx_image_new(&im, 1280, 600);
    sp__plot_stats st = {0};
    sp__plot_stats_capture(&st);
    ASSERT_EQ_I(sp_plot_rank_heatmap(im.cr, 1280, 600, run, SP_RANK_TOTAL, NULL, 0, NULL), 0);
    sp__plot_stats_capture(NULL);
    fx_image_save(&im, "test-heatmap-scale.png");
    ASSERT_NEAR(st.heatmap_below, 1.0, 1e-12);
    ASSERT_NEAR(st.heatmap_above, 10.0, 1e-12);
    ASSERT_EQ_U(st.heatmap_values_shown, 32); /* 8 ranks x 4 regions, all whole */
    ASSERT_EQ_U(st.heatmap_values_hidden, 0);
    /* Narrow, with the four columns asked for: values that do not fit are
     * left out, not cut. */
    st = (sp__plot_stats){0};
    sp__plot_stats_capture(&st);
    fx_image narrow;
    fx_image_new(&narrow, 200, 400);
    const int32_t all[4] = {0, 1, 2, 3};
    ASSERT_EQ_I(sp_plot_rank_heatmap(narrow.cr, 200, 400, run, SP_RANK_TOTAL, all, 4, NULL), 0);
    sp__plot_stats_capture(NULL);
    fx_image_save(&narrow, "test-heatmap-narrow.png");
    fx_image_free(&narrow);
    ASSERT_MSG(st.heatmap_values_hidden > 0, "%zu shown", st.heatmap_values_shown);
    /* Within 10 % either way: the scale stays at +-10 %. */
    sp_run_free(run);
    n = 0;
    for (int r = 0; r < 4; r++)
        c[n++] = (tb_call){r, 0, "main", 0, (100 + r) * MS};
    run = tb_build(c, n, 4, 1);
    ASSERT(run && sp_run_analyze(run) == 0);
    st = (sp__plot_stats){0};
    sp__plot_stats_capture(&st);
    ASSERT_EQ_I(sp_plot_rank_heatmap(im.cr, 800, 400, run, SP_RANK_TOTAL, NULL, 0, NULL), 0);
    sp__plot_stats_capture(NULL);
    ASSERT_NEAR(st.heatmap_below, 0.1, 1e-12);
    ASSERT_NEAR(st.heatmap_above, 0.1, 1e-12);
    sp_run_free(run);
    fx_image_free(&im);
}

/* The first pixel (scanning rows) of colour c, or false. */
static bool find_color(fx_image *im, sp_rgba c, int *fx, int *fy)
{
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            if (fx_count_color(im, x, y, x + 1, y + 1, c, 2)) {
                *fx = x;
                *fy = y;
                return true;
            }
    return false;
}

static void test_calltree(void)
{
    ASSERT(needs_run());
    fx_image im;
    fx_image_new(&im, 1000, 400);
    sp_calltree_view v;
    sp_calltree_view_init(&v);
    ASSERT_EQ_I(sp_plot_calltree(im.cr, 1000, 400, g_run, &v, NULL), 0);
    fx_image_save(&im, "test-calltree.png");
    const char *names[] = {"main", "solve", "assemble_matrix", "setup", "refine_mesh",
                           "worker_loop", "compute_kernel"};
    for (size_t i = 0; i < 7; i++) {
        int x, y;
        ASSERT_MSG(find_color(&im, fx_region_color(g_run, names[i], false), &x, &y), "%s not drawn",
                   names[i]);
        /* Hit testing finds the node drawn there. */
        int32_t node = sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, x + 1, y + 2);
        ASSERT_MSG(node > 0, "%s: no node at %d,%d", names[i], x, y);
        ASSERT_STREQ(g_run->region_names[g_run->tree.nodes[node].region], names[i]);
    }
    ASSERT_EQ_I(sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, 500, 5), -1); /* the title */
    ASSERT_EQ_I(sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, 500, 395), -1); /* below */

    /* Zoomed on assemble_matrix: it spans the width, its ancestors above it. */
    int x, y;
    ASSERT(find_color(&im, fx_region_color(g_run, "assemble_matrix", false), &x, &y));
    int32_t node = sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, x + 1, y + 2);
    v.root_node = node;
    ASSERT_EQ_I(sp_plot_calltree(im.cr, 1000, 400, g_run, &v, NULL), 0);
    fx_image_save(&im, "test-calltree-zoom.png");
    int zx, zy;
    ASSERT(find_color(&im, fx_region_color(g_run, "assemble_matrix", false), &zx, &zy));
    ASSERT(zx < 20);
    ASSERT_EQ_I(sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, 980, zy + 2), node);
    ASSERT_EQ_I(sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, 980, zy - 5),
                g_run->tree.nodes[node].parent);
    /* Flame orientation and the selected outline draw too. */
    v.root_node = 0;
    v.flame = true;
    v.selected_node = node;
    ASSERT_EQ_I(sp_plot_calltree(im.cr, 1000, 400, g_run, &v, NULL), 0);
    fx_image_save(&im, "test-calltree-flame.png");
    int fx, fy;
    ASSERT(find_color(&im, fx_region_color(g_run, "main", false), &fx, &fy));
    ASSERT(fy > 200); /* the top level sits near the bottom */
    int32_t hit = sp_plot_calltree_hit(g_run, 1000, 400, &v, NULL, fx + 1, fy + 2);
    ASSERT(hit > 0);
    ASSERT_STREQ(g_run->region_names[g_run->tree.nodes[hit].region], "main");
    fx_image_free(&im);
}

/* One region whose durations are log-uniform between 1 us and 10 ms. */
static sp_run *spread_run(double lo_ns, double hi_ns, size_t n)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 1);
    sp_rank_data *rk = &run->ranks[0];
    int32_t id = sp_run_intern_region(run, "io_write");
    sp_rank_alloc_calls(rk, n);
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        double f = (double)((i * 7919) % n) / (double)(n - 1);
        int64_t d = (int64_t)(lo_ns * pow(hi_ns / lo_ns, f));
        rk->start_ns[i] = t;
        rk->end_ns[i] = t + d;
        rk->region[i] = id;
        rk->thread[i] = 0;
        t += d + 100;
    }
    return run;
}

static void test_histogram(void)
{
    ASSERT(needs_run());
    fx_image im;
    fx_image_new(&im, 900, 450);
    int32_t k = sp_run_region_id(g_run, "compute_kernel");
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 900, 450, g_run, k, -1, NULL), 0);
    fx_image_save(&im, "test-histogram.png");
    ASSERT(count_region(&im, "compute_kernel") > 5000);
    ASSERT(fx_count_dark(&im, 0, 400, 900, 450, 160) > 50); /* x tick labels */
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 900, 450, g_run, k, 2, NULL), 0);
    ASSERT(count_region(&im, "compute_kernel") > 2000);

    /* Four decades of durations: on a log axis the bars fill the middle of
     * the plot; on a linear one nearly all would sit in the first bins. */
    sp_run *run = spread_run(1000, 1e7, 4000);
    ASSERT(run);
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 900, 450, run, 0, -1, NULL), 0);
    fx_image_save(&im, "test-histogram-log.png");
    size_t mid = fx_count_color(&im, 350, 0, 550, 450, fx_region_color(run, "io_write", false), 3);
    ASSERT_MSG(mid > 4000, "%zu pixels in the middle", mid);
    /* Two thirds of a decade: linear, bars across the width too. */
    sp_run *narrow = spread_run(1e6, 4.6e6, 4000);
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 900, 450, narrow, 0, -1, NULL), 0);
    ASSERT(fx_count_color(&im, 350, 0, 550, 450, fx_region_color(narrow, "io_write", false), 3) > 4000);
    sp_run_free(narrow);
    sp_run_free(run);
    fx_image_free(&im);
}

static void test_duration_time(void)
{
    ASSERT(needs_run());
    fx_image im;
    fx_image_new(&im, 1000, 450);
    int32_t k = sp_run_region_id(g_run, "compute_kernel");
    ASSERT_EQ_I(sp_plot_duration_time(im.cr, 1000, 450, g_run, k, 1, NULL), 0);
    fx_image_save(&im, "test-duration-time.png");
    ASSERT(count_region(&im, "compute_kernel") > 300); /* one rank: the region colour */
    ASSERT_EQ_I(sp_plot_duration_time(im.cr, 1000, 450, g_run, k, -1, NULL), 0);
    ASSERT(fx_count_non_bg(&im, 100, 100, 950, 380) > 3000);
    /* Many calls: the per-column envelope path. */
    sp_run *run = fixture_flat_run(200000, 50, 30);
    ASSERT(run);
    ASSERT_EQ_I(sp_plot_duration_time(im.cr, 1000, 450, run, sp_run_region_id(run, "tiny"), -1, NULL), 0);
    ASSERT(fx_count_color(&im, 0, 0, im.w, im.h, fx_region_color(run, "tiny", false), 3) > 800);
    sp_run_free(run);
    fx_image_free(&im);
}

/* Each chart on a run without calls draws a message and no data. */
static void test_empty_states(void)
{
    sp_run *run = fixture_empty_run(3, true);
    ASSERT(run);
    fx_image im;
    fx_image_new(&im, 600, 300);
    sp_calltree_view cv;
    sp_calltree_view_init(&cv);
    for (int chart = 0; chart < 5; chart++) {
        cairo_set_source_rgb(im.cr, 1, 0, 1);
        cairo_paint(im.cr);
        int rc;
        switch (chart) {
        case 0: rc = sp_plot_rank_bars(im.cr, 600, 300, run, 0, SP_RANK_TOTAL, NULL); break;
        case 1: rc = sp_plot_rank_heatmap(im.cr, 600, 300, run, SP_RANK_TOTAL, NULL, 0, NULL); break;
        case 2: rc = sp_plot_calltree(im.cr, 600, 300, run, &cv, NULL); break;
        case 3: rc = sp_plot_histogram(im.cr, 600, 300, run, 0, -1, NULL); break;
        default: rc = sp_plot_duration_time(im.cr, 600, 300, run, 0, 1, NULL); break;
        }
        ASSERT_MSG(rc == 0, "chart %d: %d %s", chart, rc, sp_last_error());
        /* A message in the middle band, plain background elsewhere. */
        ASSERT_MSG(fx_count_dark(&im, 0, 120, 600, 180, 180) > 40, "chart %d: no message", chart);
        ASSERT_MSG(fx_count_non_bg(&im, 0, 0, 600, 100) == 0, "chart %d: drew above", chart);
        if (chart == 3) {
            char name[32];
            snprintf(name, sizeof name, "test-empty-%d.png", chart);
            fx_image_save(&im, name);
        }
    }
    /* Unknown region ids draw a message too. */
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 600, 300, run, 99, -1, NULL), 0);
    ASSERT_EQ_I(sp_plot_rank_bars(im.cr, 600, 300, run, -1, SP_RANK_TOTAL, NULL), 0);
    ASSERT(fx_count_dark(&im, 0, 120, 600, 180, 180) > 40);
    ASSERT_EQ_I(sp_plot_draw_empty(im.cr, 600, 300, NULL, "Nothing here"), 0);
    ASSERT(fx_count_dark(&im, 0, 120, 600, 180, 180) > 20);
    /* Tiny sizes do not crash. */
    ASSERT_EQ_I(sp_plot_rank_bars(im.cr, 30, 20, g_run, 0, SP_RANK_TOTAL, NULL), 0);
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 30, 20, g_run, 0, -1, NULL), 0);
    ASSERT_EQ_I(sp_plot_calltree(im.cr, 30, 20, g_run, NULL, NULL), 0);
    fx_image_free(&im);
    sp_run_free(run);
}

static void test_not_analysed(void)
{
    sp_run *run = fixture_mock_run(2, 5, 0.1, false);
    ASSERT(run);
    fx_image im;
    fx_image_new(&im, 300, 200);
    ASSERT(sp_plot_rank_bars(im.cr, 300, 200, run, 0, SP_RANK_TOTAL, NULL) == SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "sp_run_analyze");
    ASSERT(sp_plot_rank_heatmap(im.cr, 300, 200, run, SP_RANK_TOTAL, NULL, 0, NULL) == SP_EINVAL);
    ASSERT(sp_plot_calltree(im.cr, 300, 200, run, NULL, NULL) == SP_EINVAL);
    ASSERT_EQ_I(sp_plot_calltree_hit(run, 300, 200, NULL, NULL, 10, 100), -1);
    /* Raw-call charts work without analysis. */
    ASSERT_EQ_I(sp_plot_histogram(im.cr, 300, 200, run, 0, -1, NULL), 0);
    ASSERT_EQ_I(sp_plot_duration_time(im.cr, 300, 200, run, 0, -1, NULL), 0);
    ASSERT(sp_plot_histogram(NULL, 300, 200, run, 0, -1, NULL) == SP_EINVAL);
    fx_image_free(&im);
    sp_run_free(run);
}

int main(void)
{
    RUN(test_rank_bars);
    RUN(test_heatmap);
    RUN(test_heatmap_scale_and_values);
    RUN(test_calltree);
    RUN(test_histogram);
    RUN(test_duration_time);
    RUN(test_empty_states);
    RUN(test_not_analysed);
    sp_run_free(g_run);
    return sp_test_summary();
}
