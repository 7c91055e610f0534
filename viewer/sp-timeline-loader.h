/* SPDX-License-Identifier: MIT */
/*
 * sp-timeline-loader.h - the windows of calls a timeline chart draws from.
 *
 * The loader owns the chart's sp_timeline (plots/: lanes, level-of-detail
 * index, windows) and decides, before each frame, which lanes need a window
 * for the view: none where the lane's index already has a bin per pixel
 * (it draws as exactly as calls would); the visible range with half a view
 * of margin on each side elsewhere; a whole lane when the lane is small
 * (no index). Windows are read from the document's source in a worker
 * thread (sp-run-source.h; sp_window_estimate first: a window that would
 * exceed SP_TIMELINE_WINDOW_MAX calls is not read) and handed to the
 * timeline on the main thread, so a frame never waits for a read: the
 * index is drawn until the window arrives. Windows of lanes out of view are
 * dropped, oldest first, beyond SP_TIMELINE_WINDOW_BUDGET bytes.
 */
#ifndef SP_TIMELINE_LOADER_H
#define SP_TIMELINE_LOADER_H

#include "sp-run-document.h"
#include "sp_plots.h"

G_BEGIN_DECLS

/* Calls in one window at most (a 2^20-deep recursion is 2^20 calls in
 * every window of it). */
#define SP_TIMELINE_WINDOW_MAX ((guint64)1 << 21)
/* Memory of the windows kept by one chart. */
#define SP_TIMELINE_WINDOW_BUDGET ((size_t)384 << 20)
/* A lane without an index with at most this many calls is loaded whole. */
#define SP_TIMELINE_WHOLE_LANE_MAX ((guint64)1 << 18)

typedef struct SpTimelineLoader SpTimelineLoader;

/* Called on the main thread when windows arrived (redraw). */
typedef void (*SpTimelineLoaderNotify)(gpointer user_data);

/* A loader for doc's timeline (sp_timeline_new of its run). NULL with
 * error when the timeline cannot be prepared. */
SpTimelineLoader *sp_timeline_loader_new(SpRunDocument *doc, SpTimelineLoaderNotify notify,
                                         gpointer user_data, GError **error);
/* Stop: notify is never called again; a read in flight finishes in the
 * background and is dropped. NULL is a no-op. */
void sp_timeline_loader_free(SpTimelineLoader *self);

/* The timeline to draw (owned by the loader). */
sp_timeline *sp_timeline_loader_get_timeline(SpTimelineLoader *self);

/* Ask for the windows a draw of w x h with view and style needs (main
 * thread, before drawing). Cheap: no I/O. */
void sp_timeline_loader_update(SpTimelineLoader *self, const sp_timeline_view *view, double w,
                               double h, const sp_plot_style *st);

/* Load the calls of lane around t_ns (run time), a few pixels of
 * ns_per_px either side, before anything else (a click on a box of the
 * index). */
void sp_timeline_loader_request_point(SpTimelineLoader *self, size_t lane, gint64 t_ns,
                                      double ns_per_px);

/* Windows asked for and not yet delivered. */
guint sp_timeline_loader_pending(SpTimelineLoader *self);
/* Windows read so far, and the bytes of those held now. */
guint64 sp_timeline_loader_loaded(SpTimelineLoader *self);
size_t sp_timeline_loader_bytes(SpTimelineLoader *self);

G_END_DECLS

#endif
