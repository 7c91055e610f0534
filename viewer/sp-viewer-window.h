/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-window.h - one window: a run (explore) or two runs (compare),
 * loaded off the main thread, shown in pages switched from the header bar.
 */
#ifndef SP_VIEWER_WINDOW_H
#define SP_VIEWER_WINDOW_H

#include <gtk/gtk.h>

#include "sp-session.h"

G_BEGIN_DECLS

#define SP_TYPE_VIEWER_WINDOW (sp_viewer_window_get_type())
G_DECLARE_FINAL_TYPE(SpViewerWindow, sp_viewer_window, SP, VIEWER_WINDOW, GtkApplicationWindow)

typedef enum {
    SP_VIEWER_WINDOW_EMPTY,   /* welcome page */
    SP_VIEWER_WINDOW_LOADING,
    SP_VIEWER_WINDOW_READY,
    SP_VIEWER_WINDOW_FAILED,  /* error page with the reason */
} SpViewerWindowState;

SpViewerWindow *sp_viewer_window_new(GtkApplication *app);

/* Load base (and candidate, may be NULL: explore one run) in a worker
 * thread, showing the loading page; "load-finished" is emitted after. */
void sp_viewer_window_open(SpViewerWindow *self, GFile *base, GFile *candidate);

/* Load n >= 1 files (the first the base, the second the candidate; more
 * than two make a scaling study on the Compare page). */
void sp_viewer_window_open_list(SpViewerWindow *self, GFile *const *files, guint n);

/* Show already loaded runs (candidate may be NULL). */
void sp_viewer_window_set_documents(SpViewerWindow *self, SpRunDocument *base,
                                    SpRunDocument *candidate);

/* Show n >= 1 already loaded runs (see sp_viewer_window_open_list). */
void sp_viewer_window_set_document_list(SpViewerWindow *self, SpRunDocument *const *docs,
                                        guint n);

SpViewerWindowState sp_viewer_window_get_state(SpViewerWindow *self);
/* The one-line reason of the last failed load, or NULL. */
const char *sp_viewer_window_get_error(SpViewerWindow *self);
SpSession *sp_viewer_window_get_session(SpViewerWindow *self);

/* Pages: "timeline", "regions", "calltree", "ranks", "lines", "compare",
 * "info". set_page returns FALSE for an unknown or hidden page. */
gboolean sp_viewer_window_set_page(SpViewerWindow *self, const char *name);
const char *sp_viewer_window_get_page(SpViewerWindow *self);
GtkWidget *sp_viewer_window_get_page_widget(SpViewerWindow *self, const char *name);

/* Follow the run at file while it records (sp-viewer-follow.c): read it
 * every interval_s seconds (<= 0: 1 s) in a worker thread (through the
 * isolated reader), show each new state keeping the page and the selected
 * region, and stop reading once the file says complete (then only watch
 * whether it is replaced). A file that does not exist yet is waited for.
 * The header's subtitle says "following… in progress · N calls · updated
 * HH:MM:SS". Opening another run stops following. */
void sp_viewer_window_follow(SpViewerWindow *self, GFile *file, double interval_s);
gboolean sp_viewer_window_is_following(SpViewerWindow *self);
/* The follow status line (NULL when not following). */
const char *sp_viewer_window_get_follow_status(SpViewerWindow *self);

/* Show a dismissable one-line message above the pages. */
void sp_viewer_window_show_banner(SpViewerWindow *self, const char *message);

/*
 * Signals:
 *   "load-finished" (gboolean success): after sp_viewer_window_open().
 *   "follow-updated" (guint64 calls, gboolean complete): while following,
 *     after a newly read state is shown (more calls, or completion).
 */

G_END_DECLS

#endif
