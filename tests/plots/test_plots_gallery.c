/* SPDX-License-Identifier: MIT */
/*
 * test_plots_gallery.c - every chart of a realistic run exported as a user
 * would (PNG in light and dark themes, one SVG and PDF), into the look
 * directory ($SP_PLOTS_LOOK_DIR, else <build>/tests/plots/plots-look), so a
 * person can look at them. Checks that each export succeeds and is not blank.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "plot_fixture.h"
#include "sp_compare.h"
#include "sp_test.h"

static sp_run *g_run;

typedef struct job {
    int kind;
    sp_plot_style st;
    sp_timeline *tl;
    sp_timeline_view tv;
    sp_calltree_view cv;
    int32_t region;
    int32_t rank;
    const sp_compare *cmp;
} job;

enum { K_TIMELINE, K_BARS, K_HEAT, K_TREE, K_HIST, K_DURT, K_CMP, K_EMPTY };

static int draw_job(cairo_t *cr, double w, double h, void *data)
{
    job *j = data;
    switch (j->kind) {
    case K_TIMELINE:
        return sp_timeline_draw(cr, w, h, j->tl, &j->tv, &j->st);
    case K_BARS:
        return sp_plot_rank_bars(cr, w, h, g_run, j->region, SP_RANK_TOTAL, &j->st);
    case K_HEAT:
        return sp_plot_rank_heatmap(cr, w, h, g_run, SP_RANK_TOTAL, NULL, 0, &j->st);
    case K_TREE:
        return sp_plot_calltree(cr, w, h, g_run, &j->cv, &j->st);
    case K_HIST:
        return sp_plot_histogram(cr, w, h, g_run, j->region, j->rank, &j->st);
    case K_DURT:
        return sp_plot_duration_time(cr, w, h, g_run, j->region, j->rank, &j->st);
    case K_CMP:
        return sp_plot_comparison(cr, w, h, j->cmp, NULL, 0, "v1.2", "v1.3", &j->st);
    default:
        return sp_plot_draw_empty(cr, w, h, &j->st, "No calls recorded for region 'solve'");
    }
}

static long file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

static int export_one(job *j, const char *name, sp_plot_format fmt, double w, double h)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s.%s", fx_look_dir(), name, sp_plot_format_name(fmt));
    int rc = sp_plot_export(path, fmt, w, h, draw_job, j);
    if (rc)
        fprintf(stderr, "export %s: %s\n", path, sp_last_error());
    else if (file_size(path) < 500)
        rc = -1000;
    return rc;
}

static void test_gallery(void)
{
    g_run = fixture_mock_run(4, 40, 0.45, true);
    ASSERT(g_run);
    int32_t assemble = sp_run_region_id(g_run, "assemble_matrix");
    int32_t kernel = sp_run_region_id(g_run, "compute_kernel");
    int32_t halo = sp_run_region_id(g_run, "halo_exchange");
    ASSERT(assemble >= 0 && kernel >= 0 && halo >= 0);
    sp_timeline *tl = sp_timeline_new(g_run);
    ASSERT(tl);

    /* The comparison model's chart: the run against a more imbalanced one. */
    sp_run *cand = fixture_mock_run(4, 40, 0.9, true);
    ASSERT(cand);
    const sp_run *b = g_run, *c = cand;
    sp_compare *cmp = sp_compare_runs(&b, 1, &c, 1, NULL);
    ASSERT(cmp);

    for (int dark = 0; dark < 2; dark++) {
        const char *suffix = dark ? "-dark" : "";
        job j;
        memset(&j, 0, sizeof j);
        sp_plot_style_init(&j.st);
        j.st.dark = dark;
        j.tl = tl;
        j.rank = -1;
        j.cmp = cmp;
        char name[64];

        j.kind = K_TIMELINE;
        sp_timeline_view_init(&j.tv, tl);
        j.st.title = "Timeline: mock_solver, 4 ranks";
        snprintf(name, sizeof name, "timeline%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 1400, 620), 0);
        /* Zoomed on the first solve of rank 0, assemble highlighted, a kernel selected. */
        j.tv.t0_ns = (int64_t)(sp_timeline_duration_ns(tl) * 0.30);
        j.tv.t1_ns = (int64_t)(sp_timeline_duration_ns(tl) * 0.42);
        j.tv.highlight_region = kernel;
        j.st.title = "Timeline: zoomed, compute_kernel highlighted";
        snprintf(name, sizeof name, "timeline-zoom%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 1400, 620), 0);
        j.st.title = NULL;

        j.kind = K_BARS;
        j.region = assemble;
        snprintf(name, sizeof name, "rank-bars%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 900, 520), 0);
        j.kind = K_HEAT;
        snprintf(name, sizeof name, "heatmap%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 1000, 420), 0);
        j.kind = K_TREE;
        sp_calltree_view_init(&j.cv);
        snprintf(name, sizeof name, "calltree%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 1200, 420), 0);
        j.kind = K_HIST;
        j.region = kernel;
        snprintf(name, sizeof name, "histogram%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 900, 480), 0);
        j.region = halo; /* wide spread: log axis */
        snprintf(name, sizeof name, "histogram-halo%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 900, 480), 0);
        j.kind = K_DURT;
        j.region = kernel;
        snprintf(name, sizeof name, "duration-time%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 1000, 480), 0);
        j.kind = K_CMP;
        snprintf(name, sizeof name, "compare%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 900, 460), 0);
        j.kind = K_EMPTY;
        snprintf(name, sizeof name, "empty%s", suffix);
        ASSERT_EQ_I(export_one(&j, name, SP_PLOT_PNG, 600, 300), 0);
    }
    /* Vector formats and a HiDPI PNG of the timeline. */
    job j;
    memset(&j, 0, sizeof j);
    sp_plot_style_init(&j.st);
    j.tl = tl;
    j.kind = K_TIMELINE;
    sp_timeline_view_init(&j.tv, tl);
    ASSERT_EQ_I(export_one(&j, "timeline", SP_PLOT_SVG, 1000, 500), 0);
    ASSERT_EQ_I(export_one(&j, "timeline", SP_PLOT_PDF, 1000, 500), 0);
    j.st.scale = 2;
    ASSERT_EQ_I(export_one(&j, "timeline-2x", SP_PLOT_PNG, 2000, 1000), 0);
    sp_timeline_free(tl);
    sp_compare_free(cmp);
    sp_run_free(cand);
    sp_run_free(g_run);

    /* Many ranks: bars thin out their labels, the heat map its rows. */
    g_run = fixture_mock_run(64, 4, 0.6, true);
    ASSERT(g_run);
    memset(&j, 0, sizeof j);
    sp_plot_style_init(&j.st);
    j.kind = K_BARS;
    j.region = sp_run_region_id(g_run, "halo_exchange");
    ASSERT_EQ_I(export_one(&j, "rank-bars-64", SP_PLOT_PNG, 1000, 480), 0);
    j.kind = K_HEAT;
    ASSERT_EQ_I(export_one(&j, "heatmap-64", SP_PLOT_PNG, 1000, 700), 0);
    j.kind = K_DURT;
    j.region = sp_run_region_id(g_run, "assemble_matrix");
    j.rank = -1;
    ASSERT_EQ_I(export_one(&j, "duration-time-64", SP_PLOT_PNG, 1000, 480), 0);
    tl = sp_timeline_new(g_run);
    ASSERT(tl);
    j.tl = tl;
    j.kind = K_TIMELINE;
    sp_timeline_view_init(&j.tv, tl);
    j.tv.scroll_y = 2000;
    ASSERT_EQ_I(export_one(&j, "timeline-64", SP_PLOT_PNG, 1200, 600), 0);
    sp_timeline_free(tl);
    sp_run_free(g_run);
    fprintf(stderr, "charts written to %s\n", fx_look_dir());
}

int main(void)
{
    RUN(test_gallery);
    return sp_test_summary();
}
