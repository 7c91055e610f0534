/* SPDX-License-Identifier: MIT */
/*
 * test_viewer_big.c - the viewer on runs too big or too oddly shaped to hold
 * every call, read as the viewer reads them (aggregate-first, windows on
 * demand):
 *
 *   test_viewer_big index FILE   a recorded run of a few hundred thousand
 *       calls on two threads: the whole-run timeline draws from the
 *       level-of-detail index and loads no window; zoomed to a few
 *       microseconds, each lane loads a window and the timeline draws
 *       exactly the calls there (checked against the whole file read with
 *       every call), one box each.
 *   test_viewer_big pages FILE   every page of the run opens and draws; the
 *       timeline's windows arrive (2^18 threads: the overview, a sampled
 *       lane per pixel row; 2^20 nested calls: the detail). The ctest
 *       timeout bounds the time.
 */
#include <gtk/gtk.h>
#include <string.h>

#include "sp-timeline-chart.h"
#include "sp-timeline-page.h"
#include "sp-viewer-application.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-window.h"
#include "sp_h5.h"
#include "sp_lod.h"
#include "sp_test.h"

static void on_load_finished(SpViewerWindow *win, gboolean ok, gboolean *done)
{
    *done = TRUE;
}

/* A window showing path, loaded, at 1400 x 900. */
static SpViewerWindow *open_run(const char *path)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
    gboolean done = FALSE;
    g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    g_autoptr(GFile) f = g_file_new_for_path(path);
    sp_viewer_window_open(win, f, NULL);
    gtk_window_present(GTK_WINDOW(win));
    while (!done)
        g_main_context_iteration(NULL, TRUE);
    return win;
}

/* Draw the timeline until its loader has nothing pending (however long
 * that takes on a loaded machine: the ctest timeout bounds it). */
static void settle(SpTimelineChart *chart)
{
    for (int i = 0;; i++) {
        gtk_widget_queue_draw(GTK_WIDGET(chart));
        while (g_main_context_iteration(NULL, FALSE))
            ;
        SpTimelineLoader *ld = sp_timeline_chart_get_loader(chart);
        if (i > 3 && gtk_widget_get_width(GTK_WIDGET(chart)) > 0 &&
            (!ld || sp_timeline_loader_pending(ld) == 0))
            return;
        g_usleep(5000);
    }
}

static SpTimelineChart *timeline_of(SpViewerWindow *win)
{
    sp_viewer_window_set_page(win, "timeline");
    SpTimelineChart *chart = sp_timeline_page_get_chart(
        SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline")));
    settle(chart);
    return chart;
}

/* The chart's frame drawn again into an image, with its counters. */
static void draw_stats(SpTimelineChart *chart, sp_timeline_stats *st)
{
    int w = gtk_widget_get_width(GTK_WIDGET(chart)), h = gtk_widget_get_height(GTK_WIDGET(chart));
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(s);
    sp_plot_style ps;
    sp_plot_style_init(&ps);
    ASSERT_EQ_I(sp_timeline_draw_ex(cr, w, h, sp_timeline_chart_get_timeline(chart),
                                    sp_timeline_chart_get_view(chart), &ps, st),
                0);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

typedef struct call_key {
    gint64 s, e;
    int32_t region;
    uint32_t depth;
} call_key;

static int cmp_key(const void *pa, const void *pb)
{
    const call_key *a = pa, *b = pb;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    if (a->e != b->e)
        return a->e > b->e ? -1 : 1;
    return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static const char *path;

/* The densest 4 us of lane 0's calls (a recording on a busy machine has
 * stretches where its thread waited for a core, and its threads need not
 * run at the same time): the start of that stretch, run time. */
static gint64 dense_time(const sp_run *run, gint64 origin, gint64 dur)
{
    const sp_rank_data *rk = &run->ranks[0];
    g_autoptr(GArray) starts = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (size_t i = 0; i < rk->ncalls; i++) {
        gint64 s = rk->start_ns[i] + rk->clock_offset_ns - origin;
        if (rk->thread[i] == 0 && s > 0 && s < dur)
            g_array_append_val(starts, s);
    }
    const gint64 *v = (const gint64 *)(void *)starts->data;
    guint best = 0, best_n = 0;
    for (guint i = 0, j = 0; i < starts->len; i++) {
        while (j < starts->len && v[j] < v[i] + 4000)
            j++;
        if (j - i > best_n) {
            best_n = j - i;
            best = i;
        }
    }
    return starts->len ? v[best] : dur / 2;
}

static void test_index_then_exact_window(void)
{
    SpViewerWindow *win = open_run(path);
    SpTimelineChart *chart = timeline_of(win);
    const sp_timeline *tl = sp_timeline_chart_get_timeline(chart);
    SpTimelineLoader *ld = sp_timeline_chart_get_loader(chart);
    ASSERT(tl && ld);
    size_t nl = sp_timeline_lane_count(tl);
    ASSERT_EQ_U(nl, 2);
    for (size_t l = 0; l < nl; l++) {
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(tl, l, &li);
        ASSERT_MSG(li.has_index, "lane %zu (%" G_GUINT64_FORMAT " calls) has no index", l,
                   li.ncalls);
    }
    /* The whole run: the index alone, no window read. */
    sp_timeline_stats st;
    draw_stats(chart, &st);
    ASSERT_MSG(st.index_rows > 0 && st.window_rows == 0, "index rows %zu, window rows %zu",
               st.index_rows, st.window_rows);
    ASSERT_EQ_U(sp_timeline_loader_loaded(ld), 0);

    /* Zoomed to 4 us where calls are: windows, and exactly the calls there
     * (the truth: every call of the file, read whole). */
    int status = 0;
    sp_run *run = sp_h5_read(path, &status);
    ASSERT_MSG(run, "%s", sp_last_error());
    gint64 origin = sp_timeline_origin_ns(tl);
    gint64 t0 = dense_time(run, origin, sp_timeline_duration_ns(tl)) - 100, t1 = t0 + 4000;
    sp_timeline_chart_set_window(chart, t0, t1);
    settle(chart);
    ASSERT(sp_timeline_loader_loaded(ld) > 0);
    for (size_t l = 0; l < nl; l++) {
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(tl, l, &li);
        if (li.last_ns > t0 && li.first_ns < t1) /* a lane in view */
            ASSERT_MSG(sp_timeline_lane_covered(tl, l, t0, t1), "lane %zu not covered", l);
    }
    draw_stats(chart, &st);
    ASSERT(st.window_rows > 0);
    size_t total = 0;
    for (size_t l = 0; l < nl; l++) {
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(tl, l, &li);
        const sp_rank_data *rk = &run->ranks[li.rank];
        g_autoptr(GArray) want = g_array_new(FALSE, FALSE, sizeof(call_key));
        for (size_t i = 0; i < rk->ncalls; i++) {
            if (rk->thread[i] != li.thread)
                continue;
            gint64 s = rk->start_ns[i] + rk->clock_offset_ns - origin;
            gint64 e = rk->end_ns[i] + rk->clock_offset_ns - origin;
            if (e > t0 && s < t1) {
                uint32_t d = 0;
                for (int64_t p = rk->parent[i]; p >= 0; p = rk->parent[p])
                    d++;
                call_key k = {s, e, rk->region[i], d};
                g_array_append_val(want, k);
            }
        }
        const sp_window *w = sp_timeline_lane_window(tl, l);
        g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(call_key));
        for (size_t i = 0; w && i < w->n; i++) {
            call_key k = {w->start_ns[i] - origin, w->end_ns[i] - origin, w->region[i],
                          w->depth[i]};
            if (k.e > t0 && k.s < t1)
                g_array_append_val(got, k);
        }
        ASSERT_MSG(got->len == want->len, "lane %zu: %u calls in view, the file has %u", l,
                   got->len, want->len);
        g_array_sort(want, cmp_key);
        g_array_sort(got, cmp_key);
        for (guint i = 0; i < got->len && i < want->len; i++)
            ASSERT_MSG(cmp_key(&g_array_index(got, call_key, i),
                               &g_array_index(want, call_key, i)) == 0 &&
                           g_array_index(got, call_key, i).region ==
                               g_array_index(want, call_key, i).region,
                       "lane %zu: call %u differs", l, i);
        total += want->len;
    }
    ASSERT_MSG(total > 20, "%zu calls in [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", total, t0, t1);
    /* One box per call in view: none merged at this zoom. */
    ASSERT_EQ_U(st.boxes, total);
    ASSERT_EQ_U(st.merged_boxes, 0);
    sp_run_free(run);
    gtk_window_destroy(GTK_WINDOW(win));
}

static void test_every_page(void)
{
    gint64 begin = g_get_monotonic_time();
    SpViewerWindow *win = open_run(path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    g_print("loaded in %.2f s\n", (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC);
    const char *pages[] = {"timeline", "regions", "calltree", "ranks", "lines", "info"};
    for (size_t i = 0; i < G_N_ELEMENTS(pages); i++) {
        gint64 t = g_get_monotonic_time();
        ASSERT_MSG(sp_viewer_window_set_page(win, pages[i]), "page %s", pages[i]);
        for (int k = 0; k < 10; k++) {
            gtk_widget_queue_draw(GTK_WIDGET(win));
            while (g_main_context_iteration(NULL, FALSE))
                ;
            g_usleep(2000);
        }
        g_print("page %-8s drawn in %.2f s\n", pages[i],
                (double)(g_get_monotonic_time() - t) / G_USEC_PER_SEC);
    }
    gint64 t = g_get_monotonic_time();
    SpTimelineChart *chart = timeline_of(win);
    sp_timeline_stats st;
    draw_stats(chart, &st);
    g_print("timeline: %zu lanes drawn (%s), %zu rows from windows, %zu from the index, %zu "
            "pending; windows in %.2f s\n",
            st.lanes_drawn, st.overview ? "overview" : "detail", st.window_rows, st.index_rows,
            st.pending_rows, (double)(g_get_monotonic_time() - t) / G_USEC_PER_SEC);
    ASSERT(st.lanes_drawn > 0);
    ASSERT_EQ_U(st.pending_rows, 0);
    gtk_window_destroy(GTK_WINDOW(win));
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "index") != 0 && strcmp(argv[1], "pages") != 0)) {
        fprintf(stderr, "usage: test_viewer_big index|pages FILE\n");
        return 2;
    }
    int gtk_argc = 1;
    gtk_test_init(&gtk_argc, &argv, NULL);
    sp_viewer_ensure_resources();
    sp_viewer_settings_set_enabled(FALSE);
    path = argv[2];
    if (strcmp(argv[1], "index") == 0)
        RUN(test_index_then_exact_window);
    else
        RUN(test_every_page);
    return sp_test_summary();
}
