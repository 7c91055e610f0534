/* SPDX-License-Identifier: MIT */
/*
 * sp-chart-view.h - a chart widget wrapping one plots/ draw function (rank
 * bars, heat map, histogram, ...). The page owning it decides what to show
 * and calls sp_chart_view_set_draw_func(); the view only draws.
 *
 * A "threaded" view draws in a worker thread into a texture and shows the
 * last texture (stretched) until the new one is ready, for charts whose
 * drawing scans many calls (histogram, duration over time of a region with
 * millions of calls): the window never waits on them. The draw function and
 * its data must then be safe to use from another thread: pass immutable data
 * (set a new draw func when the inputs change).
 */
#ifndef SP_CHART_VIEW_H
#define SP_CHART_VIEW_H

#include "sp-chart.h"

G_BEGIN_DECLS

#define SP_TYPE_CHART_VIEW (sp_chart_view_get_type())
G_DECLARE_FINAL_TYPE(SpChartView, sp_chart_view, SP, CHART_VIEW, GtkWidget)

typedef int (*SpChartDrawFunc)(cairo_t *cr, double w, double h, const sp_plot_style *st,
                               gpointer user_data);

GtkWidget *sp_chart_view_new(void);

/* Set what the view draws; destroy (may be NULL) frees user_data once the
 * view and any drawing in progress are done with it. Queues a redraw. */
void sp_chart_view_set_draw_func(SpChartView *self, SpChartDrawFunc func, gpointer user_data,
                                 GDestroyNotify destroy);

/* The "name" property: the chart's export file name stem. */
void sp_chart_view_set_name(SpChartView *self, const char *name);

/* The "threaded" property (see above); default FALSE. */
void sp_chart_view_set_threaded(SpChartView *self, gboolean threaded);

G_END_DECLS

#endif
