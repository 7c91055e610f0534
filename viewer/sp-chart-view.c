/* SPDX-License-Identifier: MIT */
/* sp-chart-view.c - a widget that draws one plots/ chart, on the main thread
 * or (threaded) in a worker thread into a texture. */
#include "sp-chart-view.h"

#include "sp-viewer-screenshot.h"

/* The draw function and its data, shared with drawings in progress. */
typedef struct {
    SpChartDrawFunc func;
    gpointer data;
    GDestroyNotify destroy;
} Closure;

static void closure_clear(gpointer p)
{
    Closure *c = p;
    if (c->destroy && c->data)
        c->destroy(c->data);
}

static void closure_unref(Closure *c)
{
    if (c)
        g_atomic_rc_box_release_full(c, closure_clear);
}

/* What a texture was drawn for: a new one is needed when any differs. */
typedef struct {
    int w, h, scale;
    gboolean dark;
    guint generation;
} Key;

struct _SpChartView {
    GtkWidget parent_instance;
    Closure *closure;
    guint generation; /* bumped by every set_draw_func */
    char *name;
    gboolean threaded;

    /* Threaded drawing. */
    GdkTexture *texture;
    Key texture_key;
    gboolean busy;    /* a worker is drawing */
    gboolean stale;   /* ... for a key that is no longer current */
};

static void chart_iface_init(SpChartInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpChartView, sp_chart_view, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_CHART, chart_iface_init))

enum { PROP_0, PROP_NAME, PROP_THREADED, N_PROPS };
static GParamSpec *properties[N_PROPS];

static int closure_draw(Closure *c, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    if (!c || !c->func)
        return sp_plot_draw_empty(cr, w, h, st, "Nothing to show");
    return c->func(cr, w, h, st, c->data);
}

static int chart_draw(SpChart *chart, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    return closure_draw(SP_CHART_VIEW(chart)->closure, cr, w, h, st);
}

static const char *chart_get_name(SpChart *chart)
{
    SpChartView *self = SP_CHART_VIEW(chart);
    return self->name ? self->name : "chart";
}

static void chart_iface_init(SpChartInterface *iface)
{
    iface->draw = chart_draw;
    iface->get_name = chart_get_name;
}

/* ---- threaded drawing ---- */

typedef struct {
    Closure *closure;
    sp_plot_style style;
    Key key;
} Job;

static void job_free(Job *job)
{
    closure_unref(job->closure);
    g_free(job);
}

static void draw_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    Job *job = data;
    int pw = job->key.w * job->key.scale, ph = job->key.h * job->key.scale;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, job->key.scale, job->key.scale);
    if (closure_draw(job->closure, cr, job->key.w, job->key.h, &job->style) != 0)
        g_debug("chart: draw failed: %s", sp_last_error());
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    /* Cairo's ARGB32 is premultiplied BGRA in memory on little endian, which
     * is what GDK_MEMORY_DEFAULT means on every platform. */
    int stride = cairo_image_surface_get_stride(surface);
    GBytes *bytes = g_bytes_new_with_free_func(cairo_image_surface_get_data(surface),
                                               (gsize)stride * ph,
                                               (GDestroyNotify)cairo_surface_destroy, surface);
    GdkTexture *texture = gdk_memory_texture_new(pw, ph, GDK_MEMORY_DEFAULT, bytes, stride);
    g_bytes_unref(bytes);
    g_task_return_pointer(task, texture, g_object_unref);
}

static void current_key(SpChartView *self, Key *key, sp_plot_style *st)
{
    GtkWidget *w = GTK_WIDGET(self);
    sp_chart_style_for_widget(w, st);
    key->w = gtk_widget_get_width(w);
    key->h = gtk_widget_get_height(w);
    key->scale = MAX(gtk_widget_get_scale_factor(w), 1);
    key->dark = st->dark;
    key->generation = self->generation;
}

static gboolean key_equal(const Key *a, const Key *b)
{
    return a->w == b->w && a->h == b->h && a->scale == b->scale && a->dark == b->dark &&
           a->generation == b->generation;
}

static void start_draw(SpChartView *self);

static void on_drawn(GObject *source, GAsyncResult *result, gpointer data)
{
    SpChartView *self = SP_CHART_VIEW(source);
    Job *job = g_task_get_task_data(G_TASK(result));
    GdkTexture *texture = g_task_propagate_pointer(G_TASK(result), NULL);
    sp_viewer_work_end();
    self->busy = FALSE;
    if (texture) {
        g_set_object(&self->texture, texture);
        self->texture_key = job->key;
        g_object_unref(texture);
    }
    /* Disposed meanwhile (no closure left): nothing more to do. */
    if (self->closure && self->stale)
        start_draw(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void start_draw(SpChartView *self)
{
    Job *job = g_new0(Job, 1);
    current_key(self, &job->key, &job->style);
    if (job->key.w <= 0 || job->key.h <= 0) {
        g_free(job);
        return;
    }
    job->closure = self->closure ? g_atomic_rc_box_acquire(self->closure) : NULL;
    self->busy = TRUE;
    self->stale = FALSE;
    sp_viewer_work_begin();
    GTask *task = g_task_new(self, NULL, on_drawn, NULL);
    g_task_set_task_data(task, job, (GDestroyNotify)job_free);
    g_task_run_in_thread(task, draw_thread);
    g_object_unref(task);
}

static void snapshot_threaded(SpChartView *self, GtkSnapshot *snapshot)
{
    Key key;
    sp_plot_style st;
    current_key(self, &key, &st);
    if (key.w <= 0 || key.h <= 0)
        return;
    if (!self->texture || !key_equal(&key, &self->texture_key)) {
        if (!self->busy)
            start_draw(self);
        else
            self->stale = TRUE;
    }
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, key.w, key.h);
    if (self->texture) {
        /* The last drawing, stretched to the new size until the new one is
         * ready (resizing stays smooth whatever the chart costs). */
        gtk_snapshot_append_texture(snapshot, self->texture, &bounds);
    } else {
        cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &bounds);
        sp_plot_draw_empty(cr, key.w, key.h, &st, "Drawing…");
        cairo_destroy(cr);
    }
}

/* ---- GtkWidget ---- */

static void sp_chart_view_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    SpChartView *self = SP_CHART_VIEW(widget);
    if (self->threaded)
        snapshot_threaded(self, snapshot);
    else
        sp_chart_snapshot(SP_CHART(widget), snapshot);
}

static void sp_chart_view_dispose(GObject *object)
{
    SpChartView *self = SP_CHART_VIEW(object);
    g_clear_pointer(&self->closure, closure_unref);
    g_clear_object(&self->texture);
    G_OBJECT_CLASS(sp_chart_view_parent_class)->dispose(object);
}

static void sp_chart_view_finalize(GObject *object)
{
    g_free(SP_CHART_VIEW(object)->name);
    G_OBJECT_CLASS(sp_chart_view_parent_class)->finalize(object);
}

static void sp_chart_view_get_property(GObject *object, guint id, GValue *value,
                                       GParamSpec *pspec)
{
    SpChartView *self = SP_CHART_VIEW(object);
    switch (id) {
    case PROP_NAME: g_value_set_string(value, self->name); break;
    case PROP_THREADED: g_value_set_boolean(value, self->threaded); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void sp_chart_view_set_property(GObject *object, guint id, const GValue *value,
                                       GParamSpec *pspec)
{
    SpChartView *self = SP_CHART_VIEW(object);
    switch (id) {
    case PROP_NAME: sp_chart_view_set_name(self, g_value_get_string(value)); break;
    case PROP_THREADED: sp_chart_view_set_threaded(self, g_value_get_boolean(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void sp_chart_view_class_init(SpChartViewClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    oc->dispose = sp_chart_view_dispose;
    oc->finalize = sp_chart_view_finalize;
    oc->get_property = sp_chart_view_get_property;
    oc->set_property = sp_chart_view_set_property;
    wc->snapshot = sp_chart_view_snapshot;
    properties[PROP_NAME] = g_param_spec_string("name", NULL, NULL, NULL,
                                                G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    properties[PROP_THREADED] = g_param_spec_boolean("threaded", NULL, NULL, FALSE,
                                                     G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(oc, N_PROPS, properties);
    gtk_widget_class_set_css_name(wc, "chart");
}

static void sp_chart_view_init(SpChartView *self)
{
    gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
    gtk_widget_set_vexpand(GTK_WIDGET(self), TRUE);
    gtk_widget_set_size_request(GTK_WIDGET(self), 200, 140);
}

GtkWidget *sp_chart_view_new(void) { return g_object_new(SP_TYPE_CHART_VIEW, NULL); }

void sp_chart_view_set_draw_func(SpChartView *self, SpChartDrawFunc func, gpointer user_data,
                                 GDestroyNotify destroy)
{
    g_return_if_fail(SP_IS_CHART_VIEW(self));
    Closure *c = g_atomic_rc_box_new0(Closure);
    c->func = func;
    c->data = user_data;
    c->destroy = destroy;
    closure_unref(self->closure);
    self->closure = c;
    self->generation++;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sp_chart_view_set_name(SpChartView *self, const char *name)
{
    g_free(self->name);
    self->name = g_strdup(name);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_NAME]);
}

void sp_chart_view_set_threaded(SpChartView *self, gboolean threaded)
{
    if (self->threaded == !!threaded)
        return;
    self->threaded = !!threaded;
    g_clear_object(&self->texture);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_THREADED]);
}
