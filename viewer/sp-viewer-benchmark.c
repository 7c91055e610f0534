/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-benchmark.c - timed load, memory and timeline frames of a run.
 *
 * The run is loaded as the viewer loads it (the pass in the reading helper
 * when isolation is on, the file opened again for windows), shown on the
 * timeline page, then zoomed around the middle of the run by 4x per level
 * from the whole run down to single calls (200 ns across the view; around a
 * busy place near the middle, where the deepest calls are). At each
 * level: the first frame (drawn from the index while the windows load), the
 * time until the windows the view asked for arrived, then frames of pans by
 * 30 % of the view (each pan asks for windows again: frames drawn while
 * they load count too), one frame per 1/60 s at most. Prints per level
 * and over all frames the median, p95 and max, and the peak resident
 * memory of the viewer and of the reading helper.
 */
#include "sp-viewer-benchmark.h"

#include <math.h>
#include <time.h>
#include <sys/resource.h>

#include "sp-chart.h"
#include "sp-timeline-chart.h"
#include "sp-timeline-page.h"
#include "sp-viewer-format.h"
#include "sp-viewer-screenshot.h"
#include "sp-viewer-window.h"
#include "sp_lod.h"

#define BENCH_WIDTH 1600
#define BENCH_HEIGHT 1000
#define PANS_PER_LEVEL 6
#define MIN_SPAN_NS 200
#define WINDOW_WAIT_S 60.0

typedef struct {
    SpBenchmarkDone done;
    gpointer user_data;
    SpRunDocument *doc;
    char *path;
} Bench;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The main thread's CPU time of the last frame_ms(): what the frame cost,
 * whatever else the machine runs (wall time waits for a core too). */
static double last_cpu_ms;

/* Frames at most at 60 Hz, as GTK's frame clock draws them while a user
 * zooms and pans: the main thread sleeps between frames (the loader's
 * thread goes on reading). Drawn back to back, the thread never slept, and
 * on a busy machine the scheduler cut a frame of 2 ms of CPU at the end of
 * the thread's time slice, for 10-30 ms: a wait of the benchmark's loop,
 * not of the viewer's frames. */
#define FRAME_INTERVAL_US 16667

static void pace_frame(void)
{
    static gint64 last;
    gint64 now = g_get_monotonic_time();
    if (last && now - last < FRAME_INTERVAL_US)
        g_usleep((gulong)(FRAME_INTERVAL_US - (now - last)));
    last = g_get_monotonic_time();
}

/* One redraw of the chart as a frame does it: the widget's snapshot (plots/
 * drawing recorded into a Cairo node) rendered by the window's renderer.
 * The widget's own snapshot() is called directly, so no cached image is
 * reused. Returns wall milliseconds, or -1 when nothing could be rendered. */
static double frame_ms(GtkWidget *chart)
{
    int w = gtk_widget_get_width(chart), h = gtk_widget_get_height(chart);
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(chart));
    if (w <= 0 || h <= 0 || !renderer)
        return -1;
    pace_frame();
    double cpu0 = thread_cpu_ms();
    gint64 begin = g_get_monotonic_time();
    GtkSnapshot *snapshot = gtk_snapshot_new();
    GTK_WIDGET_GET_CLASS(chart)->snapshot(chart, snapshot);
    g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node(snapshot);
    if (!node)
        return -1;
    g_autoptr(GdkTexture) tex =
        gsk_renderer_render_texture(renderer, node, &GRAPHENE_RECT_INIT(0, 0, w, h));
    last_cpu_ms = thread_cpu_ms() - cpu0;
    return tex ? (double)(g_get_monotonic_time() - begin) / 1000.0 : -1;
}

/* Median, p95 and max of n values (sorted in place). */
static void summary(double *t, guint n, double *med, double *p95, double *max)
{
    qsort(t, n, sizeof *t, cmp_double);
    *med = n ? t[n / 2] : 0;
    *p95 = n ? t[MIN(n - 1, (guint)ceil(0.95 * n) - 1)] : 0;
    *max = n ? t[n - 1] : 0;
}

/* Let the loader deliver what the view asked for (it reads in its thread;
 * delivery is an idle callback of this loop). Returns the seconds waited. */
static double wait_windows(SpTimelineChart *chart)
{
    SpTimelineLoader *ld = sp_timeline_chart_get_loader(chart);
    gint64 begin = g_get_monotonic_time();
    while (ld && sp_timeline_loader_pending(ld) > 0 &&
           g_get_monotonic_time() - begin < (gint64)(WINDOW_WAIT_S * G_USEC_PER_SEC)) {
        if (!g_main_context_iteration(NULL, FALSE))
            g_usleep(500);
    }
    return (double)(g_get_monotonic_time() - begin) / G_USEC_PER_SEC;
}

static double peak_mb(int who)
{
    struct rusage ru;
    return getrusage(who, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0;
}

static void bench_free(Bench *b)
{
    g_clear_object(&b->doc);
    g_free(b->path);
    g_free(b);
}

static void print_header(Bench *b, SpTimelineChart *chart)
{
    const sp_run *run = sp_run_document_get_run(b->doc);
    const sp_timeline *tl = sp_timeline_chart_get_timeline(chart);
    double pass_s, open_s, prepare_s;
    gboolean windows = sp_run_document_get_source(b->doc) != NULL; /* opens it */
    sp_run_document_get_load_breakdown(b->doc, &pass_s, &open_s, &prepare_s);
    g_autofree char *calls = sp_format_count(sp_run_document_get_total_calls(b->doc));
    size_t indexed = 0;
    for (size_t l = 0; tl && l < sp_timeline_lane_count(tl); l++) {
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(tl, l, &li);
        indexed += li.has_index;
    }
    g_print("file:    %s\n", b->path);
    g_print("run:     %s calls, %zu ranks, %zu regions, %zu timeline lanes (%zu with an index)\n",
            calls, run->nranks, run->nregions, sp_timeline_lane_count(tl), indexed);
    g_print("load:    %.3f s (pass %.3f s%s, open for windows %.3f s, figures %.3f s)\n",
            sp_run_document_get_load_seconds(b->doc), pass_s,
            windows ? "" : ", no windows", open_s, prepare_s);
    g_print("memory:  peak RSS %.0f MB (viewer), %.0f MB (reading helper) after load\n",
            peak_mb(RUSAGE_SELF), peak_mb(RUSAGE_CHILDREN));
}

/* With SCOPE_PROFILER_BENCHMARK_SHOTS=DIR, the chart as drawn (through the
 * export, the same plots/ drawing) at the whole run and at every 4th level:
 * DIR/timeline-<n>.png, to look at. */
static void save_shot(SpTimelineChart *chart, gint64 span, gint64 dur)
{
    const char *dir = g_getenv("SCOPE_PROFILER_BENCHMARK_SHOTS");
    static int level;
    int k = level++;
    if (!dir || !*dir || (span != dur && k % 4 != 0))
        return;
    g_autofree char *name = g_strdup_printf("timeline-%02d.png", k);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) error = NULL;
    if (!sp_chart_export(SP_CHART(chart), path, 0, 0, &error))
        g_printerr("scope-profiler-viewer: --benchmark: %s\n", error->message);
}

/* Where to zoom: the middle of the run, moved to the nearest place where
 * the first indexed lane's deepest calls fill a bin (a thread descheduled
 * for a while leaves stretches of nothing but its open calls). Run time. */
static gint64 zoom_centre(SpRunDocument *doc, const sp_timeline *tl)
{
    gint64 mid = sp_timeline_duration_ns(tl) / 2;
    const sp_agg *a = sp_run_document_get_agg(doc);
    for (size_t r = 0; a && r < a->nranks; r++)
        for (size_t k = 0; k < a->ranks[r].nlanes; k++) {
            const sp_lod *lod = a->ranks[r].lanes[k].lod;
            if (!lod || !lod->ndepth)
                continue;
            const sp_lod_level *lv = &lod->levels[0];
            uint32_t d = lod->ndepth - 1;
            gint64 at = mid + sp_timeline_origin_ns(tl) - lod->origin_ns;
            gint64 b = CLAMP(at / lv->bin_ns, 0, (gint64)lv->nbins - 1);
            for (gint64 off = 0; off < (gint64)lv->nbins; off++)
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    gint64 c = b + sgn * off;
                    if (c >= 0 && c < (gint64)lv->nbins && lv->region[d][c] >= 0 &&
                        lv->cover[d][c] > 0.25f)
                        return lod->origin_ns + c * lv->bin_ns + lv->bin_ns / 2 -
                               sp_timeline_origin_ns(tl);
                }
            return mid;
        }
    return mid;
}

/* Zoom by 4x per level around the middle of the run, with pans at each
 * level; print the figures. Returns the exit status. */
static int replay(Bench *b, SpViewerWindow *win)
{
    GtkWidget *page = sp_viewer_window_get_page_widget(win, "timeline");
    SpTimelineChart *chart = sp_timeline_page_get_chart(SP_TIMELINE_PAGE(page));
    GtkWidget *cw = GTK_WIDGET(chart);
    print_header(b, chart);
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) all_cpu = g_array_new(FALSE, FALSE, sizeof(double));
    gint64 dur = sp_timeline_duration_ns(sp_timeline_chart_get_timeline(chart));
    g_print("frames at %dx%d (%s), zoom by 4x around the middle, %d pans of 30 %% per level:\n",
            gtk_widget_get_width(cw), gtk_widget_get_height(cw),
            G_OBJECT_TYPE_NAME(gtk_native_get_renderer(gtk_widget_get_native(cw))),
            PANS_PER_LEVEL);
    g_print("  %-10s %9s %9s %11s %9s %9s %9s %9s %8s\n", "view", "first ms", "windows",
            "win calls", "median", "p95", "max", "cpu p95", "held MB");
    gint64 mid = zoom_centre(b->doc, sp_timeline_chart_get_timeline(chart));
    for (gint64 span = dur; span > 0;) {
        sp_timeline_chart_set_window(chart, mid - span / 2, mid - span / 2 + span);
        double first = frame_ms(cw);
        if (first < 0) {
            g_printerr("scope-profiler-viewer: --benchmark: the timeline could not be rendered\n");
            return 1;
        }
        g_array_append_val(all, first);
        g_array_append_val(all_cpu, last_cpu_ms);
        double waited = wait_windows(chart);
        SpTimelineLoader *ld = sp_timeline_chart_get_loader(chart);
        /* Calls in the windows the view draws from now. */
        const sp_timeline *tl = sp_timeline_chart_get_timeline(chart);
        guint64 wcalls = 0;
        for (size_t l = 0; l < sp_timeline_lane_count(tl); l++) {
            const sp_window *w = sp_timeline_lane_window(tl, l);
            wcalls += w ? w->n : 0;
        }
        double level[PANS_PER_LEVEL + 1], level_cpu[PANS_PER_LEVEL + 1];
        guint n = 0;
        level[n] = frame_ms(cw); /* settled */
        level_cpu[n++] = last_cpu_ms;
        for (int k = 0; k < PANS_PER_LEVEL; k++) {
            sp_timeline_chart_pan(chart, k < PANS_PER_LEVEL / 2 ? 0.3 : -0.3);
            level[n] = frame_ms(cw);
            level_cpu[n++] = last_cpu_ms;
            /* Half of the pans let the windows arrive, half do not. */
            if (k % 2)
                wait_windows(chart);
        }
        save_shot(chart, span, dur);
        for (guint i = 0; i < n; i++) {
            g_array_append_val(all, level[i]);
            g_array_append_val(all_cpu, level_cpu[i]);
        }
        double med, p95, max, cmed, cp95, cmax;
        summary(level, n, &med, &p95, &max);
        summary(level_cpu, n, &cmed, &cp95, &cmax);
        g_autofree char *what = sp_format_duration((double)span * 1e-9);
        g_print("  %-10s %9.2f %8.2fs %11" G_GUINT64_FORMAT " %9.2f %9.2f %9.2f %9.2f %8.1f\n",
                what, first, waited, wcalls, med, p95, max, cp95,
                ld ? (double)sp_timeline_loader_bytes(ld) / 1048576.0 : 0.0);
        if (span <= MIN_SPAN_NS)
            break;
        span = MAX(span / 4, MIN_SPAN_NS);
    }
    double med, p95, max, cmed, cp95, cmax;
    guint n = all->len;
    summary((double *)(void *)all->data, n, &med, &p95, &max);
    summary((double *)(void *)all_cpu->data, all_cpu->len, &cmed, &cp95, &cmax);
    g_print("frames:  %u: median %.2f ms, p95 %.2f ms, max %.2f ms (main thread CPU: median "
            "%.2f ms, p95 %.2f ms, max %.2f ms)\n", n, med, p95, max, cmed, cp95, cmax);
    g_print("memory:  peak RSS %.0f MB (viewer), %.0f MB (reading helper) at the end\n",
            peak_mb(RUSAGE_SELF), peak_mb(RUSAGE_CHILDREN));
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
