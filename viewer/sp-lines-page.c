/* SPDX-License-Identifier: MIT */
/* sp-lines-page.c - the Lines page: a region's line samples as a table. */
#include "sp-lines-page.h"

#include <string.h>

#include "sp-line-item.h"
#include "sp-list-columns.h"
#include "sp-share-bar.h"
#include "sp-source-cache.h"
#include "sp-viewer-format.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-text.h"

typedef enum {
    FIELD_FUNCTION, FIELD_LOCATION, FIELD_SAMPLES, FIELD_TIME, FIELD_PERCENT, FIELD_SOURCE,
    N_FIELDS
} Field;

struct _SpLinesPage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    SpRunDocument *doc;
    SpSourceCache *sources;
    GArray *line_regions; /* int: regions with samples, most sampled first */
    int region;           /* shown, -1 = none */
    int rank;             /* -1 = all ranks merged */
    gboolean syncing;
    gboolean traced; /* a line tracer's hits and measured times (Python), not samples */

    GListStore *store;
    GtkSortListModel *sorted;

    GtkWidget *toolbar, *toolbar_separator, *howto;
    GtkDropDown *region_dropdown, *rank_dropdown;
    GtkLabel *summary_label, *empty_title, *explanation, *measure_label;
    GtkStack *stack;
    GtkColumnView *column_view;
    GtkColumnViewColumn *columns[N_FIELDS];
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpLinesPage, sp_lines_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpLinesPage *self);

/* ---- cells and sorting ---- */

static char *cell_text(gpointer item, gpointer data)
{
    SpLineItem *line = item;
    switch ((Field)GPOINTER_TO_INT(data)) {
    case FIELD_FUNCTION: {
        const char *f = sp_line_item_get_function(line);
        return g_strdup(*f ? f : "?");
    }
    case FIELD_LOCATION: return sp_line_item_dup_location(line);
    case FIELD_SAMPLES: return sp_format_count(sp_line_item_get_samples(line));
    case FIELD_TIME: return sp_format_duration((double)sp_line_item_get_time_ns(line) * 1e-9);
    case FIELD_SOURCE:
        switch (sp_line_item_get_source_state(line)) {
        case SP_LINE_SOURCE_FOUND: return g_strdup(sp_line_item_get_source(line));
        case SP_LINE_SOURCE_LOADING: return g_strdup("…");
        default: {
            const char *why = sp_line_item_get_source(line);
            return why ? g_strdup_printf("%s not shown: %s", sp_line_item_get_file(line), why)
                       : g_strdup("—");
        }
        }
    default: return NULL;
    }
}

static const char *source_class(gpointer item, gpointer data)
{
    return sp_line_item_get_source_state(item) == SP_LINE_SOURCE_FOUND ? "sp-source" : "dim-label";
}

static int compare_items(gconstpointer a, gconstpointer b, gpointer data)
{
    SpLineItem *x = (SpLineItem *)a, *y = (SpLineItem *)b;
    int c = 0;
    switch ((Field)GPOINTER_TO_INT(data)) {
    case FIELD_FUNCTION:
        c = g_utf8_collate(sp_line_item_get_function(x), sp_line_item_get_function(y));
        break;
    case FIELD_LOCATION:
    case FIELD_SOURCE: /* source order: by file, then line */
        if (!(c = g_strcmp0(sp_line_item_get_file(x), sp_line_item_get_file(y))))
            c = (sp_line_item_get_lineno(x) > sp_line_item_get_lineno(y)) -
                (sp_line_item_get_lineno(x) < sp_line_item_get_lineno(y));
        break;
    case FIELD_TIME:
        c = (sp_line_item_get_time_ns(x) > sp_line_item_get_time_ns(y)) -
            (sp_line_item_get_time_ns(x) < sp_line_item_get_time_ns(y));
        break;
    default:
        break;
    }
    if (!c) /* then samples: the ranking the page is about */
        c = (sp_line_item_get_samples(x) > sp_line_item_get_samples(y)) -
            (sp_line_item_get_samples(x) < sp_line_item_get_samples(y));
    return c;
}

/* The "% of Region" cell: the number and a bar in the region's colour. */
static void percent_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 1.0f);
    gtk_label_set_width_chars(GTK_LABEL(label), 7);
    gtk_widget_add_css_class(label, "numeric");
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), sp_share_bar_new());
    gtk_list_item_set_child(li, box);
}

static void percent_bind(GtkSignalListItemFactory *f, GtkListItem *li, SpLinesPage *self)
{
    SpLineItem *item = gtk_list_item_get_item(li);
    GtkWidget *label = gtk_widget_get_first_child(gtk_list_item_get_child(li));
    double fraction = item ? sp_line_item_get_fraction(item) : 0;
    g_autofree char *text = g_strdup_printf("%.1f %%", 100 * fraction);
    gtk_label_set_text(GTK_LABEL(label), text);
    const char *region = self->doc && self->region >= 0
                             ? sp_run_document_get_run(self->doc)->region_names[self->region]
                             : NULL;
    sp_share_bar_set(SP_SHARE_BAR(gtk_widget_get_next_sibling(label)), fraction, region);
}

static void setup_columns(SpLinesPage *self)
{
    for (int f = 0; f < N_FIELDS; f++) {
        GtkColumnViewColumn *col = self->columns[f];
        if (f == FIELD_PERCENT) {
            GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
            g_signal_connect(factory, "setup", G_CALLBACK(percent_setup), self);
            g_signal_connect(factory, "bind", G_CALLBACK(percent_bind), self);
            gtk_column_view_column_set_factory(col, factory);
            g_object_unref(factory);
        } else {
            gboolean numeric = f == FIELD_SAMPLES || f == FIELD_TIME;
            sp_column_set_text_full(col, cell_text, f == FIELD_SOURCE ? source_class : NULL,
                                    GINT_TO_POINTER(f), numeric);
        }
        sp_column_set_compare(col, compare_items, GINT_TO_POINTER(f));
    }
}

/* ---- rows ---- */

typedef struct {
    const char *function, *file;
    int lineno;
    guint64 samples;
    gint64 time_ns;
} LineSum;

/* The region's lines on the shown rank(s), merged by (file, line,
 * function); *total = their samples. */
static GArray *sum_lines(SpLinesPage *self, guint64 *total)
{
    const sp_run *run = sp_run_document_get_run(self->doc);
    GArray *sums = g_array_new(FALSE, FALSE, sizeof(LineSum));
    g_autoptr(GHashTable) index = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    *total = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (self->rank >= 0 && (size_t)self->rank != r)
            continue;
        for (size_t i = 0; i < rk->nlines; i++) {
            if (rk->line_region[i] != self->region || rk->line_samples[i] == 0)
                continue;
            const char *file = rk->line_file[i] ? rk->line_file[i] : "";
            const char *fn = rk->line_function[i] ? rk->line_function[i] : "";
            char *key = g_strdup_printf("%d\x1f%s\x1f%s", rk->line_lineno[i], file, fn);
            gpointer at;
            if (g_hash_table_lookup_extended(index, key, NULL, &at)) {
                g_free(key);
            } else {
                at = GUINT_TO_POINTER(sums->len);
                g_hash_table_insert(index, key, at);
                g_array_append_val(sums, ((LineSum){fn, file, rk->line_lineno[i], 0, 0}));
            }
            LineSum *s = &g_array_index(sums, LineSum, GPOINTER_TO_UINT(at));
            s->samples += rk->line_samples[i];
            s->time_ns += rk->line_time_ns[i];
            *total += rk->line_samples[i];
        }
    }
    return sums;
}

/* Give the items whose file has been read their source text. */
static void fill_sources(SpLinesPage *self)
{
    guint n = g_list_model_get_n_items(G_LIST_MODEL(self->store)), changed = 0;
    g_autoptr(GPtrArray) items = g_ptr_array_new_full(n, g_object_unref);
    for (guint i = 0; i < n; i++) {
        SpLineItem *item = g_list_model_get_item(G_LIST_MODEL(self->store), i);
        g_ptr_array_add(items, item);
        const char *text, *why;
        if (sp_line_item_get_source_state(item) == SP_LINE_SOURCE_LOADING &&
            sp_source_cache_lookup(self->sources, sp_line_item_get_file(item),
                                   sp_line_item_get_lineno(item), &text, &why)) {
            if (text)
                sp_line_item_set_source(item, text);
            else
                sp_line_item_set_source_missing(item, why);
            changed++;
        }
    }
    /* The same items again: the rows are bound anew and show the text. */
    if (changed)
        g_list_store_splice(self->store, 0, n, items->pdata, n);
}

static void on_sources_changed(SpSourceCache *cache, SpLinesPage *self) { fill_sources(self); }

static void show_empty(SpLinesPage *self, gboolean run_has_lines)
{
    const sp_run *run = self->doc ? sp_run_document_get_run(self->doc) : NULL;
    const char *name =
        run && self->region >= 0 ? sp_run_document_get_region_label(self->doc, self->region) : NULL;
    g_autofree char *esc = name ? g_markup_escape_text(name, -1) : NULL;
    g_autofree char *text = NULL;
    if (run_has_lines) {
        gtk_label_set_text(self->empty_title, "No Line Samples for This Region");
        text = g_strdup_printf(
            "<b>%s</b> got no line samples%s. A sample counts for the innermost region open "
            "when it was taken, and samples measure CPU time: a region that waits or sleeps, "
            "or only encloses other regions, gets few or none. Pick one of the %u sampled "
            "regions above.",
            esc ? esc : "This region", self->rank >= 0 ? " on this rank" : "",
            self->line_regions->len);
    } else {
        gtk_label_set_text(self->empty_title, "No Line-Level Data in This Run");
        text = g_strdup_printf(
            "This page lists, for %s%s%s, the source lines where the time went: file, line, "
            "samples, time, percent and the source text. This run was recorded without "
            "line-level sampling.",
            esc ? "<b>" : "", esc ? esc : "the selected region", esc ? "</b>" : "");
    }
    gtk_label_set_markup(self->explanation, text);
    gtk_widget_set_visible(self->howto, !run_has_lines);
    g_list_store_remove_all(self->store);
    gtk_label_set_text(self->summary_label, "");
    gtk_stack_set_visible_child_name(self->stack, "empty");
}

static void rebuild(SpLinesPage *self)
{
    gboolean has_lines = self->line_regions && self->line_regions->len > 0;
    gtk_widget_set_visible(self->toolbar, has_lines);
    gtk_widget_set_visible(self->toolbar_separator, has_lines);
    guint64 total = 0;
    g_autoptr(GArray) sums = has_lines && self->region >= 0 ? sum_lines(self, &total) : NULL;
    if (!sums || total == 0) {
        show_empty(self, has_lines);
        return;
    }
    g_autoptr(GPtrArray) items = g_ptr_array_new_full(sums->len, g_object_unref);
    g_autoptr(GPtrArray) files = g_ptr_array_new();
    gint64 time_ns = 0;
    for (guint i = 0; i < sums->len; i++)
        time_ns += g_array_index(sums, LineSum, i).time_ns;
    for (guint i = 0; i < sums->len; i++) {
        LineSum *s = &g_array_index(sums, LineSum, i);
        /* A sample is a share of CPU time; a hit is not: share of the time. */
        double share = self->traced ? (time_ns > 0 ? (double)s->time_ns / (double)time_ns : 0.0)
                                    : (double)s->samples / (double)total;
        g_ptr_array_add(items, sp_line_item_new(s->function, s->file, s->lineno, s->samples,
                                                s->time_ns, share));
        g_ptr_array_add(files, (gpointer)s->file);
    }
    g_ptr_array_add(files, NULL);
    g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)),
                        items->pdata, items->len);
    fill_sources(self); /* files read before show at once */
    sp_source_cache_request(self->sources, (const char *const *)files->pdata);

    g_autofree char *count = sp_format_count(total);
    g_autofree char *dur = sp_format_duration((double)time_ns * 1e-9);
    g_autofree char *summary =
        g_strdup_printf(self->traced ? "%u line%s · %s hits · %s measured"
                                     : "%u line%s · %s samples · %s of CPU time",
                        sums->len, sums->len == 1 ? "" : "s", count, dur);
    gtk_label_set_text(self->summary_label, summary);
    gtk_stack_set_visible_child_name(self->stack, "table");
}

/* ---- region and rank selection ---- */

static void update_region(SpLinesPage *self)
{
    int id = self->session ? sp_session_get_selected_id(self->session, self->doc) : -1;
    if (id < 0) /* nothing selected: the most sampled region */
        id = self->line_regions && self->line_regions->len
                 ? g_array_index(self->line_regions, int, 0)
                 : self->doc ? sp_run_document_get_top_region(self->doc) : -1;
    self->region = id;
    guint pos = GTK_INVALID_LIST_POSITION;
    for (guint i = 0; self->line_regions && i < self->line_regions->len; i++)
        if (g_array_index(self->line_regions, int, i) == id)
            pos = i;
    self->syncing = TRUE;
    gtk_drop_down_set_selected(self->region_dropdown, pos);
    self->syncing = FALSE;
    rebuild(self);
}

static void on_region_dropdown(GtkDropDown *dropdown, GParamSpec *pspec, SpLinesPage *self)
{
    guint pos = gtk_drop_down_get_selected(dropdown);
    if (self->syncing || !self->doc || pos >= self->line_regions->len)
        return;
    int id = g_array_index(self->line_regions, int, pos);
    sp_session_set_selected_region(self->session, sp_run_document_get_run(self->doc)->region_names[id]);
    update_region(self); /* the session does not notify when nothing changed */
}

static void on_rank_dropdown(GtkDropDown *dropdown, GParamSpec *pspec, SpLinesPage *self)
{
    if (self->syncing)
        return;
    guint pos = gtk_drop_down_get_selected(dropdown);
    self->rank = pos == 0 || pos == GTK_INVALID_LIST_POSITION ? -1 : (int)pos - 1;
    rebuild(self);
}

typedef struct {
    int region;
    guint64 samples;
} RegionSamples;

static int by_samples_desc(gconstpointer a, gconstpointer b)
{
    const RegionSamples *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return x->region - y->region;
}

/* The regions with line samples (any rank), most sampled first. */
static GArray *sampled_regions(const sp_run *run)
{
    g_autofree guint64 *per_region = g_new0(guint64, run->nregions + 1);
    for (size_t r = 0; r < run->nranks; r++)
        for (size_t i = 0; i < run->ranks[r].nlines; i++) {
            int32_t g = run->ranks[r].line_region[i];
            if (g >= 0 && (size_t)g < run->nregions)
                per_region[g] += run->ranks[r].line_samples[i];
        }
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(RegionSamples));
    for (size_t g = 0; g < run->nregions; g++)
        if (per_region[g])
            g_array_append_val(all, ((RegionSamples){(int)g, per_region[g]}));
    g_array_sort(all, by_samples_desc);
    GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(int), all->len);
    for (guint i = 0; i < all->len; i++)
        g_array_append_val(ids, g_array_index(all, RegionSamples, i).region);
    return ids;
}

static void on_base(SpSession *session, GParamSpec *pspec, SpLinesPage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    g_set_object(&self->doc, sp_session_get_base(session));
    g_clear_pointer(&self->line_regions, g_array_unref);
    if (self->sources)
        g_signal_handlers_disconnect_by_data(self->sources, self);
    g_clear_object(&self->sources);
    const sp_run *run = self->doc ? sp_run_document_get_run(self->doc) : NULL;
    self->line_regions = run ? sampled_regions(run) : g_array_new(FALSE, FALSE, sizeof(int));
    /* A line tracer's table (the Python module's): executions and measured
     * times, not samples (SCHEMA.md, "line_tracer"). */
    const char *tracer = run ? sp_run_metadata(run, "line_tracer") : NULL;
    self->traced = tracer && *tracer;
    gtk_column_view_column_set_title(self->columns[FIELD_SAMPLES],
                                     self->traced ? "Hits" : "Samples");
    gtk_label_set_text(self->measure_label,
                       self->traced ? "Hits: executions of the line · time measured, with the "
                                      "calls the line makes"
                                    : "Samples measure CPU time · time = samples × sampling period");
    self->sources = sp_source_cache_new(self->doc ? sp_run_document_get_path(self->doc) : NULL,
                                        run ? sp_run_metadata(run, "working_directory") : NULL,
                                        sp_viewer_settings_get_source_dirs());
    g_signal_connect(self->sources, "changed", G_CALLBACK(on_sources_changed), self);

    GtkStringList *names = gtk_string_list_new(NULL);
    for (guint i = 0; i < self->line_regions->len; i++)
        gtk_string_list_append(names, sp_run_document_get_region_label(
                                          self->doc, g_array_index(self->line_regions, int, i)));
    GtkStringList *ranks = gtk_string_list_new(NULL);
    gtk_string_list_append(ranks, "All ranks");
    for (size_t r = 0; run && r < run->nranks; r++) {
        g_autofree char *label = g_strdup_printf("Rank %zu", r);
        gtk_string_list_append(ranks, label);
    }
    self->syncing = TRUE;
    gtk_drop_down_set_model(self->region_dropdown, G_LIST_MODEL(names));
    gtk_drop_down_set_model(self->rank_dropdown, G_LIST_MODEL(ranks));
    gtk_drop_down_set_selected(self->rank_dropdown, 0);
    self->syncing = FALSE;
    g_object_unref(names);
    g_object_unref(ranks);
    self->rank = -1;
    gtk_widget_set_visible(GTK_WIDGET(self->rank_dropdown), run && run->nranks > 1);
    update_region(self);
}

/* ---- page interface ---- */

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpLinesPage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        on_base(self->session, NULL, self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpLinesPage *self = SP_LINES_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_base), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(update_region), self,
                            G_CONNECT_SWAPPED);
    on_base(session, NULL, self);
}

/* No get_chart: the page has no chart, so the window disables Export. */
static void page_iface_init(SpPageInterface *iface) { iface->set_session = set_session; }

GListModel *sp_lines_page_get_rows(SpLinesPage *self)
{
    refresh_if_owed(self);
    return G_LIST_MODEL(self->sorted);
}
int sp_lines_page_get_region(SpLinesPage *self)
{
    refresh_if_owed(self);
    return self->region;
}

void sp_lines_page_set_rank(SpLinesPage *self, int rank)
{
    refresh_if_owed(self);
    gtk_drop_down_set_selected(self->rank_dropdown, rank < 0 ? 0 : (guint)rank + 1);
}

gboolean sp_lines_page_has_table(SpLinesPage *self)
{
    refresh_if_owed(self);
    return g_strcmp0(gtk_stack_get_visible_child_name(self->stack), "table") == 0;
}

/* ---- object ---- */

static void sp_lines_page_dispose(GObject *object)
{
    SpLinesPage *self = SP_LINES_PAGE(object);
    sp_column_page_dispose(GTK_WIDGET(self), SP_TYPE_LINES_PAGE, self->column_view);
    if (self->sources)
        g_signal_handlers_disconnect_by_data(self->sources, self);
    g_clear_object(&self->sources);
    g_clear_object(&self->sorted);
    g_clear_object(&self->store);
    g_clear_object(&self->session);
    g_clear_object(&self->doc);
    g_clear_pointer(&self->line_regions, g_array_unref);
    G_OBJECT_CLASS(sp_lines_page_parent_class)->dispose(object);
}

static void sp_lines_page_class_init(SpLinesPageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_lines_page_dispose;
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-lines-page.ui");
    gtk_widget_class_bind_template_child(wc, SpLinesPage, toolbar);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, toolbar_separator);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, howto);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, region_dropdown);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, rank_dropdown);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, summary_label);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, empty_title);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, explanation);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, measure_label);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, stack);
    gtk_widget_class_bind_template_child(wc, SpLinesPage, column_view);
#define COL(id, field) SP_BIND_COLUMN(wc, SpLinesPage, id, field)
    COL("col_function", FIELD_FUNCTION);
    COL("col_location", FIELD_LOCATION);
    COL("col_samples", FIELD_SAMPLES);
    COL("col_time", FIELD_TIME);
    COL("col_percent", FIELD_PERCENT);
    COL("col_source", FIELD_SOURCE);
#undef COL
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
}

static void sp_lines_page_init(SpLinesPage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->region = -1;
    self->rank = -1;
    self->line_regions = g_array_new(FALSE, FALSE, sizeof(int));
    setup_columns(self);

    self->store = g_list_store_new(SP_TYPE_LINE_ITEM);
    GtkSorter *view_sorter = gtk_column_view_get_sorter(self->column_view);
    self->sorted = gtk_sort_list_model_new(g_object_ref(G_LIST_MODEL(self->store)),
                                           g_object_ref(view_sorter));
    GtkNoSelection *selection = gtk_no_selection_new(g_object_ref(G_LIST_MODEL(self->sorted)));
    gtk_column_view_set_model(self->column_view, GTK_SELECTION_MODEL(selection));
    g_object_unref(selection);
    gtk_column_view_sort_by_column(self->column_view, self->columns[FIELD_SAMPLES],
                                   GTK_SORT_DESCENDING);

    g_signal_connect(self->region_dropdown, "notify::selected", G_CALLBACK(on_region_dropdown),
                     self);
    g_signal_connect(self->rank_dropdown, "notify::selected", G_CALLBACK(on_rank_dropdown), self);
    rebuild(self);
}
