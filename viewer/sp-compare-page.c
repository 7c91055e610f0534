/* SPDX-License-Identifier: MIT */
/* sp-compare-page.c - the Compare page. */
#include "sp-compare-page.h"

#include <math.h>

#include "sp-chart-view.h"
#include "sp-diff-item.h"
#include "sp-list-columns.h"
#include "sp-timeline-chart.h"
#include "sp-viewer-format.h"
#include "sp-viewer-screenshot.h"

typedef enum { FIELD_NAME, FIELD_BASE, FIELD_CAND, FIELD_DELTA, FIELD_CHANGE, FIELD_VERDICT,
               N_FIELDS } Field;
typedef enum { SHOW_ALL, SHOW_CHANGED, SHOW_SLOWER, SHOW_FASTER } Show;

#define MAX_BARS 60 /* regions handed to the bar chart (it says "+ N more") */

struct _SpComparePage {
    GtkWidget parent_instance;
    SpSession *session;
    SpRunDocument *base, *cand;
    char *needle;
    Show show;
    gboolean syncing, syncing_view;
    guint diff_generation; /* of the comparison being computed */
    SpChart *current_chart;

    GListStore *store;
    GtkCustomFilter *filter;
    GtkFilterListModel *filtered;
    GtkSortListModel *sorted;
    GtkSingleSelection *selection;

    SpTimelineChart *base_chart, *cand_chart;
    GtkScrollbar *base_vscrollbar, *cand_vscrollbar;
    GtkLabel *base_label, *cand_label, *summary_label;
    GtkSearchEntry *search_entry;
    GtkDropDown *verdict_dropdown;
    GtkColumnView *column_view;
    GtkColumnViewColumn *columns[N_FIELDS];
    SpChartView *bars;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpComparePage, sp_compare_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

/* ---- table ---- */

static double field_value(const sp_diff_entry *e, Field f)
{
    switch (f) {
    case FIELD_BASE: return e->base;
    case FIELD_CAND: return e->cand;
    case FIELD_DELTA: return e->delta;
    case FIELD_CHANGE: return isfinite(e->percent) ? e->percent : 1e300;
    case FIELD_VERDICT: return e->verdict;
    default: return 0;
    }
}

static char *cell_text(gpointer item, gpointer data)
{
    const sp_diff_entry *e = sp_diff_item_get_entry(item);
    switch ((Field)GPOINTER_TO_INT(data)) {
    case FIELD_BASE:
        return e->presence == SP_DIFF_ONLY_CAND ? g_strdup("—") : sp_format_duration(e->base);
    case FIELD_CAND:
        return e->presence == SP_DIFF_ONLY_BASE ? g_strdup("—") : sp_format_duration(e->cand);
    case FIELD_DELTA: return sp_format_duration_delta(e->delta);
    case FIELD_CHANGE: return sp_format_percent_change(e->percent / 100.0);
    case FIELD_VERDICT: return g_strdup(sp_diff_verdict_name(e->verdict));
    default: return NULL;
    }
}

/* Beyond noise (or new / removed) is coloured; untested moves are plain. */
static gboolean is_slower(const sp_diff_entry *e)
{
    return e->verdict == SP_DIFF_SLOWER || e->verdict == SP_DIFF_ADDED;
}

static gboolean is_faster(const sp_diff_entry *e)
{
    return e->verdict == SP_DIFF_FASTER || e->verdict == SP_DIFF_REMOVED;
}

static const char *cell_class(gpointer item, gpointer data)
{
    const sp_diff_entry *e = sp_diff_item_get_entry(item);
    if (is_slower(e))
        return "sp-slower";
    if (is_faster(e))
        return "sp-faster";
    return e->verdict == SP_DIFF_SAME ? "dim-label" : NULL;
}

static const char *cell_name(gpointer item, gpointer data)
{
    return sp_diff_item_get_entry(item)->name;
}

static int compare_items(gconstpointer a, gconstpointer b, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    const sp_diff_entry *x = sp_diff_item_get_entry((SpDiffItem *)a);
    const sp_diff_entry *y = sp_diff_item_get_entry((SpDiffItem *)b);
    if (f != FIELD_NAME) {
        double u = field_value(x, f), v = field_value(y, f);
        if (u != v)
            return u < v ? -1 : 1;
    }
    return g_utf8_collate(x->name, y->name);
}

static gboolean filter_item(gpointer item, gpointer data)
{
    SpComparePage *self = data;
    const sp_diff_entry *e = sp_diff_item_get_entry(item);
    gboolean slower = is_slower(e), faster = is_faster(e);
    if ((self->show == SHOW_CHANGED && !slower && !faster) ||
        (self->show == SHOW_SLOWER && !slower) || (self->show == SHOW_FASTER && !faster))
        return FALSE;
    if (!self->needle)
        return TRUE;
    g_autofree char *name = g_utf8_casefold(e->name, -1);
    return strstr(name, self->needle) != NULL;
}

static void refilter(SpComparePage *self)
{
    gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
    gtk_widget_queue_draw(GTK_WIDGET(self->bars));
}

static void on_search_changed(GtkSearchEntry *entry, SpComparePage *self)
{
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    g_clear_pointer(&self->needle, g_free);
    if (text && *text)
        self->needle = g_utf8_casefold(text, -1);
    refilter(self);
}

static void on_show_changed(GtkDropDown *dropdown, GParamSpec *pspec, SpComparePage *self)
{
    self->show = (Show)gtk_drop_down_get_selected(dropdown);
    refilter(self);
}

/* ---- bars ---- */

static int draw_bars(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpComparePage *self = data;
    if (!self->base || !self->cand)
        return sp_plot_draw_empty(cr, w, h, st, "Open two runs to compare them");
    GListModel *rows = G_LIST_MODEL(self->sorted);
    guint n = MIN(g_list_model_get_n_items(rows), MAX_BARS);
    if (n == 0)
        return sp_plot_draw_empty(cr, w, h, st, "No region matches the filter");
    const char **names = g_new0(const char *, n);
    double *b = g_new0(double, n), *c = g_new0(double, n);
    bool *sig = g_new0(bool, n);
    for (guint i = 0; i < n; i++) {
        g_autoptr(SpDiffItem) item = g_list_model_get_item(rows, i);
        const sp_diff_entry *e = sp_diff_item_get_entry(item);
        names[i] = e->name;
        b[i] = e->base;
        c[i] = e->cand;
        sig[i] = is_slower(e) || is_faster(e);
    }
    sp_compare_data d = {
        .n = n, .names = names, .base = b, .candidate = c, .significant = sig, .unit = "s",
        .base_label = sp_run_document_get_display_name(self->base),
        .candidate_label = sp_run_document_get_display_name(self->cand),
        .lower_is_better = true,
    };
    int rc = sp_plot_compare(cr, w, h, &d, st);
    g_free(names);
    g_free(b);
    g_free(c);
    g_free(sig);
    return rc;
}

/* ---- runs ---- */

static void update_summary(SpComparePage *self, const sp_diff_entry *entries, size_t n)
{
    int slower = 0, faster = 0, same = 0, untested = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_slower(&entries[i]))
            slower++;
        else if (is_faster(&entries[i]))
            faster++;
        else if (entries[i].verdict == SP_DIFF_SAME)
            same++;
        else
            untested++;
    }
    g_autofree char *extra = untested ? g_strdup_printf(" · %d too few calls to test", untested)
                                      : g_strdup("");
    g_autofree char *text = g_strdup_printf(
        "<span foreground='#c01c28'><b>%d</b> slower</span> · "
        "<span foreground='#26a269'><b>%d</b> faster</span> · %d within noise%s",
        slower, faster, same, extra);
    gtk_label_set_markup(self->summary_label, text);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpComparePage *self);

typedef struct {
    SpRunDocument *base, *cand;
    guint generation;
} DiffJob;

static void diff_job_free(gpointer p)
{
    DiffJob *job = p;
    g_object_unref(job->base);
    g_object_unref(job->cand);
    g_free(job);
}

/* Total time per region, the noise test on the per-call durations of both
 * runs (analysis/sp_diff.h). */
static void diff_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    DiffJob *job = data;
    sp_diff *diff = sp_diff_regions(sp_run_document_get_run(job->base),
                                    sp_run_document_get_run(job->cand), NULL);
    if (!diff)
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", sp_last_error());
    else
        g_task_return_pointer(task, diff, (GDestroyNotify)sp_diff_free);
}

static void on_diff_done(GObject *source, GAsyncResult *result, gpointer data)
{
    SpComparePage *self = SP_COMPARE_PAGE(source);
    DiffJob *job = g_task_get_task_data(G_TASK(result));
    g_autoptr(GError) error = NULL;
    sp_diff *diff = g_task_propagate_pointer(G_TASK(result), &error);
    sp_viewer_work_end();
    /* Replaced by a newer comparison, or the page is gone. */
    if (job->generation != self->diff_generation || !self->base) {
        sp_diff_free(diff);
        return;
    }
    if (!diff) {
        gtk_label_set_text(self->summary_label, error->message);
        return;
    }
    GPtrArray *items = g_ptr_array_new_with_free_func(g_object_unref);
    for (size_t i = 0; i < diff->n; i++)
        g_ptr_array_add(items, sp_diff_item_new(&diff->entries[i], G_OBJECT(job->base),
                                                G_OBJECT(job->cand)));
    g_list_store_splice(self->store, 0, 0, items->pdata, items->len);
    g_ptr_array_unref(items);
    update_summary(self, diff->entries, diff->n);
    sp_diff_free(diff);
    gtk_widget_queue_draw(GTK_WIDGET(self->bars));
    /* Rows arrived after the selection: show it. */
    on_selected_region(self->session, NULL, self);
}

static void on_runs(SpSession *session, GParamSpec *pspec, SpComparePage *self)
{
    g_set_object(&self->base, sp_session_get_base(session));
    g_set_object(&self->cand, sp_session_get_candidate(session));
    g_list_store_remove_all(self->store);
    self->diff_generation++; /* drop any comparison in flight */
    sp_timeline_chart_set_document(self->base_chart, self->base);
    sp_timeline_chart_set_document(self->cand_chart, self->cand);
    if (!self->base || !self->cand)
        return;
    /* One window for both: the longer run bounds pan and zoom. */
    const sp_timeline *tb = sp_run_document_get_timeline(self->base);
    const sp_timeline *tc = sp_run_document_get_timeline(self->cand);
    gint64 limit = MAX(sp_timeline_duration_ns(tb), sp_timeline_duration_ns(tc));
    sp_timeline_chart_set_time_limit(self->base_chart, limit);
    sp_timeline_chart_set_time_limit(self->cand_chart, limit);
    sp_compare_page_zoom(self, 0);

    g_autofree char *bl = g_strdup_printf("Base: %s", sp_run_document_get_display_name(self->base));
    g_autofree char *cl = g_strdup_printf("Candidate: %s",
                                          sp_run_document_get_display_name(self->cand));
    gtk_label_set_text(self->base_label, bl);
    gtk_label_set_text(self->cand_label, cl);

    /* The noise test ranks every call of both runs: off the main thread. */
    gtk_label_set_text(self->summary_label, "Comparing…");
    DiffJob *job = g_new0(DiffJob, 1);
    job->base = g_object_ref(self->base);
    job->cand = g_object_ref(self->cand);
    job->generation = ++self->diff_generation;
    GTask *task = g_task_new(self, NULL, on_diff_done, NULL);
    g_task_set_task_data(task, job, diff_job_free);
    sp_viewer_work_begin();
    g_task_run_in_thread(task, diff_thread);
    g_object_unref(task);
}

/* ---- selection ---- */

static void on_selection_changed(GtkSelectionModel *m, guint pos, guint n, SpComparePage *self)
{
    if (self->syncing)
        return;
    SpDiffItem *item = gtk_single_selection_get_selected_item(self->selection);
    if (item)
        sp_session_set_selected_region(self->session, sp_diff_item_get_entry(item)->name);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpComparePage *self)
{
    sp_timeline_chart_set_highlight_region(self->base_chart,
                                           sp_session_get_selected_id(session, self->base));
    sp_timeline_chart_set_highlight_region(self->cand_chart,
                                           sp_session_get_selected_id(session, self->cand));
    const char *name = sp_session_get_selected_region(session);
    GListModel *rows = G_LIST_MODEL(self->selection);
    guint found = GTK_INVALID_LIST_POSITION;
    for (guint i = 0; name && i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpDiffItem) item = g_list_model_get_item(rows, i);
        if (g_strcmp0(sp_diff_item_get_entry(item)->name, name) == 0) {
            found = i;
            break;
        }
    }
    self->syncing = TRUE;
    gtk_single_selection_set_selected(self->selection, found);
    self->syncing = FALSE;
    if (found != GTK_INVALID_LIST_POSITION && gtk_widget_get_mapped(GTK_WIDGET(self)))
        sp_column_view_scroll_to(self->column_view, found);
}

static void on_call_activated(SpTimelineChart *chart, int rank, gint64 call, SpComparePage *self)
{
    SpRunDocument *doc = sp_timeline_chart_get_document(chart);
    if (!doc || call < 0) {
        sp_session_set_selected_region(self->session, NULL);
        return;
    }
    const sp_run *run = sp_run_document_get_run(doc);
    sp_session_set_selected_region(self->session, run->region_names[run->ranks[rank].region[call]]);
}

/* ---- shared time window ---- */

static void on_view_changed(SpTimelineChart *chart, SpComparePage *self)
{
    if (self->syncing_view)
        return;
    gint64 t0, t1;
    sp_timeline_chart_get_window(chart, &t0, &t1);
    self->syncing_view = TRUE;
    sp_timeline_chart_set_window(chart == self->base_chart ? self->cand_chart : self->base_chart,
                                 t0, t1);
    self->syncing_view = FALSE;
}

void sp_compare_page_zoom(SpComparePage *self, double factor)
{
    if (factor <= 0)
        sp_timeline_chart_zoom_to_fit(self->base_chart);
    else
        sp_timeline_chart_zoom(self->base_chart, factor);
}

static void action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
    sp_compare_page_zoom(SP_COMPARE_PAGE(widget), g_str_equal(name, "compare.zoom-in")    ? 1.5
                                                  : g_str_equal(name, "compare.zoom-out") ? 1 / 1.5
                                                                                          : 0);
}

/* ---- page interface ---- */

static void set_session(SpPage *page, SpSession *session)
{
    SpComparePage *self = SP_COMPARE_PAGE(page);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_runs), self, 0);
    g_signal_connect_object(session, "notify::candidate", G_CALLBACK(on_runs), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(on_selected_region),
                            self, 0);
    on_runs(session, NULL, self);
}

static SpChart *get_chart(SpPage *page)
{
    SpComparePage *self = SP_COMPARE_PAGE(page);
    return self->current_chart ? self->current_chart : SP_CHART(self->bars);
}

static gboolean focus_search(SpPage *page)
{
    return gtk_widget_grab_focus(GTK_WIDGET(SP_COMPARE_PAGE(page)->search_entry));
}

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
    iface->focus_search = focus_search;
}

GListModel *sp_compare_page_get_rows(SpComparePage *self) { return G_LIST_MODEL(self->sorted); }

/* ---- object ---- */

static void sp_compare_page_dispose(GObject *object)
{
    SpComparePage *self = SP_COMPARE_PAGE(object);
    sp_column_page_dispose(GTK_WIDGET(self), SP_TYPE_COMPARE_PAGE, self->column_view);
    g_clear_object(&self->selection);
    g_clear_object(&self->session);
    g_clear_object(&self->base);
    g_clear_object(&self->cand);
    g_clear_pointer(&self->needle, g_free);
    G_OBJECT_CLASS(sp_compare_page_parent_class)->dispose(object);
}

static void sp_compare_page_class_init(SpComparePageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_compare_page_dispose;
    g_type_ensure(SP_TYPE_TIMELINE_CHART);
    g_type_ensure(SP_TYPE_CHART_VIEW);
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-compare-page.ui");
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_chart);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_chart);
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_vscrollbar);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_vscrollbar);
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, summary_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, search_entry);
    gtk_widget_class_bind_template_child(wc, SpComparePage, verdict_dropdown);
    gtk_widget_class_bind_template_child(wc, SpComparePage, column_view);
    gtk_widget_class_bind_template_child(wc, SpComparePage, bars);
#define COL(id, field) SP_BIND_COLUMN(wc, SpComparePage, id, field)
    COL("col_name", FIELD_NAME);
    COL("col_base", FIELD_BASE);
    COL("col_cand", FIELD_CAND);
    COL("col_delta", FIELD_DELTA);
    COL("col_change", FIELD_CHANGE);
    COL("col_verdict", FIELD_VERDICT);
#undef COL
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_install_action(wc, "compare.zoom-in", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "compare.zoom-out", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "compare.zoom-fit", NULL, action_zoom);
}

static void sp_compare_page_init(SpComparePage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    for (int f = 0; f < N_FIELDS; f++) {
        if (f == FIELD_NAME)
            sp_column_set_region(self->columns[f], cell_name, NULL, FALSE);
        else
            sp_column_set_text_full(self->columns[f], cell_text,
                                    f >= FIELD_DELTA ? cell_class : NULL, GINT_TO_POINTER(f),
                                    f != FIELD_VERDICT);
        sp_column_set_compare(self->columns[f], compare_items, GINT_TO_POINTER(f));
    }
    self->store = g_list_store_new(SP_TYPE_DIFF_ITEM);
    self->filter = gtk_custom_filter_new(filter_item, self, NULL);
    self->filtered = gtk_filter_list_model_new(G_LIST_MODEL(self->store), GTK_FILTER(self->filter));
    self->sorted = gtk_sort_list_model_new(G_LIST_MODEL(self->filtered),
                                           g_object_ref(gtk_column_view_get_sorter(self->column_view)));
    self->selection = sp_column_view_show(self->column_view, G_LIST_MODEL(self->sorted),
                                          self->columns[FIELD_DELTA]);
    /* The bars follow the table's order and filter. */
    g_signal_connect_swapped(self->sorted, "items-changed", G_CALLBACK(gtk_widget_queue_draw),
                             self->bars);

    g_signal_connect(self->selection, "selection-changed", G_CALLBACK(on_selection_changed), self);
    g_signal_connect(self->search_entry, "search-changed", G_CALLBACK(on_search_changed), self);
    g_signal_connect(self->verdict_dropdown, "notify::selected", G_CALLBACK(on_show_changed), self);
    g_signal_connect(self->base_chart, "view-changed", G_CALLBACK(on_view_changed), self);
    g_signal_connect(self->cand_chart, "view-changed", G_CALLBACK(on_view_changed), self);
    g_signal_connect(self->base_chart, "call-activated", G_CALLBACK(on_call_activated), self);
    g_signal_connect(self->cand_chart, "call-activated", G_CALLBACK(on_call_activated), self);
    sp_chart_view_set_draw_func(self->bars, draw_bars, self, NULL);
    sp_timeline_chart_attach_scrollbar(self->base_chart, self->base_vscrollbar);
    sp_timeline_chart_attach_scrollbar(self->cand_chart, self->cand_vscrollbar);
    sp_page_track_chart(GTK_WIDGET(self->base_chart), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->cand_chart), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->bars), &self->current_chart);
}
