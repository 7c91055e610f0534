/* SPDX-License-Identifier: MIT */
/* sp-page.c - the page interface. */
#include "sp-page.h"

G_DEFINE_INTERFACE(SpPage, sp_page, GTK_TYPE_WIDGET)

static void sp_page_default_init(SpPageInterface *iface) {}

void sp_page_set_session(SpPage *self, SpSession *session)
{
    g_return_if_fail(SP_IS_PAGE(self));
    SP_PAGE_GET_IFACE(self)->set_session(self, session);
}

SpChart *sp_page_get_chart(SpPage *self)
{
    SpPageInterface *iface = SP_PAGE_GET_IFACE(self);
    return iface->get_chart ? iface->get_chart(self) : NULL;
}

gboolean sp_page_focus_search(SpPage *self)
{
    SpPageInterface *iface = SP_PAGE_GET_IFACE(self);
    return iface->focus_search ? iface->focus_search(self) : FALSE;
}

static void on_chart_pressed(GtkGestureClick *gesture, int n, double x, double y, SpChart **slot)
{
    *slot = SP_CHART(gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture)));
}

void sp_page_track_chart(GtkWidget *chart, SpChart **slot)
{
    /* Capture phase and never claimed: the chart's own gestures still run. */
    GtkGesture *click = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), 0);
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(click), GTK_PHASE_CAPTURE);
    g_signal_connect(click, "pressed", G_CALLBACK(on_chart_pressed), slot);
    gtk_widget_add_controller(chart, GTK_EVENT_CONTROLLER(click));
}

void sp_page_unparent_children(GtkWidget *widget)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(widget)))
        gtk_widget_unparent(child);
}

gboolean sp_page_lazy_skip(GtkWidget *page, SpPageLazy *lazy)
{
    if (!lazy->filled && !gtk_widget_get_mapped(page)) {
        lazy->owed = TRUE;
        return TRUE;
    }
    lazy->owed = FALSE;
    lazy->filled = TRUE;
    return FALSE;
}

gboolean sp_page_lazy_owed(SpPageLazy *lazy)
{
    if (!lazy->owed)
        return FALSE;
    lazy->filled = TRUE; /* the refresh about to run must not skip */
    return TRUE;
}
