/* SPDX-License-Identifier: MIT */
/*
 * sp-chart.h - the interface of every chart widget: one draw() through plots/
 * used both by the widget's snapshot and by export, so an exported file looks
 * like the screen.
 */
#ifndef SP_CHART_H
#define SP_CHART_H

#include <gtk/gtk.h>

#include "sp_plots.h"

G_BEGIN_DECLS

#define SP_TYPE_CHART (sp_chart_get_type())
G_DECLARE_INTERFACE(SpChart, sp_chart, SP, CHART, GtkWidget)

struct _SpChartInterface {
    GTypeInterface parent_iface;

    /* Draw into (0, 0, w, h) with st; returns 0 or a negative SP_E* code. */
    int (*draw)(SpChart *self, cairo_t *cr, double w, double h, const sp_plot_style *st);
    /* A short name for the export file ("timeline", "rank-bars"). */
    const char *(*get_name)(SpChart *self);
};

int sp_chart_draw(SpChart *self, cairo_t *cr, double w, double h, const sp_plot_style *st);
const char *sp_chart_get_name(SpChart *self);

/* The plots style matching widget's current GTK style: dark when its text
 * colour is light, background left to GTK; region colours from the window's
 * session (sp_session_get_colors) once the widget is in a window. */
void sp_chart_style_for_widget(GtkWidget *widget, sp_plot_style *st);

/* Append the chart drawn at the widget's size to snapshot. */
void sp_chart_snapshot(SpChart *self, GtkSnapshot *snapshot);

/* Draw the chart into path (format from the extension: .png, .svg, .pdf) at
 * w x h, in the widget's light/dark style with a painted background. */
gboolean sp_chart_export(SpChart *self, const char *path, int w, int h, GError **error);

G_END_DECLS

#endif
