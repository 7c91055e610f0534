/* SPDX-License-Identifier: MIT */
/* sp-lines-page.c - the Lines page. The run model has no line samples yet
 * (a later schema adds them); until then this page is its empty state. */
#include "sp-lines-page.h"

struct _SpLinesPage {
    GtkWidget parent_instance;
    SpSession *session;
    GtkLabel *explanation;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpLinesPage, sp_lines_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void update(SpLinesPage *self)
{
    const char *region = sp_session_get_selected_region(self->session);
    g_autofree char *esc = region ? g_markup_escape_text(region, -1) : NULL;
    g_autofree char *text = g_strdup_printf(
        "This page lists, for %s%s%s, the source lines where the time went: file, line, "
        "samples, time, percent and the source text. This run was recorded without "
        "line-level sampling.",
        esc ? "<b>" : "", esc ? esc : "the selected region", esc ? "</b>" : "");
    gtk_label_set_markup(self->explanation, text);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpLinesPage *self = SP_LINES_PAGE(page);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(update), self,
                            G_CONNECT_SWAPPED);
    update(self);
}

static void page_iface_init(SpPageInterface *iface) { iface->set_session = set_session; }

static void sp_lines_page_dispose(GObject *object)
{
    SpLinesPage *self = SP_LINES_PAGE(object);
    gtk_widget_dispose_template(GTK_WIDGET(self), SP_TYPE_LINES_PAGE);
    sp_page_unparent_children(GTK_WIDGET(self));
    g_clear_object(&self->session);
    G_OBJECT_CLASS(sp_lines_page_parent_class)->dispose(object);
}

static void sp_lines_page_class_init(SpLinesPageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_lines_page_dispose;
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-lines-page.ui");
    gtk_widget_class_bind_template_child(wc, SpLinesPage, explanation);
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
}

static void sp_lines_page_init(SpLinesPage *self) { gtk_widget_init_template(GTK_WIDGET(self)); }
