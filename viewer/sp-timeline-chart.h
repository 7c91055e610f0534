/* SPDX-License-Identifier: MIT */
/*
 * sp-timeline-chart.h - the interactive timeline: lanes per rank and thread
 * drawn by plots/ sp_timeline_draw() from the run's level-of-detail index and
 * windows of calls loaded for the view in a worker thread
 * (sp-timeline-loader.h), with zoom (Ctrl+scroll, +/-), pan (drag, scroll,
 * scrollbars), zoom to a Shift+drag selection, hover tooltips, click to
 * select a call, and, with many ranks, the overview (one thin row per lane)
 * from which a click zooms into a rank.
 */
#ifndef SP_TIMELINE_CHART_H
#define SP_TIMELINE_CHART_H

#include "sp-chart.h"
#include "sp-run-document.h"
#include "sp-timeline-loader.h"

G_BEGIN_DECLS

#define SP_TYPE_TIMELINE_CHART (sp_timeline_chart_get_type())
G_DECLARE_FINAL_TYPE(SpTimelineChart, sp_timeline_chart, SP, TIMELINE_CHART, GtkWidget)

GtkWidget *sp_timeline_chart_new(void);

void sp_timeline_chart_set_document(SpTimelineChart *self, SpRunDocument *doc);
SpRunDocument *sp_timeline_chart_get_document(SpTimelineChart *self);

/* Draw this region normally and fade the others; -1 = none. */
void sp_timeline_chart_set_highlight_region(SpTimelineChart *self, int region);

/* The visible window in run time (ns). set_window clamps to the run (or to
 * the time limit) and emits "view-changed". */
void sp_timeline_chart_get_window(SpTimelineChart *self, gint64 *t0_ns, gint64 *t1_ns);
void sp_timeline_chart_set_window(SpTimelineChart *self, gint64 t0_ns, gint64 t1_ns);

/* Pan and zoom limit in ns (0 = the run's duration). A comparison gives both
 * views the longer of the two runs, so they can share one window. */
void sp_timeline_chart_set_time_limit(SpTimelineChart *self, gint64 limit_ns);

/* Zoom around the centre by factor (> 1 zooms in), or show the whole run. */
void sp_timeline_chart_zoom(SpTimelineChart *self, double factor);
void sp_timeline_chart_zoom_to_fit(SpTimelineChart *self);
/* Pan by a fraction of the visible window (negative: to the left). */
void sp_timeline_chart_pan(SpTimelineChart *self, double fraction);

/* Scrollbars' models: time (value = window start, page = window span, ns)
 * and lanes (value = scroll offset, page = visible height, px). */
GtkAdjustment *sp_timeline_chart_get_hadjustment(SpTimelineChart *self);
GtkAdjustment *sp_timeline_chart_get_vadjustment(SpTimelineChart *self);

/* Drive scrollbar with the time (horizontal) or lanes (vertical) adjustment,
 * showing it only when there is something to scroll to. */
void sp_timeline_chart_attach_scrollbar(SpTimelineChart *self, GtkScrollbar *scrollbar);

/* Lanes: automatic (the overview when they do not fit at one row each),
 * detail, or overview. */
void sp_timeline_chart_set_lanes(SpTimelineChart *self, sp_timeline_lanes mode);
sp_timeline_lanes sp_timeline_chart_get_lanes(SpTimelineChart *self);
/* Whether the overview is what is drawn now. */
gboolean sp_timeline_chart_is_overview(SpTimelineChart *self);
/* Show lane in the detail layout, scrolled to its top (a click on its row
 * of the overview does this). */
void sp_timeline_chart_show_lane(SpTimelineChart *self, size_t lane);

/* What a click at (x, y) does (n_press 2: a double click): select the call
 * there (loading its window first when the lane draws from the index),
 * zoom to it, open the rank of an overview row, or clear the selection. */
void sp_timeline_chart_click(SpTimelineChart *self, double x, double y, int n_press);

/* The selected call: its lane, depth, bounds (run time) and region. FALSE
 * when none. */
gboolean sp_timeline_chart_get_selected(SpTimelineChart *self, sp_timeline_call_ref *call,
                                        int *region);
/* Its description (markup, names escaped for display), as the tooltip
 * shows it; NULL when none. Owned by the chart. */
const char *sp_timeline_chart_get_selected_text(SpTimelineChart *self);
/* The description of call `call` of lane `lane`'s window (markup), as the
 * tooltip shows it; NULL when the lane has no such call loaded. */
char *sp_timeline_chart_describe_call(SpTimelineChart *self, size_t lane, gint64 call);
/* The tooltip text at (x, y) (markup), or NULL when nothing is there. */
char *sp_timeline_chart_describe_at(SpTimelineChart *self, double x, double y);

/* The timeline drawn, the view it is drawn with and its window loader
 * (benchmarks, tests). */
sp_timeline *sp_timeline_chart_get_timeline(SpTimelineChart *self);
const sp_timeline_view *sp_timeline_chart_get_view(SpTimelineChart *self);
SpTimelineLoader *sp_timeline_chart_get_loader(SpTimelineChart *self);

/* Lines to draw over the lanes (sp_timeline_view.arrows: MPI messages of
 * the visible range), drawn in the lanes view, not in the overview.
 * Borrowed until the next call or the next document; NULL, 0 for none. */
void sp_timeline_chart_set_arrows(SpTimelineChart *self, const sp_timeline_arrow *arrows,
                                  size_t n);

/*
 * Signals:
 *   "call-activated" (gboolean selected): a call was selected by a click
 *       (sp_timeline_chart_get_selected), or the selection was cleared.
 *   "view-changed": the visible window or the lanes' layout changed.
 *   "windows-loaded": windows of calls arrived and were drawn.
 */

G_END_DECLS

#endif
