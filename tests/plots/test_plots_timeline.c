/* SPDX-License-Identifier: MIT */
/*
 * test_plots_timeline.c - the timeline: what it draws where, level of detail
 * bounds and colours, hit testing, scrolling, empty runs (runs with calls:
 * every lane gets a window of all its calls); a run read aggregate-first
 * drawn from its level-of-detail index, then from a window of calls loaded
 * for a zoomed view (exactly the calls there); the overview of many ranks;
 * lines between lanes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_fixture.h"
#include "sp_test.h"
#include "sp_agg.h"
#include "sp_source_mem.h"
#include "sp_timeline_private.h"
#include "sp_window.h"

#define W 1200
#define H 700

/* Run time of a call, ns. */
static double run_time(const sp_timeline *tl, const sp_run *run, int rank, int64_t t)
{
    return (double)(t + run->ranks[rank].clock_offset_ns - sp_timeline_origin_ns(tl));
}

/* The first call of region name on rank 0 thread 0, and its depth. */
static int64_t find_call(const sp_run *run, const char *name, int32_t *depth)
{
    int32_t reg = sp_run_region_id(run, name);
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; i < rk->ncalls; i++)
        if (rk->region[i] == reg && rk->thread[i] == 0) {
            int32_t d = 0;
            for (int64_t p = rk->parent[i]; p >= 0; p = rk->parent[p])
                d++;
            *depth = d;
            return (int64_t)i;
        }
    return -1;
}

/* Box of a call in lane 0 (rank 0, thread 0): x range and row top. */
static void call_box(const sp_timeline *tl, const sp_run *run, const sp_timeline_view *v,
                     int64_t call, int32_t depth, double *x0, double *x1, double *y, double *rh)
{
    sp__tl_layout lay;
    sp__tl_layout_get(tl, W, H, v, NULL, &lay);
    const sp_rank_data *rk = &run->ranks[0];
    *x0 = sp_timeline_ns_to_x(tl, W, H, v, NULL, run_time(tl, run, 0, rk->start_ns[call]));
    *x1 = sp_timeline_ns_to_x(tl, W, H, v, NULL, run_time(tl, run, 0, rk->end_ns[call]));
    *y = lay.data_y - lay.scroll_y + sp__tl_lane_top(tl, &lay, 0) + lay.lane_pad + depth * lay.row_h;
    *rh = lay.row_h;
}

static void test_lanes_and_colours(void)
{
    sp_run *run = fixture_mock_run(4, 40, 0.4, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 8); /* 4 ranks x 2 threads */
    sp_timeline_lane_info li;
    ASSERT_EQ_I(sp_timeline_lane_info_get(tl, 1, &li), 0);
    ASSERT_EQ_I(li.rank, 0);
    ASSERT_EQ_I(li.thread, 1);
    ASSERT_STREQ(li.thread_name, "worker");
    ASSERT_EQ_I(li.depths, 2);
    ASSERT_EQ_I(sp_timeline_lane_info_get(tl, 0, &li), 0);
    ASSERT_EQ_I(li.depths, 6); /* main > setup > refine_mesh x4 */
    ASSERT(sp_timeline_lane_info_get(tl, 8, &li) == SP_EINVAL);

    fx_image im;
    fx_image_new(&im, W, H);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    sp_timeline_stats st;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v, NULL, &st), 0);
    fx_image_save(&im, "test-timeline.png");
    ASSERT(st.boxes > 50);
    ASSERT(st.labels > 10);
    ASSERT_EQ_U(st.lanes_drawn, 8);

    /* assemble_matrix's box is drawn in its colour where the call is. */
    int32_t depth;
    int64_t call = find_call(run, "assemble_matrix", &depth);
    ASSERT(call >= 0);
    ASSERT_EQ_I(depth, 2);
    double x0, x1, y, rh;
    call_box(tl, run, &v, call, depth, &x0, &x1, &y, &rh);
    ASSERT(x1 - x0 > 40);
    sp_rgba col = fx_region_color(run, "assemble_matrix", false);
    /* Right end of the box (labels sit at the left), avoiding the 1px gap. */
    size_t n = fx_count_color(&im, (int)x1 - 12, (int)y + 1, (int)x1 - 3, (int)(y + rh - 2), col, 3);
    ASSERT_MSG(n >= 9 * (size_t)(rh - 3) * 8 / 10, "only %zu pixels of the region colour", n);
    /* The same place one row lower (depth 3) has no assemble colour. */
    ASSERT_EQ_U(fx_count_color(&im, (int)x1 - 12, (int)(y + rh + 1), (int)x1 - 3,
                               (int)(y + 2 * rh - 2), col, 3),
                0);
    /* Text in the lane-name column and the axis band. */
    sp__tl_layout lay;
    sp__tl_layout_get(tl, W, H, &v, NULL, &lay);
    ASSERT(fx_count_dark(&im, 0, (int)lay.data_y, (int)lay.data_x - 2, (int)lay.data_y + 60, 110) > 30);
    ASSERT(fx_count_dark(&im, (int)lay.data_x, 0, W, (int)lay.data_y - 2, 140) > 30);

    /* Dark theme: the dark variant of the colour, on a dark background. */
    sp_plot_style ds;
    sp_plot_style_init(&ds);
    ds.dark = true;
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, &ds), 0);
    ASSERT(fx_count_color(&im, (int)x1 - 12, (int)y + 1, (int)x1 - 3, (int)(y + rh - 2),
                          fx_region_color(run, "assemble_matrix", true), 3) > 50);
    ASSERT_EQ_U(fx_count_dark(&im, 0, 0, 40, 20, 60), 40 * 20); /* dark background */

    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

static void test_highlight_and_selection(void)
{
    sp_run *run = fixture_mock_run(2, 10, 0.2, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    int32_t depth;
    int64_t call = find_call(run, "assemble_matrix", &depth);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    double x0, x1, y, rh;
    call_box(tl, run, &v, call, depth, &x0, &x1, &y, &rh);
    sp_rgba col = fx_region_color(run, "assemble_matrix", false);
    fx_image im;
    fx_image_new(&im, W, H);
    /* Another region highlighted: assemble_matrix is faded. */
    v.highlight_region = sp_run_region_id(run, "apply_bc");
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, NULL), 0);
    ASSERT_EQ_U(fx_count_color(&im, (int)x1 - 12, (int)y + 1, (int)x1 - 3, (int)(y + rh - 2), col, 3), 0);
    /* Itself highlighted: full colour. */
    v.highlight_region = sp_run_region_id(run, "assemble_matrix");
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, NULL), 0);
    ASSERT(fx_count_color(&im, (int)x1 - 12, (int)y + 1, (int)x1 - 3, (int)(y + rh - 2), col, 3) > 40);
    /* Selected: a dark outline along the box's top edge. */
    v.highlight_region = -1;
    size_t before = fx_count_dark(&im, (int)x0 + 2, (int)y, (int)x1 - 2, (int)y + 3, 60);
    v.selected = (sp_timeline_call_ref){0, 0, depth,
                                        (int64_t)run_time(tl, run, 0, run->ranks[0].start_ns[call]),
                                        (int64_t)run_time(tl, run, 0, run->ranks[0].end_ns[call])};
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, NULL), 0);
    size_t after = fx_count_dark(&im, (int)x0 + 2, (int)y, (int)x1 - 2, (int)y + 3, 60);
    ASSERT_MSG(after > before + (size_t)(x1 - x0), "outline pixels %zu -> %zu", before, after);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

static void test_hit(void)
{
    sp_run *run = fixture_mock_run(3, 20, 0.3, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    int32_t depth;
    int64_t call = find_call(run, "apply_bc", &depth);
    double x0, x1, y, rh;
    call_box(tl, run, &v, call, depth, &x0, &x1, &y, &rh);
    sp_timeline_hit_info hi;
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, (x0 + x1) / 2, y + rh / 2, &hi),
                SP_TIMELINE_HIT_CALL);
    ASSERT_EQ_I(hi.rank, 0);
    ASSERT_EQ_I(hi.thread, 0);
    ASSERT_EQ_I(hi.lane, 0);
    ASSERT_EQ_I(hi.depth, depth);
    ASSERT_EQ_I(hi.call, call);
    ASSERT_EQ_I(hi.region, sp_run_region_id(run, "apply_bc"));
    ASSERT_EQ_I(hi.start_ns, run_time(tl, run, 0, run->ranks[0].start_ns[call]));
    ASSERT_EQ_I(hi.end_ns, run_time(tl, run, 0, run->ranks[0].end_ns[call]));
    ASSERT(hi.t_ns >= run_time(tl, run, 0, run->ranks[0].start_ns[call]));
    ASSERT(hi.t_ns <= run_time(tl, run, 0, run->ranks[0].end_ns[call]));
    /* One row up is its parent (solve). */
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, (x0 + x1) / 2, y - rh / 2, &hi),
                SP_TIMELINE_HIT_CALL);
    ASSERT_EQ_I(hi.call, run->ranks[0].parent[call]);
    /* The lane-name column, the axis, and below the last lane. */
    sp_timeline_geometry g;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, H, &v, NULL, &g), 0);
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, 5, y + rh / 2, &hi), SP_TIMELINE_HIT_LANE);
    ASSERT_EQ_I(hi.rank, 0);
    ASSERT_EQ_I(hi.call, -1);
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, g.data_x + 50, g.data_y - 3, &hi),
                SP_TIMELINE_HIT_AXIS);
    ASSERT_NEAR(hi.t_ns, sp_timeline_x_to_ns(tl, W, H, &v, NULL, g.data_x + 50), 1);
    ASSERT(g.content_h < g.data_h); /* 6 lanes fit in 700 units */
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, g.data_x + 50, g.data_y + g.content_h + 5, &hi),
                SP_TIMELINE_HIT_NONE);
    /* Outside the widget. */
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, -1, 10, &hi), SP_TIMELINE_HIT_NONE);
    /* x <-> ns round trip. */
    double t = sp_timeline_x_to_ns(tl, W, H, &v, NULL, 700);
    ASSERT_NEAR(sp_timeline_ns_to_x(tl, W, H, &v, NULL, t), 700, 1e-6);
    sp_timeline_free(tl);
    sp_run_free(run);
}

static void test_scroll(void)
{
    sp_run *run = fixture_mock_run(8, 10, 0.3, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    v.lanes = SP_TIMELINE_LANES_DETAIL; /* 16 lanes on 300 units: the overview else */
    const double h = 300;
    sp_timeline_geometry g;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, h, &v, NULL, &g), 0);
    ASSERT(g.content_h > g.data_h);
    sp_timeline_hit_info a, b;
    double yy = g.data_y + 10;
    ASSERT_EQ_I(sp_timeline_hit(tl, W, h, &v, NULL, 5, yy, &a), SP_TIMELINE_HIT_LANE);
    ASSERT_EQ_I(a.lane, 0);
    v.scroll_y = 1e9; /* clamped to the end: the last lane is at the bottom of
                         the lanes' area (the legend is below it) */
    ASSERT_EQ_I(sp_timeline_hit(tl, W, h, &v, NULL, 5, g.data_y + g.data_h - 3, &b),
                SP_TIMELINE_HIT_LANE);
    ASSERT_EQ_U(b.lane, sp_timeline_lane_count(tl) - 1);
    fx_image im;
    fx_image_new(&im, W, (int)h);
    sp_timeline_stats st;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, h, tl, &v, NULL, &st), 0);
    ASSERT(st.lanes_drawn < sp_timeline_lane_count(tl));
    /* Without lane names and axis the calls take the whole area. */
    v.show_lane_labels = false;
    v.show_axis = false;
    v.scroll_y = 0;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, h, &v, NULL, &g), 0);
    ASSERT_NEAR(g.data_x, 0, 0);
    ASSERT_NEAR(g.data_y, 0, 0);
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, h, tl, &v, NULL, &st), 0);
    ASSERT(fx_count_color(&im, 0, 0, 40, 20, fx_region_color(run, "main", false), 3) > 100);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

static void test_lod_bounded(void)
{
    /* A million tiny calls (50 ns every 80 ns) under one outer call. */
    const size_t n = 1000000;
    sp_run *run = fixture_flat_run(n, 50, 30);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 1);
    const int w = 800, h = 200;
    fx_image im;
    fx_image_new(&im, w, h);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    sp_timeline_stats st;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, w, h, tl, &v, NULL, &st), 0);
    fx_image_save(&im, "test-timeline-1M.png");
    sp_timeline_geometry g;
    sp_timeline_get_geometry(tl, w, h, &v, NULL, &g);
    ASSERT_EQ_U(st.rows_drawn, 2);
    /* lanes * depths * pixel columns bounds the rectangles. */
    ASSERT_MSG(st.boxes <= 1 * 2 * (size_t)ceil(g.data_w), "%zu boxes", st.boxes);
    ASSERT(st.merged_boxes > 0);
    /* The tiny calls' row is covered in their colour, not left blank. */
    sp_rgba col = fx_region_color(run, "tiny", false);
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, &v, NULL, &lay);
    double ry = lay.data_y + lay.lane_pad + lay.row_h;
    size_t cov = fx_count_color(&im, (int)g.data_x, (int)ry + 2, w, (int)ry + 3, col, 3);
    ASSERT_MSG(cov > (size_t)(g.data_w * 0.9), "%zu of %.0f columns", cov, g.data_w);
    /* Every zoom level stays bounded; zoomed far in, every call is drawn. */
    for (int z = 1; z <= 6; z++) {
        int64_t span = (int64_t)(sp_timeline_duration_ns(tl) / pow(10, z));
        v.t0_ns = sp_timeline_duration_ns(tl) / 3;
        v.t1_ns = v.t0_ns + span;
        ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, w, h, tl, &v, NULL, &st), 0);
        ASSERT_MSG(st.boxes <= 2 * (size_t)ceil(g.data_w), "zoom %d: %zu boxes", z, st.boxes);
        if (span / 80 < 50) { /* < 50 calls visible: all of them plus the outer call */
            size_t vis = 0;
            const sp_rank_data *rk = &run->ranks[0];
            for (size_t i = 1; i <= n; i++) {
                double s = run_time(tl, run, 0, rk->start_ns[i]), e = run_time(tl, run, 0, rk->end_ns[i]);
                vis += e > v.t0_ns && s < v.t1_ns;
            }
            ASSERT_EQ_U(st.boxes, vis + 1);
            ASSERT_EQ_U(st.merged_boxes, 0);
        }
    }
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

/* A row alternating three regions of equal tiny calls: no region dominates
 * a merged pixel, so it is neutral; a row where one region takes 90% of the
 * time merges into that region's colour. */
static sp_run *mixed_run(bool dominant)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 1);
    sp_rank_data *rk = &run->ranks[0];
    const size_t n = 30000;
    const char *names[3] = {"alpha", "beta", "gamma"};
    int32_t ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = sp_run_intern_region(run, names[i]);
    sp_rank_alloc_calls(rk, n);
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
        int k = (int)(i % 3);
        int64_t d = dominant ? (k == 0 ? 180 : 10) : 60;
        rk->start_ns[i] = t;
        rk->end_ns[i] = t + d;
        rk->region[i] = ids[k];
        rk->thread[i] = 0;
        t += d + 5;
    }
    return run;
}

static void test_lod_colours(void)
{
    for (int dom = 0; dom < 2; dom++) {
        sp_run *run = mixed_run(dom);
        ASSERT(run);
        sp_timeline *tl = sp_timeline_new(run);
        ASSERT(tl);
        fx_image im;
        fx_image_new(&im, 600, 120);
        sp_timeline_view v;
        sp_timeline_view_init(&v, tl);
        ASSERT_EQ_I(sp_timeline_draw(im.cr, 600, 120, tl, &v, NULL), 0);
        sp__tl_layout lay;
        sp__tl_layout_get(tl, 600, 120, &v, NULL, &lay);
        int y = (int)(lay.data_y + lay.lane_pad + lay.row_h / 2);
        size_t neutral = fx_count_color(&im, (int)lay.data_x, y, 600, y + 1, sp_plot_neutral_color(false), 3);
        size_t alpha = fx_count_color(&im, (int)lay.data_x, y, 600, y + 1, fx_region_color(run, "alpha", false), 3);
        if (dom)
            ASSERT_MSG(alpha > 400 && neutral < 20, "alpha %zu neutral %zu", alpha, neutral);
        else
            ASSERT_MSG(neutral > 400 && alpha < 50, "alpha %zu neutral %zu", alpha, neutral);
        fx_image_free(&im);
        sp_timeline_free(tl);
        sp_run_free(run);
    }
}

static void test_depth_from_parents(void)
{
    /* No depth[] (not analysed): depths from the parents. */
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 1);
    sp_rank_data *rk = &run->ranks[0];
    int32_t outer = sp_run_intern_region(run, "outer"), inner = sp_run_intern_region(run, "inner");
    sp_rank_alloc_calls(rk, 3);
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    /* 0: outer [0, 1000]; 1: inner [100, 400] (child of 0); 2: inner [600, 900]. */
    int64_t s[3] = {0, 100, 600}, e[3] = {1000, 400, 900};
    for (int i = 0; i < 3; i++) {
        rk->start_ns[i] = s[i];
        rk->end_ns[i] = e[i];
        rk->region[i] = i ? inner : outer;
        rk->thread[i] = 0;
        rk->parent[i] = i ? 0 : -1;
    }
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    sp_timeline_lane_info li;
    ASSERT_EQ_I(sp_timeline_lane_info_get(tl, 0, &li), 0);
    ASSERT_EQ_I(li.depths, 2);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    sp__tl_layout lay;
    sp__tl_layout_get(tl, 800, 200, &v, NULL, &lay);
    double y = lay.data_y + lay.lane_pad + 1.5 * lay.row_h;
    sp_timeline_hit_info hi;
    double x = sp_timeline_ns_to_x(tl, 800, 200, &v, NULL, 250);
    ASSERT_EQ_I(sp_timeline_hit(tl, 800, 200, &v, NULL, x, y, &hi), SP_TIMELINE_HIT_CALL);
    ASSERT_EQ_I(hi.call, 1);
    x = sp_timeline_ns_to_x(tl, 800, 200, &v, NULL, 700);
    ASSERT_EQ_I(sp_timeline_hit(tl, 800, 200, &v, NULL, x, y, &hi), SP_TIMELINE_HIT_CALL);
    ASSERT_EQ_I(hi.call, 2);
    x = sp_timeline_ns_to_x(tl, 800, 200, &v, NULL, 500); /* between the two */
    ASSERT_EQ_I(sp_timeline_hit(tl, 800, 200, &v, NULL, x, y, &hi), SP_TIMELINE_HIT_LANE);
    sp_timeline_free(tl);
    sp_run_free(run);
}

static void test_empty(void)
{
    sp_run *run = fixture_empty_run(2, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 0);
    ASSERT_EQ_I(sp_timeline_duration_ns(tl), 0);
    fx_image im;
    fx_image_new(&im, 500, 300);
    ASSERT_EQ_I(sp_timeline_draw(im.cr, 500, 300, tl, NULL, NULL), 0);
    fx_image_save(&im, "test-timeline-empty.png");
    ASSERT(fx_count_dark(&im, 50, 120, 450, 180, 180) > 40); /* the message */
    sp_timeline_hit_info hi;
    ASSERT_EQ_I(sp_timeline_hit(tl, 500, 300, NULL, NULL, 250, 150, &hi), SP_TIMELINE_HIT_NONE);
    ASSERT(sp_timeline_draw(NULL, 500, 300, tl, NULL, NULL) == SP_EINVAL);
    ASSERT(sp_timeline_draw(im.cr, 0, 300, tl, NULL, NULL) == SP_EINVAL);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
    ASSERT(sp_timeline_new(NULL) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "no run");
    sp_timeline_free(NULL);
}

/* Under the lanes: a legend with a swatch of every region drawn; a draw too
 * short for every lane names the ranks it left out (a red line), unless the
 * view scrolls (note_hidden_lanes off). */
static void test_legend_and_hidden_lanes(void)
{
    sp_run *run = fixture_mock_run(8, 10, 0.3, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    v.lanes = SP_TIMELINE_LANES_DETAIL;
    const double tall = 2000, short_h = 320;
    ASSERT_EQ_U(sp_timeline_lanes_shown(tl, W, tall, &v, NULL), sp_timeline_lane_count(tl));
    size_t shown = sp_timeline_lanes_shown(tl, W, short_h, &v, NULL);
    ASSERT_MSG(shown > 0 && shown < sp_timeline_lane_count(tl), "%zu lanes shown", shown);
    sp_timeline_geometry g;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, tall, &v, NULL, &g), 0);
    fx_image im;
    fx_image_new(&im, W, (int)tall);
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, tall, tl, &v, NULL), 0);
    fx_image_save(&im, "test-timeline-legend.png");
    int band = (int)(g.data_y + g.content_h) + 1; /* below the last lane */
    static const char *const regions[] = {"main", "setup", "solve", "assemble_matrix",
                                          "apply_bc"};
    for (size_t i = 0; i < sizeof regions / sizeof *regions; i++) {
        size_t n = fx_count_color(&im, 0, band, W, (int)tall, fx_region_color(run, regions[i], false), 3);
        ASSERT_MSG(n >= 30, "legend swatch of %s: %zu pixels", regions[i], n);
    }
    fx_image_free(&im);
    /* too short: a note in the theme's "bad" colour between lanes and legend */
    sp_rgba bad = {0xD1 / 255.0, 0x45 / 255.0, 0x3B / 255.0, 1};
    fx_image_new(&im, W, (int)short_h);
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, short_h, &v, NULL, &g), 0);
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, short_h, tl, &v, NULL), 0);
    fx_image_save(&im, "test-timeline-hidden-note.png");
    int y0 = (int)(g.data_y + g.data_h); /* the note's line: 1.6 x 12 px high */
    size_t note = fx_count_color(&im, 0, y0, W, y0 + 19, bad, 12);
    ASSERT_MSG(note > 50, "no note on the lanes left out (%zu pixels)", note);
    double with_note = g.data_h;
    v.note_hidden_lanes = false; /* a scrolling view: the lanes get that line */
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, short_h, &v, NULL, &g), 0);
    ASSERT(g.data_h > with_note);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}


/* ---- a run read aggregate-first ---- */

/* What sp_run_read gives for a v2 file, made from a run in memory: a header
 * run with the aggregates (lanes, index) and no calls; *src reads the calls
 * (windows), keeping `calls` (the caller frees both). */
static sp_run *aggregate_only(const sp_run *calls, sp_event_source **src)
{
    *src = sp_source_mem_new(calls, sp_run_copy_header(calls));
    sp_agg_opts o = {.flags = SP_AGG_LANES | SP_AGG_LOD};
    sp_agg *agg = NULL;
    if (!*src || sp_agg_run(*src, &o, &agg) != 0)
        return NULL;
    sp_run *hdr = sp_run_copy_header(calls);
    if (!hdr || sp_agg_attach(hdr, agg) != 0)
        return NULL;
    return hdr;
}

/* Two threads of nested calls, 200,000 each, so both lanes get an index. */
static sp_run *big_nested_run(void)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 1);
    sp_rank_data *rk = &run->ranks[0];
    int32_t step = sp_run_intern_region(run, "step"), work = sp_run_intern_region(run, "work");
    const size_t per = 200000, n = 2 * per;
    sp_rank_alloc_calls(rk, n);
    rk->nthreads = 2;
    rk->threads = calloc(2, sizeof *rk->threads);
    size_t i = 0;
    for (int32_t th = 0; th < 2; th++) {
        int64_t t = 1000 + th * 7;
        for (size_t k = 0; k < per / 10; k++) {
            size_t parent = i;
            rk->start_ns[i] = t;
            rk->region[i] = step;
            rk->thread[i] = th;
            rk->parent[i++] = -1;
            t += 5;
            for (int c = 0; c < 9; c++) {
                rk->start_ns[i] = t;
                rk->end_ns[i] = t + 40 + c;
                rk->region[i] = work;
                rk->thread[i] = th;
                rk->parent[i++] = (int64_t)parent;
                t += 50;
            }
            rk->end_ns[parent] = t;
            t += 3;
        }
    }
    rk->ncalls = i;
    return run;
}

static void test_index_then_window(void)
{
    sp_run *calls = big_nested_run();
    sp_event_source *src = NULL;
    sp_run *run = aggregate_only(calls, &src);
    ASSERT(run);
    ASSERT_EQ_U(run->ranks[0].ncalls, 0);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 2);
    sp_timeline_lane_info li;
    ASSERT_EQ_I(sp_timeline_lane_info_get(tl, 0, &li), 0);
    ASSERT(li.has_index);
    ASSERT_EQ_I(li.depths, 2);
    ASSERT_EQ_U(li.ncalls, 200000);
    /* The whole run: from the index, no window anywhere. */
    fx_image im;
    fx_image_new(&im, W, H);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    sp_timeline_stats st;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v, NULL, &st), 0);
    fx_image_save(&im, "test-timeline-index.png");
    ASSERT_EQ_U(st.index_rows, 4);
    ASSERT_EQ_U(st.window_rows, 0);
    ASSERT(!st.overview);
    /* Both rows of lane 0 are covered in their colours across the run. */
    sp__tl_layout lay;
    sp__tl_layout_get(tl, W, H, &v, NULL, &lay);
    double y0 = lay.data_y + lay.lane_pad + lay.row_h / 2;
    size_t step_px = fx_count_color(&im, (int)lay.data_x + 5, (int)y0, W - 5, (int)y0 + 1,
                                    fx_region_color(run, "step", false), 3);
    size_t work_px = fx_count_color(&im, (int)lay.data_x + 5, (int)(y0 + lay.row_h), W - 5,
                                    (int)(y0 + lay.row_h) + 1, fx_region_color(run, "work", false), 3);
    ASSERT_MSG(step_px > (size_t)(lay.data_w * 0.9) && work_px > (size_t)(lay.data_w * 0.9),
               "step %zu, work %zu of %.0f columns", step_px, work_px, lay.data_w);
    /* On an index box: its region, no call. */
    sp_timeline_hit_info hi;
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, lay.data_x + 300, y0 + lay.row_h, &hi),
                SP_TIMELINE_HIT_INDEX);
    ASSERT_EQ_I(hi.region, sp_run_region_id(run, "work"));
    ASSERT_EQ_I(hi.call, -1);

    /* Zoomed to 3 us: the caller loads that range of lane 0, and the lane
     * draws exactly the calls there, each its own box. */
    v.t0_ns = sp_timeline_duration_ns(tl) / 2;
    v.t1_ns = v.t0_ns + 3000;
    int64_t origin = sp_timeline_origin_ns(tl);
    sp_window *w = NULL;
    ASSERT_EQ_I(sp_window_load(src, run->agg, 0, 0, v.t0_ns + origin, v.t1_ns + origin, 0, &w), 0);
    size_t want = 0;
    const sp_rank_data *rk = &calls->ranks[0];
    for (size_t i = 0; i < rk->ncalls; i++)
        want += rk->thread[i] == 0 && rk->end_ns[i] - origin > v.t0_ns &&
                rk->start_ns[i] - origin < v.t1_ns;
    ASSERT(want > 40);
    sp_timeline_calls *c = sp_timeline_calls_new(tl, w);
    ASSERT(c);
    ASSERT_EQ_I(sp_timeline_set_calls(tl, 0, c), 0);
    ASSERT(sp_timeline_lane_covered(tl, 0, v.t0_ns, v.t1_ns));
    ASSERT(!sp_timeline_lane_covered(tl, 0, 0, v.t1_ns));
    v.show_legend = false;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v, NULL, &st), 0);
    fx_image_save(&im, "test-timeline-window.png");
    ASSERT_EQ_U(st.window_rows, 2);
    ASSERT_EQ_U(st.index_rows, 2); /* lane 1 has no window */
    /* lane 0's boxes: exactly its calls in view, none merged */
    sp_timeline_stats only0;
    sp_timeline_set_calls(tl, 1, NULL);
    sp_timeline_view v0 = v;
    v0.lanes = SP_TIMELINE_LANES_DETAIL;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v0, NULL, &only0), 0);
    /* lane 1 from the index: draw without it to count lane 0 alone */
    size_t lane1 = only0.boxes;
    sp__tl_lane saved = tl->lanes[1];
    tl->nlanes = 1;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v0, NULL, &only0), 0);
    tl->nlanes = 2;
    tl->lanes[1] = saved;
    ASSERT_EQ_U(only0.boxes, want);
    ASSERT_EQ_U(only0.merged_boxes, 0);
    ASSERT(lane1 > only0.boxes);
    /* A call of the window is hit with its window index and bounds. */
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, lay.data_x + lay.data_w / 2, y0 + lay.row_h,
                                &hi),
                SP_TIMELINE_HIT_CALL);
    const sp_window *ww = sp_timeline_lane_window(tl, 0);
    ASSERT(hi.call >= 0 && (size_t)hi.call < ww->n);
    ASSERT_EQ_I(hi.start_ns, ww->start_ns[hi.call] - origin);
    ASSERT_EQ_I(ww->depth[hi.call], 1);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
    sp_event_source_free(src);
    sp_run_free(calls);
}

/* 96 ranks of one thread: more lanes than fit at one row each, so the
 * overview: every rank on the screen, a thin row each, coloured by region. */
static void test_overview(void)
{
    sp_run *run = fixture_mock_run(48, 4, 0.3, false); /* 96 lanes */
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 96);
    fx_image im;
    fx_image_new(&im, W, H);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    sp_timeline_stats st;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v, NULL, &st), 0);
    fx_image_save(&im, "test-timeline-overview.png");
    ASSERT(st.overview);
    ASSERT_EQ_U(st.lanes_drawn, 96);
    ASSERT_EQ_U(sp_timeline_lanes_shown(tl, W, H, &v, NULL), 96);
    sp_timeline_geometry g;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, W, H, &v, NULL, &g), 0);
    ASSERT(g.overview);
    ASSERT_NEAR(g.content_h, g.data_h, 0.5);
    /* Each lane's row: the last lane's (rank 47, thread 1: worker_loop >
     * compute_kernel) at the bottom, hit as its lane. */
    double lane_h = g.data_h / 96;
    sp_timeline_hit_info hi;
    ASSERT_EQ_I(sp_timeline_hit(tl, W, H, &v, NULL, g.data_x + g.data_w / 2,
                                g.data_y + g.data_h - lane_h / 2, &hi),
                SP_TIMELINE_HIT_LANE);
    ASSERT_EQ_I(hi.rank, 47);
    ASSERT_EQ_I(hi.thread, 1);
    ASSERT_EQ_I(hi.lane, 95);
    /* Rows of thread 0 show the innermost regions that fill their pixels:
     * assemble_matrix (solve's longest child) somewhere, main nowhere
     * visible under its children. */
    size_t asm_px = fx_count_color(&im, (int)g.data_x, (int)g.data_y, W, (int)(g.data_y + g.data_h),
                                   fx_region_color(run, "assemble_matrix", false), 3);
    ASSERT_MSG(asm_px > 1000, "%zu pixels of assemble_matrix", asm_px);
    /* More lanes than pixel rows: a pixel row per several lanes, whose
     * pixels vote (every lane drawn while at most 4 share a row). */
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, 100, tl, &v, NULL, &st), 0);
    ASSERT(st.overview);
    ASSERT_MSG(st.rows_drawn < 96 && st.lanes_drawn == 96, "%zu rows, %zu lanes", st.rows_drawn,
               st.lanes_drawn);
    /* 8 pixel rows for 96 lanes: 4 of each 12 vote */
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, 8 + 30, tl, &v, NULL, &st), 0);
    ASSERT_MSG(st.lanes_drawn == 4 * st.rows_drawn, "%zu rows, %zu lanes", st.rows_drawn,
               st.lanes_drawn);
    /* Asked for the detail, the lanes scroll instead. */
    v.lanes = SP_TIMELINE_LANES_DETAIL;
    ASSERT_EQ_I(sp_timeline_draw_ex(im.cr, W, H, tl, &v, NULL, &st), 0);
    ASSERT(!st.overview);
    ASSERT(st.lanes_drawn < 96);
    /* The detail y of a lane, to scroll it into view. */
    ASSERT(sp_timeline_lane_y(tl, W, H, &v, NULL, 95) > g.data_h);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

/* A line from a point of one lane to a point of another, over the boxes. */
static void test_arrows(void)
{
    sp_run *run = fixture_mock_run(2, 4, 0.2, false);
    ASSERT(run);
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl);
    fx_image im;
    fx_image_new(&im, W, H);
    sp_timeline_view v;
    sp_timeline_view_init(&v, tl);
    int64_t d = sp_timeline_duration_ns(tl);
    sp_timeline_arrow a = {0, 0, d / 4, 1, 0, d / 2, {1, 0, 1, 1}}; /* magenta */
    v.arrows = &a;
    v.narrows = 1;
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, NULL), 0);
    fx_image_save(&im, "test-timeline-arrow.png");
    double x0 = sp_timeline_ns_to_x(tl, W, H, &v, NULL, (double)d / 4);
    double x1 = sp_timeline_ns_to_x(tl, W, H, &v, NULL, (double)d / 2);
    size_t px = fx_count_color(&im, (int)x0, 0, (int)x1, H, a.color, 40);
    ASSERT_MSG(px > (size_t)(x1 - x0) / 2, "%zu magenta pixels", px);
    v.narrows = 0;
    ASSERT_EQ_I(sp_timeline_draw(im.cr, W, H, tl, &v, NULL), 0);
    ASSERT_EQ_U(fx_count_color(&im, (int)x0, 0, (int)x1, H, a.color, 40), 0);
    fx_image_free(&im);
    sp_timeline_free(tl);
    sp_run_free(run);
}

int main(void)
{
    RUN(test_legend_and_hidden_lanes);
    RUN(test_lanes_and_colours);
    RUN(test_highlight_and_selection);
    RUN(test_hit);
    RUN(test_scroll);
    RUN(test_lod_bounded);
    RUN(test_lod_colours);
    RUN(test_depth_from_parents);
    RUN(test_index_then_window);
    RUN(test_overview);
    RUN(test_arrows);
    RUN(test_empty);
    return sp_test_summary();
}
