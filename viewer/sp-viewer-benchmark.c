/* SPDX-License-Identifier: MIT */
/* sp-viewer-benchmark.c - timed load and timeline frames of a run. */
#include "sp-viewer-benchmark.h"

#include <math.h>

#include "sp-timeline-chart.h"
#include "sp-timeline-page.h"
#include "sp-viewer-format.h"
#include "sp-viewer-screenshot.h"
#include "sp-viewer-window.h"

#define BENCH_WIDTH 1600
#define BENCH_HEIGHT 1000

typedef struct {
    SpBenchmarkDone done;
    gpointer user_data;
    SpRunDocument *doc;
    char *path;
} Bench;

/* One step of the replayed sequence: zoom by factor around a fraction of the
 * width, or pan by a fraction of the window, or show the whole run. */
typedef enum { STEP_FIT, STEP_ZOOM, STEP_PAN } StepKind;
typedef struct {
    StepKind kind;
    double amount;
    int repeat;
} Step;

static const Step sequence[] = {
    {STEP_FIT, 0, 1},     {STEP_ZOOM, 2.0, 14}, /* down to 1/16384 of the run */
    {STEP_PAN, 0.3, 8},   {STEP_PAN, -0.5, 6},  {STEP_ZOOM, 0.5, 7},
    {STEP_PAN, 0.45, 10}, {STEP_ZOOM, 4.0, 8},  /* to the 200 ns limit */
    {STEP_ZOOM, 0.25, 9}, {STEP_PAN, -0.2, 5},  {STEP_FIT, 0, 1},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One redraw of the chart as a frame does it: the widget's snapshot (plots/
 * drawing recorded into a Cairo node) rendered by the window's renderer.
 * The widget's own snapshot() is called directly, so no cached image is
 * reused. Returns milliseconds, or -1 when nothing could be rendered. */
static double frame_ms(GtkWidget *chart)
{
    int w = gtk_widget_get_width(chart), h = gtk_widget_get_height(chart);
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(chart));
    if (w <= 0 || h <= 0 || !renderer)
        return -1;
    gint64 begin = g_get_monotonic_time();
    GtkSnapshot *snapshot = gtk_snapshot_new();
    GTK_WIDGET_GET_CLASS(chart)->snapshot(chart, snapshot);
    g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node(snapshot);
    if (!node)
        return -1;
    g_autoptr(GdkTexture) tex =
        gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, w, h));
    return tex ? (double)(g_get_monotonic_time() - begin) / 1000.0 : -1;
}

static void apply(SpTimelineChart *chart, const Step *s)
{
    switch (s->kind) {
    case STEP_FIT: sp_timeline_chart_zoom_to_fit(chart); break;
    case STEP_ZOOM: sp_timeline_chart_zoom(chart, s->amount); break;
    case STEP_PAN: sp_timeline_chart_pan(chart, s->amount); break;
    }
}

static void bench_free(Bench *b)
{
    g_clear_object(&b->doc);
    g_free(b->path);
    g_free(b);
}

/* Replay the sequence on the timeline page's chart and print the figures.
 * Returns the exit status. */
static int replay(Bench *b, SpViewerWindow *win)
{
    GtkWidget *page = sp_viewer_window_get_page_widget(win, "timeline");
    GtkWidget *chart = GTK_WIDGET(sp_timeline_page_get_chart(SP_TIMELINE_PAGE(page)));
    g_autoptr(GArray) times = g_array_new(FALSE, FALSE, sizeof(double));
    double worst_ms = 0;
    gint64 worst_span = 0;
    for (guint i = 0; i < G_N_ELEMENTS(sequence); i++) {
        for (int r = 0; r < sequence[i].repeat; r++) {
            apply(SP_TIMELINE_CHART(chart), &sequence[i]);
            double ms = frame_ms(chart);
            if (ms < 0)
                continue;
            g_array_append_val(times, ms);
            if (ms > worst_ms) {
                gint64 t0, t1;
                sp_timeline_chart_get_window(SP_TIMELINE_CHART(chart), &t0, &t1);
                worst_ms = ms;
                worst_span = t1 - t0;
            }
        }
    }
    if (times->len == 0) {
        g_printerr("scope-profiler-viewer: --benchmark: the timeline could not be rendered\n");
        return 1;
    }
    double *t = (double *)(void *)times->data;
    qsort(t, times->len, sizeof *t, cmp_double);
    double median = t[times->len / 2];
    double p95 = t[MIN(times->len - 1, (guint)ceil(0.95 * times->len) - 1)];
    const sp_run *run = sp_run_document_get_run(b->doc);
    double read_s, analyze_s, index_s;
    sp_run_document_get_load_breakdown(b->doc, &read_s, &analyze_s, &index_s);
    g_autofree char *calls = sp_format_count(sp_run_document_get_total_calls(b->doc));
    g_autofree char *worst = sp_format_duration((double)worst_span * 1e-9);
    g_print("file:    %s\n", b->path);
    g_print("run:     %s calls, %zu ranks, %zu regions, %zu timeline lanes\n", calls, run->nranks,
            run->nregions, sp_timeline_lane_count(sp_run_document_get_timeline(b->doc)));
    g_print("load:    %.3f s (read %.3f s, analyze %.3f s, timeline index %.3f s)\n",
            sp_run_document_get_load_seconds(b->doc), read_s, analyze_s, index_s);
    g_print("frames:  %u at %dx%d (%s): median %.2f ms, p95 %.2f ms, max %.2f ms "
            "(max at a %s window)\n",
            times->len, gtk_widget_get_width(chart), gtk_widget_get_height(chart),
            G_OBJECT_TYPE_NAME(gtk_native_get_renderer(gtk_widget_get_native(chart))), median,
            p95, t[times->len - 1], worst);
    return 0;
}

static void on_ready(GtkWidget *widget, gboolean drawn, gpointer data)
{
    Bench *b = data;
    SpViewerWindow *win = SP_VIEWER_WINDOW(widget);
    int status = 1;
    if (drawn)
        status = replay(b, win);
    else
        g_printerr("scope-profiler-viewer: --benchmark: no frame was drawn (no display?)\n");
    b->done(status, b->user_data);
    gtk_window_destroy(GTK_WINDOW(win));
    bench_free(b);
}

void sp_viewer_benchmark_start(GtkApplication *app, const char *path, SpBenchmarkDone done,
                               gpointer user_data)
{
    g_autoptr(GError) error = NULL;
    SpRunDocument *doc = sp_run_document_load(path, &error);
    if (!doc) {
        g_printerr("scope-profiler-viewer: %s\n", error->message);
        done(1, user_data);
        return;
    }
    Bench *b = g_new0(Bench, 1);
    b->done = done;
    b->user_data = user_data;
    b->doc = doc;
    b->path = g_strdup(path);
    SpViewerWindow *win = sp_viewer_window_new(app);
    gtk_window_set_default_size(GTK_WINDOW(win), BENCH_WIDTH, BENCH_HEIGHT);
    sp_viewer_window_set_documents(win, doc, NULL);
    sp_viewer_window_set_page(win, "timeline");
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_after_frames(GTK_WIDGET(win), on_ready, b);
}
