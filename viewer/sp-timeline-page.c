/* SPDX-License-Identifier: MIT */
/* sp-timeline-page.c - the Timeline page. */
#include "sp-timeline-page.h"

#include "sp-timeline-messages.h"
#include "sp_waits.h"
#include "sp-viewer-format.h"
#include "sp-viewer-text.h"

struct _SpTimelinePage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    SpTimelineChart *chart;
    GtkScrollbar *hscrollbar, *vscrollbar;
    GtkLabel *window_label, *status_label;
    GtkToggleButton *overview_button, *messages_button;
    gboolean syncing;
    /* The MPI message lines of the visible window (the chart borrows them). */
    sp_timeline_arrow *arrows;
    size_t narrows, nmessages_in_window;
    char *selected_call_text;   /* markup of the last clicked call */
    char *selected_call_region; /* and its region */
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpTimelinePage, sp_timeline_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpTimelinePage *self);

static void update_window_label(SpTimelinePage *self)
{
    SpRunDocument *doc = sp_timeline_chart_get_document(self->chart);
    if (!doc) {
        gtk_label_set_text(self->window_label, "");
        return;
    }
    gint64 t0, t1;
    sp_timeline_chart_get_window(self->chart, &t0, &t1);
    g_autofree char *a = sp_format_duration((double)t0 * 1e-9);
    g_autofree char *b = sp_format_duration((double)t1 * 1e-9);
    g_autofree char *span = sp_format_duration((double)(t1 - t0) * 1e-9);
    g_autofree char *msgs = NULL;
    if (self->nmessages_in_window > self->narrows)
        msgs = g_strdup_printf("  ·  %zu of %zu messages drawn", self->narrows,
                               self->nmessages_in_window);
    else if (self->narrows)
        msgs = g_strdup_printf("  ·  %zu messages", self->narrows);
    g_autofree char *text = g_strdup_printf("%s – %s  (%s shown)%s", a, b, span, msgs ? msgs : "");
    gtk_label_set_text(self->window_label, text);
}

static void update_status(SpTimelinePage *self)
{
    const char *region = self->session ? sp_session_get_selected_region(self->session) : NULL;
    if (self->selected_call_text) {
        /* One line: the tooltip text with its line breaks as separators. */
        g_auto(GStrv) lines = g_strsplit(self->selected_call_text, "\n", -1);
        g_autofree char *joined = g_strjoinv("   ·   ", lines);
        gtk_label_set_markup(self->status_label, joined);
    } else if (region) {
        g_autofree char *esc = sp_viewer_text_markup(region);
        g_autofree char *text = g_strdup_printf(
            "Selected region: <b>%s</b> — its calls are highlighted. Press Esc or click empty "
            "space to clear.", esc);
        gtk_label_set_markup(self->status_label, text);
    } else {
        gtk_label_set_text(self->status_label,
                           "Click a call to select its region on every page; hover for details.");
    }
}

static void on_call_activated(SpTimelineChart *chart, gboolean selected, SpTimelinePage *self)
{
    g_clear_pointer(&self->selected_call_text, g_free);
    g_clear_pointer(&self->selected_call_region, g_free);
    SpRunDocument *doc = sp_timeline_chart_get_document(chart);
    int region = -1;
    if (!doc || !selected || !sp_timeline_chart_get_selected(chart, NULL, &region) ||
        region < 0) {
        sp_session_set_selected_region(self->session, NULL);
        update_status(self);
        return;
    }
    const sp_run *run = sp_run_document_get_run(doc);
    self->selected_call_text = g_strdup(sp_timeline_chart_get_selected_text(chart));
    self->selected_call_region = g_strdup(run->region_names[region]);
    sp_session_set_selected_region(self->session, self->selected_call_region);
    update_status(self);
}

/* The overview button shows what is drawn; pressing it switches. */
static void update_overview_button(SpTimelinePage *self)
{
    gboolean ov = sp_timeline_chart_is_overview(self->chart);
    self->syncing = TRUE;
    gtk_toggle_button_set_active(self->overview_button, ov);
    self->syncing = FALSE;
}

static void on_overview_toggled(GtkToggleButton *button, SpTimelinePage *self)
{
    if (self->syncing)
        return;
    sp_timeline_chart_set_lanes(self->chart, gtk_toggle_button_get_active(button)
                                                 ? SP_TIMELINE_LANES_OVERVIEW
                                                 : SP_TIMELINE_LANES_DETAIL);
}

/* The message lines of the visible window, when the run has messages and
 * the button shows them (the overview draws none: plots/ sp_timeline_draw). */
static void update_messages(SpTimelinePage *self)
{
    SpRunDocument *doc = sp_timeline_chart_get_document(self->chart);
    const sp_waits *w = doc ? sp_run_document_get_waits(doc) : NULL;
    gtk_widget_set_visible(GTK_WIDGET(self->messages_button), w && w->nmessages);
    sp_timeline_arrow *old = self->arrows;
    self->arrows = NULL;
    self->narrows = self->nmessages_in_window = 0;
    if (w && gtk_toggle_button_get_active(self->messages_button)) {
        gint64 t0, t1;
        sp_timeline_chart_get_window(self->chart, &t0, &t1);
        self->narrows =
            sp_timeline_message_lines(doc, sp_timeline_chart_get_timeline(self->chart), t0, t1,
                                      &self->arrows, &self->nmessages_in_window);
    }
    sp_timeline_chart_set_arrows(self->chart, self->arrows, self->narrows);
    g_free(old); /* after the chart let go of it */
}

static void on_messages_toggled(GtkToggleButton *button, SpTimelinePage *self)
{
    update_messages(self);
    update_window_label(self);
}

void sp_timeline_page_set_show_messages(SpTimelinePage *self, gboolean show)
{
    refresh_if_owed(self);
    gtk_toggle_button_set_active(self->messages_button, show);
}

static void on_view_changed(SpTimelineChart *chart, SpTimelinePage *self)
{
    update_messages(self);
    update_window_label(self);
    update_overview_button(self);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpTimelinePage *self)
{
    SpRunDocument *doc = sp_session_get_base(session);
    int id = sp_session_get_selected_id(session, doc);
    sp_timeline_chart_set_highlight_region(self->chart, id);
    /* A selection made elsewhere replaces the clicked call's details. */
    if (g_strcmp0(self->selected_call_region, sp_session_get_selected_region(session)) != 0) {
        g_clear_pointer(&self->selected_call_text, g_free);
        g_clear_pointer(&self->selected_call_region, g_free);
    }
    update_status(self);
}

static void on_base(SpSession *session, GParamSpec *pspec, SpTimelinePage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    g_clear_pointer(&self->selected_call_text, g_free);
    g_clear_pointer(&self->selected_call_region, g_free);
    sp_timeline_chart_set_document(self->chart, sp_session_get_base(session));
    on_selected_region(session, NULL, self);
}

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpTimelinePage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        on_base(self->session, NULL, self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpTimelinePage *self = SP_TIMELINE_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_base), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(on_selected_region),
                            self, 0);
    on_base(session, NULL, self);
}

static SpChart *get_chart(SpPage *page) { return SP_CHART(SP_TIMELINE_PAGE(page)->chart); }

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
}

SpTimelineChart *sp_timeline_page_get_chart(SpTimelinePage *self)
{
    refresh_if_owed(self);
    return self->chart;
}

void sp_timeline_page_zoom(SpTimelinePage *self, double factor)
{
    refresh_if_owed(self);
    if (factor <= 0)
        sp_timeline_chart_zoom_to_fit(self->chart);
    else
        sp_timeline_chart_zoom(self->chart, factor);
}

static void action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
    SpTimelinePage *self = SP_TIMELINE_PAGE(widget);
    sp_timeline_page_zoom(self, g_str_equal(name, "timeline.zoom-in")    ? 1.5
                                : g_str_equal(name, "timeline.zoom-out") ? 1 / 1.5
                                                                         : 0);
    gtk_widget_grab_focus(GTK_WIDGET(self->chart));
}

static void sp_timeline_page_dispose(GObject *object)
{
    SpTimelinePage *self = SP_TIMELINE_PAGE(object);
    gtk_widget_dispose_template(GTK_WIDGET(self), SP_TYPE_TIMELINE_PAGE);
    sp_page_unparent_children(GTK_WIDGET(self));
    g_clear_object(&self->session);
    g_clear_pointer(&self->arrows, g_free); /* the chart went with the template */
    g_clear_pointer(&self->selected_call_text, g_free);
    g_clear_pointer(&self->selected_call_region, g_free);
    G_OBJECT_CLASS(sp_timeline_page_parent_class)->dispose(object);
}

static void sp_timeline_page_class_init(SpTimelinePageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_timeline_page_dispose;
    g_type_ensure(SP_TYPE_TIMELINE_CHART);
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-timeline-page.ui");
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, chart);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, hscrollbar);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, vscrollbar);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, window_label);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, status_label);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, overview_button);
    gtk_widget_class_bind_template_child(wc, SpTimelinePage, messages_button);
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_install_action(wc, "timeline.zoom-in", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "timeline.zoom-out", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "timeline.zoom-fit", NULL, action_zoom);
}

static void sp_timeline_page_init(SpTimelinePage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    sp_timeline_chart_attach_scrollbar(self->chart, self->hscrollbar);
    sp_timeline_chart_attach_scrollbar(self->chart, self->vscrollbar);
    g_signal_connect(self->chart, "call-activated", G_CALLBACK(on_call_activated), self);
    g_signal_connect(self->chart, "view-changed", G_CALLBACK(on_view_changed), self);
    g_signal_connect(self->overview_button, "toggled", G_CALLBACK(on_overview_toggled), self);
    g_signal_connect(self->messages_button, "toggled", G_CALLBACK(on_messages_toggled), self);
    update_status(self);
}
