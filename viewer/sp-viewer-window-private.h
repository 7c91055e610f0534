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

    /* Following a run while it records (sp-viewer-follow.c); follow_path
     * NULL: not following. */
    char *follow_path;
    guint follow_source;            /* the refresh timer */
    GCancellable *follow_reading;   /* the read in flight, or NULL */
    SpRunSource *follow_src;        /* the recording file open in this process, or NULL */
    gint64 follow_inode;            /* of the file when follow_src was opened */
    double follow_interval;
    gboolean follow_complete;       /* the file said complete: reads stopped */
    guint64 follow_calls;           /* calls shown */
    gint64 follow_changed_us;       /* when the call count last changed */
    double follow_read_s;           /* the last read + analysis, seconds */
    char *follow_status;            /* the status line shown, or NULL */
    char *follow_problem;           /* why the last read failed, or NULL */
    gint64 follow_stamp[3];         /* inode, mtime, size when it completed */

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

/* sp-viewer-follow.c: stop following (timer, read in flight), keeping what
 * is shown. No-op when not following. */
void sp_viewer_window_stop_follow(SpViewerWindow *self);
/* sp-viewer-window.c: the titles again (after a follow refresh). */
void sp_viewer_window_update_titles(SpViewerWindow *self);
/* sp-viewer-window.c: show docs; add_recent FALSE on follow refreshes. */
void sp_viewer_window_show_documents(SpViewerWindow *self, SpRunDocument *const *docs, guint n,
                                     gboolean add_recent);
/* sp-viewer-window.c: the loading page with a message (no load in flight). */
void sp_viewer_window_show_waiting(SpViewerWindow *self, const char *message);

G_END_DECLS

#endif
