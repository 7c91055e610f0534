/* SPDX-License-Identifier: MIT */
/* sp-regions-page.c - the Regions page. */
#include "sp-regions-page.h"

#include "sp-chart-view.h"
#include "sp-list-columns.h"
#include "sp-region-item.h"
#include "sp-viewer-format.h"

/* The table follows the rank rule (sp_figures.h): with several ranks (or
 * a region on several threads) Calls, Total and Own are per rank (Total the
 * mean over the ranks, Slowest rank the largest rank's), Mean ... p95 are of
 * one call; estimates (sampled regions) are italic with a tooltip and show
 * no Min, Max, Std, p95. */
typedef enum {
    FIELD_NAME, FIELD_CALLS, FIELD_TOTAL, FIELD_SLOWEST, FIELD_OWN, FIELD_MEAN, FIELD_MIN,
    FIELD_MAX, FIELD_STD, FIELD_P95, FIELD_IMBALANCE, N_FIELDS
} Field;

struct _SpRegionsPage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    SpRunDocument *doc;
    char *needle; /* casefolded search text, NULL = all */
    size_t matching; /* regions the search matches (the rows are at most
                        SP_REGION_ITEMS_MAX of them) */
    gboolean syncing;
    int chart_region;
    SpRunDocument *charts_doc; /* the run the charts show (not a reference) */
    SpChart *current_chart;

    GtkCustomFilter *filter;
    GtkFilterListModel *filtered;
    GtkSortListModel *sorted;
    GtkSingleSelection *selection;

    GtkSearchEntry *search_entry;
    GtkLabel *count_label, *hint_label;
    GtkColumnView *column_view;
    GtkColumnViewColumn *columns[N_FIELDS];
    SpChartView *histogram, *duration_time;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpRegionsPage, sp_regions_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpRegionsPage *self);

/* ---- cells and sorting ---- */

static const sp_figures *item_figures(SpRegionItem *item)
{
    return sp_run_document_get_figures(sp_region_item_get_document(item));
}

static sp_fig_kind item_kind(SpRegionItem *item)
{
    return sp_region_fig_kind(sp_run_document_get_run(sp_region_item_get_document(item)),
                              sp_region_item_get_id(item));
}

static double field_value(SpRegionItem *item, Field f)
{
    const sp_stats *s = sp_region_item_get_stats(item);
    const sp_figures *fg = item_figures(item);
    int g = sp_region_item_get_id(item);
    switch (f) {
    case FIELD_CALLS: return fg ? fg->region_calls[g].mean : (double)s->calls;
    case FIELD_TOTAL: return fg ? fg->region_total[g].mean_s : s->total_s;
    case FIELD_SLOWEST: return fg ? fg->region_total[g].max_s : s->total_s;
    case FIELD_OWN: return fg ? fg->region_own[g].mean_s : s->own_s;
    case FIELD_MEAN: return s->mean_s;
    case FIELD_MIN: return s->min_s;
    case FIELD_MAX: return s->max_s;
    case FIELD_STD: return s->std_s;
    case FIELD_P95: return s->p95_s;
    case FIELD_IMBALANCE: return sp_region_item_get_imbalance(item);
    default: return 0;
    }
}

static char *cell_text(gpointer item, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    sp_fig_kind kind = item_kind(item);
    const char *mark = kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? "≥" : "";
    const sp_figures *fg = item_figures(item);
    if (f == FIELD_CALLS) {
        if (fg && fg->two_columns) {
            char b[64];
            sp_fig_format_calls_range(&fg->region_calls[sp_region_item_get_id(item)], kind, b,
                                      sizeof b);
            return g_strdup(b);
        }
        g_autofree char *n = sp_format_count(sp_region_item_get_stats(item)->calls);
        return g_strdup_printf("%s%s", kind == SP_FIG_LOWER_BOUND ? "≥" : mark, n);
    }
    if (f == FIELD_IMBALANCE)
        return g_strdup_printf("%.2f×", sp_region_item_get_imbalance(item));
    if (kind == SP_FIG_ESTIMATE && f >= FIELD_MIN && f <= FIELD_P95)
        return g_strdup("–"); /* the resolution is the sampling period */
    g_autofree char *d = sp_format_duration(field_value(item, f));
    return g_strdup_printf("%s%s", f >= FIELD_MIN && f <= FIELD_P95 ? "" : mark, d);
}

static const char *cell_class(gpointer item, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    if (f == FIELD_IMBALANCE)
        return NULL;
    switch (item_kind(item)) {
    case SP_FIG_ESTIMATE: return "sp-estimate";
    case SP_FIG_LOWER_BOUND: return f >= FIELD_MIN && f <= FIELD_P95 ? NULL : "sp-lower-bound";
    default: return NULL;
    }
}

static const char *cell_name(gpointer item, gpointer data) { return sp_region_item_get_name(item); }

static int compare_items(gconstpointer a, gconstpointer b, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    SpRegionItem *x = (SpRegionItem *)a, *y = (SpRegionItem *)b;
    if (f == FIELD_NAME)
        return g_utf8_collate(sp_region_item_get_name(x), sp_region_item_get_name(y));
    double u = field_value(x, f), v = field_value(y, f);
    if (u != v)
        return u < v ? -1 : 1;
    return g_utf8_collate(sp_region_item_get_name(x), sp_region_item_get_name(y));
}

/* ---- filter ---- */

static gboolean filter_item(gpointer item, gpointer data)
{
    SpRegionsPage *self = data;
    if (!self->needle)
        return TRUE;
    g_autofree char *name = g_utf8_casefold(sp_region_item_get_name(item), -1);
    return strstr(name, self->needle) != NULL;
}

static void update_count(SpRegionsPage *self)
{
    guint shown = g_list_model_get_n_items(G_LIST_MODEL(self->filtered));
    guint total = self->doc ? (guint)sp_run_document_get_run(self->doc)->nregions : 0;
    g_autofree char *text =
        shown < self->matching
            ? g_strdup_printf("the %u of %zu %s with the most time", shown, self->matching,
                              self->needle ? "matching regions" : "regions (search for others)")
        : shown == total ? g_strdup_printf("%u regions", total)
                         : g_strdup_printf("%u of %u regions", shown, total);
    gtk_label_set_text(self->count_label, text);
}

/* The rows: the regions the search matches, at most SP_REGION_ITEMS_MAX. */
static void fill_rows(SpRegionsPage *self)
{
    g_autoptr(GListModel) items =
        sp_region_item_list_new(self->doc, self->needle, SP_REGION_ITEMS_MAX, &self->matching);
    gtk_filter_list_model_set_model(self->filtered, items);
}

static void on_search_changed(GtkSearchEntry *entry, SpRegionsPage *self)
{
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    g_clear_pointer(&self->needle, g_free);
    if (text && *text)
        self->needle = g_utf8_casefold(text, -1);
    /* A run with more regions than rows picks its rows again (the match
     * may lie outside those shown); else the filter hides rows. */
    if (self->doc && sp_run_document_get_run(self->doc)->nregions > SP_REGION_ITEMS_MAX)
        fill_rows(self);
    else
        gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
    update_count(self);
}

static void on_stop_search(GtkSearchEntry *entry, SpRegionsPage *self)
{
    gtk_editable_set_text(GTK_EDITABLE(entry), "");
}

/* ---- charts ---- */

/* What the two charts draw: immutable, as they draw in worker threads. */
typedef struct {
    SpRunDocument *doc; /* NULL: no run */
    int region;
} ChartInput;

static void chart_input_free(gpointer p)
{
    ChartInput *in = p;
    g_clear_object(&in->doc);
    g_free(in);
}

static ChartInput *chart_input_new(SpRegionsPage *self)
{
    ChartInput *in = g_new0(ChartInput, 1);
    in->doc = self->doc ? g_object_ref(self->doc) : NULL;
    in->region = self->chart_region;
    return in;
}

static int draw_histogram(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    ChartInput *in = data;
    if (!in->doc)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    return sp_plot_histogram(cr, w, h, sp_run_document_get_run(in->doc), in->region, -1, st);
}

static int draw_duration_time(cairo_t *cr, double w, double h, const sp_plot_style *st,
                              gpointer data)
{
    ChartInput *in = data;
    if (!in->doc)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    return sp_plot_duration_time(cr, w, h, sp_run_document_get_run(in->doc), in->region, -1, st);
}

static void update_charts(SpRegionsPage *self)
{
    int id = sp_session_get_selected_id(self->session, self->doc);
    int region = id >= 0 ? id : self->doc ? sp_run_document_get_top_region(self->doc) : -1;
    if (region == self->chart_region && self->charts_doc == self->doc)
        return;
    self->chart_region = region;
    self->charts_doc = self->doc;
    sp_chart_view_set_draw_func(self->histogram, draw_histogram, chart_input_new(self),
                                chart_input_free);
    sp_chart_view_set_draw_func(self->duration_time, draw_duration_time, chart_input_new(self),
                                chart_input_free);
}

/* ---- selection, both ways ---- */

static void on_selection_changed(GtkSelectionModel *model, guint pos, guint n, SpRegionsPage *self)
{
    if (self->syncing)
        return;
    SpRegionItem *item = gtk_single_selection_get_selected_item(self->selection);
    /* No row (filtered away): keep the selection of the other pages. */
    if (item)
        sp_session_set_selected_region(self->session, sp_region_item_get_name(item));
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpRegionsPage *self)
{
    const char *name = sp_session_get_selected_region(session);
    GListModel *rows = G_LIST_MODEL(self->selection);
    guint n = g_list_model_get_n_items(rows), found = GTK_INVALID_LIST_POSITION;
    for (guint i = 0; name && i < n; i++) {
        g_autoptr(SpRegionItem) item = g_list_model_get_item(rows, i);
        if (g_strcmp0(sp_region_item_get_name(item), name) == 0) {
            found = i;
            break;
        }
    }
    self->syncing = TRUE;
    gtk_single_selection_set_selected(self->selection, found);
    self->syncing = FALSE;
    if (found != GTK_INVALID_LIST_POSITION && gtk_widget_get_mapped(GTK_WIDGET(self)))
        sp_column_view_scroll_to(self->column_view, found);
    update_charts(self);
}

static void on_activate(GtkColumnView *view, guint position, SpRegionsPage *self)
{
    gtk_widget_activate_action(GTK_WIDGET(self), "win.page", "s", "timeline");
}

/* Column titles and the hint say what the numbers are for this run. */
static void update_headers(SpRegionsPage *self)
{
    const sp_figures *fg = self->doc ? sp_run_document_get_figures(self->doc) : NULL;
    gboolean two = fg && fg->two_columns;
    const char *unit = fg && fg->nranks > 1 ? "rank" : "thread";
    g_autofree char *calls = g_strdup_printf("Calls/%s", two ? "rank" : "run");
    g_autofree char *total = g_strdup_printf("Total/%s", unit);
    g_autofree char *slow = g_strdup_printf("Slowest %s", unit);
    g_autofree char *own = g_strdup_printf("Own/%s", unit);
    gtk_column_view_column_set_title(self->columns[FIELD_CALLS], two ? calls : "Calls");
    gtk_column_view_column_set_title(self->columns[FIELD_TOTAL], two ? total : "Total");
    gtk_column_view_column_set_title(self->columns[FIELD_SLOWEST], slow);
    gtk_column_view_column_set_visible(self->columns[FIELD_SLOWEST], two);
    gtk_column_view_column_set_title(self->columns[FIELD_OWN], two ? own : "Own");
    gtk_column_view_column_set_title(self->columns[FIELD_MEAN], two ? "Call mean" : "Mean");
    g_autofree char *hint = NULL;
    if (two && fg->nranks > 1)
        hint = g_strdup_printf("Per rank: the mean over %zu ranks, and the slowest · Call "
                               "mean … p95: one call, over every call · ~ estimate",
                               fg->nranks);
    else if (two)
        hint = g_strdup("Per thread: the mean over the threads running a region, and the "
                        "slowest · Call mean … p95: one call · ~ estimate");
    else
        hint = g_strdup("Mean … p95: one call · ~ estimated from samples · imbalance = max ÷ "
                        "mean of the per-rank totals");
    gtk_label_set_text(self->hint_label, hint);
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->hint_label),
                                "The rank rule: a time is per rank (the mean over the ranks, "
                                "a rank without the region counting 0 s) with the slowest "
                                "rank beside it, what the job's wall clock sees. Sums over "
                                "ranks appear only where labelled. Italic ~ figures are "
                                "estimates from call-stack samples.");
}

static void on_base(SpSession *session, GParamSpec *pspec, SpRegionsPage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    g_set_object(&self->doc, sp_session_get_base(session));
    update_headers(self);
    fill_rows(self);
    update_count(self);
    on_selected_region(session, NULL, self);
}

/* ---- page interface ---- */

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpRegionsPage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        on_base(self->session, NULL, self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpRegionsPage *self = SP_REGIONS_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_base), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(on_selected_region),
                            self, 0);
    on_base(session, NULL, self);
}

static SpChart *get_chart(SpPage *page)
{
    SpRegionsPage *self = SP_REGIONS_PAGE(page);
    return self->current_chart ? self->current_chart : SP_CHART(self->histogram);
}

static gboolean focus_search(SpPage *page)
{
    return gtk_widget_grab_focus(GTK_WIDGET(SP_REGIONS_PAGE(page)->search_entry));
}

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
    iface->focus_search = focus_search;
}

GtkEditable *sp_regions_page_get_search_entry(SpRegionsPage *self)
{
    refresh_if_owed(self);
    return GTK_EDITABLE(self->search_entry);
}

GListModel *sp_regions_page_get_rows(SpRegionsPage *self)
{
    refresh_if_owed(self);
    return G_LIST_MODEL(self->sorted);
}
GtkSingleSelection *sp_regions_page_get_selection(SpRegionsPage *self)
{
    refresh_if_owed(self);
    return self->selection;
}

/* ---- object ---- */

static void sp_regions_page_dispose(GObject *object)
{
    SpRegionsPage *self = SP_REGIONS_PAGE(object);
    sp_column_page_dispose(GTK_WIDGET(self), SP_TYPE_REGIONS_PAGE, self->column_view);
    g_clear_object(&self->selection);
    g_clear_object(&self->session);
    g_clear_object(&self->doc);
    g_clear_pointer(&self->needle, g_free);
    G_OBJECT_CLASS(sp_regions_page_parent_class)->dispose(object);
}

static void sp_regions_page_class_init(SpRegionsPageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_regions_page_dispose;
    g_type_ensure(SP_TYPE_CHART_VIEW);
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-regions-page.ui");
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, search_entry);
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, count_label);
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, hint_label);
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, column_view);
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, histogram);
    gtk_widget_class_bind_template_child(wc, SpRegionsPage, duration_time);
#define COL(id, field) SP_BIND_COLUMN(wc, SpRegionsPage, id, field)
    COL("col_name", FIELD_NAME);
    COL("col_calls", FIELD_CALLS);
    COL("col_total", FIELD_TOTAL);
    COL("col_slowest", FIELD_SLOWEST);
    COL("col_own", FIELD_OWN);
    COL("col_mean", FIELD_MEAN);
    COL("col_min", FIELD_MIN);
    COL("col_max", FIELD_MAX);
    COL("col_std", FIELD_STD);
    COL("col_p95", FIELD_P95);
    COL("col_imbalance", FIELD_IMBALANCE);
#undef COL
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
}

static void sp_regions_page_init(SpRegionsPage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->chart_region = -2; /* differs from any region: the first update draws */

    for (int f = 0; f < N_FIELDS; f++) {
        GtkColumnViewColumn *col = self->columns[f];
        if (f == FIELD_NAME)
            sp_column_set_region(col, cell_name, NULL, FALSE);
        else
            sp_column_set_text_full(col, cell_text, cell_class, GINT_TO_POINTER(f), TRUE);
        sp_column_set_compare(col, compare_items, GINT_TO_POINTER(f));
    }

    self->filter = gtk_custom_filter_new(filter_item, self, NULL);
    self->filtered = gtk_filter_list_model_new(NULL, GTK_FILTER(self->filter));
    GtkSorter *view_sorter = gtk_column_view_get_sorter(self->column_view);
    self->sorted = gtk_sort_list_model_new(G_LIST_MODEL(self->filtered),
                                           g_object_ref(view_sorter));
    self->selection = sp_column_view_show(self->column_view, G_LIST_MODEL(self->sorted),
                                          self->columns[FIELD_TOTAL]);

    g_signal_connect(self->selection, "selection-changed", G_CALLBACK(on_selection_changed), self);
    g_signal_connect(self->column_view, "activate", G_CALLBACK(on_activate), self);
    g_signal_connect(self->search_entry, "search-changed", G_CALLBACK(on_search_changed), self);
    g_signal_connect(self->search_entry, "stop-search", G_CALLBACK(on_stop_search), self);

    /* Both scan every call of the region: draw them off the main thread. */
    sp_chart_view_set_threaded(self->histogram, TRUE);
    sp_chart_view_set_threaded(self->duration_time, TRUE);
    update_charts(self);
    sp_page_track_chart(GTK_WIDGET(self->histogram), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->duration_time), &self->current_chart);
}
