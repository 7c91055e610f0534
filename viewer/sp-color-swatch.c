/* SPDX-License-Identifier: MIT */
/* sp-color-swatch.c - a region colour chip for tables. */
#include "sp-color-swatch.h"

#include "sp-chart.h"

struct _SpColorSwatch {
    GtkWidget parent_instance;
    char *region;
};

G_DEFINE_FINAL_TYPE(SpColorSwatch, sp_color_swatch, GTK_TYPE_WIDGET)

#define SWATCH_SIZE 12

static void sp_color_swatch_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    SpColorSwatch *self = SP_COLOR_SWATCH(widget);
    if (!self->region)
        return;
    sp_plot_style st;
    sp_chart_style_for_widget(widget, &st);
    sp_rgba c = sp_plot_color_in(st.colors, self->region, st.dark);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    graphene_rect_t r = GRAPHENE_RECT_INIT((w - SWATCH_SIZE) / 2.0f, (h - SWATCH_SIZE) / 2.0f,
                                           SWATCH_SIZE, SWATCH_SIZE);
    GskRoundedRect rr;
    gsk_rounded_rect_init_from_rect(&rr, &r, 3);
    gtk_snapshot_push_rounded_clip(snapshot, &rr);
    gtk_snapshot_append_color(snapshot, &(GdkRGBA){(float)c.r, (float)c.g, (float)c.b, 1}, &r);
    gtk_snapshot_pop(snapshot);
}

static void sp_color_swatch_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min,
                                    int *nat, int *min_base, int *nat_base)
{
    *min = *nat = SWATCH_SIZE;
}

static void sp_color_swatch_finalize(GObject *object)
{
    g_free(SP_COLOR_SWATCH(object)->region);
    G_OBJECT_CLASS(sp_color_swatch_parent_class)->finalize(object);
}

static void sp_color_swatch_class_init(SpColorSwatchClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = sp_color_swatch_finalize;
    wc->snapshot = sp_color_swatch_snapshot;
    wc->measure = sp_color_swatch_measure;
    gtk_widget_class_set_css_name(wc, "swatch");
}

static void sp_color_swatch_init(SpColorSwatch *self)
{
    gtk_widget_set_valign(GTK_WIDGET(self), GTK_ALIGN_CENTER);
}

GtkWidget *sp_color_swatch_new(void) { return g_object_new(SP_TYPE_COLOR_SWATCH, NULL); }

void sp_color_swatch_set_region(SpColorSwatch *self, const char *name)
{
    if (g_strcmp0(self->region, name) == 0)
        return;
    g_free(self->region);
    self->region = g_strdup(name);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}
