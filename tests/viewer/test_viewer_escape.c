/* SPDX-License-Identifier: MIT */
/*
 * test_viewer_escape.c - text from a hostile run reaches the screen escaped.
 *
 * A run whose region names, thread name, metadata and line-sample paths
 * carry ESC sequences, CR, LF, U+202E (bidi override), a C1 control and
 * invalid UTF-8 is shown on every page of the viewer (and compared with a
 * second such run). Two views of what a person sees are checked:
 * - the widget tree: every GtkLabel, GtkInscription, tooltip, drop-down
 *   item and window title after each page is drawn (list rows realized);
 * - every string given to Pango while the viewer runs and while the charts
 *   the flame and timeline views use (plots/) draw, caught by interposing
 *   pango_layout_set_text / set_markup: this covers chart labels, which are
 *   pixels, not widgets.
 * No string may hold a C0 control (\n only where the viewer writes several
 * lines: tooltips, the Lines page's code sample; never a line break from the
 * file, as in the name "nl\nline"; chart labels none at all), DEL, a C1
 * control, a bidi formatting character or invalid UTF-8; and the escaped
 * forms ("\x1b[2J", "\r", "\u202e", "\xff", ...) must be what is shown.
 *
 * usage (under xvfb-run): test_viewer_escape OUTDIR
 */
#include <dlfcn.h>
#include <gtk/gtk.h>

#include "sp-calltree-page.h"
#include "sp-compare-page.h"
#include "sp-flame-chart.h"
#include "sp-timeline-chart.h"
#include "sp-timeline-page.h"
#include "sp-viewer-application.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-window.h"
#include "sp_h5.h"
#include "sp_test.h"

/* The hostile names (split literals: a hex escape ends at the split). */
// clang-format off
#define NAME_ESC "esc\x1b[2Jclear"
#define NAME_CR "cr\rreturn"
#define NAME_BIDI "bidi\xe2\x80\xae" "evil"
#define NAME_C1 "c1\xc2\x9b" "31m"
#define NAME_BAD "bad\xff\xfeutf8"
#define NAME_NL "nl\nline"
#define THREAD "thr\x1b[5mead\x07"
#define META_KEY "key\x1b[1m"
#define META_VALUE "v\r\nInjected\xe2\x80\xae"
#define META_USER "\x1b[2J\xff" "eve"
#define RANK_HOST "host\xc2\x9b" "31m\x07"
#define LINE_FILE "/nonexistent/ok\x1b[31m.c"
#define LINE_FN "fn\x1b[2J"
// clang-format on

/* ... and how they must be shown (sp_display.h). */
static const char *const escaped_names[] = {
    "esc\\x1b[2Jclear", "cr\\rreturn",       "bidi\\u202eevil",
    "c1\\u009b31m",     "bad\\xff\\xfeutf8", "nl\\nline",
};

static const char *out_dir;

/* ---- every string handed to Pango ---- */

static GMutex seen_lock; /* charts draw in worker threads */
static GPtrArray *seen;  /* char *: texts and markups given to Pango */

static void remember(const char *text, int length)
{
    if (!text)
        return;
    g_mutex_lock(&seen_lock);
    if (seen)
        g_ptr_array_add(seen, length < 0 ? g_strdup(text) : g_strndup(text, (gsize)length));
    g_mutex_unlock(&seen_lock);
}

void pango_layout_set_text(PangoLayout *layout, const char *text, int length)
{
    static void (*real)(PangoLayout *, const char *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pango_layout_set_text");
    remember(text, length);
    real(layout, text, length);
}

void pango_layout_set_markup(PangoLayout *layout, const char *markup, int length)
{
    static void (*real)(PangoLayout *, const char *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pango_layout_set_markup");
    remember(markup, length);
    real(layout, markup, length);
}

static void seen_reset(void)
{
    g_mutex_lock(&seen_lock);
    g_clear_pointer(&seen, g_ptr_array_unref);
    seen = g_ptr_array_new_with_free_func(g_free);
    g_mutex_unlock(&seen_lock);
}

/* ---- what counts as safe ---- */

/* Why s may not be shown as it is, or NULL when it may. */
static const char *unsafe(const char *s, gboolean allow_newline)
{
    if (!g_utf8_validate(s, -1, NULL))
        return "invalid UTF-8";
    for (const char *p = s; *p; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);
        if ((c < 0x20 && !(allow_newline && c == '\n')) || c == 0x7f)
            return "a C0 control or DEL";
        if (c >= 0x80 && c <= 0x9f)
            return "a C1 control";
        if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e ||
            c == 0x200f || c == 0x061c)
            return "a bidi formatting character";
    }
    if (strstr(s, NAME_NL) || strstr(s, "\nInjected"))
        return "a raw line break from the file";
    return NULL;
}

/* "\x1b" for the escape byte, so a failure message is itself readable. */
static char *printable(const char *s)
{
    return g_strescape(s, NULL);
}

static gboolean any_contains(GPtrArray *texts, const char *needle)
{
    for (guint i = 0; i < texts->len; i++)
        if (strstr(g_ptr_array_index(texts, i), needle))
            return TRUE;
    return FALSE;
}

/* ---- the widget tree ---- */

static void add(GPtrArray *out, const char *s)
{
    if (s && *s)
        g_ptr_array_add(out, g_strdup(s));
}

static void collect(GtkWidget *w, GPtrArray *out)
{
    if (GTK_IS_LABEL(w)) {
        add(out, gtk_label_get_text(GTK_LABEL(w)));
        add(out, gtk_label_get_label(GTK_LABEL(w)));
    }
    if (GTK_IS_INSCRIPTION(w))
        add(out, gtk_inscription_get_text(GTK_INSCRIPTION(w)));
    if (GTK_IS_WINDOW(w))
        add(out, gtk_window_get_title(GTK_WINDOW(w)));
    add(out, gtk_widget_get_tooltip_text(w));
    add(out, gtk_widget_get_tooltip_markup(w));
    if (GTK_IS_DROP_DOWN(w)) {
        GListModel *m = gtk_drop_down_get_model(GTK_DROP_DOWN(w));
        for (guint i = 0; m && i < g_list_model_get_n_items(m); i++) {
            g_autoptr(GObject) item = g_list_model_get_item(m, i);
            if (GTK_IS_STRING_OBJECT(item))
                add(out, gtk_string_object_get_string(GTK_STRING_OBJECT(item)));
        }
    }
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
        collect(c, out);
}

static gboolean on_timeout(gpointer data)
{
    *(gboolean *)data = TRUE;
    return G_SOURCE_REMOVE;
}

/* Iterate the main loop for ms (frames, list rows, charts drawn). */
static void run_loop(guint ms)
{
    gboolean done = FALSE;
    g_timeout_add(ms, on_timeout, &done);
    while (!done)
        g_main_context_iteration(NULL, TRUE);
}

/* The window's strings once the page shows `needle` (rows are built over a
 * few frames), after at most 10 s. */
static GPtrArray *page_texts(SpViewerWindow *win, const char *needle)
{
    GPtrArray *texts = NULL;
    for (int i = 0; i < 100; i++) {
        run_loop(100);
        if (texts)
            g_ptr_array_unref(texts);
        texts = g_ptr_array_new_with_free_func(g_free);
        collect(GTK_WIDGET(win), texts);
        if (!needle || any_contains(texts, needle))
            break;
    }
    return texts;
}

/* First unsafe string of texts, described; NULL when all are safe. */
static char *first_unsafe(GPtrArray *texts, gboolean allow_newline)
{
    for (guint i = 0; i < texts->len; i++) {
        const char *s = g_ptr_array_index(texts, i);
        const char *why = unsafe(s, allow_newline);
        if (why) {
            g_autofree char *p = printable(s);
            return g_strdup_printf("\"%s\" holds %s", p, why);
        }
    }
    return NULL;
}

/* ---- the hostile run ---- */

static int64_t add_call(sp_rank_data *rk, size_t *n, int32_t region, int32_t thread, int64_t parent,
                        int64_t t0, int64_t t1)
{
    size_t i = (*n)++;
    rk->start_ns[i] = t0;
    rk->end_ns[i] = t1;
    rk->region[i] = region;
    rk->thread[i] = thread;
    rk->parent[i] = parent;
    return (int64_t)i;
}

/* One rank, one thread: NAME_ESC encloses the other five regions, called
 * `scale` times as long in the candidate. */
static sp_run *hostile_run(double scale)
{
    const char *names[] = {NAME_ESC, NAME_CR, NAME_BIDI, NAME_C1, NAME_BAD, NAME_NL};
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) != 0)
        return NULL;
    run->layout = strdup("scope-profiler");
    run->schema_version = SP_SCHEMA_VERSION;
    sp_kvlist_set(&run->meta, "working_directory", "/nonexistent");
    sp_kvlist_set(&run->meta, META_KEY, META_VALUE);
    sp_kvlist_set(&run->meta, "user", META_USER);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        sp_run_intern_region(run, names[i]);
    sp_rank_data *rk = &run->ranks[0];
    sp_kvlist_set(&rk->meta, "hostname", RANK_HOST);
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    rk->threads[0].os_tid = 4242;
    rk->threads[0].name = strdup(THREAD);
    const size_t steps = 4, per = G_N_ELEMENTS(names) - 1;
    if (sp_rank_alloc_calls(rk, 1 + steps * per) != 0)
        return NULL;
    size_t n = 0;
    int64_t step = (int64_t)(1e6 * scale);
    int64_t top = add_call(rk, &n, 0, 0, -1, 0, (int64_t)(steps * per) * step + 1000);
    for (size_t s = 0; s < steps; s++)
        for (size_t g = 1; g <= per; g++) {
            int64_t t = (int64_t)(s * per + g - 1) * step + 500;
            add_call(rk, &n, (int32_t)g, 0, top, t, t + step - 100);
        }
    rk->ncalls = n;
    /* Line samples of the outer region, in a file and function with ESC. */
    rk->nlines = 1;
    rk->line_region = calloc(1, sizeof *rk->line_region);
    rk->line_file = calloc(1, sizeof *rk->line_file);
    rk->line_lineno = calloc(1, sizeof *rk->line_lineno);
    rk->line_function = calloc(1, sizeof *rk->line_function);
    rk->line_samples = calloc(1, sizeof *rk->line_samples);
    rk->line_time_ns = calloc(1, sizeof *rk->line_time_ns);
    rk->line_file[0] = strdup(LINE_FILE);
    rk->line_lineno[0] = 12;
    rk->line_function[0] = strdup(LINE_FN);
    rk->line_samples[0] = 40;
    rk->line_time_ns[0] = 40000000;
    if (sp_rank_sort_calls(rk) != 0)
        return NULL;
    return run;
}

static SpRunDocument *hostile_document(double scale, const char *display_name)
{
    sp_run *run = hostile_run(scale);
    if (!run)
        return NULL;
    g_autoptr(GError) error = NULL;
    SpRunDocument *doc = sp_run_document_new_for_run(run, display_name, &error);
    if (!doc)
        fprintf(stderr, "hostile run: %s\n", error ? error->message : "?");
    return doc;
}

static SpViewerWindow *show(SpRunDocument *base, SpRunDocument *cand)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gtk_window_set_default_size(GTK_WINDOW(win), 1400, 900);
    sp_viewer_window_set_documents(win, base, cand);
    gtk_window_present(GTK_WINDOW(win));
    return win;
}

/* ---- tests ---- */

typedef struct {
    const char *page;
    const char *must_show[4]; /* escaped forms the page must show */
} PageCheck;

/* Every page of one hostile run: widgets and Pango safe, escapes shown. */
static void test_pages_show_escaped_text(void)
{
    g_autoptr(SpRunDocument) doc = hostile_document(1.0, "hostile\x1b[2J.h5");
    ASSERT(doc != NULL);
    seen_reset();
    SpViewerWindow *win = show(doc, NULL);
    const PageCheck pages[] = {
        {"regions", {"esc\\x1b[2Jclear", "cr\\rreturn", "bidi\\u202eevil", "bad\\xff\\xfeutf8"}},
        {"calltree", {"esc\\x1b[2Jclear", "c1\\u009b31m", "nl\\nline", NULL}},
        {"timeline", {NULL}},
        {"ranks", {"esc\\x1b[2Jclear", NULL}},
        {"lines", {"esc\\x1b[2Jclear", "fn\\x1b[2J", "ok\\x1b[31m.c:12", NULL}},
        {"info",
         {"key\\x1b[1m", "v\\r\\nInjected\\u202e", "\\x1b[2J\\xffeve", "host\\u009b31m\\x07"}},
    };
    for (size_t p = 0; p < G_N_ELEMENTS(pages); p++) {
        ASSERT_MSG(sp_viewer_window_set_page(win, pages[p].page), "page %s", pages[p].page);
        g_autoptr(GPtrArray) texts = page_texts(win, pages[p].must_show[0]);
        g_autofree char *bad = first_unsafe(texts, TRUE); /* the Lines page's code sample */
        ASSERT_MSG(!bad, "page %s: %s", pages[p].page, bad);
        for (int k = 0; k < 4 && pages[p].must_show[k]; k++)
            ASSERT_MSG(any_contains(texts, pages[p].must_show[k]), "page %s does not show %s",
                       pages[p].page, pages[p].must_show[k]);
    }
    /* The window title: the file name escaped too. */
    ASSERT_CONTAINS(gtk_window_get_title(GTK_WINDOW(win)), "hostile\\x1b[2J.h5");

    /* Hover texts: the timeline's for every call (region, path, thread),
     * the flame graph's for every node. */
    SpTimelineChart *tl = sp_timeline_page_get_chart(
        SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline")));
    ASSERT(sp_viewer_window_set_page(win, "timeline"));
    /* The timeline reads its windows in a thread: draw until they are in. */
    SpTimelineLoader *ld = sp_timeline_chart_get_loader(tl);
    for (int i = 0; i < 1000 && (i < 3 || sp_timeline_loader_pending(ld)); i++) {
        gtk_widget_queue_draw(GTK_WIDGET(tl));
        g_main_context_iteration(NULL, FALSE);
        g_usleep(5000);
    }
    const sp_run *run = sp_run_document_get_run(doc);
    gboolean thread_shown = FALSE;
    const sp_timeline *tline = sp_timeline_chart_get_timeline(tl);
    for (size_t l = 0; l < sp_timeline_lane_count(tline); l++) {
        const sp_window *lw = sp_timeline_lane_window(tline, l);
        ASSERT_MSG(lw && lw->n > 0, "lane %zu: no window", l);
        for (gint64 c = 0; lw && c < (gint64)lw->n; c++) {
            g_autofree char *tip = sp_timeline_chart_describe_call(tl, l, c);
            ASSERT(tip != NULL);
            const char *why = unsafe(tip, TRUE);
            g_autofree char *p = printable(tip);
            ASSERT_MSG(!why, "timeline tooltip \"%s\" holds %s", p, why);
            thread_shown |= strstr(tip, "thr\\x1b[5mead\\x07") != NULL;
        }
    }
    ASSERT(thread_shown);
    SpFlameChart *flame = NULL;
    GtkWidget *calltree = sp_viewer_window_get_page_widget(win, "calltree");
    for (GtkWidget *w = calltree; w && !flame;) { /* depth-first for the flame chart */
        if (SP_IS_FLAME_CHART(w)) {
            flame = SP_FLAME_CHART(w);
            break;
        }
        GtkWidget *next = gtk_widget_get_first_child(w);
        while (!next && w && w != calltree) {
            next = gtk_widget_get_next_sibling(w);
            if (!next)
                w = gtk_widget_get_parent(w);
        }
        w = next;
    }
    ASSERT(flame != NULL);
    for (size_t node = 1; node < run->tree.nnodes; node++) {
        g_autofree char *tip = sp_flame_chart_describe_node(flame, (int)node);
        ASSERT(tip != NULL);
        const char *why = unsafe(tip, TRUE);
        g_autofree char *p = printable(tip);
        ASSERT_MSG(!why, "flame tooltip \"%s\" holds %s", p, why);
    }

    /* Everything Pango was given meanwhile, charts included. */
    gtk_window_destroy(GTK_WINDOW(win));
    run_loop(200);
    g_mutex_lock(&seen_lock);
    g_autofree char *bad = first_unsafe(seen, TRUE);
    gboolean drawn = any_contains(seen, "esc\\x1b[2Jclear");
    g_mutex_unlock(&seen_lock);
    ASSERT_MSG(!bad, "given to Pango: %s", bad);
    ASSERT(drawn);
}

/* The Compare page with two hostile runs (rows are diff items). */
static void test_compare_shows_escaped_text(void)
{
    g_autoptr(SpRunDocument) base = hostile_document(1.0, "base.h5");
    g_autoptr(SpRunDocument) cand = hostile_document(1.5, "cand.h5");
    ASSERT(base && cand);
    seen_reset();
    SpViewerWindow *win = show(base, cand);
    ASSERT(sp_viewer_window_set_page(win, "compare"));
    g_autoptr(GPtrArray) texts = page_texts(win, "bad\\xff\\xfeutf8");
    g_autofree char *bad = first_unsafe(texts, TRUE);
    ASSERT_MSG(!bad, "compare page: %s", bad);
    for (size_t i = 0; i < G_N_ELEMENTS(escaped_names); i++)
        ASSERT_MSG(any_contains(texts, escaped_names[i]), "compare page does not show %s",
                   escaped_names[i]);
    gtk_window_destroy(GTK_WINDOW(win));
    run_loop(200);
    g_mutex_lock(&seen_lock);
    g_autofree char *pbad = first_unsafe(seen, TRUE);
    g_mutex_unlock(&seen_lock);
    ASSERT_MSG(!pbad, "given to Pango: %s", pbad);
}

/* The charts of plots/ that the flame graph, timeline and Ranks page draw
 * (and the CLI's plot and report), straight to an image: every label they
 * lay out is escaped, none holds a line break. */
static void test_chart_labels_escaped(void)
{
    g_autoptr(SpRunDocument) doc = hostile_document(1.0, "charts.h5");
    ASSERT(doc != NULL);
    const sp_run *run = sp_run_document_get_run(doc);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1400, 900);
    cairo_t *cr = cairo_create(surface);
    seen_reset();
    sp_calltree_view cv;
    sp_calltree_view_init(&cv);
    ASSERT_EQ_I(sp_plot_calltree(cr, 1400, 900, run, &cv, NULL), 0);
    /* The timeline with a window of every lane's calls, as the viewer's
     * loader reads them. */
    sp_timeline_view tv;
    sp_timeline *tl = sp_timeline_new(run);
    ASSERT(tl != NULL);
    for (size_t l = 0; l < sp_timeline_lane_count(tl); l++) {
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(tl, l, &li);
        sp_window *w = NULL;
        gint64 o = sp_timeline_origin_ns(tl);
        ASSERT_EQ_I(sp_run_source_load_window(sp_run_document_get_source(doc), run->agg,
                                              (size_t)li.rank, li.thread, li.first_ns + o,
                                              li.last_ns + o, 0, &w), 0);
        ASSERT_EQ_I(sp_timeline_set_calls(tl, l, sp_timeline_calls_new(tl, w)), 0);
    }
    sp_timeline_view_init(&tv, tl);
    ASSERT_EQ_I(sp_timeline_draw(cr, 1400, 900, tl, &tv, NULL), 0);
    sp_timeline_free(tl);
    for (int32_t g = 0; g < (int32_t)run->nregions; g++) {
        ASSERT_EQ_I(sp_plot_rank_bars(cr, 1400, 900, run, g, SP_RANK_TOTAL, NULL), 0);
        ASSERT_EQ_I(sp_plot_histogram(cr, 1400, 900, run, g, -1, NULL), 0);
    }
    ASSERT_EQ_I(sp_plot_rank_heatmap(cr, 1400, 900, run, SP_RANK_TOTAL, NULL, 0, NULL), 0);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    g_mutex_lock(&seen_lock);
    g_autofree char *bad = first_unsafe(seen, FALSE);
    gboolean names = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(escaped_names); i++)
        names &= any_contains(seen, escaped_names[i]);
    gboolean thread = any_contains(seen, "thr\\x1b[5mead\\x07");
    guint n = seen->len;
    g_mutex_unlock(&seen_lock);
    ASSERT(n > 20);
    ASSERT_MSG(!bad, "a chart label: %s", bad);
    ASSERT_MSG(names, "a chart does not show every region name escaped");
    ASSERT_MSG(thread, "the timeline's lane label does not show the thread name escaped");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_viewer_escape OUTDIR\n");
        return 2;
    }
    out_dir = argv[1];
    g_autofree char *config = g_build_filename(out_dir, "escape-test-config", NULL);
    g_setenv("XDG_CONFIG_HOME", config, TRUE);
    int gtk_argc = 1;
    char **gtk_argv = argv;
    gtk_test_init(&gtk_argc, &gtk_argv, NULL);
    /* Without the escaping, Pango warns about the invalid UTF-8 it is given:
     * not fatal here, so the checks below report what was shown. */
    g_log_set_always_fatal(G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL);
    sp_viewer_ensure_resources();
    sp_viewer_settings_set_enabled(FALSE);
    RUN(test_chart_labels_escaped);
    RUN(test_pages_show_escaped_text);
    RUN(test_compare_shows_escaped_text);
    return sp_test_summary();
}
