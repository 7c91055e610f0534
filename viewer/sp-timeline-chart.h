/* SPDX-License-Identifier: MIT */
/*
 * sp-timeline-chart.h - the interactive timeline: lanes per rank and thread
 * drawn by plots/ sp_timeline_draw(), with zoom (Ctrl+scroll, +/-), pan (drag,
 * scroll, scrollbars), zoom to a Shift+drag selection, hover tooltips and
 * click to select a call.
 */
#ifndef SP_TIMELINE_CHART_H
#define SP_TIMELINE_CHART_H

#include "sp-chart.h"
#include "sp-run-document.h"

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

/* The tooltip text for the call (markup, names escaped for display), as
 * shown on hover. */
char *sp_timeline_chart_describe_call(SpTimelineChart *self, int rank, gint64 call);

/*
 * Signals:
 *   "call-activated" (int rank, gint64 call): a call was clicked (call -1:
 *       a click on empty space).
 *   "view-changed": the visible window changed.
 */

G_END_DECLS

#endif
