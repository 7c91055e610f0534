/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-application.h - the GtkApplication: command line, windows, app
 * actions (about, quit, new window), style, and the --screenshot and
 * --benchmark modes used by the tests.
 *
 *   scope-profiler-viewer [FILE [FILE2]]
 *   scope-profiler-viewer --screenshot OUT.png [--page NAME] [--size WxH] FILE...
 *   scope-profiler-viewer --benchmark FILE
 */
#ifndef SP_VIEWER_APPLICATION_H
#define SP_VIEWER_APPLICATION_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_VIEWER_APPLICATION (sp_viewer_application_get_type())
G_DECLARE_FINAL_TYPE(SpViewerApplication, sp_viewer_application, SP, VIEWER_APPLICATION,
                     GtkApplication)

#define SP_VIEWER_APP_ID "org.scopeprofiler.Viewer"

SpViewerApplication *sp_viewer_application_new(void);

/* TRUE in --screenshot / --benchmark mode (and for tests): no settings are
 * saved and the recent files list is left alone. */
gboolean sp_viewer_application_is_ephemeral(SpViewerApplication *self);
void sp_viewer_application_set_ephemeral(SpViewerApplication *self, gboolean ephemeral);

/* The status the process should exit with (g_application_run's own status
 * covers command-line errors; this one covers screenshot / benchmark). */
int sp_viewer_application_get_exit_status(SpViewerApplication *self);

/* Register the viewer's GResource (idempotent). Called before any template
 * is used; tests that build widgets without the application call it too. */
void sp_viewer_ensure_resources(void);

G_END_DECLS

#endif
