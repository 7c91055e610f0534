/* SPDX-License-Identifier: MIT */
/* sp-flame-chart.c - the interactive icicle / flame graph. */
#include "sp-flame-chart.h"

#include "sp-viewer-format.h"

struct _SpFlameChart {
    GtkWidget parent_instance;
    SpRunDocument *doc;
    sp_calltree_view view;
};

static void chart_iface_init(SpChartInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpFlameChart, sp_flame_chart, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_CHART, chart_iface_init))

enum { SIGNAL_NODE_ACTIVATED, SIGNAL_ROOT_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static int chart_draw(SpChart *chart, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    SpFlameChart *self = SP_FLAME_CHART(chart);
    if (!self->doc)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    /* the per-rank labels from the figures computed at load, not per frame */
    self->view.figures = sp_run_document_get_figures(self->doc);
    return sp_plot_calltree(cr, w, h, sp_run_document_get_run(self->doc), &self->view, st);
}

static const char *chart_get_name(SpChart *chart)
{
    return SP_FLAME_CHART(chart)->view.flame ? "flame-graph" : "icicle";
}

static void chart_iface_init(SpChartInterface *iface)
{
    iface->draw = chart_draw;
    iface->get_name = chart_get_name;
}

static int hit(SpFlameChart *self, double x, double y)
{
    if (!self->doc)
        return -1;
    sp_plot_style st;
    sp_chart_style_for_widget(GTK_WIDGET(self), &st);
    return sp_plot_calltree_hit(sp_run_document_get_run(self->doc),
                                gtk_widget_get_width(GTK_WIDGET(self)),
                                gtk_widget_get_height(GTK_WIDGET(self)), &self->view, &st, x, y);
}

static void sp_flame_chart_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    sp_chart_snapshot(SP_CHART(widget), snapshot);
}

static void on_click(GtkGestureClick *gesture, int n_press, double x, double y, SpFlameChart *self)
{
    int node = hit(self, x, y);
    gtk_widget_grab_focus(GTK_WIDGET(self));
    if (n_press == 2 && node >= 0) {
        sp_flame_chart_set_root(self, node);
        return;
    }
    if (n_press != 1)
        return;
    /* Clicking an ancestor bar of a zoomed root zooms back out to it. */
    if (node >= 0 && self->view.root_node > 0) {
        const sp_tree *tree = &sp_run_document_get_run(self->doc)->tree;
        for (int a = tree->nodes[self->view.root_node].parent; a >= 0; a = tree->nodes[a].parent)
            if (a == node) {
                sp_flame_chart_set_root(self, node);
                break;
            }
    }
    g_signal_emit(self, signals[SIGNAL_NODE_ACTIVATED], 0, node);
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, SpFlameChart *self)
{
    gboolean wheel = gtk_event_controller_scroll_get_unit(c) == GDK_SCROLL_UNIT_WHEEL;
    self->view.scroll_y = MAX(0.0, self->view.scroll_y + (wheel ? 40 * dy : dy));
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return TRUE;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint code, GdkModifierType state,
                       SpFlameChart *self)
{
    if ((keyval == GDK_KEY_Escape || keyval == GDK_KEY_BackSpace || keyval == GDK_KEY_Home) &&
        self->view.root_node != 0) {
        sp_flame_chart_set_root(self, 0);
        return TRUE;
    }
    return FALSE;
}

char *sp_flame_chart_describe_node(SpFlameChart *self, int node)
{
    g_return_val_if_fail(SP_IS_FLAME_CHART(self), NULL);
    if (!self->doc || node <= 0)
        return NULL;
    const sp_run *run = sp_run_document_get_run(self->doc);
    if ((size_t)node >= run->tree.nnodes)
        return NULL;
    const sp_tree_node *n = &run->tree.nodes[node];
    g_autofree char *path = sp_run_document_tree_path(self->doc, node); /* escaped names */
    g_autofree char *path_esc = g_markup_escape_text(path, -1);
    g_autofree char *name =
        g_markup_escape_text(sp_run_document_get_region_label(self->doc, n->region), -1);
    g_autofree char *incl = sp_format_duration(n->incl_s);
    g_autofree char *own = sp_format_duration(n->own_s);
    g_autofree char *calls = sp_format_count(n->calls);
    return g_strdup_printf("<b>%s</b>\nInclusive: %s\nOwn: %s\nCalls: %s\n"
                           "<span size='small'>%s</span>\n"
                           "<span size='small'>Double-click to zoom in</span>",
                           name, incl, own, calls, path_esc);
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                 GtkTooltip *tooltip, SpFlameChart *self)
{
    int node = keyboard ? -1 : hit(self, x, y);
    g_autofree char *text = node > 0 ? sp_flame_chart_describe_node(self, node) : NULL;
    if (!text)
        return FALSE;
    gtk_tooltip_set_markup(tooltip, text);
    return TRUE;
}

static void sp_flame_chart_dispose(GObject *object)
{
    g_clear_object(&SP_FLAME_CHART(object)->doc);
    G_OBJECT_CLASS(sp_flame_chart_parent_class)->dispose(object);
}

static void sp_flame_chart_class_init(SpFlameChartClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_flame_chart_dispose;
    wc->snapshot = sp_flame_chart_snapshot;
    gtk_widget_class_set_css_name(wc, "flamechart");
    signals[SIGNAL_NODE_ACTIVATED] =
        g_signal_new("node-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    signals[SIGNAL_ROOT_CHANGED] =
        g_signal_new("root-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
}

static void sp_flame_chart_init(SpFlameChart *self)
{
    GtkWidget *w = GTK_WIDGET(self);
    sp_calltree_view_init(&self->view);
    self->view.highlight_region = -1;
    self->view.selected_node = -1;
    gtk_widget_set_hexpand(w, TRUE);
    gtk_widget_set_vexpand(w, TRUE);
    gtk_widget_set_size_request(w, 240, 160);
    gtk_widget_set_focusable(w, TRUE);
    gtk_widget_set_has_tooltip(w, TRUE);
    g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), self);

    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_click), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(click));
    GtkEventController *scroll =
        gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(w, scroll);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), self);
    gtk_widget_add_controller(w, keys);
}

GtkWidget *sp_flame_chart_new(void) { return g_object_new(SP_TYPE_FLAME_CHART, NULL); }

void sp_flame_chart_set_document(SpFlameChart *self, SpRunDocument *doc)
{
    if (!g_set_object(&self->doc, doc))
        return;
    self->view.root_node = 0;
    self->view.selected_node = -1;
    self->view.scroll_y = 0;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_ROOT_CHANGED], 0);
}

void sp_flame_chart_set_flame(SpFlameChart *self, gboolean flame)
{
    self->view.flame = flame;
    self->view.scroll_y = 0;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sp_flame_chart_set_highlight_region(SpFlameChart *self, int region)
{
    self->view.highlight_region = region;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sp_flame_chart_set_selected_node(SpFlameChart *self, int node)
{
    self->view.selected_node = node;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sp_flame_chart_set_root(SpFlameChart *self, int node)
{
    if (node < 0 || self->view.root_node == node)
        return;
    self->view.root_node = node;
    self->view.scroll_y = 0;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_ROOT_CHANGED], 0);
}

int sp_flame_chart_get_root(SpFlameChart *self) { return self->view.root_node; }
