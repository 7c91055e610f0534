/* SPDX-License-Identifier: MIT */
/*
 * test_viewer_widgets.c - widget-level tests of the viewer with GTK's test
 * utilities: loading (good and bad files), selection shared between pages,
 * filtering the regions table, the comparison, timeline zoom and export,
 * long metadata values on the Info page; with --messages, the timeline's
 * MPI message lines of a run of examples/late_sender_mpi.c.
 *
 * usage (under xvfb-run): test_viewer_widgets BASE.h5 CANDIDATE.h5 OUTDIR
 *                         test_viewer_widgets --messages LATE_SENDER.h5 STEPS
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "sp-call-node.h"
#include "sp-calltree-page.h"
#include "sp-chart.h"
#include "sp-compare-page.h"
#include "sp-diff-item.h"
#include "sp-page.h"
#include "sp-ranks-page.h"
#include "sp-region-item.h"
#include "sp-regions-page.h"
#include "sp-timeline-chart.h"
#include "sp-timeline-page.h"
#include "sp-viewer-application.h"
#include "sp-viewer-format.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-window.h"
#include "sp_h5.h"
#include "sp_scaling.h"
#include "sp_test.h"
#include "analysis/run_builder.h"
#include "sp_waits.h"

static const char *base_path, *cand_path, *out_dir;

/* ---- helpers ---- */

static gboolean on_timeout(gpointer data)
{
    *(gboolean *)data = TRUE;
    return G_SOURCE_REMOVE;
}

/* Iterate the main loop until *flag is set or `ms` pass; TRUE if set. */
static gboolean wait_for(gboolean *flag, guint ms)
{
    gboolean timed_out = FALSE;
    guint id = g_timeout_add(ms, on_timeout, &timed_out);
    while (!*flag && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(id);
    return *flag;
}

static void on_load_finished(SpViewerWindow *win, gboolean ok, gboolean *done)
{
    *done = TRUE;
}

/* A window that has loaded base (and cand, may be NULL). */
static SpViewerWindow *open_window(const char *base, const char *cand)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gboolean done = FALSE;
    gulong id = g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    g_autoptr(GFile) a = g_file_new_for_path(base);
    g_autoptr(GFile) b = cand ? g_file_new_for_path(cand) : NULL;
    sp_viewer_window_open(win, a, b);
    wait_for(&done, 30000);
    g_signal_handler_disconnect(win, id);
    return win;
}

/* Iterate until widget has a size (the window was presented), at most 10 s. */
static gboolean wait_allocated(GtkWidget *widget)
{
    gboolean timed_out = FALSE;
    guint id = g_timeout_add(10000, on_timeout, &timed_out);
    while (gtk_widget_get_width(widget) <= 0 && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(id);
    return gtk_widget_get_width(widget) > 0;
}

static void close_window(SpViewerWindow *win)
{
    gtk_window_destroy(GTK_WINDOW(win));
}

/* The first descendant of w (depth first) that is a button carrying a whole
 * value to copy, or a label whose text contains `needle`. */
static GtkWidget *find_widget(GtkWidget *w, GType type, const char *needle)
{
    GPtrArray *todo = g_ptr_array_new();
    g_ptr_array_add(todo, w);
    GtkWidget *found = NULL;
    while (todo->len && !found) {
        GtkWidget *x = g_ptr_array_steal_index(todo, todo->len - 1);
        if (G_TYPE_CHECK_INSTANCE_TYPE(x, type) &&
            (type != GTK_TYPE_LABEL || strstr(gtk_label_get_text(GTK_LABEL(x)), needle)) &&
            (type != GTK_TYPE_BUTTON || g_object_get_data(G_OBJECT(x), "sp-full-value")))
            found = x;
        for (GtkWidget *c = gtk_widget_get_first_child(x); c; c = gtk_widget_get_next_sibling(c))
            g_ptr_array_add(todo, c);
    }
    g_ptr_array_unref(todo);
    return found;
}

static guint find_row(GListModel *rows, const char *name)
{
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpRegionItem) item = g_list_model_get_item(rows, i);
        if (g_strcmp0(sp_region_item_get_name(item), name) == 0)
            return i;
    }
    return GTK_INVALID_LIST_POSITION;
}

/* ---- loading ---- */

static void test_load_sample(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    SpRunDocument *doc = sp_session_get_base(sp_viewer_window_get_session(win));
    ASSERT(doc != NULL);
    const sp_run *run = sp_run_document_get_run(doc);
    ASSERT_EQ_U(run->nranks, 4);
    ASSERT(sp_run_document_find_region(doc, "kernel") >= 0);
    ASSERT_CONTAINS(gtk_window_get_title(GTK_WINDOW(win)), "sample_base.h5");
    /* The Regions table lists every region; the compare page is hidden. */
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    ASSERT_EQ_U(g_list_model_get_n_items(sp_regions_page_get_rows(regions)), run->nregions);
    ASSERT(!sp_viewer_window_set_page(win, "compare"));
    ASSERT(sp_viewer_window_set_page(win, "ranks"));
    ASSERT_STREQ(sp_viewer_window_get_page(win), "ranks");
    close_window(win);
}

static void test_load_missing_file(void)
{
    g_autofree char *path = g_build_filename(out_dir, "does-not-exist.h5", NULL);
    SpViewerWindow *win = open_window(path, NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_FAILED);
    /* The window shows the reader's own one-line reason. */
    sp_run *run = sp_read_h5(path);
    ASSERT(run == NULL);
    ASSERT_STREQ(sp_viewer_window_get_error(win), sp_last_error());
    ASSERT(sp_session_get_base(sp_viewer_window_get_session(win)) == NULL);
    close_window(win);
}

static void test_load_not_hdf5(void)
{
    g_autofree char *path = g_build_filename(out_dir, "not-a-run.h5", NULL);
    ASSERT(g_file_set_contents(path, "this is not HDF5\n", -1, NULL));
    SpViewerWindow *win = open_window(path, NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_FAILED);
    ASSERT(sp_read_h5(path) == NULL);
    ASSERT_STREQ(sp_viewer_window_get_error(win), sp_last_error());
    /* A failed load can be followed by a good one in the same window. */
    gboolean done = FALSE;
    g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    g_autoptr(GFile) good = g_file_new_for_path(base_path);
    sp_viewer_window_open(win, good, NULL);
    ASSERT(wait_for(&done, 30000));
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    ASSERT(sp_viewer_window_get_error(win) == NULL);
    close_window(win);
}

/* ---- selection ---- */

static void test_table_selection_updates_ranks(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    SpSession *session = sp_viewer_window_get_session(win);
    SpRunDocument *doc = sp_session_get_base(session);
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    SpRanksPage *ranks = SP_RANKS_PAGE(sp_viewer_window_get_page_widget(win, "ranks"));
    /* Before any selection the Ranks page shows the region with most time. */
    ASSERT_EQ_I(sp_ranks_page_get_region(ranks), sp_run_document_get_top_region(doc));

    GtkSingleSelection *sel = sp_regions_page_get_selection(regions);
    guint row = find_row(G_LIST_MODEL(sel), "exchange");
    ASSERT(row != GTK_INVALID_LIST_POSITION);
    gtk_single_selection_set_selected(sel, row);
    ASSERT_STREQ(sp_session_get_selected_region(session), "exchange");
    ASSERT_EQ_I(sp_ranks_page_get_region(ranks), sp_run_document_find_region(doc, "exchange"));

    /* And the other way: a selection made elsewhere selects the table row. */
    sp_session_set_selected_region(session, "kernel");
    g_autoptr(SpRegionItem) item = gtk_single_selection_get_selected_item(sel)
                                       ? g_object_ref(gtk_single_selection_get_selected_item(sel))
                                       : NULL;
    ASSERT(item != NULL);
    ASSERT_STREQ(sp_region_item_get_name(item), "kernel");
    ASSERT_EQ_I(sp_ranks_page_get_region(ranks), sp_run_document_find_region(doc, "kernel"));
    close_window(win);
}

static void on_call_activated(SpTimelineChart *chart, gboolean selected, int *out)
{
    *out = selected;
}

/* Draw the chart until its loader has delivered every window the view
 * asked for (windows are read in the loader's thread). */
static gboolean wait_windows(SpTimelineChart *chart)
{
    for (int i = 0; i < 1000; i++) {
        gtk_widget_queue_draw(GTK_WIDGET(chart));
        g_main_context_iteration(NULL, FALSE);
        SpTimelineLoader *ld = sp_timeline_chart_get_loader(chart);
        if (ld && i > 2 && sp_timeline_loader_pending(ld) == 0)
            return TRUE;
        g_usleep(5000);
    }
    return FALSE;
}

static void test_timeline_click_selects_region(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    gtk_window_set_default_size(GTK_WINDOW(win), 1200, 800);
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_window_set_page(win, "timeline");
    SpTimelinePage *page = SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline"));
    SpTimelineChart *chart = sp_timeline_page_get_chart(page);
    /* Wait for the chart to be laid out and its windows to arrive (a small
     * run: every lane is read whole). */
    ASSERT(wait_allocated(GTK_WIDGET(chart)));
    ASSERT(wait_windows(chart));
    const sp_timeline *tl = sp_timeline_chart_get_timeline(chart);
    for (size_t l = 0; l < sp_timeline_lane_count(tl); l++)
        ASSERT_MSG(sp_timeline_lane_window(tl, l), "lane %zu has no window", l);

    /* Find a call by hit testing as a click does, then click there: the
     * page must select that call's region everywhere. */
    SpRunDocument *doc = sp_timeline_chart_get_document(chart);
    sp_plot_style st;
    sp_chart_style_for_widget(GTK_WIDGET(chart), &st);
    double w = gtk_widget_get_width(GTK_WIDGET(chart)), h = gtk_widget_get_height(GTK_WIDGET(chart));
    sp_timeline_view view;
    sp_timeline_view_init(&view, tl);
    gint64 t0, t1;
    sp_timeline_chart_get_window(chart, &t0, &t1);
    view.t0_ns = t0;
    view.t1_ns = t1;
    view.note_hidden_lanes = false;
    sp_timeline_geometry g;
    ASSERT_EQ_I(sp_timeline_get_geometry(tl, w, h, &view, &st, &g), 0);
    sp_timeline_hit_info hit = {0};
    gboolean found = FALSE;
    double x = g.data_x + g.data_w / 2, y;
    for (y = g.data_y + 2; y < g.data_y + g.data_h && !found; y += 3)
        found = sp_timeline_hit(tl, w, h, &view, &st, x, y, &hit) == SP_TIMELINE_HIT_CALL;
    ASSERT(found);
    int got = -1;
    g_signal_connect(chart, "call-activated", G_CALLBACK(on_call_activated), &got);
    sp_timeline_chart_click(chart, x, y - 3, 1);
    ASSERT_EQ_I(got, TRUE);
    sp_timeline_call_ref ref;
    int region = -1;
    ASSERT(sp_timeline_chart_get_selected(chart, &ref, &region));
    ASSERT_EQ_I(region, hit.region);
    ASSERT_EQ_I(ref.start_ns, hit.start_ns);
    ASSERT_EQ_I(ref.depth, hit.depth);
    const sp_run *run = sp_run_document_get_run(doc);
    SpSession *session = sp_viewer_window_get_session(win);
    ASSERT_STREQ(sp_session_get_selected_region(session), run->region_names[hit.region]);
    const char *tip = sp_timeline_chart_get_selected_text(chart);
    ASSERT_CONTAINS(tip, run->region_names[hit.region]);
    ASSERT_CONTAINS(tip, "Rank");
    /* A click on empty space clears it. */
    sp_timeline_chart_click(chart, x, g.data_y + g.data_h - 2, 1);
    ASSERT_EQ_I(got, FALSE);
    ASSERT(!sp_timeline_chart_get_selected(chart, NULL, NULL));
    close_window(win);
}

/* ---- filtering ---- */

/* Iterate the main loop until rows has n items, for at most 5 s (the
 * search entry reports changes after a short delay). */
static gboolean wait_rows(GListModel *rows, guint n)
{
    gboolean timed_out = FALSE;
    guint id = g_timeout_add(5000, on_timeout, &timed_out);
    while (g_list_model_get_n_items(rows) != n && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(id);
    return g_list_model_get_n_items(rows) == n;
}

static void test_search_filters_table(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    const sp_run *run = sp_run_document_get_run(sp_session_get_base(sp_viewer_window_get_session(win)));
    GListModel *rows = sp_regions_page_get_rows(regions);
    guint all = g_list_model_get_n_items(rows);
    ASSERT(all > 3);
    /* Case-insensitive substring: "INPUT" is only read_input. */
    gtk_editable_set_text(sp_regions_page_get_search_entry(regions), "INPUT");
    ASSERT(wait_rows(rows, 1));
    ASSERT(find_row(rows, "read_input") == 0);
    /* "e": as many rows as names containing an e, and only those. */
    guint with_e = 0;
    for (size_t i = 0; i < run->nregions; i++)
        with_e += strchr(run->region_names[i], 'e') != NULL;
    ASSERT(with_e > 1 && with_e < all);
    gtk_editable_set_text(sp_regions_page_get_search_entry(regions), "e");
    ASSERT(wait_rows(rows, with_e));
    for (guint i = 0; i < with_e; i++) {
        g_autoptr(SpRegionItem) item = g_list_model_get_item(rows, i);
        ASSERT(strchr(sp_region_item_get_name(item), 'e') != NULL);
    }
    gtk_editable_set_text(sp_regions_page_get_search_entry(regions), "no such region");
    ASSERT(wait_rows(rows, 0));
    gtk_editable_set_text(sp_regions_page_get_search_entry(regions), "");
    ASSERT(wait_rows(rows, all));
    close_window(win);
}

static void test_table_sorted_by_total(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    GListModel *rows = sp_regions_page_get_rows(regions);
    double prev = INFINITY;
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpRegionItem) item = g_list_model_get_item(rows, i);
        double t = sp_region_item_get_stats(item)->total_s;
        ASSERT(t <= prev);
        prev = t;
    }
    close_window(win);
}

/* ---- estimates: a sampled region's figures in italics with a tooltip ---- */

static GtkWidget *find_label(GtkWidget *w, const char *css_class, const char *prefix)
{
    if (GTK_IS_LABEL(w) && gtk_widget_has_css_class(w, css_class) &&
        g_str_has_prefix(gtk_label_get_text(GTK_LABEL(w)), prefix))
        return w;
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_label(c, css_class, prefix);
        if (found)
            return found;
    }
    return NULL;
}

/* Labels with class sp-estimate whose text is neither "~..." nor "–". */
static int count_unmarked(GtkWidget *w)
{
    int n = 0;
    if (GTK_IS_LABEL(w) && gtk_widget_has_css_class(w, "sp-estimate")) {
        const char *t = gtk_label_get_text(GTK_LABEL(w));
        n += !g_str_has_prefix(t, "~") && strcmp(t, "–") != 0;
    }
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
        n += count_unmarked(c);
    return n;
}

static void test_estimates_marked(void)
{
    sp_run *run = sp_read_h5(base_path);
    ASSERT(run);
    int32_t g = sp_run_region_id(run, "kernel");
    ASSERT(g >= 0);
    run->region_flags = calloc(run->nregions, sizeof *run->region_flags);
    run->nregion_flags = run->nregions;
    run->region_flags[g] = SP_REGION_FLAG_SAMPLED; /* as `scope-profiler run` marks it */
    sp_kvlist_set(&run->meta, "stack_sample_hz", "1000");
    g_autoptr(GError) error = NULL;
    g_autoptr(SpRunDocument) doc = sp_run_document_new_for_run(run, "sampled.h5", &error);
    ASSERT_MSG(doc, "%s", error ? error->message : "?");
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    sp_viewer_window_set_documents(win, doc, NULL);
    ASSERT(sp_viewer_window_set_page(win, "regions"));
    gtk_window_present(GTK_WINDOW(win));
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    ASSERT(wait_allocated(GTK_WIDGET(regions)));
    GtkWidget *cell = NULL;
    for (int i = 0; i < 200 && !cell; i++) { /* rows are built over a few frames */
        g_main_context_iteration(NULL, FALSE);
        g_usleep(10000);
        cell = find_label(GTK_WIDGET(regions), "sp-estimate", "~");
    }
    ASSERT_MSG(cell, "no italic ~ cell for the sampled region");
    const char *tip = gtk_widget_get_tooltip_text(cell);
    ASSERT(tip && strstr(tip, "Estimated from call-stack samples"));
    /* every italic cell is the sampled region's: "~..." or "–" (no min/max) */
    ASSERT_EQ_I(count_unmarked(GTK_WIDGET(regions)), 0);
    const sp_figures *fg = sp_run_document_get_figures(doc);
    ASSERT(fg && fg->nsampled == 1 && fg->sample_period_s > 0);
    close_window(win);
}

/* ---- comparison ---- */

static const sp_cmp_entry *diff_row(GListModel *rows, const char *name)
{
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpDiffItem) item = g_list_model_get_item(rows, i);
        if (g_strcmp0(sp_diff_item_get_entry(item)->name, name) == 0)
            return sp_diff_item_get_entry(item); /* the store keeps the item */
    }
    return NULL;
}

/* Iterate until the Compare page has its comparison, at most 30 s. */
static gboolean wait_compared(SpComparePage *page)
{
    gboolean timed_out = FALSE;
    guint id = g_timeout_add(30000, on_timeout, &timed_out);
    while (!sp_compare_page_get_summary(page) && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(id);
    return sp_compare_page_get_summary(page) != NULL;
}

static void test_compare(void)
{
    SpViewerWindow *win = open_window(base_path, cand_path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    ASSERT(sp_session_get_candidate(sp_viewer_window_get_session(win)) != NULL);
    ASSERT_STREQ(sp_viewer_window_get_page(win), "compare");
    SpComparePage *page = SP_COMPARE_PAGE(sp_viewer_window_get_page_widget(win, "compare"));
    GListModel *rows = sp_compare_page_get_rows(page);
    /* The comparison is computed in a worker thread. */
    ASSERT(wait_compared(page));
    /* The sample candidate: compute 30 % faster, exchange 40 % slower, a new
     * region "save_state". */
    const sp_cmp_entry *kernel = diff_row(rows, "kernel");
    const sp_cmp_entry *exchange = diff_row(rows, "exchange");
    const sp_cmp_entry *added = diff_row(rows, "save_state");
    ASSERT(kernel && exchange && added);
    ASSERT_EQ_I(kernel->verdict, SP_CMP_FASTER);
    ASSERT(kernel->change_pct < -20 && kernel->change_pct > -40);
    ASSERT_EQ_I(exchange->verdict, SP_CMP_SLOWER);
    ASSERT(exchange->change_pct > 30 && exchange->change_pct < 50);
    ASSERT_EQ_I(added->verdict, SP_CMP_NEW);
    /* The summary is the model's own tally. */
    sp_cmp_tally t;
    sp_compare_tally(sp_compare_page_get_compare(page), &t);
    char tally[256];
    ASSERT_STREQ(sp_compare_page_get_summary(page), sp_compare_tally_text(&t, tally, sizeof tally));
    /* Filtering by verdict: "Slower" keeps slower and new rows only. */
    GtkDropDown *dd = GTK_DROP_DOWN(gtk_widget_get_template_child(
        GTK_WIDGET(page), SP_TYPE_COMPARE_PAGE, "verdict_dropdown"));
    ASSERT(dd);
    gtk_drop_down_set_selected(dd, 2);
    ASSERT_EQ_I(g_list_model_get_n_items(rows), t.n[SP_CMP_SLOWER] + t.n[SP_CMP_NEW]);
    gtk_drop_down_set_selected(dd, 0);
    ASSERT_EQ_I(g_list_model_get_n_items(rows), t.total);
    /* Two runs: no scaling study. */
    ASSERT(sp_compare_page_get_scaling(page) == NULL);
    close_window(win);
}

/* Pages hidden while runs load refresh when first shown (sp-page.h): the
 * helper's rules, then a window opened on two runs (the Compare page shown)
 * whose other pages, shown after a selection made while they were hidden,
 * show the base run and that selection. */
static void test_hidden_pages_refresh_when_shown(void)
{
    GtkWidget *w = g_object_ref_sink(gtk_label_new("")); /* never mapped */
    SpPageLazy lazy = {0};
    ASSERT(sp_page_lazy_skip(w, &lazy)); /* hidden, shows nothing: wait */
    ASSERT(lazy.owed);
    ASSERT(sp_page_lazy_owed(&lazy)); /* shown: refresh now */
    ASSERT(!sp_page_lazy_skip(w, &lazy)); /* the owed refresh runs */
    ASSERT(!lazy.owed);
    ASSERT(!sp_page_lazy_skip(w, &lazy)); /* filled once: never waits again */
    ASSERT(!sp_page_lazy_owed(&lazy));
    g_object_unref(w);

    SpViewerWindow *win = open_window(base_path, cand_path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    gtk_window_present(GTK_WINDOW(win));
    ASSERT_STREQ(sp_viewer_window_get_page(win), "compare");
    SpSession *session = sp_viewer_window_get_session(win);
    SpRunDocument *doc = sp_session_get_base(session);
    ASSERT(wait_allocated(sp_viewer_window_get_page_widget(win, "compare")));
    sp_session_set_selected_region(session, "exchange");
    int exchange = sp_run_document_find_region(doc, "exchange");
    ASSERT(exchange >= 0);

    ASSERT(sp_viewer_window_set_page(win, "calltree"));
    SpCalltreePage *tree = SP_CALLTREE_PAGE(sp_viewer_window_get_page_widget(win, "calltree"));
    ASSERT(wait_allocated(GTK_WIDGET(tree)));
    GtkSingleSelection *tsel = sp_calltree_page_get_selection(tree);
    ASSERT(g_list_model_get_n_items(G_LIST_MODEL(tsel)) > 0);
    GtkTreeListRow *row = gtk_single_selection_get_selected_item(tsel);
    ASSERT(row != NULL);
    g_autoptr(SpCallNode) node = SP_CALL_NODE(gtk_tree_list_row_get_item(row));
    ASSERT_EQ_I(sp_call_node_get_node(node)->region, exchange);

    ASSERT(sp_viewer_window_set_page(win, "regions"));
    SpRegionsPage *regions = SP_REGIONS_PAGE(sp_viewer_window_get_page_widget(win, "regions"));
    ASSERT(wait_allocated(GTK_WIDGET(regions)));
    ASSERT_EQ_U(g_list_model_get_n_items(sp_regions_page_get_rows(regions)),
                sp_run_document_get_run(doc)->nregions);
    SpRegionItem *item = gtk_single_selection_get_selected_item(sp_regions_page_get_selection(regions));
    ASSERT(item != NULL);
    ASSERT_STREQ(sp_region_item_get_name(item), "exchange");

    ASSERT(sp_viewer_window_set_page(win, "ranks"));
    SpRanksPage *ranks = SP_RANKS_PAGE(sp_viewer_window_get_page_widget(win, "ranks"));
    ASSERT_EQ_I(sp_ranks_page_get_region(ranks), exchange);
    close_window(win);
}

/* Prints the viewer's scaling study of three runs as CSV rows like
 * `scope-profiler scaling --csv -` ("viewer scaling: region,p,speedup,
 * efficiency"), and checks the Scaling view is the one shown. */
static const char *scaling_files[3];
static void test_print_scaling(void)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gboolean done = FALSE;
    gulong id = g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    GFile *files[3];
    for (int i = 0; i < 3; i++)
        files[i] = g_file_new_for_path(scaling_files[i]);
    sp_viewer_window_open_list(win, files, 3);
    wait_for(&done, 30000);
    g_signal_handler_disconnect(win, id);
    for (int i = 0; i < 3; i++)
        g_object_unref(files[i]);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    ASSERT_EQ_I(sp_session_get_n_runs(sp_viewer_window_get_session(win)), 3);
    ASSERT_STREQ(sp_viewer_window_get_page(win), "compare");
    SpComparePage *page = SP_COMPARE_PAGE(sp_viewer_window_get_page_widget(win, "compare"));
    const sp_scaling *s = sp_compare_page_get_scaling(page);
    ASSERT(s != NULL);
    GtkStack *views = GTK_STACK(gtk_widget_get_template_child(GTK_WIDGET(page),
                                                              SP_TYPE_COMPARE_PAGE, "views"));
    ASSERT_STREQ(gtk_stack_get_visible_child_name(views), "scaling");
    printf("viewer scaling kind: %s\n", s->weak ? "weak" : "strong");
    for (size_t g = 0; g < s->nregions; g++)
        for (size_t j = 0; j < s->nruns; j++)
            printf("viewer scaling: %s,%g,%.2f,%.2f\n", s->regions[g].name, s->p[j],
                   s->regions[g].pt[j].speedup, s->regions[g].pt[j].efficiency);
    fflush(stdout); /* a pipe: all of it before the window's teardown */
    close_window(win);
}

/* Three runs of which two have the same rank count (1, 4, 4 ranks) make no
 * scaling study: the page says why, and nowhere "open three or more runs"
 * (it said both). */
static void test_scaling_refused(void)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gboolean done = FALSE;
    gulong id = g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    GFile *files[3] = {g_file_new_for_path(SP_TEST_DATA_DIR "/python-0.2.1/py_readme_example.h5"),
                       g_file_new_for_path(base_path), g_file_new_for_path(cand_path)};
    sp_viewer_window_open_list(win, files, 3);
    wait_for(&done, 30000);
    g_signal_handler_disconnect(win, id);
    for (int i = 0; i < 3; i++)
        g_object_unref(files[i]);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    ASSERT_EQ_I(sp_session_get_n_runs(sp_viewer_window_get_session(win)), 3);
    SpComparePage *page = SP_COMPARE_PAGE(sp_viewer_window_get_page_widget(win, "compare"));
    ASSERT(sp_compare_page_get_scaling(page) == NULL);
    const char *why = sp_compare_page_get_scaling_error(page);
    ASSERT(why != NULL);
    ASSERT_CONTAINS(why, "No scaling study: runs 2 and 3 both have 4 ranks");
    ASSERT(find_widget(GTK_WIDGET(page), GTK_TYPE_LABEL, "both have 4 ranks") != NULL);
    ASSERT(find_widget(GTK_WIDGET(page), GTK_TYPE_LABEL, "three or more") == NULL);
    close_window(win);
}

/* Prints the viewer's tally for a pair (BASE CAND) as "viewer summary: ..."
 * so a script can compare it with the CLI's and the report's. */
static const char *agree_base, *agree_cand;
static void test_print_summary(void)
{
    if (!agree_base)
        return;
    SpViewerWindow *win = open_window(agree_base, agree_cand);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    SpComparePage *page = SP_COMPARE_PAGE(sp_viewer_window_get_page_widget(win, "compare"));
    ASSERT(wait_compared(page));
    const sp_compare *cmp = sp_compare_page_get_compare(page);
    printf("viewer summary: %s\n", sp_compare_page_get_summary(page));
    for (size_t i = 0; i < cmp->n; i++)
        printf("viewer verdict: %s %s\n", cmp->entries[i].name,
               sp_cmp_verdict_name(cmp->entries[i].verdict));
    close_window(win);
}

/* ---- timeline zoom and export ---- */

static void test_timeline_zoom_and_pan(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_window_set_page(win, "timeline");
    SpTimelineChart *chart =
        sp_timeline_page_get_chart(SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline")));
    ASSERT(wait_allocated(GTK_WIDGET(chart)));
    gint64 dur = sp_timeline_duration_ns(sp_timeline_chart_get_timeline(chart));
    gint64 t0, t1;
    sp_timeline_chart_get_window(chart, &t0, &t1);
    ASSERT_EQ_I(t0, 0);
    ASSERT_EQ_I(t1, dur);
    sp_timeline_chart_zoom(chart, 4.0);
    sp_timeline_chart_get_window(chart, &t0, &t1);
    ASSERT_NEAR((double)(t1 - t0), dur / 4.0, dur * 1e-6 + 2);
    ASSERT_NEAR((double)(t0 + t1) / 2, dur / 2.0, dur * 1e-6 + 2); /* around the centre */
    /* Panning past the end stops at the end, keeping the span. */
    for (int i = 0; i < 20; i++)
        sp_timeline_chart_pan(chart, 0.5);
    gint64 a, b;
    sp_timeline_chart_get_window(chart, &a, &b);
    ASSERT_EQ_I(b, dur);
    ASSERT_EQ_I(b - a, t1 - t0);
    /* The scrollbar follows. */
    GtkAdjustment *h = sp_timeline_chart_get_hadjustment(chart);
    ASSERT_NEAR(gtk_adjustment_get_value(h), (double)a, 1);
    ASSERT_NEAR(gtk_adjustment_get_page_size(h), (double)(b - a), 1);
    sp_timeline_chart_zoom_to_fit(chart);
    sp_timeline_chart_get_window(chart, &a, &b);
    ASSERT_EQ_I(a, 0);
    ASSERT_EQ_I(b, dur);
    /* Zooming in stops at the deepest zoom instead of collapsing. */
    for (int i = 0; i < 80; i++)
        sp_timeline_chart_zoom(chart, 2.0);
    sp_timeline_chart_get_window(chart, &a, &b);
    ASSERT(b - a >= 100 && b - a <= 1000);
    close_window(win);
}

static gboolean file_starts_with(const char *path, const char *magic)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL))
        return FALSE;
    return len > 100 && memcmp(data, magic, strlen(magic)) == 0;
}

static void test_export_chart(void)
{
    SpViewerWindow *win = open_window(base_path, NULL);
    gtk_window_present(GTK_WINDOW(win));
    SpChart *chart = SP_CHART(
        sp_timeline_page_get_chart(SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline"))));
    g_autofree char *png = g_build_filename(out_dir, "export_timeline.png", NULL);
    g_autofree char *svg = g_build_filename(out_dir, "export_timeline.svg", NULL);
    g_autofree char *pdf = g_build_filename(out_dir, "export_timeline.pdf", NULL);
    g_autoptr(GError) error = NULL;
    ASSERT(sp_chart_export(chart, png, 800, 500, &error));
    ASSERT(sp_chart_export(chart, svg, 800, 500, &error));
    ASSERT(sp_chart_export(chart, pdf, 800, 500, &error));
    ASSERT(file_starts_with(png, "\x89PNG"));
    ASSERT(file_starts_with(svg, "<?xml"));
    ASSERT(file_starts_with(pdf, "%PDF"));
    g_autoptr(GdkTexture) tex = gdk_texture_new_from_filename(png, &error);
    ASSERT(tex != NULL);
    ASSERT_EQ_I(gdk_texture_get_width(tex), 800);
    ASSERT_EQ_I(gdk_texture_get_height(tex), 500);
    /* An unknown extension is refused with a reason. */
    g_autofree char *bad = g_build_filename(out_dir, "export.jpg", NULL);
    ASSERT(!sp_chart_export(chart, bad, 800, 500, &error));
    ASSERT(error != NULL && error->message[0] != '\0');
    close_window(win);
}

/* ---- a killed run ---- */

/* The golden run a SIGKILL left (data/golden/v2/killed.h5, with its part):
 * the header says "incomplete run", the window title too, and a banner says
 * what was lost. */
static void test_killed_run_says_incomplete(void)
{
    SpViewerWindow *win = open_window(SP_TEST_DATA_DIR "/golden/v2/killed.h5", NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    gtk_window_present(GTK_WINDOW(win));
    ASSERT(wait_allocated(GTK_WIDGET(win)));
    ASSERT_CONTAINS(gtk_window_get_title(GTK_WINDOW(win)), "killed.h5 (incomplete)");
    GtkWidget *sub = find_widget(GTK_WIDGET(win), GTK_TYPE_LABEL, "incomplete run · wall clock");
    ASSERT(sub != NULL);
    GtkWidget *banner = find_widget(GTK_WIDGET(win), GTK_TYPE_LABEL, "Incomplete run: recording");
    ASSERT(banner != NULL);
    ASSERT_CONTAINS(gtk_label_get_text(GTK_LABEL(banner)), "rank(s) 1 left no data");
    ASSERT_CONTAINS(gtk_label_get_text(GTK_LABEL(banner)), "are not in the file");
    close_window(win);
    /* A finished run: nothing of the sort. */
    win = open_window(base_path, NULL);
    ASSERT(!strstr(gtk_window_get_title(GTK_WINDOW(win)), "incomplete"));
    ASSERT(find_widget(GTK_WIDGET(win), GTK_TYPE_LABEL, "ncomplete run") == NULL);
    close_window(win);
}

/* ---- the Call tree page: a deep recursion ---- */

/* A run of one 20,000-deep chain of calls: "recurse" everywhere but
 * "mid" at depth 100 and "leaf" at the bottom. */
static char *write_deep_run(void)
{
    enum { DEPTH = 20001 };
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) || sp_rank_alloc_calls(&run->ranks[0], DEPTH))
        return NULL;
    sp_rank_data *rk = &run->ranks[0];
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    rk->threads[0].name = strdup("main");
    for (int i = 0; i < DEPTH; i++) {
        const char *name = i == DEPTH - 1 ? "leaf" : i == 99 ? "mid" : "recurse";
        rk->start_ns[i] = i;
        rk->end_ns[i] = 2 * DEPTH - i;
        rk->region[i] = sp_run_intern_region(run, name);
        rk->thread[i] = 0;
        rk->parent[i] = i - 1;
    }
    char *path = g_build_filename(out_dir, "deep_chain.h5", NULL);
    g_unlink(path);
    int rc = sp_h5_write(run, path);
    sp_run_free(run);
    if (rc) {
        g_free(path);
        return NULL;
    }
    return path;
}

/* The tree depth (top level 1) of the call tree's selected row, or -1. */
static int selected_depth(SpCalltreePage *page, const char **region)
{
    GtkTreeListRow *row = gtk_single_selection_get_selected_item(sp_calltree_page_get_selection(page));
    if (!row)
        return -1;
    g_autoptr(SpCallNode) node = gtk_tree_list_row_get_item(row);
    *region = sp_call_node_get_name(node);
    return sp_call_node_get_node(node)->depth;
}

/* Selecting a region 20,000 levels down (from the timeline or the regions
 * table) expands the tree at most EXPAND_MAX_DEPTH (256) levels and selects
 * the deepest row shown; one 100 levels down is selected itself. Searching
 * the rows from the top for every level took minutes. */
static void test_calltree_deep_selection(void)
{
    g_autofree char *path = write_deep_run();
    ASSERT(path != NULL);
    SpViewerWindow *win = open_window(path, NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    gtk_window_present(GTK_WINDOW(win));
    ASSERT(sp_viewer_window_set_page(win, "calltree"));
    SpCalltreePage *page = SP_CALLTREE_PAGE(sp_viewer_window_get_page_widget(win, "calltree"));
    SpSession *session = sp_viewer_window_get_session(win);
    const char *region = NULL;
    sp_session_set_selected_region(session, "mid");
    ASSERT_EQ_I(selected_depth(page, &region), 100);
    ASSERT_STREQ(region, "mid");
    sp_session_set_selected_region(session, "leaf");
    ASSERT_EQ_I(selected_depth(page, &region), 256);
    ASSERT_STREQ(region, "recurse");
    /* Expand All stops at the same depth. */
    gtk_widget_activate_action(GTK_WIDGET(page), "calltree.expand-all", NULL);
    GListModel *rows = G_LIST_MODEL(sp_calltree_page_get_selection(page));
    ASSERT_EQ_U(g_list_model_get_n_items(rows), 257); /* levels 1..256 and one more row */
    close_window(win);
    g_unlink(path);
}

/* ---- the Info page: long values cut, copied whole ---- */

typedef struct {
    gboolean done;
    char *text;
} ClipRead;

static void on_clipboard_text(GObject *source, GAsyncResult *res, gpointer data)
{
    ClipRead *r = data;
    r->text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), res, NULL);
    r->done = TRUE;
}

/* A 1 MiB metadata value (the 16 MB one took the page 58 s): the
 * row shows its start, "… (N characters)", and a button that puts the
 * whole value on the clipboard; a value holding an escape is copied as
 * shown (escaped). */
static void test_info_long_value(void)
{
    sp_run *run = sp_read_h5(base_path);
    ASSERT(run != NULL);
    GString *big = g_string_new(NULL);
    while (big->len < (1u << 20))
        g_string_append(big, "0123456789abcdef"); /* no space to wrap at */
    ASSERT_EQ_I(sp_kvlist_set(&run->meta, "long_value", big->str), 0);
    g_autofree char *esc = g_strnfill(300, 'x');
    esc[10] = '\x1b';
    ASSERT_EQ_I(sp_kvlist_set(&run->meta, "long_escaped", esc), 0);
    g_autofree char *path = g_build_filename(out_dir, "long_value.h5", NULL);
    g_unlink(path);
    ASSERT_EQ_I(sp_h5_write(run, path), 0);
    sp_run_free(run);

    SpViewerWindow *win = open_window(path, NULL);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    gtk_window_present(GTK_WINDOW(win));
    ASSERT(sp_viewer_window_set_page(win, "info"));
    GtkWidget *page = sp_viewer_window_get_page_widget(win, "info");
    ASSERT(wait_allocated(page));
    GtkWidget *label = find_widget(page, GTK_TYPE_LABEL, "… (1\u2009048\u2009576 characters)");
    ASSERT(label != NULL);
    ASSERT(strlen(gtk_label_get_text(GTK_LABEL(label))) < 400);
    GtkWidget *button = gtk_widget_get_next_sibling(label);
    ASSERT(button && GTK_IS_BUTTON(button));
    ASSERT_CONTAINS(gtk_widget_get_tooltip_text(button), "1\u2009048\u2009576 characters, 1.0");
    ASSERT_CONTAINS(gtk_widget_get_tooltip_text(button), "MiB)");
    g_signal_emit_by_name(button, "clicked");
    ClipRead r = {0};
    gdk_clipboard_read_text_async(gtk_widget_get_clipboard(button), NULL, on_clipboard_text, &r);
    ASSERT(wait_for(&r.done, 10000));
    ASSERT(r.text != NULL);
    ASSERT_EQ_U(strlen(r.text), big->len);
    ASSERT(strcmp(r.text, big->str) == 0);
    g_free(r.text);

    label = find_widget(page, GTK_TYPE_LABEL, "\\x1b");
    ASSERT(label != NULL);
    ASSERT_CONTAINS(gtk_label_get_text(GTK_LABEL(label)), "… (303 characters)");
    button = gtk_widget_get_next_sibling(label);
    ASSERT(button && GTK_IS_BUTTON(button));
    g_signal_emit_by_name(button, "clicked");
    r = (ClipRead){0};
    gdk_clipboard_read_text_async(gtk_widget_get_clipboard(button), NULL, on_clipboard_text, &r);
    ASSERT(wait_for(&r.done, 10000));
    ASSERT(r.text != NULL && strlen(r.text) == 303 && strstr(r.text, "\\x1b") == r.text + 10);
    g_free(r.text);
    g_string_free(big, TRUE);
    close_window(win);
    g_unlink(path);
}

/* ---- settings ---- */

static void test_window_size_remembered(void)
{
    sp_viewer_settings_set_enabled(TRUE);
    sp_viewer_settings_set_window_size(1111, 777, FALSE);
    int w = 0, h = 0;
    gboolean max = TRUE;
    ASSERT(sp_viewer_settings_get_window_size(&w, &h, &max));
    ASSERT_EQ_I(w, 1111);
    ASSERT_EQ_I(h, 777);
    ASSERT(!max);
    g_autofree char *path = sp_viewer_settings_path();
    ASSERT(g_str_has_prefix(path, out_dir)); /* the test's own config home */
    /* A new window starts at the remembered size. */
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gtk_window_get_default_size(GTK_WINDOW(win), &w, &h);
    ASSERT_EQ_I(w, 1111);
    ASSERT_EQ_I(h, 777);
    close_window(win);
    sp_viewer_settings_set_enabled(FALSE);
    ASSERT(!sp_viewer_settings_get_window_size(&w, &h, &max));
}

/* ---- following a run (--follow) ---- */

typedef struct {
    gboolean updated, complete;
    guint64 calls;
} FollowSeen;

static void on_follow_updated(SpViewerWindow *win, guint64 calls, gboolean complete,
                              FollowSeen *seen)
{
    seen->updated = TRUE;
    seen->complete = complete;
    seen->calls = calls;
}

/* Follow a file that does not exist yet (the window waits), then appears
 * (shown, complete: polling stops), then is replaced by another run
 * (followed again) while the user has a page, a selected region and a
 * zoomed timeline: all three survive the refresh. */
static void test_follow_keeps_view(void)
{
    g_autofree char *path = g_build_filename(out_dir, "follow-widget.h5", NULL);
    g_unlink(path);
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gtk_window_present(GTK_WINDOW(win));
    FollowSeen seen = {0};
    g_signal_connect(win, "follow-updated", G_CALLBACK(on_follow_updated), &seen);
    g_autoptr(GFile) file = g_file_new_for_path(path);
    sp_viewer_window_follow(win, file, 0.1);
    ASSERT(sp_viewer_window_is_following(win));
    gboolean waited = FALSE;
    g_timeout_add(400, on_timeout, &waited);
    wait_for(&waited, 1000);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_LOADING); /* waiting */
    ASSERT(!seen.updated);

    g_autoptr(GFile) base = g_file_new_for_path(base_path);
    ASSERT(g_file_copy(base, file, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL));
    ASSERT(wait_for(&seen.updated, 30000));
    ASSERT(seen.complete);
    ASSERT(seen.calls > 0);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    ASSERT(strstr(sp_viewer_window_get_follow_status(win), "run complete") != NULL);

    /* The user's view. */
    SpSession *session = sp_viewer_window_get_session(win);
    SpRunDocument *first = sp_session_get_base(session);
    const sp_run *run = sp_run_document_get_run(first);
    ASSERT(run->nregions > 1);
    g_autofree char *region = g_strdup(run->region_names[1]); /* the run goes */
    sp_session_set_selected_region(session, region);
    sp_viewer_window_set_page(win, "timeline");
    SpTimelineChart *chart = sp_timeline_page_get_chart(
        SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline")));
    ASSERT(wait_allocated(GTK_WIDGET(chart)));
    sp_timeline_chart_zoom(chart, 4.0);
    gint64 t0, t1;
    sp_timeline_chart_get_window(chart, &t0, &t1);

    /* Another run written to the same path: followed again. */
    seen.updated = FALSE;
    g_autoptr(GFile) cand = g_file_new_for_path(cand_path);
    ASSERT(g_file_copy(cand, file, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL));
    ASSERT(wait_for(&seen.updated, 30000));
    ASSERT(sp_session_get_base(session) != first);
    ASSERT_STREQ(sp_viewer_window_get_page(win), "timeline");
    ASSERT_STREQ(sp_session_get_selected_region(session), region);
    gint64 a, b;
    sp_timeline_chart_get_window(chart, &a, &b);
    ASSERT_EQ_I(a, t0);
    ASSERT_EQ_I(b, t1);

    /* Opening a run stops following. */
    g_autoptr(GFile) other = g_file_new_for_path(base_path);
    gboolean done = FALSE;
    g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    sp_viewer_window_open(win, other, NULL);
    ASSERT(!sp_viewer_window_is_following(win));
    ASSERT(wait_for(&done, 30000));
    close_window(win);
    g_unlink(path);
}


/* ---- MPI messages ---- */

static const char *messages_path;
static int messages_steps;

/* Lines from `from` to `to` among the chart's. */
static int count_lines(const sp_timeline_view *v, int from, int to)
{
    int n = 0;
    for (size_t i = 0; i < v->narrows; i++)
        n += v->arrows[i].from_rank == from && v->arrows[i].to_rank == to;
    return n;
}

/* Pixels that differ between the chart drawn with its message lines and
 * without (the page's button), at the widget's size. */
static long lines_pixels(SpTimelinePage *page, SpTimelineChart *chart)
{
    int w = gtk_widget_get_width(GTK_WIDGET(chart)), h = gtk_widget_get_height(GTK_WIDGET(chart));
    sp_plot_style st;
    sp_chart_style_for_widget(GTK_WIDGET(chart), &st);
    cairo_surface_t *img[2];
    for (int k = 0; k < 2; k++) {
        sp_timeline_page_set_show_messages(page, k == 0);
        img[k] = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        cairo_t *cr = cairo_create(img[k]);
        int rc = sp_chart_draw(SP_CHART(chart), cr, w, h, &st);
        cairo_destroy(cr);
        if (rc != 0)
            return -1;
        cairo_surface_flush(img[k]);
    }
    sp_timeline_page_set_show_messages(page, TRUE);
    long n = 0;
    int stride = cairo_image_surface_get_stride(img[0]);
    const unsigned char *a = cairo_image_surface_get_data(img[0]);
    const unsigned char *b = cairo_image_surface_get_data(img[1]);
    for (int y = 0; y < h; y++)
        n += memcmp(a + (size_t)y * stride, b + (size_t)y * stride, (size_t)w * 4) != 0;
    for (int k = 0; k < 2; k++)
        cairo_surface_destroy(img[k]);
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

/* The Timeline page of a 4-rank run of late_sender_mpi draws a line per
 * message the program sent (each step: a ring r -> r+1 and the late rank
 * 2's message to rank 0), from the sender's lane at the send to the
 * receiver's at the receive, in the chart's time; the window and the
 * messages button choose which. */
static void test_timeline_messages(void)
{
    SpViewerWindow *win = open_window(messages_path, NULL);
    gtk_window_set_default_size(GTK_WINDOW(win), 1280, 900);
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_window_set_page(win, "timeline");
    SpTimelinePage *page = SP_TIMELINE_PAGE(sp_viewer_window_get_page_widget(win, "timeline"));
    SpTimelineChart *chart = sp_timeline_page_get_chart(page);
    ASSERT(wait_allocated(GTK_WIDGET(chart)));
    ASSERT(wait_windows(chart));
    const sp_timeline *tl = sp_timeline_chart_get_timeline(chart);
    ASSERT_EQ_U(sp_timeline_lane_count(tl), 4);
    const sp_timeline_view *v = sp_timeline_chart_get_view(chart);
    gint64 dur = sp_timeline_duration_ns(tl);

    /* The whole run: every message the program sent, by pair. */
    ASSERT_EQ_U(v->narrows, (size_t)(5 * messages_steps));
    for (int r = 0; r < 4; r++)
        ASSERT_EQ_I(count_lines(v, r, (r + 1) % 4), messages_steps);
    ASSERT_EQ_I(count_lines(v, 2, 0), messages_steps);
    const sp_waits *w = sp_run_document_get_waits(sp_timeline_chart_get_document(chart));
    ASSERT(w);
    int64_t origin = sp_timeline_origin_ns(tl);
    for (size_t i = 0; i < v->narrows; i++) {
        const sp_timeline_arrow *a = &v->arrows[i];
        ASSERT(sp_timeline_find_lane(tl, a->from_rank, a->from_thread) >= 0);
        ASSERT(sp_timeline_find_lane(tl, a->to_rank, a->to_thread) >= 0);
        /* The analysis' message, moved to the chart's time (by send time). */
        ASSERT_EQ_I(a->from_rank, w->messages[i].src);
        ASSERT_EQ_I(a->from_ns, w->messages[i].send_ns - origin);
        ASSERT_EQ_I(a->to_ns, w->messages[i].recv_ns - origin);
        /* Inside the run; a receive may seem to end before its send began
         * by as much as the two ranks' clock offsets are uncertain (ms on a
         * loaded machine). */
        ASSERT_MSG(a->from_ns >= 0 && a->from_ns <= a->to_ns + 2 * w->clock_err_ns &&
                       a->to_ns <= dur,
                   "line %zu: %lld -> %lld ns of a %lld ns run (clocks within %lld ns)", i,
                   (long long)a->from_ns, (long long)a->to_ns, (long long)dur,
                   (long long)w->clock_err_ns);
    }
    /* The late message: rank 2 computed three units while rank 0 waited, so
     * it arrives well after the ring message of its step that rank 0 got. */
    for (size_t i = 0; i < v->narrows; i++)
        if (v->arrows[i].from_rank == 2 && v->arrows[i].to_rank == 0)
            ASSERT(v->arrows[i].from_ns > v->arrows[0].to_ns);

    /* Zoomed to the time of the middle send: the messages with a part in
     * it. The middle by the messages, not by the run's duration: under
     * load a slow start or finalize can put every message in one half. */
    size_t total = v->narrows;
    gint64 *sends = g_new(gint64, total);
    for (size_t i = 0; i < total; i++)
        sends[i] = v->arrows[i].from_ns;
    qsort(sends, total, sizeof *sends, cmp_i64);
    size_t mid = total / 2;
    while (mid + 1 < total && sends[mid] == sends[mid + 1])
        mid++;
    ASSERT(mid + 1 < total); /* some send later than the middle one */
    gint64 half = sends[mid] + (sends[mid + 1] - sends[mid]) / 2;
    g_free(sends);
    sp_timeline_chart_set_window(chart, 0, half);
    ASSERT(v->narrows > 0 && v->narrows < total);
    for (size_t i = 0; i < v->narrows; i++)
        ASSERT(v->arrows[i].from_ns <= half);
    sp_timeline_chart_zoom_to_fit(chart);
    ASSERT_EQ_U(v->narrows, (size_t)(5 * messages_steps));

    /* The button hides them and shows them again. */
    sp_timeline_page_set_show_messages(page, FALSE);
    ASSERT_EQ_U(v->narrows, 0);
    sp_timeline_page_set_show_messages(page, TRUE);
    ASSERT_EQ_U(v->narrows, (size_t)(5 * messages_steps));

    /* Drawn: rows of pixels differ with the lines (they span the lanes
     * from rank 0 to rank 3); in the overview nothing is drawn for them. */
    long rows = lines_pixels(page, chart);
    ASSERT_MSG(rows > 50, "%ld rows changed by the message lines", rows);
    sp_timeline_chart_set_lanes(chart, SP_TIMELINE_LANES_OVERVIEW);
    ASSERT(sp_timeline_chart_is_overview(chart));
    ASSERT(v->narrows > 0);
    ASSERT_EQ_I(lines_pixels(page, chart), 0);
    close_window(win);
}

/* ---- many regions: rows capped ---- */

/* 2,500 regions called once under main, region k taking k + 1 us: the
 * Regions table and main's children hold the 2,000 with the most time (GTK
 * took tens of seconds over 10^6 rows), and a search reaches the others. */
static void test_rows_capped(void)
{
    enum { N = 2500 };
    tb_call *calls = calloc(N + 1, sizeof *calls);
    char (*names)[16] = calloc(N, sizeof *names);
    ASSERT(calls && names);
    int64_t t = 1000;
    calls[0] = (tb_call){0, 0, "main", 0, 0};
    for (int k = 0; k < N; k++) {
        snprintf(names[k], sizeof names[k], "r%04d", k);
        calls[k + 1] = (tb_call){0, 0, names[k], t, t + (k + 1) * 1000};
        t += (k + 1) * 1000 + 10;
    }
    calls[0].end = t + 1000;
    sp_run *run = tb_build(calls, N + 1, 1, 1);
    ASSERT(run && sp_run_analyze(run) == 0);
    g_autoptr(GError) error = NULL;
    g_autoptr(SpRunDocument) doc = sp_run_document_new_for_run(run, "many.h5", &error);
    ASSERT_MSG(doc, "%s", error ? error->message : "?");
    size_t matching = 0;
    g_autoptr(GListModel) rows = sp_region_item_list_new(doc, NULL, SP_REGION_ITEMS_MAX, &matching);
    ASSERT_EQ_U(matching, N + 1);
    ASSERT_EQ_U(g_list_model_get_n_items(rows), SP_REGION_ITEMS_MAX);
    int last = -1;
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpRegionItem) item = g_list_model_get_item(rows, i);
        const char *name = sp_region_item_get_name(item);
        ASSERT(sp_region_item_get_id(item) > last); /* region id order */
        last = sp_region_item_get_id(item);
        /* r0000 .. r0500 are the 501 shortest: left out */
        ASSERT_MSG(strcmp(name, "main") == 0 || atoi(name + 1) > N - SP_REGION_ITEMS_MAX, "%s",
                   name);
    }
    g_autoptr(GListModel) found = sp_region_item_list_new(doc, "r0007", SP_REGION_ITEMS_MAX,
                                                          &matching);
    ASSERT_EQ_U(matching, 1);
    ASSERT_EQ_U(g_list_model_get_n_items(found), 1);
    /* main's children in the call tree */
    const sp_tree *tree = &sp_run_document_get_run(doc)->tree;
    int main_node = tree->nodes[0].first_child;
    ASSERT(main_node > 0);
    g_autoptr(GListModel) kids = sp_call_node_children(doc, main_node);
    ASSERT(kids);
    ASSERT_EQ_U(g_list_model_get_n_items(kids), SP_CALL_NODE_CHILDREN_MAX);
    double least = G_MAXDOUBLE;
    for (guint i = 0; i < g_list_model_get_n_items(kids); i++) {
        g_autoptr(SpCallNode) kid = g_list_model_get_item(kids, i);
        least = MIN(least, sp_call_node_get_node(kid)->incl_s);
    }
    ASSERT(least >= (N - SP_CALL_NODE_CHILDREN_MAX + 1) * 1e-6 * 0.999);
    /* ... and the Call Tree page says so (sp_format_count: thin spaces). */
    g_autofree char *note = sp_call_node_cap_note(doc);
    g_autofree char *max_s = sp_format_count(SP_CALL_NODE_CHILDREN_MAX);
    g_autofree char *n_s = sp_format_count(N);
    g_autofree char *want = g_strdup_printf("1 node with more than %s children lists the %s with "
                                            "the most inclusive time (the largest has %s)",
                                            max_s, max_s, n_s);
    ASSERT_STREQ(note, want);
    /* no node over the cap: nothing said */
    tb_call few[2] = {{0, 0, "main", 0, 100}, {0, 0, "a", 10, 20}};
    sp_run *small = tb_build(few, 2, 1, 1);
    ASSERT(small && sp_run_analyze(small) == 0);
    g_autoptr(SpRunDocument) small_doc = sp_run_document_new_for_run(small, "small.h5", &error);
    ASSERT(small_doc);
    ASSERT(sp_call_node_cap_note(small_doc) == NULL);
    free(calls);
    free(names);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--messages") == 0) {
        messages_path = argv[2];
        messages_steps = atoi(argv[3]);
        int gtk_argc = 1;
        char **gtk_argv = argv;
        gtk_test_init(&gtk_argc, &gtk_argv, NULL);
        sp_viewer_ensure_resources();
        sp_viewer_settings_set_enabled(FALSE);
        RUN(test_timeline_messages);
        return sp_test_summary();
    }
    if (argc == 4 && strcmp(argv[1], "--summary") == 0) {
        /* test_viewer_widgets --summary BASE CAND: only print the tally. */
        agree_base = argv[2];
        agree_cand = argv[3];
        int gtk_argc = 1;
        char **gtk_argv = argv;
        gtk_test_init(&gtk_argc, &gtk_argv, NULL);
        sp_viewer_ensure_resources();
        sp_viewer_settings_set_enabled(FALSE);
        RUN(test_print_summary);
        return sp_test_summary();
    }
    if (argc == 5 && strcmp(argv[1], "--scaling") == 0) {
        /* test_viewer_widgets --scaling RUN1 RUN2 RUN3: print the study. */
        for (int i = 0; i < 3; i++)
            scaling_files[i] = argv[2 + i];
        int gtk_argc = 1;
        char **gtk_argv = argv;
        gtk_test_init(&gtk_argc, &gtk_argv, NULL);
        sp_viewer_ensure_resources();
        sp_viewer_settings_set_enabled(FALSE);
        RUN(test_print_scaling);
        return sp_test_summary();
    }
    if (argc != 4) {
        fprintf(stderr, "usage: test_viewer_widgets BASE.h5 CANDIDATE.h5 OUTDIR\n"
                        "       test_viewer_widgets --scaling RUN1.h5 RUN2.h5 RUN3.h5\n"
                        "       test_viewer_widgets --summary BASE.h5 CANDIDATE.h5\n"
                        "       test_viewer_widgets --messages LATE_SENDER.h5 STEPS\n");
        return 2;
    }
    base_path = argv[1];
    cand_path = argv[2];
    out_dir = argv[3];
    g_autofree char *config = g_build_filename(out_dir, "widget-test-config", NULL);
    g_setenv("XDG_CONFIG_HOME", config, TRUE); /* before GLib caches it */
    int gtk_argc = 1;
    char **gtk_argv = argv;
    gtk_test_init(&gtk_argc, &gtk_argv, NULL);
    sp_viewer_ensure_resources();
    sp_viewer_settings_set_enabled(FALSE);

    RUN(test_load_sample);
    RUN(test_rows_capped);
    RUN(test_load_missing_file);
    RUN(test_load_not_hdf5);
    RUN(test_table_selection_updates_ranks);
    RUN(test_timeline_click_selects_region);
    RUN(test_search_filters_table);
    RUN(test_table_sorted_by_total);
    RUN(test_estimates_marked);
    RUN(test_compare);
    RUN(test_hidden_pages_refresh_when_shown);
    RUN(test_timeline_zoom_and_pan);
    RUN(test_follow_keeps_view);
    RUN(test_export_chart);
    RUN(test_info_long_value);
    RUN(test_calltree_deep_selection);
    RUN(test_killed_run_says_incomplete);
    RUN(test_scaling_refused);
    RUN(test_window_size_remembered);
    return sp_test_summary();
}
