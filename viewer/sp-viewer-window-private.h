/* SPDX-License-Identifier: MIT */
/* sp-viewer-window-private.h - the window's fields, shared by the window,
 * its actions (sp-viewer-actions.c) and drag and drop (sp-viewer-dnd.c). */
#ifndef SP_VIEWER_WINDOW_PRIVATE_H
#define SP_VIEWER_WINDOW_PRIVATE_H

#include "sp-viewer-window.h"

G_BEGIN_DECLS

struct _SpViewerWindow {
    GtkApplicationWindow parent_instance;

    SpSession *session;
    SpViewerWindowState state;
    char *error;
    GCancellable *cancellable;
    guint pulse_source;

    /* A load of several files finishes when all have. */
    GFile **pending_files;       /* n_pending entries */
    SpRunDocument **pending_docs; /* n_pending slots, filled as loads finish */
    guint n_pending;
    int pending_count;

    /* Template children. */
    GtkWidget *run_title_box;
    GtkLabel *run_title, *run_subtitle;
    GtkStack *title_stack;
    GtkWidget *export_button;
    GtkRevealer *banner_revealer;
    GtkLabel *banner_label;
    GtkStack *main_stack;
    GtkWidget *recent_box;
    GtkListBox *recent_list;
    GtkSpinner *loading_spinner;
    GtkLabel *loading_label;
    GtkProgressBar *loading_progress;
    GtkLabel *error_label;
    GtkStack *pages;
    GtkStackPage *compare_stack_page;
    GtkWidget *timeline_page, *regions_page, *calltree_page, *ranks_page, *lines_page,
        *compare_page, *info_page;
};

/* sp-viewer-actions.c: install the win.* actions and their shortcuts. */
void sp_viewer_window_class_install_actions(GtkWidgetClass *widget_class);
/* Enable / disable the actions that need a loaded run. */
void sp_viewer_window_update_actions(SpViewerWindow *self);

/* sp-viewer-dnd.c: accept files dropped on the window. */
void sp_viewer_window_setup_dnd(SpViewerWindow *self);

/* Open files in this window when it is empty, else in a new window. */
void sp_viewer_window_open_files(SpViewerWindow *self, GFile *base, GFile *candidate);

/* Refill the welcome page's recent runs. */
void sp_viewer_window_update_recent(SpViewerWindow *self);

G_END_DECLS

#endif
