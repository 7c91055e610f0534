/* SPDX-License-Identifier: MIT */
/*
 * sp-list-columns.h - cell factories shared by the viewer's tables: a text
 * cell (numbers right-aligned in tabular figures) and a region-name cell
 * (colour swatch + name, with a tree expander for tree rows). Items of a
 * GtkTreeListModel are unwrapped before the callbacks see them. Also the
 * set-up every table page repeats: sorters, selection, dispose.
 */
#ifndef SP_LIST_COLUMNS_H
#define SP_LIST_COLUMNS_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Returns the cell text (newly allocated) for item. */
typedef char *(*SpCellTextFunc)(gpointer item, gpointer user_data);
/* Returns the region name of item (owned by the item). */
typedef const char *(*SpCellNameFunc)(gpointer item, gpointer user_data);

/* Returns a CSS class for the cell (static string) or NULL. */
typedef const char *(*SpCellClassFunc)(gpointer item, gpointer user_data);

void sp_column_set_text(GtkColumnViewColumn *column, SpCellTextFunc func, gpointer user_data,
                        gboolean numeric);
/* Same, adding the CSS class class_func returns to the cell's label; the
 * classes "sp-estimate" and "sp-lower-bound" also get a tooltip saying what
 * the figure's mark (~, ≥) means. */
void sp_column_set_text_full(GtkColumnViewColumn *column, SpCellTextFunc func,
                             SpCellClassFunc class_func, gpointer user_data, gboolean numeric);
void sp_column_set_region(GtkColumnViewColumn *column, SpCellNameFunc func, gpointer user_data,
                          gboolean tree);

/* Sort column with compare(a, b, user_data) through a GtkCustomSorter. */
void sp_column_set_compare(GtkColumnViewColumn *column, GCompareDataFunc compare,
                           gpointer user_data);

/* Show rows (taken over) in view through a single selection that starts
 * empty and can be emptied again, sorted by sort_column, largest first.
 * Returns the selection; the caller owns the reference. */
GtkSingleSelection *sp_column_view_show(GtkColumnView *view, GListModel *rows,
                                        GtkColumnViewColumn *sort_column);

/* The start of a table page's dispose: detach view's model (view may be
 * NULL), dispose the template of type, unparent the remaining children. */
void sp_column_page_dispose(GtkWidget *page, GType type, GtkColumnView *view);

/* In class_init: bind template child id to columns[field] of Type. */
#define SP_BIND_COLUMN(wc, Type, id, field)                                                    \
    gtk_widget_class_bind_template_child_full(wc, id, FALSE, G_STRUCT_OFFSET(Type, columns[field]))

/* Scroll a column view so that row position is visible (GTK 4.8 has no
 * gtk_column_view_scroll_to(): use the inner list's action). */
void sp_column_view_scroll_to(GtkColumnView *view, guint position);

G_END_DECLS

#endif
