/* SPDX-License-Identifier: MIT */
/* sp-list-columns.c - cell factories for the viewer's column views. */
#include "sp-list-columns.h"

#include "sp-color-swatch.h"
#include "sp-page.h"
#include "sp-viewer-text.h"

typedef struct {
    SpCellTextFunc text;
    SpCellClassFunc css_class;
    SpCellNameFunc name;
    gpointer user_data;
    gboolean numeric, tree;
} CellInfo;

static gpointer unwrap(GtkListItem *li)
{
    gpointer item = gtk_list_item_get_item(li);
    if (GTK_IS_TREE_LIST_ROW(item))
        return gtk_tree_list_row_get_item(item); /* new ref: released below */
    return item ? g_object_ref(item) : NULL;
}

static void text_setup(GtkSignalListItemFactory *f, GtkListItem *li, CellInfo *info)
{
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), info->numeric ? 1.0f : 0.0f);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    if (info->numeric)
        gtk_widget_add_css_class(label, "numeric");
    gtk_list_item_set_child(li, label);
}

static void text_bind(GtkSignalListItemFactory *f, GtkListItem *li, CellInfo *info)
{
    g_autoptr(GObject) item = unwrap(li);
    g_autofree char *text = item ? info->text(item, info->user_data) : NULL;
    GtkWidget *label = gtk_list_item_get_child(li);
    /* Cells show names, paths and source lines from the file: escaped
     * (sp-viewer-text.h). */
    g_autofree char *escaped = NULL;
    const char *shown = sp_viewer_text(text, &escaped);
    gtk_label_set_text(GTK_LABEL(label), shown ? shown : "");
    if (info->css_class) {
        /* Rows are recycled: drop the class of the previous item first. */
        const char *old = g_object_get_data(G_OBJECT(label), "sp-css-class");
        if (old)
            gtk_widget_remove_css_class(label, old);
        const char *cls = item ? info->css_class(item, info->user_data) : NULL;
        if (cls)
            gtk_widget_add_css_class(label, cls);
        g_object_set_data(G_OBJECT(label), "sp-css-class", (gpointer)cls);
        /* What the marks of the rank rule's figures mean (sp_figures.h). */
        gtk_widget_set_tooltip_text(
            label, g_strcmp0(cls, "sp-estimate") == 0
                       ? "Estimated from call-stack samples (~): the sampling period is its "
                         "resolution"
                   : g_strcmp0(cls, "sp-lower-bound") == 0
                       ? "A lower bound (≥): tracing stopped for this very frequent function"
                       : NULL);
    }
}

void sp_column_set_text(GtkColumnViewColumn *column, SpCellTextFunc func, gpointer user_data,
                        gboolean numeric)
{
    sp_column_set_text_full(column, func, NULL, user_data, numeric);
}

void sp_column_set_text_full(GtkColumnViewColumn *column, SpCellTextFunc func,
                             SpCellClassFunc class_func, gpointer user_data, gboolean numeric)
{
    CellInfo *info = g_new0(CellInfo, 1);
    info->text = func;
    info->css_class = class_func;
    info->user_data = user_data;
    info->numeric = numeric;
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(text_setup), info);
    g_signal_connect(factory, "bind", G_CALLBACK(text_bind), info);
    g_object_set_data_full(G_OBJECT(factory), "cell-info", info, g_free);
    gtk_column_view_column_set_factory(column, factory);
    g_object_unref(factory);
}

static void region_setup(GtkSignalListItemFactory *f, GtkListItem *li, CellInfo *info)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(label, TRUE);
    gtk_box_append(GTK_BOX(box), sp_color_swatch_new());
    gtk_box_append(GTK_BOX(box), label);
    if (info->tree) {
        GtkWidget *expander = gtk_tree_expander_new();
        gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), box);
        gtk_list_item_set_child(li, expander);
    } else {
        gtk_list_item_set_child(li, box);
    }
}

static void region_bind(GtkSignalListItemFactory *f, GtkListItem *li, CellInfo *info)
{
    GtkWidget *box = gtk_list_item_get_child(li);
    if (info->tree) {
        GtkTreeExpander *expander = GTK_TREE_EXPANDER(box);
        gtk_tree_expander_set_list_row(expander, gtk_list_item_get_item(li));
        box = gtk_tree_expander_get_child(expander);
    }
    g_autoptr(GObject) item = unwrap(li);
    const char *name = item ? info->name(item, info->user_data) : NULL;
    GtkWidget *swatch = gtk_widget_get_first_child(box);
    sp_color_swatch_set_region(SP_COLOR_SWATCH(swatch), name); /* colour of the raw name */
    g_autofree char *escaped = NULL;
    const char *shown = sp_viewer_text(name, &escaped); /* sp-viewer-text.h */
    gtk_label_set_text(GTK_LABEL(gtk_widget_get_next_sibling(swatch)), shown ? shown : "");
    gtk_widget_set_tooltip_text(box, shown);
}

static void region_unbind(GtkSignalListItemFactory *f, GtkListItem *li, CellInfo *info)
{
    if (info->tree)
        gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(gtk_list_item_get_child(li)), NULL);
}

void sp_column_set_region(GtkColumnViewColumn *column, SpCellNameFunc func, gpointer user_data,
                          gboolean tree)
{
    CellInfo *info = g_new0(CellInfo, 1);
    info->name = func;
    info->user_data = user_data;
    info->tree = tree;
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(region_setup), info);
    g_signal_connect(factory, "bind", G_CALLBACK(region_bind), info);
    g_signal_connect(factory, "unbind", G_CALLBACK(region_unbind), info);
    g_object_set_data_full(G_OBJECT(factory), "cell-info", info, g_free);
    gtk_column_view_column_set_factory(column, factory);
    g_object_unref(factory);
}

void sp_column_view_scroll_to(GtkColumnView *view, guint position)
{
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(view)); child;
         child = gtk_widget_get_next_sibling(child)) {
        if (GTK_IS_LIST_VIEW(child)) {
            gtk_widget_activate_action(child, "list.scroll-to-item", "u", position);
            return;
        }
    }
}

void sp_column_set_compare(GtkColumnViewColumn *column, GCompareDataFunc compare,
                           gpointer user_data)
{
    GtkSorter *sorter = GTK_SORTER(gtk_custom_sorter_new(compare, user_data, NULL));
    gtk_column_view_column_set_sorter(column, sorter);
    g_object_unref(sorter);
}

GtkSingleSelection *sp_column_view_show(GtkColumnView *view, GListModel *rows,
                                        GtkColumnViewColumn *sort_column)
{
    GtkSingleSelection *selection = gtk_single_selection_new(rows);
    gtk_single_selection_set_autoselect(selection, FALSE);
    gtk_single_selection_set_can_unselect(selection, TRUE);
    gtk_column_view_set_model(view, GTK_SELECTION_MODEL(selection));
    gtk_column_view_sort_by_column(view, sort_column, GTK_SORT_DESCENDING);
    return selection;
}

void sp_column_page_dispose(GtkWidget *page, GType type, GtkColumnView *view)
{
    if (view)
        gtk_column_view_set_model(view, NULL);
    gtk_widget_dispose_template(page, type);
    sp_page_unparent_children(page);
}
