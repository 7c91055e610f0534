/* SPDX-License-Identifier: MIT */
/* sp-chart.c - the chart interface: drawing through plots/ for the screen and
 * for export. */
#include "sp-chart.h"

#include "sp-viewer-error.h"
#include "sp-viewer-window.h"

G_DEFINE_INTERFACE(SpChart, sp_chart, GTK_TYPE_WIDGET)

static void sp_chart_default_init(SpChartInterface *iface) {}

int sp_chart_draw(SpChart *self, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    g_return_val_if_fail(SP_IS_CHART(self), SP_EINVAL);
    return SP_CHART_GET_IFACE(self)->draw(self, cr, w, h, st);
}

const char *sp_chart_get_name(SpChart *self)
{
    SpChartInterface *iface = SP_CHART_GET_IFACE(self);
    return iface->get_name ? iface->get_name(self) : "chart";
}

void sp_chart_style_for_widget(GtkWidget *widget, sp_plot_style *st)
{
    sp_plot_style_init(st);
    GdkRGBA fg;
    /* gtk_widget_get_color() is 4.10+; on 4.8 the style context says it. */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
    G_GNUC_END_IGNORE_DEPRECATIONS
    st->dark = 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
    /* The window's region colours (one map for the runs it shows), so every
     * chart, swatch and export agrees. */
    GtkRoot *root = gtk_widget_get_root(widget);
    if (root && SP_IS_VIEWER_WINDOW(root))
        st->colors = sp_session_get_colors(sp_viewer_window_get_session(SP_VIEWER_WINDOW(root)));
}

void sp_chart_snapshot(SpChart *self, GtkSnapshot *snapshot)
{
    GtkWidget *widget = GTK_WIDGET(self);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    if (w <= 0 || h <= 0)
        return;
    sp_plot_style st;
    sp_chart_style_for_widget(widget, &st);
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
    if (sp_chart_draw(self, cr, w, h, &st) != 0)
        g_debug("%s: draw failed: %s", sp_chart_get_name(self), sp_last_error());
    cairo_destroy(cr);
}

typedef struct {
    SpChart *chart;
    sp_plot_style style;
} ExportData;

static int export_draw(cairo_t *cr, double w, double h, void *data)
{
    ExportData *d = data;
    return sp_chart_draw(d->chart, cr, w, h, &d->style);
}

gboolean sp_chart_export(SpChart *self, const char *path, int w, int h, GError **error)
{
    g_return_val_if_fail(SP_IS_CHART(self), FALSE);
    sp_plot_format fmt;
    if (sp_plot_format_from_path(path, &fmt) != 0) {
        sp_viewer_set_error(error, SP_EINVAL, sp_last_error());
        return FALSE;
    }
    if (w <= 0 || h <= 0) {
        w = MAX(gtk_widget_get_width(GTK_WIDGET(self)), 320);
        h = MAX(gtk_widget_get_height(GTK_WIDGET(self)), 200);
    }
    ExportData d = {.chart = self};
    sp_chart_style_for_widget(GTK_WIDGET(self), &d.style);
    int rc = sp_plot_export(path, fmt, w, h, export_draw, &d);
    if (rc != 0) {
        sp_viewer_set_error(error, rc, sp_last_error());
        return FALSE;
    }
    return TRUE;
}
