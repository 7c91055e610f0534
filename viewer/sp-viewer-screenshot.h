/* SPDX-License-Identifier: MIT */
/* sp-viewer-screenshot.h - render a widget offscreen to a PNG (for
 * --screenshot and the tests). */
#ifndef SP_VIEWER_SCREENSHOT_H
#define SP_VIEWER_SCREENSHOT_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Render widget (mapped, allocated) at its current size through its native's
 * renderer and save it as PNG. */
gboolean sp_viewer_screenshot_save(GtkWidget *widget, const char *path, GError **error);

/* Render the widget into a texture (NULL when it has no size). */
GdkTexture *sp_viewer_screenshot_texture(GtkWidget *widget);

/* Background work the window shows when done (charts drawn in threads, the
 * comparison): screenshots wait until none is in flight. Main thread only. */
void sp_viewer_work_begin(void);
void sp_viewer_work_end(void);
guint sp_viewer_work_pending(void);

typedef void (*SpScreenshotDone)(gboolean ok, gpointer user_data);
typedef void (*SpFramesDone)(GtkWidget *widget, gboolean drawn, gpointer user_data);

/* Call done once widget has been mapped, laid out and drawn a few frames
 * (drawn FALSE: no frame came within 15 s, e.g. no display). */
void sp_viewer_after_frames(GtkWidget *widget, SpFramesDone done, gpointer user_data);

/* Wait until widget has been laid out and drawn a few frames, save it to
 * path, then call done. Errors are printed to stderr. */
void sp_viewer_screenshot_after_frames(GtkWidget *widget, const char *path,
                                       SpScreenshotDone done, gpointer user_data);

G_END_DECLS

#endif
