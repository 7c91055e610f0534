/* SPDX-License-Identifier: MIT */
/* sp-viewer-dnd.c - files dropped on a window: one explores it, two compare
 * them (first = base), more make a scaling study. */
#include "sp-viewer-window-private.h"

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        SpViewerWindow *self)
{
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
        return FALSE;
    GSList *files = g_value_get_boxed(value);
    guint n = g_slist_length(files);
    if (n == 0)
        return FALSE;
    if (n <= 2) {
        sp_viewer_window_open_files(self, files->data, n > 1 ? files->next->data : NULL);
        return TRUE;
    }
    GFile **list = g_new(GFile *, n);
    guint i = 0;
    for (GSList *l = files; l; l = l->next)
        list[i++] = l->data;
    sp_viewer_window_open_list(self, list, n);
    g_free(list);
    return TRUE;
}

void sp_viewer_window_setup_dnd(SpViewerWindow *self)
{
    GtkDropTarget *target = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    g_signal_connect(target, "drop", G_CALLBACK(on_drop), self);
    gtk_widget_add_controller(GTK_WIDGET(self->main_stack), GTK_EVENT_CONTROLLER(target));
}
