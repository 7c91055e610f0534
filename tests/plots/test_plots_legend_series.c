/* SPDX-License-Identifier: MIT */
/*
 * test_plots_legend_series.c - legends never ellipsize short labels (the
 * duration-over-time chart with 4 ranks and the comparison at the sizes the
 * viewer and the CLI use), and the region series behind the histogram and
 * duration-over-time: built once and reused, rebuilt when the run changes
 * or is forgotten, same pixels as the prepared-object API, the envelope
 * keeps outliers, safe from several threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plot_fixture.h"
#include "sp_compare.h"
#include "sp_plot_internal.h"
#include "sp_test.h"

static sp_run *g_run; /* mock solver, 4 ranks */

static void test_legend_not_ellipsized(void)
{
    ASSERT(g_run);
    int32_t k = sp_run_region_id(g_run, "compute_kernel");
    const sp_run *one = g_run;
    sp_compare *cmp = sp_compare_runs(&one, 1, &one, 1, NULL);
    ASSERT(cmp);
    const int sizes[][2] = {{500, 280}, {1200, 700}, {1000, 450}, {640, 360}, {360, 280}};
    for (int dark = 0; dark < 2; dark++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int w = sizes[i][0], h = sizes[i][1];
            sp_plot_style st;
            sp_plot_style_init(&st);
            st.dark = dark;
            fx_image im;
            fx_image_new(&im, w, h);
            char name[64];
            sp__plot_stats stats = {0};
            sp__plot_stats_capture(&stats);
            ASSERT_EQ_I(sp_plot_duration_time(im.cr, w, h, g_run, k, -1, &st), 0);
            sp__plot_stats_capture(NULL);
            snprintf(name, sizeof name, "legend-duration-time-%dx%d%s.png", w, h,
                     dark ? "-dark" : "");
            fx_image_save(&im, name);
            ASSERT_EQ_U(stats.legend_items, 4); /* "rank 0" .. "rank 3" */
            ASSERT_MSG(stats.legend_ellipsized == 0, "%dx%d: %zu legend labels ellipsized", w,
                       h, stats.legend_ellipsized);

            memset(&stats, 0, sizeof stats);
            sp__plot_stats_capture(&stats);
            ASSERT_EQ_I(sp_plot_comparison(im.cr, w, h, cmp, NULL, 0, NULL, NULL, &st), 0);
            sp__plot_stats_capture(NULL);
            snprintf(name, sizeof name, "legend-compare-%dx%d%s.png", w, h, dark ? "-dark" : "");
            fx_image_save(&im, name);
            ASSERT_EQ_U(stats.legend_items, 5); /* slower .. the budget band */
            ASSERT_MSG(stats.legend_ellipsized == 0, "%dx%d: %zu legend labels ellipsized", w,
                       h, stats.legend_ellipsized);
            fx_image_free(&im);
        }
    sp_compare_free(cmp);
}

/* Rows of a legend of four entries (a comparison's) laid out w wide, its
 * first label `first`; stats counts. */
static void lay_legend(double w, const char *first, sp__plot_stats *stats)
{
    fx_image im;
    fx_image_new(&im, 1200, 700);
    sp__canvas c;
    ASSERT_EQ_I(sp__canvas_begin(&c, im.cr, w, 280, NULL), 0);
    sp__legend_item items[4] = {{first, c.th.neutral, false},
                                {"candidate: faster", c.th.good, false},
                                {"slower", c.th.bad, false},
                                {"within noise", c.th.neutral, false}};
    double pad = 16 * c.s;
    memset(stats, 0, sizeof *stats);
    sp__plot_stats_capture(stats);
    sp__legend(&c, items, 4, w - pad, 40 * c.s, w - 2 * pad, true);
    sp__plot_stats_capture(NULL);
    sp__canvas_end(&c);
    fx_image_free(&im);
}

/* Wrapping: a legend of four entries fits one row at 500 and 1200 wide
 * (with tighter spacing at 500) and wraps to two rows at 360; a label
 * wider than the whole chart is the one case that is ellipsized (the
 * counter counts it, so the checks above can fail). */
static void test_legend_rows(void)
{
    sp__plot_stats stats;
    lay_legend(360, "base (upper bar)", &stats);
    ASSERT_EQ_U(stats.legend_rows, 2);
    ASSERT_EQ_U(stats.legend_ellipsized, 0);
    lay_legend(500, "base (upper bar)", &stats);
    ASSERT_EQ_U(stats.legend_rows, 1);
    lay_legend(1200, "base (upper bar)", &stats);
    ASSERT_EQ_U(stats.legend_rows, 1);
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    lay_legend(500, longname, &stats);
    ASSERT_EQ_U(stats.legend_ellipsized, 1); /* "xxx…" (the first entry) */
}

/* Bytes of two same-size image surfaces are equal. */
static bool same_pixels(fx_image *a, fx_image *b)
{
    cairo_surface_flush(a->surf);
    cairo_surface_flush(b->surf);
    size_t bytes = (size_t)cairo_image_surface_get_stride(a->surf) * (size_t)a->h;
    return memcmp(cairo_image_surface_get_data(a->surf), cairo_image_surface_get_data(b->surf),
                  bytes) == 0;
}

static void test_series_cache(void)
{
    ASSERT(g_run);
    int32_t k = sp_run_region_id(g_run, "compute_kernel");
    sp_plot_cache_forget(NULL);
    fx_image a, b;
    fx_image_new(&a, 900, 450);
    fx_image_new(&b, 900, 450);
    sp__plot_stats stats = {0};
    sp__plot_stats_capture(&stats);
    ASSERT_EQ_I(sp_plot_histogram(a.cr, 900, 450, g_run, k, -1, NULL), 0);
    ASSERT_EQ_I(sp_plot_duration_time(a.cr, 900, 450, g_run, k, -1, NULL), 0);
    ASSERT_EQ_I(sp_plot_histogram(a.cr, 900, 450, g_run, k, -1, NULL), 0);
    ASSERT_EQ_U(stats.series_built, 1); /* one series serves both charts */
    ASSERT_EQ_U(stats.series_reused, 2);
    ASSERT_EQ_I(sp_plot_histogram(a.cr, 900, 450, g_run, k, 2, NULL), 0); /* another rank */
    ASSERT_EQ_U(stats.series_built, 2);

    /* The prepared object draws the same pixels as the wrapper. */
    sp_region_series *s = sp_region_series_new(g_run, k, 2);
    ASSERT(s);
    ASSERT_EQ_I(sp_plot_histogram_series(b.cr, 900, 450, s, NULL), 0);
    ASSERT(same_pixels(&a, &b));
    ASSERT_EQ_I(sp_plot_duration_time(a.cr, 900, 450, g_run, k, 2, NULL), 0);
    ASSERT_EQ_I(sp_plot_duration_time_series(b.cr, 900, 450, s, NULL), 0);
    ASSERT(same_pixels(&a, &b));
    size_t on_rank2 = 0;
    for (size_t i = 0; i < g_run->ranks[2].ncalls; i++)
        on_rank2 += g_run->ranks[2].region[i] == k;
    ASSERT_EQ_U(sp_region_series_count(s), on_rank2);
    sp_region_series_free(s);
    ASSERT(sp_region_series_new(g_run, 999, -1) == NULL);
    ASSERT(sp_plot_histogram_series(a.cr, 900, 450, NULL, NULL) == SP_EINVAL);

    /* Changed calls (same run pointer and arrays): the fingerprint misses. */
    memset(&stats, 0, sizeof stats);
    sp_rank_data *rk = &g_run->ranks[0];
    int64_t old_end = rk->end_ns[0];
    rk->end_ns[0] += 12345;
    ASSERT_EQ_I(sp_plot_histogram(a.cr, 900, 450, g_run, k, -1, NULL), 0);
    ASSERT_EQ_U(stats.series_built, 1);
    rk->end_ns[0] = old_end;
    /* Forgotten: built again. */
    sp_plot_cache_forget(g_run);
    ASSERT_EQ_I(sp_plot_histogram(a.cr, 900, 450, g_run, k, -1, NULL), 0);
    ASSERT_EQ_U(stats.series_built, 2);
    ASSERT_EQ_U(stats.series_reused, 0);
    sp__plot_stats_capture(NULL);
    fx_image_free(&a);
    fx_image_free(&b);
}

/* Many calls with one long outlier in the middle: the per-column envelope
 * (built from block summaries) must reach it near the top of the plot at
 * its column, and only there. */
static void test_envelope_outlier(void)
{
    fx_image im;
    fx_image_new(&im, 1000, 450);
    sp_run *run = fixture_flat_run(300000, 50, 30);
    ASSERT(run);
    sp_rgba col = fx_region_color(run, "tiny", false);
    int32_t tiny = sp_run_region_id(run, "tiny");
    sp_rank_data *rk = &run->ranks[0];
    for (size_t i = rk->ncalls / 2; i < rk->ncalls; i++)
        if (rk->region[i] == tiny) { /* 100x longer: log y axis */
            rk->end_ns[i] = rk->start_ns[i] + 5000;
            break;
        }
    ASSERT_EQ_I(sp_plot_duration_time(im.cr, 1000, 450, run, tiny, -1, NULL), 0);
    fx_image_save(&im, "test-duration-outlier.png");
    /* The plot spans x ~55..985; the outlier starts at half the run. */
    size_t at = fx_count_color(&im, 490, 95, 550, 250, col, 3);
    size_t left = fx_count_color(&im, 80, 95, 470, 250, col, 3);
    size_t right = fx_count_color(&im, 570, 95, 1000, 250, col, 3);
    ASSERT_MSG(at > 0, "outlier not drawn");
    ASSERT_MSG(left == 0 && right == 0, "%zu + %zu pixels high up away from the outlier", left,
               right);
    sp_plot_cache_forget(run);
    sp_run_free(run);
    fx_image_free(&im);
}

typedef struct worker {
    int32_t region;
    int rc;
} worker;

static void *draw_worker(void *arg)
{
    worker *wk = arg;
    fx_image im;
    fx_image_new(&im, 600, 300);
    for (int i = 0; i < 20 && !wk->rc; i++) {
        wk->rc = sp_plot_histogram(im.cr, 600, 300, g_run, wk->region, i % 5 - 1, NULL);
        if (!wk->rc)
            wk->rc = sp_plot_duration_time(im.cr, 600, 300, g_run, wk->region, i % 3 - 1, NULL);
        if (i % 7 == 6)
            sp_plot_cache_forget(g_run); /* evictions while others draw */
    }
    fx_image_free(&im);
    return NULL;
}

static void test_series_threads(void)
{
    ASSERT(g_run);
    pthread_t th[4];
    worker wk[4];
    const char *regs[] = {"compute_kernel", "assemble_matrix", "halo_exchange", "compute_kernel"};
    for (int i = 0; i < 4; i++) {
        wk[i] = (worker){sp_run_region_id(g_run, regs[i]), 0};
        ASSERT(pthread_create(&th[i], NULL, draw_worker, &wk[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ_I(wk[i].rc, 0);
    }
}

int main(void)
{
    g_run = fixture_mock_run(4, 30, 0.5, false);
    RUN(test_legend_not_ellipsized);
    RUN(test_legend_rows);
    RUN(test_series_cache);
    RUN(test_envelope_outlier);
    RUN(test_series_threads);
    sp_plot_cache_forget(NULL);
    sp_run_free(g_run);
    return sp_test_summary();
}
