/* SPDX-License-Identifier: MIT */
/* sp-ranks-page.c - the Ranks page: one region per rank, the rank x region
 * heat map, and the waiting in MPI per rank by pattern (runs with MPI
 * messages: sp_waits.h). */
#include "sp-ranks-page.h"

#include "sp-chart-view.h"
#include "sp-viewer-format.h"
#include "sp-viewer-text.h"
#include "sp_waits.h"

struct _SpRanksPage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    SpRunDocument *doc;
    int region;
    sp_rank_metric metric;
    SpChart *current_chart;

    GtkLabel *region_label;
    GtkDropDown *metric_dropdown;
    SpChartView *rank_bars, *heatmap, *waits;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpRanksPage, sp_ranks_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpRanksPage *self);

static int draw_bars(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpRanksPage *self = data;
    if (!self->doc || self->region < 0)
        return sp_plot_draw_empty(cr, w, h, st, self->doc ? "No calls recorded" : "No run loaded");
    return sp_plot_rank_bars(cr, w, h, sp_run_document_get_run(self->doc), self->region,
                             self->metric, st);
}

static int draw_heatmap(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpRanksPage *self = data;
    if (!self->doc)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    return sp_plot_rank_heatmap(cr, w, h, sp_run_document_get_run(self->doc), self->metric, NULL,
                                0, st);
}

static int draw_waits(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpRanksPage *self = data;
    if (!self->doc)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    return sp_plot_waits(cr, w, h, sp_run_document_get_waits(self->doc), st);
}

static void update(SpRanksPage *self)
{
    int id = sp_session_get_selected_id(self->session, self->doc);
    self->region = id >= 0 ? id : self->doc ? sp_run_document_get_top_region(self->doc) : -1;
    if (self->region >= 0) {
        g_autofree char *name =
            g_markup_escape_text(sp_run_document_get_region_label(self->doc, self->region), -1);
        g_autofree char *text = g_strdup_printf(
            "%s: <b>%s</b> · imbalance %.2f× (max ÷ mean of the per-rank totals)%s",
            id >= 0 ? "Selected region" : "Region with the most own time", name,
            sp_run_document_get_imbalance(self->doc, self->region),
            id >= 0 ? "" : " · select a region on any page to show it here");
        gtk_label_set_markup(self->region_label, text);
    } else {
        gtk_label_set_text(self->region_label, "");
    }
    gtk_widget_queue_draw(GTK_WIDGET(self->rank_bars));
    gtk_widget_queue_draw(GTK_WIDGET(self->heatmap));
    gtk_widget_queue_draw(GTK_WIDGET(self->waits));
}

static void on_base(SpSession *session, GParamSpec *pspec, SpRanksPage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    g_set_object(&self->doc, sp_session_get_base(session));
    update(self);
}

static void on_metric(GtkDropDown *dropdown, GParamSpec *pspec, SpRanksPage *self)
{
    static const sp_rank_metric metrics[] = {SP_RANK_TOTAL, SP_RANK_MEAN, SP_RANK_OWN,
                                             SP_RANK_CALLS};
    guint i = gtk_drop_down_get_selected(dropdown);
    self->metric = i < G_N_ELEMENTS(metrics) ? metrics[i] : SP_RANK_TOTAL;
    update(self);
}

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpRanksPage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        on_base(self->session, NULL, self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpRanksPage *self = SP_RANKS_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_base), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(update), self,
                            G_CONNECT_SWAPPED);
    on_base(session, NULL, self);
}

static SpChart *get_chart(SpPage *page)
{
    SpRanksPage *self = SP_RANKS_PAGE(page);
    return self->current_chart ? self->current_chart : SP_CHART(self->rank_bars);
}

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
}

int sp_ranks_page_get_region(SpRanksPage *self)
{
    refresh_if_owed(self);
    return self->region;
}

static void sp_ranks_page_dispose(GObject *object)
{
    SpRanksPage *self = SP_RANKS_PAGE(object);
    gtk_widget_dispose_template(GTK_WIDGET(self), SP_TYPE_RANKS_PAGE);
    sp_page_unparent_children(GTK_WIDGET(self));
    g_clear_object(&self->session);
    g_clear_object(&self->doc);
    G_OBJECT_CLASS(sp_ranks_page_parent_class)->dispose(object);
}

static void sp_ranks_page_class_init(SpRanksPageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_ranks_page_dispose;
    g_type_ensure(SP_TYPE_CHART_VIEW);
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-ranks-page.ui");
    gtk_widget_class_bind_template_child(wc, SpRanksPage, region_label);
    gtk_widget_class_bind_template_child(wc, SpRanksPage, metric_dropdown);
    gtk_widget_class_bind_template_child(wc, SpRanksPage, rank_bars);
    gtk_widget_class_bind_template_child(wc, SpRanksPage, heatmap);
    gtk_widget_class_bind_template_child(wc, SpRanksPage, waits);
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
}

static void sp_ranks_page_init(SpRanksPage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->region = -1;
    self->metric = SP_RANK_TOTAL;
    sp_chart_view_set_draw_func(self->rank_bars, draw_bars, self, NULL);
    sp_chart_view_set_draw_func(self->heatmap, draw_heatmap, self, NULL);
    sp_chart_view_set_draw_func(self->waits, draw_waits, self, NULL);
    sp_page_track_chart(GTK_WIDGET(self->rank_bars), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->heatmap), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->waits), &self->current_chart);
    g_signal_connect(self->metric_dropdown, "notify::selected", G_CALLBACK(on_metric), self);
}
