/* SPDX-License-Identifier: MIT */
/* sp-calltree-page.c - the Call tree page. */
#include "sp-calltree-page.h"

#include "sp-call-node.h"
#include "sp-flame-chart.h"
#include "sp-list-columns.h"
#include "sp-viewer-format.h"

typedef enum { FIELD_NAME, FIELD_INCL, FIELD_OWN, FIELD_CALLS, FIELD_PERCENT, N_FIELDS } Field;

#define INITIAL_EXPAND_DEPTH 2  /* rows shown expanded after loading, */
#define EXPAND_ALL_NODES 200    /* unless the whole tree is this small */
#define EXPAND_MAX_DEPTH 256    /* levels ever expanded (Expand All, selecting a
                                   node): a 10^6-deep recursion stays usable */

struct _SpCalltreePage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    SpRunDocument *doc;
    gboolean syncing;

    GtkTreeListModel *tree;
    GtkSortListModel *sorted;
    GtkSingleSelection *selection;

    GtkColumnView *column_view;
    GtkColumnViewColumn *columns[N_FIELDS];
    SpFlameChart *flame;
    GtkToggleButton *icicle_button, *flame_button;
    GtkLabel *zoom_label;
    GtkLabel *cap_label; /* says which nodes list only some children */
    GtkWidget *reset_zoom_button;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpCalltreePage, sp_calltree_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpCalltreePage *self);

/* ---- cells, sorting ---- */

/* The rank rule (sp_figures.h): with several ranks (or threads running a
 * path) Inclusive, Own and Calls are per rank; estimates are italic. */
static const sp_figures *node_figures(SpCallNode *n)
{
    const sp_figures *fg = sp_run_document_get_figures(sp_call_node_get_document(n));
    return fg && fg->two_columns ? fg : NULL;
}

static sp_fig_kind node_kind(SpCallNode *n)
{
    return sp_region_fig_kind(sp_run_document_get_run(sp_call_node_get_document(n)),
                              sp_call_node_get_node(n)->region);
}

static double field_value(SpCallNode *n, Field f)
{
    const sp_tree_node *t = sp_call_node_get_node(n);
    const sp_figures *fg = node_figures(n);
    int k = sp_call_node_get_index(n);
    switch (f) {
    case FIELD_INCL: return fg ? fg->node_incl[k].mean_s : t->incl_s;
    case FIELD_OWN: return fg ? fg->node_own[k].mean_s : t->own_s;
    case FIELD_CALLS: return fg ? fg->node_calls[k].mean : (double)t->calls;
    case FIELD_PERCENT: return sp_call_node_get_fraction(n);
    default: return 0;
    }
}

static char *cell_text(gpointer item, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    sp_fig_kind kind = node_kind(item);
    const char *mark = kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? "≥" : "";
    const sp_figures *fg = node_figures(item);
    switch (f) {
    case FIELD_CALLS:
        if (fg) {
            char b[64];
            sp_fig_format_calls_range(&fg->node_calls[sp_call_node_get_index(item)], kind, b,
                                      sizeof b);
            return g_strdup(b);
        } else {
            g_autofree char *n = sp_format_count(sp_call_node_get_node(item)->calls);
            return g_strdup_printf("%s%s", mark, n);
        }
    case FIELD_PERCENT: return g_strdup_printf("%.1f %%", 100 * sp_call_node_get_fraction(item));
    default: {
        g_autofree char *d = sp_format_duration(field_value(item, f));
        return g_strdup_printf("%s%s", mark, d);
    }
    }
}

static const char *cell_class(gpointer item, gpointer data)
{
    if (GPOINTER_TO_INT(data) == FIELD_PERCENT)
        return NULL;
    switch (node_kind(item)) {
    case SP_FIG_ESTIMATE: return "sp-estimate";
    case SP_FIG_LOWER_BOUND: return "sp-lower-bound";
    default: return NULL;
    }
}

static const char *cell_name(gpointer item, gpointer data) { return sp_call_node_get_name(item); }

static int compare_nodes(gconstpointer a, gconstpointer b, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    SpCallNode *x = (SpCallNode *)a, *y = (SpCallNode *)b;
    if (f == FIELD_NAME)
        return g_utf8_collate(sp_call_node_get_name(x), sp_call_node_get_name(y));
    double u = field_value(x, f), v = field_value(y, f);
    if (u != v)
        return u < v ? -1 : 1;
    return sp_call_node_get_index(x) - sp_call_node_get_index(y);
}

static GListModel *create_children(gpointer item, gpointer data)
{
    SpCalltreePage *self = data;
    return sp_call_node_children(self->doc, sp_call_node_get_index(item));
}

/* ---- expansion ---- */

static void expand_to_depth(SpCalltreePage *self, guint depth, gboolean expand)
{
    GListModel *rows = G_LIST_MODEL(self->tree);
    depth = MIN(depth, EXPAND_MAX_DEPTH);
    /* Expanding inserts the children right after the row: the loop visits
     * them too. */
    for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row(self->tree, i);
        if (gtk_tree_list_row_get_depth(row) < depth || !expand)
            gtk_tree_list_row_set_expanded(row, expand);
    }
}

static void action_expand(GtkWidget *widget, const char *name, GVariant *param)
{
    SpCalltreePage *self = SP_CALLTREE_PAGE(widget);
    if (self->tree)
        expand_to_depth(self, g_str_equal(name, "calltree.expand-all") ? G_MAXUINT : 0,
                        g_str_equal(name, "calltree.expand-all"));
}

static void action_reset_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
    sp_flame_chart_set_root(SP_CALLTREE_PAGE(widget)->flame, 0);
}

static void on_root_changed(SpFlameChart *flame, SpCalltreePage *self)
{
    int root = sp_flame_chart_get_root(flame);
    gtk_widget_set_sensitive(self->reset_zoom_button, root > 0);
    if (root > 0 && self->doc) {
        g_autofree char *path = sp_run_document_tree_path(self->doc, root);
        g_autofree char *text = g_strdup_printf("Zoomed into %s", path);
        gtk_label_set_text(self->zoom_label, text);
    } else {
        gtk_label_set_text(self->zoom_label, "Double-click a box to zoom into it");
    }
}

/* ---- selection ---- */

static SpCallNode *selected_node(SpCalltreePage *self)
{
    GtkTreeListRow *row = gtk_single_selection_get_selected_item(self->selection);
    return row ? SP_CALL_NODE(gtk_tree_list_row_get_item(row)) : NULL; /* new ref */
}

static void on_selection_changed(GtkSelectionModel *m, guint pos, guint n, SpCalltreePage *self)
{
    if (self->syncing)
        return;
    g_autoptr(SpCallNode) node = selected_node(self);
    if (!node)
        return;
    sp_flame_chart_set_selected_node(self->flame, sp_call_node_get_index(node));
    sp_session_set_selected_region(self->session, sp_call_node_get_name(node));
}

/* Select the visible row of node (expanding its ancestors, outermost
 * first, at most EXPAND_MAX_DEPTH levels: below that, the deepest one
 * expanded is selected). A row's children follow it in the list, so each
 * search starts after the row found last (from the top each time, a
 * 20,000-deep recursion took minutes). */
static void select_tree_node(SpCalltreePage *self, int node)
{
    const sp_tree *tree = &sp_run_document_get_run(self->doc)->tree;
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(int)); /* node, then its ancestors */
    for (int a = node; a > 0; a = tree->nodes[a].parent)
        g_array_append_val(chain, a);
    guint skip = chain->len > EXPAND_MAX_DEPTH ? chain->len - EXPAND_MAX_DEPTH : 0;
    GListModel *rows = G_LIST_MODEL(self->selection);
    guint found = GTK_INVALID_LIST_POSITION, from = 0, n = g_list_model_get_n_items(rows);
    for (guint k = chain->len; k-- > skip;) {
        int want = g_array_index(chain, int, k);
        guint at = GTK_INVALID_LIST_POSITION;
        for (guint i = from; i < n && at == GTK_INVALID_LIST_POSITION; i++) {
            g_autoptr(GtkTreeListRow) row = g_list_model_get_item(rows, i);
            g_autoptr(SpCallNode) item = gtk_tree_list_row_get_item(row);
            if (sp_call_node_get_index(item) != want)
                continue;
            at = i;
            if (k > skip)
                gtk_tree_list_row_set_expanded(row, TRUE);
        }
        if (at == GTK_INVALID_LIST_POSITION)
            break;
        found = at;
        from = at + 1;
        n = g_list_model_get_n_items(rows);
    }
    g_array_unref(chain);
    self->syncing = TRUE;
    gtk_single_selection_set_selected(self->selection, found);
    self->syncing = FALSE;
    if (found != GTK_INVALID_LIST_POSITION && gtk_widget_get_mapped(GTK_WIDGET(self)))
        sp_column_view_scroll_to(self->column_view, found);
}

static void on_node_activated(SpFlameChart *flame, int node, SpCalltreePage *self)
{
    if (node <= 0 || !self->doc) {
        sp_flame_chart_set_selected_node(flame, -1);
        return;
    }
    sp_flame_chart_set_selected_node(flame, node);
    select_tree_node(self, node);
    const sp_run *run = sp_run_document_get_run(self->doc);
    sp_session_set_selected_region(self->session, run->region_names[run->tree.nodes[node].region]);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpCalltreePage *self)
{
    int id = sp_session_get_selected_id(session, self->doc);
    sp_flame_chart_set_highlight_region(self->flame, id);
    g_autoptr(SpCallNode) node = selected_node(self);
    if (node && sp_call_node_get_node(node)->region == id)
        return; /* the selected row already shows this region */
    if (id < 0 || !self->doc) {
        self->syncing = TRUE;
        gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
        self->syncing = FALSE;
        sp_flame_chart_set_selected_node(self->flame, -1);
        return;
    }
    /* The heaviest node of that region (nodes are sorted by time). */
    const sp_tree *tree = &sp_run_document_get_run(self->doc)->tree;
    int best = -1;
    for (size_t i = 1; i < tree->nnodes; i++)
        if (tree->nodes[i].region == id && (best < 0 || tree->nodes[i].incl_s > tree->nodes[best].incl_s))
            best = (int)i;
    if (best > 0) {
        sp_flame_chart_set_selected_node(self->flame, best);
        select_tree_node(self, best);
    }
}

/* Says when nodes list only some of their children (sp-call-node.h). */
static void update_cap_label(SpCalltreePage *self)
{
    g_autofree char *text = sp_call_node_cap_note(self->doc);
    gtk_label_set_text(self->cap_label, text ? text : "");
    gtk_widget_set_visible(GTK_WIDGET(self->cap_label), text != NULL);
}

static void on_base(SpSession *session, GParamSpec *pspec, SpCalltreePage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    g_set_object(&self->doc, sp_session_get_base(session));
    sp_flame_chart_set_document(self->flame, self->doc);
    /* Titles say what the numbers are: per rank (or thread) under the rule. */
    const sp_figures *fg = self->doc ? sp_run_document_get_figures(self->doc) : NULL;
    gboolean two = fg && fg->two_columns;
    const char *unit = fg && fg->nranks > 1 ? "/rank" : "/thread";
    g_autofree char *incl = g_strdup_printf("Inclusive%s", two ? unit : "");
    g_autofree char *own = g_strdup_printf("Own%s", two ? unit : "");
    gtk_column_view_column_set_title(self->columns[FIELD_INCL], incl);
    gtk_column_view_column_set_title(self->columns[FIELD_OWN], own);
    gtk_column_view_column_set_title(self->columns[FIELD_CALLS], two ? "Calls/rank" : "Calls");
    g_clear_object(&self->tree);
    if (self->doc) {
        GListModel *roots = sp_call_node_children(self->doc, 0);
        if (!roots)
            roots = G_LIST_MODEL(g_list_store_new(SP_TYPE_CALL_NODE));
        self->tree = gtk_tree_list_model_new(roots, FALSE, FALSE, create_children, self, NULL);
    }
    gtk_sort_list_model_set_model(self->sorted, self->tree ? G_LIST_MODEL(self->tree) : NULL);
    if (self->tree) {
        size_t nodes = sp_run_document_get_run(self->doc)->tree.nnodes;
        expand_to_depth(self, nodes <= EXPAND_ALL_NODES ? G_MAXUINT : INITIAL_EXPAND_DEPTH, TRUE);
    }
    update_cap_label(self);
    on_root_changed(self->flame, self);
    on_selected_region(session, NULL, self);
}

static void on_flame_toggled(GtkToggleButton *button, SpCalltreePage *self)
{
    sp_flame_chart_set_flame(self->flame, gtk_toggle_button_get_active(self->flame_button));
}

/* ---- page interface ---- */

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpCalltreePage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        on_base(self->session, NULL, self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpCalltreePage *self = SP_CALLTREE_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_base), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(on_selected_region),
                            self, 0);
    on_base(session, NULL, self);
}

static SpChart *get_chart(SpPage *page) { return SP_CHART(SP_CALLTREE_PAGE(page)->flame); }

GtkSingleSelection *sp_calltree_page_get_selection(SpCalltreePage *self)
{
    refresh_if_owed(self);
    return self->selection;
}

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
}

/* ---- object ---- */

static void sp_calltree_page_dispose(GObject *object)
{
    SpCalltreePage *self = SP_CALLTREE_PAGE(object);
    sp_column_page_dispose(GTK_WIDGET(self), SP_TYPE_CALLTREE_PAGE, self->column_view);
    g_clear_object(&self->selection);
    g_clear_object(&self->tree);
    g_clear_object(&self->session);
    g_clear_object(&self->doc);
    G_OBJECT_CLASS(sp_calltree_page_parent_class)->dispose(object);
}

static void sp_calltree_page_class_init(SpCalltreePageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_calltree_page_dispose;
    g_type_ensure(SP_TYPE_FLAME_CHART);
    gtk_widget_class_set_template_from_resource(wc,
                                                "/org/scopeprofiler/Viewer/sp-calltree-page.ui");
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, column_view);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, flame);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, icicle_button);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, flame_button);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, zoom_label);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, cap_label);
    gtk_widget_class_bind_template_child(wc, SpCalltreePage, reset_zoom_button);
#define COL(id, field) SP_BIND_COLUMN(wc, SpCalltreePage, id, field)
    COL("col_name", FIELD_NAME);
    COL("col_incl", FIELD_INCL);
    COL("col_own", FIELD_OWN);
    COL("col_calls", FIELD_CALLS);
    COL("col_percent", FIELD_PERCENT);
#undef COL
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_install_action(wc, "calltree.expand-all", NULL, action_expand);
    gtk_widget_class_install_action(wc, "calltree.collapse-all", NULL, action_expand);
    gtk_widget_class_install_action(wc, "calltree.reset-zoom", NULL, action_reset_zoom);
}

static void sp_calltree_page_init(SpCalltreePage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    for (int f = 0; f < N_FIELDS; f++) {
        if (f == FIELD_NAME)
            sp_column_set_region(self->columns[f], cell_name, NULL, TRUE);
        else
            sp_column_set_text_full(self->columns[f], cell_text, cell_class, GINT_TO_POINTER(f),
                                    TRUE);
        sp_column_set_compare(self->columns[f], compare_nodes, GINT_TO_POINTER(f));
    }
    /* Sorting keeps children under their parent. */
    GtkTreeListRowSorter *row_sorter =
        gtk_tree_list_row_sorter_new(g_object_ref(gtk_column_view_get_sorter(self->column_view)));
    self->sorted = gtk_sort_list_model_new(NULL, GTK_SORTER(row_sorter));
    self->selection = sp_column_view_show(self->column_view, G_LIST_MODEL(self->sorted),
                                          self->columns[FIELD_INCL]);
    g_signal_connect(self->selection, "selection-changed", G_CALLBACK(on_selection_changed), self);
    g_signal_connect(self->flame, "node-activated", G_CALLBACK(on_node_activated), self);
    g_signal_connect(self->flame, "root-changed", G_CALLBACK(on_root_changed), self);
    g_signal_connect(self->flame_button, "toggled", G_CALLBACK(on_flame_toggled), self);
}
