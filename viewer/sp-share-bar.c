/* SPDX-License-Identifier: MIT */
/* sp-share-bar.c - a share bar drawn with the region palette, so a table's
 * hot rows stand out in the same colour the charts give the region. */
#include "sp-share-bar.h"

#include "sp-chart.h"

struct _SpShareBar {
    GtkWidget parent_instance;
    double fraction;
    char *region;
};

G_DEFINE_FINAL_TYPE(SpShareBar, sp_share_bar, GTK_TYPE_WIDGET)

#define BAR_HEIGHT 8
#define BAR_MIN_WIDTH 40

static void sp_share_bar_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    SpShareBar *self = SP_SHARE_BAR(widget);
    sp_plot_style st;
    sp_chart_style_for_widget(widget, &st);
    sp_rgba c = self->region ? sp_plot_color_in(st.colors, self->region, st.dark)
                             : (sp_rgba){0.21, 0.52, 0.89, 1};
    float w = (float)gtk_widget_get_width(widget), h = (float)gtk_widget_get_height(widget);
    float y = (h - BAR_HEIGHT) / 2;
    graphene_rect_t track = GRAPHENE_RECT_INIT(0, y, w, BAR_HEIGHT);
    GskRoundedRect rr;
    gsk_rounded_rect_init_from_rect(&rr, &track, BAR_HEIGHT / 2.0f);
    gtk_snapshot_push_rounded_clip(snapshot, &rr);
    GdkRGBA fg = st.dark ? (GdkRGBA){1, 1, 1, 0.10f} : (GdkRGBA){0, 0, 0, 0.08f};
    gtk_snapshot_append_color(snapshot, &fg, &track);
    /* At least a sliver, so a sampled line never looks like an empty one. */
    float fill = self->fraction > 0 ? MAX(2.0f, (float)self->fraction * w) : 0;
    graphene_rect_t bar = GRAPHENE_RECT_INIT(0, y, fill, BAR_HEIGHT);
    gtk_snapshot_append_color(snapshot, &(GdkRGBA){(float)c.r, (float)c.g, (float)c.b, 1}, &bar);
    gtk_snapshot_pop(snapshot);
}

static void sp_share_bar_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min,
                                 int *nat, int *min_base, int *nat_base)
{
    *min = *nat = o == GTK_ORIENTATION_HORIZONTAL ? BAR_MIN_WIDTH : BAR_HEIGHT;
}

static void sp_share_bar_finalize(GObject *object)
{
    g_free(SP_SHARE_BAR(object)->region);
    G_OBJECT_CLASS(sp_share_bar_parent_class)->finalize(object);
}

static void sp_share_bar_class_init(SpShareBarClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = sp_share_bar_finalize;
    wc->snapshot = sp_share_bar_snapshot;
    wc->measure = sp_share_bar_measure;
    gtk_widget_class_set_css_name(wc, "sharebar");
}

static void sp_share_bar_init(SpShareBar *self)
{
    gtk_widget_set_valign(GTK_WIDGET(self), GTK_ALIGN_CENTER);
    gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
}

GtkWidget *sp_share_bar_new(void) { return g_object_new(SP_TYPE_SHARE_BAR, NULL); }

void sp_share_bar_set(SpShareBar *self, double fraction, const char *region)
{
    self->fraction = CLAMP(fraction, 0.0, 1.0);
    if (g_strcmp0(self->region, region) != 0) {
        g_free(self->region);
        self->region = g_strdup(region);
    }
    gtk_widget_queue_draw(GTK_WIDGET(self));
}
