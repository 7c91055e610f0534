/* SPDX-License-Identifier: MIT */
/* sp-timeline-chart.c - the interactive timeline widget. All the drawing is
 * plots/ sp_timeline_draw() and the windows it draws come from the loader;
 * this file turns input into a view and clicks into a selected call. */
#include "sp-timeline-chart.h"

#include <string.h>

#include <math.h>

#include "sp-viewer-format.h"
#include "sp-viewer-text.h"

#define MIN_SPAN_NS 200     /* deepest zoom: 200 ns across the view */
#define DRAG_THRESHOLD 4.0  /* px before a press becomes a drag */
#define ZOOM_STEP 1.5       /* +/- keys and buttons */

typedef enum { DRAG_NONE, DRAG_PAN, DRAG_SELECT } DragMode;

struct _SpTimelineChart {
    GtkWidget parent_instance;

    SpRunDocument *doc;
    SpTimelineLoader *loader;
    sp_timeline *tl;      /* the loader's */
    sp_timeline_view view;
    gint64 limit_ns;
    int selected_region;
    char *selected_text;  /* markup of the selected call */
    /* A click on a box of the index waits for its window. */
    gboolean click_pending;
    double click_x, click_y;
    sp_timeline_view click_view;

    GtkAdjustment *hadj, *vadj;
    gboolean updating_adjustments;

    /* Pointer and drag state. */
    double pointer_x, pointer_y;
    DragMode drag;
    gboolean drag_moved;
    double drag_x0, drag_y0, drag_dx, drag_dy;
    gint64 drag_t0, drag_t1;
    double drag_scroll_y;
};

static void chart_iface_init(SpChartInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpTimelineChart, sp_timeline_chart, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_CHART, chart_iface_init))

enum { SIGNAL_CALL_ACTIVATED, SIGNAL_VIEW_CHANGED, SIGNAL_WINDOWS_LOADED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- geometry helpers ---- */

static void widget_style(SpTimelineChart *self, sp_plot_style *st)
{
    sp_chart_style_for_widget(GTK_WIDGET(self), st);
}

static gint64 time_limit(SpTimelineChart *self)
{
    if (self->limit_ns > 0)
        return self->limit_ns;
    return self->tl ? sp_timeline_duration_ns(self->tl) : 0;
}

static gboolean get_geometry(SpTimelineChart *self, sp_timeline_geometry *g)
{
    int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
    if (!self->tl || w <= 0 || h <= 0)
        return FALSE;
    sp_plot_style st;
    widget_style(self, &st);
    return sp_timeline_get_geometry(self->tl, w, h, &self->view, &st, g) == 0;
}

static double x_to_ns(SpTimelineChart *self, double x)
{
    sp_plot_style st;
    widget_style(self, &st);
    return sp_timeline_x_to_ns(self->tl, gtk_widget_get_width(GTK_WIDGET(self)),
                               gtk_widget_get_height(GTK_WIDGET(self)), &self->view, &st, x);
}

static void update_adjustments(SpTimelineChart *self)
{
    gint64 limit = time_limit(self);
    sp_timeline_geometry g;
    self->updating_adjustments = TRUE;
    double span = (double)(self->view.t1_ns - self->view.t0_ns);
    gtk_adjustment_configure(self->hadj, (double)self->view.t0_ns, 0, MAX((double)limit, span),
                             span * 0.1, span * 0.9, span);
    if (get_geometry(self, &g)) {
        double page = MAX(g.data_h, 1.0);
        double upper = MAX(g.content_h, page);
        self->view.scroll_y = CLAMP(self->view.scroll_y, 0, upper - page);
        gtk_adjustment_configure(self->vadj, self->view.scroll_y, 0, upper, g.row_h,
                                 page * 0.9, page);
    } else {
        gtk_adjustment_configure(self->vadj, 0, 0, 1, 1, 1, 1);
    }
    self->updating_adjustments = FALSE;
}

/* Clamp a window to [0, limit] keeping its span when possible. */
static void clamp_window(SpTimelineChart *self, gint64 *t0, gint64 *t1)
{
    gint64 limit = time_limit(self);
    gint64 span = *t1 - *t0;
    if (limit <= 0) {
        *t0 = *t1 = 0;
        return;
    }
    span = CLAMP(span, MIN(MIN_SPAN_NS, limit), limit);
    if (*t0 < 0)
        *t0 = 0;
    if (*t0 + span > limit)
        *t0 = limit - span;
    *t1 = *t0 + span;
}

void sp_timeline_chart_set_window(SpTimelineChart *self, gint64 t0, gint64 t1)
{
    g_return_if_fail(SP_IS_TIMELINE_CHART(self));
    clamp_window(self, &t0, &t1);
    if (t0 == self->view.t0_ns && t1 == self->view.t1_ns)
        return;
    self->view.t0_ns = t0;
    self->view.t1_ns = t1;
    update_adjustments(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

void sp_timeline_chart_get_window(SpTimelineChart *self, gint64 *t0_ns, gint64 *t1_ns)
{
    *t0_ns = self->view.t0_ns;
    *t1_ns = self->view.t1_ns;
}

void sp_timeline_chart_set_time_limit(SpTimelineChart *self, gint64 limit_ns)
{
    self->limit_ns = MAX(limit_ns, 0);
    sp_timeline_chart_set_window(self, self->view.t0_ns, self->view.t1_ns);
    update_adjustments(self);
}

/* Zoom by factor keeping the time under x fixed. */
static void zoom_at(SpTimelineChart *self, double factor, double x)
{
    sp_timeline_geometry g;
    if (!self->tl || !get_geometry(self, &g) || g.data_w <= 0)
        return;
    double span = (double)(self->view.t1_ns - self->view.t0_ns);
    double frac = CLAMP((x - g.data_x) / g.data_w, 0.0, 1.0);
    double at = (double)self->view.t0_ns + frac * span;
    double nspan = MAX(span / factor, (double)MIN_SPAN_NS);
    gint64 t0 = (gint64)llround(at - frac * nspan);
    sp_timeline_chart_set_window(self, t0, t0 + (gint64)llround(nspan));
}

void sp_timeline_chart_zoom(SpTimelineChart *self, double factor)
{
    sp_timeline_geometry g;
    if (get_geometry(self, &g))
        zoom_at(self, factor, g.data_x + g.data_w / 2);
}

void sp_timeline_chart_zoom_to_fit(SpTimelineChart *self)
{
    sp_timeline_chart_set_window(self, 0, time_limit(self));
}

void sp_timeline_chart_pan(SpTimelineChart *self, double fraction)
{
    gint64 span = self->view.t1_ns - self->view.t0_ns;
    gint64 d = (gint64)llround(fraction * (double)span);
    sp_timeline_chart_set_window(self, self->view.t0_ns + d, self->view.t1_ns + d);
}

static void scroll_lanes(SpTimelineChart *self, double dy)
{
    gtk_adjustment_set_value(self->vadj, gtk_adjustment_get_value(self->vadj) + dy);
}

/* ---- chart interface ---- */

static int chart_draw(SpChart *chart, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    SpTimelineChart *self = SP_TIMELINE_CHART(chart);
    if (!self->tl)
        return sp_plot_draw_empty(cr, w, h, st, "No run loaded");
    /* The windows this view needs, asked for before drawing what is there. */
    sp_timeline_loader_update(self->loader, &self->view, w, h, st);
    return sp_timeline_draw(cr, w, h, self->tl, &self->view, st);
}

static const char *chart_get_name(SpChart *chart) { return "timeline"; }

static void chart_iface_init(SpChartInterface *iface)
{
    iface->draw = chart_draw;
    iface->get_name = chart_get_name;
}

/* ---- GtkWidget ---- */

static void sp_timeline_chart_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    SpTimelineChart *self = SP_TIMELINE_CHART(widget);
    sp_chart_snapshot(SP_CHART(self), snapshot);
    sp_timeline_geometry g;
    if (self->drag == DRAG_SELECT && self->drag_moved && get_geometry(self, &g)) {
        /* The rubber band of a Shift+drag zoom: drawn by GTK, never exported. */
        double x0 = CLAMP(MIN(self->drag_x0, self->drag_x0 + self->drag_dx), g.data_x,
                          g.data_x + g.data_w);
        double x1 = CLAMP(MAX(self->drag_x0, self->drag_x0 + self->drag_dx), g.data_x,
                          g.data_x + g.data_w);
        graphene_rect_t band = GRAPHENE_RECT_INIT(x0, g.data_y, x1 - x0, g.data_h);
        GdkRGBA fill = {0.21, 0.52, 0.89, 0.18}, edge = {0.21, 0.52, 0.89, 0.9};
        gtk_snapshot_append_color(snapshot, &fill, &band);
        gtk_snapshot_append_color(snapshot, &edge, &GRAPHENE_RECT_INIT(x0, g.data_y, 1, g.data_h));
        gtk_snapshot_append_color(snapshot, &edge,
                                  &GRAPHENE_RECT_INIT(x1 - 1, g.data_y, 1, g.data_h));
    }
}

static void sp_timeline_chart_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
    update_adjustments(SP_TIMELINE_CHART(widget));
}

static void sp_timeline_chart_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                     int *minimum, int *natural, int *min_baseline,
                                     int *nat_baseline)
{
    *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 320 : 160;
    *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 900 : 480;
}

/* ---- input ---- */

static GdkModifierType current_state(GtkEventController *controller)
{
    return gtk_event_controller_get_current_event_state(controller);
}

static gboolean on_scroll(GtkEventControllerScroll *controller, double dx, double dy,
                          SpTimelineChart *self)
{
    if (!self->tl)
        return FALSE;
    GdkModifierType state = current_state(GTK_EVENT_CONTROLLER(controller));
    gboolean wheel = gtk_event_controller_scroll_get_unit(controller) == GDK_SCROLL_UNIT_WHEEL;
    if (state & GDK_CONTROL_MASK) {
        zoom_at(self, pow(wheel ? 1.25 : 1.01, -dy), self->pointer_x);
        return TRUE;
    }
    if (state & GDK_SHIFT_MASK) {
        dx = dx != 0 ? dx : dy;
        dy = 0;
    }
    sp_timeline_geometry g;
    if (dx != 0 && get_geometry(self, &g))
        sp_timeline_chart_pan(self, wheel ? dx * 0.1 : dx / MAX(g.data_w, 1.0));
    if (dy != 0) {
        /* Vertical wheel scrolls the lanes when they overflow, else pans time. */
        gboolean overflow = gtk_adjustment_get_upper(self->vadj) >
                            gtk_adjustment_get_page_size(self->vadj) + 0.5;
        if (overflow)
            scroll_lanes(self, wheel ? dy * 3 * gtk_adjustment_get_step_increment(self->vadj) : dy);
        else if (get_geometry(self, &g))
            sp_timeline_chart_pan(self, wheel ? dy * 0.1 : dy / MAX(g.data_w, 1.0));
    }
    return TRUE;
}

static void on_motion(GtkEventControllerMotion *controller, double x, double y,
                      SpTimelineChart *self)
{
    self->pointer_x = x;
    self->pointer_y = y;
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, SpTimelineChart *self)
{
    GdkModifierType state = current_state(GTK_EVENT_CONTROLLER(gesture));
    self->drag = (state & GDK_SHIFT_MASK) ? DRAG_SELECT : DRAG_PAN;
    self->drag_moved = FALSE;
    self->drag_x0 = x;
    self->drag_y0 = y;
    self->drag_dx = self->drag_dy = 0;
    self->drag_t0 = self->view.t0_ns;
    self->drag_t1 = self->view.t1_ns;
    self->drag_scroll_y = self->view.scroll_y;
    gtk_widget_grab_focus(GTK_WIDGET(self));
}

static void on_drag_update(GtkGestureDrag *gesture, double dx, double dy, SpTimelineChart *self)
{
    if (!self->tl || self->drag == DRAG_NONE)
        return;
    self->drag_dx = dx;
    self->drag_dy = dy;
    if (!self->drag_moved && hypot(dx, dy) < DRAG_THRESHOLD)
        return;
    self->drag_moved = TRUE;
    if (self->drag == DRAG_SELECT) {
        gtk_widget_queue_draw(GTK_WIDGET(self));
        return;
    }
    sp_timeline_geometry g;
    if (!get_geometry(self, &g) || g.data_w <= 0)
        return;
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), "grabbing");
    double span = (double)(self->drag_t1 - self->drag_t0);
    gint64 shift = (gint64)llround(-dx / g.data_w * span);
    sp_timeline_chart_set_window(self, self->drag_t0 + shift, self->drag_t1 + shift);
    gtk_adjustment_set_value(self->vadj, self->drag_scroll_y - dy);
}

static void on_drag_end(GtkGestureDrag *gesture, double dx, double dy, SpTimelineChart *self)
{
    DragMode mode = self->drag;
    gboolean moved = self->drag_moved;
    self->drag = DRAG_NONE;
    gtk_widget_set_cursor(GTK_WIDGET(self), NULL);
    if (mode == DRAG_SELECT && moved && fabs(dx) >= DRAG_THRESHOLD) {
        double a = x_to_ns(self, self->drag_x0), b = x_to_ns(self, self->drag_x0 + dx);
        sp_timeline_chart_set_window(self, (gint64)llround(MIN(a, b)), (gint64)llround(MAX(a, b)));
    }
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static sp_timeline_hit_kind hit_test(SpTimelineChart *self, double x, double y,
                                     sp_timeline_hit_info *hit)
{
    memset(hit, 0, sizeof *hit);
    if (!self->tl)
        return SP_TIMELINE_HIT_NONE;
    sp_plot_style st;
    widget_style(self, &st);
    return sp_timeline_hit(self->tl, gtk_widget_get_width(GTK_WIDGET(self)),
                           gtk_widget_get_height(GTK_WIDGET(self)), &self->view, &st, x, y, hit);
}

static char *describe_window_call(SpTimelineChart *self, const sp_timeline_hit_info *hit);

static void clear_selection(SpTimelineChart *self)
{
    self->view.selected.depth = -1;
    self->selected_region = -1;
    g_clear_pointer(&self->selected_text, g_free);
    self->click_pending = FALSE;
}

char *sp_timeline_chart_describe_call(SpTimelineChart *self, size_t lane, gint64 call)
{
    const sp_window *w = self->tl ? sp_timeline_lane_window(self->tl, lane) : NULL;
    if (!w || call < 0 || (size_t)call >= w->n)
        return NULL;
    gint64 origin = sp_timeline_origin_ns(self->tl);
    sp_timeline_hit_info hit = {.kind = SP_TIMELINE_HIT_CALL, .lane = lane,
                                .rank = (int32_t)w->rank, .thread = w->thread,
                                .depth = (int32_t)w->depth[call], .call = call,
                                .region = w->region[call], .start_ns = w->start_ns[call] - origin,
                                .end_ns = w->end_ns[call] - origin};
    return describe_window_call(self, &hit);
}

/* The description of a call of a lane's window (markup). */
static char *describe_window_call(SpTimelineChart *self, const sp_timeline_hit_info *hit)
{
    const sp_window *w = sp_timeline_lane_window(self->tl, hit->lane);
    if (!w || hit->call < 0 || (size_t)hit->call >= w->n)
        return NULL;
    const sp_run *run = sp_timeline_run(self->tl);
    const sp_rank_data *rk = &run->ranks[hit->rank];
    int region = w->region[hit->call];
    g_autofree char *dur = sp_format_duration((double)(hit->end_ns - hit->start_ns) * 1e-9);
    g_autofree char *at = sp_format_duration((double)hit->start_ns * 1e-9);
    const sp_thread_info *ti = hit->thread >= 0 && (size_t)hit->thread < rk->nthreads
                                   ? &rk->threads[hit->thread]
                                   : NULL;
    g_autofree char *thread = ti && ti->name ? sp_viewer_text_dup(ti->name)
                                             : g_strdup_printf("thread %d", hit->thread);
    /* Call path: the window keeps every ancestor of a call it holds. */
    GPtrArray *names = g_ptr_array_new();
    SpRunDocument *doc = self->doc;
    for (gint64 c = hit->call; c >= 0 && names->len < 64; c = w->parent[c])
        g_ptr_array_add(names, (char *)sp_run_document_get_region_label(doc, w->region[c]));
    GString *path = g_string_new(NULL);
    if (w->depth[hit->call] + 1 > names->len)
        g_string_append(path, "… › ");
    for (guint i = names->len; i > 0; i--) {
        g_autofree char *esc = g_markup_escape_text(g_ptr_array_index(names, i - 1), -1);
        g_string_append_printf(path, "%s%s", i == names->len ? "" : " › ", esc);
    }
    g_ptr_array_unref(names);
    g_autofree char *name = g_markup_escape_text(sp_run_document_get_region_label(doc, region), -1);
    g_autofree char *thread_esc = g_markup_escape_text(thread, -1);
    /* Estimates say so (sp_figures.h): a sampled call's bounds are known to
     * about one sampling period. */
    sp_fig_kind kind = sp_region_fig_kind(run, region);
    const char *note = kind == SP_FIG_ESTIMATE
                           ? "\n<i>Estimated from call-stack samples (± one sampling period)</i>"
                       : kind == SP_FIG_LOWER_BOUND
                           ? "\n<i>Tracing was throttled: later calls are not recorded</i>"
                           : "";
    char *text = g_strdup_printf("<b>%s</b>\n"
                                 "Duration: %s%s\n"
                                 "Started at: %s\n"
                                 "Rank %d · %s\n"
                                 "<span size='small'>%s</span>%s",
                                 name, kind == SP_FIG_ESTIMATE ? "~" : "", dur, at, hit->rank,
                                 thread_esc, path->str, note);
    g_string_free(path, TRUE);
    return text;
}

/* The description of a box of the index (markup). */
static char *describe_index_box(SpTimelineChart *self, const sp_timeline_hit_info *hit)
{
    const char *label = sp_run_document_get_region_label(self->doc, hit->region);
    if (!label)
        return NULL;
    g_autofree char *name = g_markup_escape_text(label, -1);
    return g_strdup_printf("<b>%s</b>\nRank %d · thread %d\n"
                           "<span size='small'>Many calls share these pixels: zoom in, or "
                           "click to load the call here</span>",
                           name, hit->rank, hit->thread);
}

char *sp_timeline_chart_describe_at(SpTimelineChart *self, double x, double y)
{
    sp_timeline_hit_info hit;
    switch (hit_test(self, x, y, &hit)) {
    case SP_TIMELINE_HIT_CALL:
        return describe_window_call(self, &hit);
    case SP_TIMELINE_HIT_INDEX:
        return describe_index_box(self, &hit);
    case SP_TIMELINE_HIT_LANE:
        if (sp_timeline_chart_is_overview(self))
            return g_strdup_printf("<b>Rank %d</b> · thread %d\n<span size='small'>Click to "
                                   "show its lanes</span>", hit.rank, hit.thread);
        return NULL;
    default:
        return NULL;
    }
}

static void zoom_to(SpTimelineChart *self, gint64 s, gint64 e)
{
    gint64 pad = MAX((e - s) / 10, MIN_SPAN_NS / 2);
    sp_timeline_chart_set_window(self, s - pad, e + pad);
}

void sp_timeline_chart_click(SpTimelineChart *self, double x, double y, int n_press)
{
    if (!self->tl)
        return;
    sp_timeline_hit_info hit;
    sp_timeline_hit_kind kind = hit_test(self, x, y, &hit);
    if (kind == SP_TIMELINE_HIT_LANE && sp_timeline_chart_is_overview(self)) {
        sp_timeline_chart_show_lane(self, hit.lane); /* zoom into the rank */
        return;
    }
    if (kind == SP_TIMELINE_HIT_INDEX) {
        double p = (double)(self->view.t1_ns - self->view.t0_ns) /
                   MAX(gtk_widget_get_width(GTK_WIDGET(self)), 1);
        if (n_press == 2) {
            zoom_to(self, hit.t_ns - (gint64)(4 * p), hit.t_ns + (gint64)(4 * p));
            return;
        }
        /* Which call is it: load the window there, then click again. */
        self->click_pending = TRUE;
        self->click_x = x;
        self->click_y = y;
        self->click_view = self->view;
        sp_timeline_loader_request_point(self->loader, hit.lane, hit.t_ns, p);
        return;
    }
    if (kind != SP_TIMELINE_HIT_CALL) {
        if (n_press == 1) {
            clear_selection(self);
            gtk_widget_queue_draw(GTK_WIDGET(self));
            g_signal_emit(self, signals[SIGNAL_CALL_ACTIVATED], 0, FALSE);
        }
        return;
    }
    if (n_press == 2) { /* zoom to the call, with a margin of a tenth each side */
        zoom_to(self, hit.start_ns, hit.end_ns);
        return;
    }
    self->click_pending = FALSE;
    g_free(self->selected_text);
    self->selected_text = describe_window_call(self, &hit);
    self->selected_region = hit.region;
    self->view.selected = (sp_timeline_call_ref){hit.rank, hit.thread, hit.depth, hit.start_ns,
                                                 hit.end_ns};
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_CALL_ACTIVATED], 0, TRUE);
}

static void on_click_released(GtkGestureClick *gesture, int n_press, double x, double y,
                              SpTimelineChart *self)
{
    if (self->drag_moved || !self->tl)
        return;
    sp_timeline_chart_click(self, x, y, n_press);
}

/* Windows arrived: redraw, and finish a click that waited for one. */
static void on_windows(gpointer data)
{
    SpTimelineChart *self = data;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    if (self->click_pending) {
        gboolean same = self->click_view.t0_ns == self->view.t0_ns &&
                        self->click_view.t1_ns == self->view.t1_ns &&
                        self->click_view.scroll_y == self->view.scroll_y;
        sp_timeline_hit_info hit;
        if (!same)
            self->click_pending = FALSE;
        else if (hit_test(self, self->click_x, self->click_y, &hit) == SP_TIMELINE_HIT_CALL)
            sp_timeline_chart_click(self, self->click_x, self->click_y, 1);
    }
    g_signal_emit(self, signals[SIGNAL_WINDOWS_LOADED], 0);
}

static gboolean on_key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode,
                               GdkModifierType state, SpTimelineChart *self)
{
    switch (keyval) {
    case GDK_KEY_plus: case GDK_KEY_equal: case GDK_KEY_KP_Add:
        sp_timeline_chart_zoom(self, ZOOM_STEP);
        return TRUE;
    case GDK_KEY_minus: case GDK_KEY_KP_Subtract:
        sp_timeline_chart_zoom(self, 1.0 / ZOOM_STEP);
        return TRUE;
    case GDK_KEY_0: case GDK_KEY_KP_0: case GDK_KEY_Home:
        sp_timeline_chart_zoom_to_fit(self);
        return TRUE;
    case GDK_KEY_Left:
        sp_timeline_chart_pan(self, -0.1);
        return TRUE;
    case GDK_KEY_Right:
        sp_timeline_chart_pan(self, 0.1);
        return TRUE;
    case GDK_KEY_Up:
        scroll_lanes(self, -gtk_adjustment_get_step_increment(self->vadj));
        return TRUE;
    case GDK_KEY_Down:
        scroll_lanes(self, gtk_adjustment_get_step_increment(self->vadj));
        return TRUE;
    case GDK_KEY_Escape:
        if (self->view.selected.depth < 0)
            return FALSE;
        clear_selection(self);
        gtk_widget_queue_draw(GTK_WIDGET(self));
        g_signal_emit(self, signals[SIGNAL_CALL_ACTIVATED], 0, FALSE);
        return TRUE;
    default:
        return FALSE;
    }
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                 GtkTooltip *tooltip, SpTimelineChart *self)
{
    if (keyboard || self->drag != DRAG_NONE)
        return FALSE;
    g_autofree char *text = sp_timeline_chart_describe_at(self, x, y);
    if (!text)
        return FALSE;
    gtk_tooltip_set_markup(tooltip, text);
    return TRUE;
}

static void on_hadj_changed(GtkAdjustment *adj, SpTimelineChart *self)
{
    if (self->updating_adjustments)
        return;
    gint64 span = self->view.t1_ns - self->view.t0_ns;
    gint64 t0 = (gint64)llround(gtk_adjustment_get_value(adj));
    sp_timeline_chart_set_window(self, t0, t0 + span);
}

static void on_vadj_changed(GtkAdjustment *adj, SpTimelineChart *self)
{
    if (self->updating_adjustments)
        return;
    self->view.scroll_y = gtk_adjustment_get_value(adj);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* ---- object ---- */

static void sp_timeline_chart_dispose(GObject *object)
{
    SpTimelineChart *self = SP_TIMELINE_CHART(object);
    self->tl = NULL;
    g_clear_pointer(&self->loader, sp_timeline_loader_free);
    g_clear_pointer(&self->selected_text, g_free);
    g_clear_object(&self->doc);
    if (self->hadj)
        g_signal_handlers_disconnect_by_data(self->hadj, self);
    if (self->vadj)
        g_signal_handlers_disconnect_by_data(self->vadj, self);
    g_clear_object(&self->hadj);
    g_clear_object(&self->vadj);
    G_OBJECT_CLASS(sp_timeline_chart_parent_class)->dispose(object);
}

static void sp_timeline_chart_class_init(SpTimelineChartClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    oc->dispose = sp_timeline_chart_dispose;
    wc->snapshot = sp_timeline_chart_snapshot;
    wc->size_allocate = sp_timeline_chart_size_allocate;
    wc->measure = sp_timeline_chart_measure;
    gtk_widget_class_set_css_name(wc, "timeline");
    gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_IMG);

    signals[SIGNAL_CALL_ACTIVATED] =
        g_signal_new("call-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
    signals[SIGNAL_WINDOWS_LOADED] = g_signal_new("windows-loaded", G_TYPE_FROM_CLASS(klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 0);
    signals[SIGNAL_VIEW_CHANGED] = g_signal_new("view-changed", G_TYPE_FROM_CLASS(klass),
                                                G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 0);
}

static void sp_timeline_chart_init(SpTimelineChart *self)
{
    GtkWidget *w = GTK_WIDGET(self);
    sp_timeline_view_init(&self->view, NULL);
    self->view.note_hidden_lanes = false; /* the chart scrolls to every lane */
    self->view.highlight_region = -1;
    self->selected_region = -1;
    self->hadj = g_object_ref_sink(gtk_adjustment_new(0, 0, 1, 1, 1, 1));
    self->vadj = g_object_ref_sink(gtk_adjustment_new(0, 0, 1, 1, 1, 1));
    g_signal_connect(self->hadj, "value-changed", G_CALLBACK(on_hadj_changed), self);
    g_signal_connect(self->vadj, "value-changed", G_CALLBACK(on_vadj_changed), self);

    gtk_widget_set_focusable(w, TRUE);
    gtk_widget_set_focus_on_click(w, TRUE);
    gtk_widget_set_hexpand(w, TRUE);
    gtk_widget_set_vexpand(w, TRUE);
    gtk_widget_set_has_tooltip(w, TRUE);
    g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), self);

    GtkEventController *scroll =
        gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(w, scroll);

    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
    gtk_widget_add_controller(w, motion);

    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(drag));

    GtkGesture *click = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
    g_signal_connect(click, "released", G_CALLBACK(on_click_released), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(click));

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key_pressed), self);
    gtk_widget_add_controller(w, keys);
}

GtkWidget *sp_timeline_chart_new(void) { return g_object_new(SP_TYPE_TIMELINE_CHART, NULL); }

void sp_timeline_chart_set_document(SpTimelineChart *self, SpRunDocument *doc)
{
    g_return_if_fail(SP_IS_TIMELINE_CHART(self));
    /* A newer state of the same file (following a run while it records):
     * keep the user's zoom and scroll; a view of the whole run grows with it. */
    const char *old_path = self->doc ? sp_run_document_get_path(self->doc) : NULL;
    const char *new_path = doc ? sp_run_document_get_path(doc) : NULL;
    gboolean refresh = doc != self->doc && old_path && new_path && strcmp(old_path, new_path) == 0;
    sp_timeline_view old = self->view;
    gint64 old_limit = time_limit(self);
    gboolean was_whole = old.t1_ns <= old.t0_ns || (old.t0_ns <= 0 && old.t1_ns >= old_limit);
    if (!g_set_object(&self->doc, doc))
        return;
    g_clear_pointer(&self->loader, sp_timeline_loader_free);
    self->tl = NULL;
    if (doc) {
        g_autoptr(GError) error = NULL;
        self->loader = sp_timeline_loader_new(doc, on_windows, self, &error);
        if (!self->loader)
            g_warning("timeline: %s", error->message);
        self->tl = self->loader ? sp_timeline_loader_get_timeline(self->loader) : NULL;
    }
    int highlight = self->view.highlight_region;
    sp_timeline_lanes lanes = self->view.lanes;
    clear_selection(self);
    sp_timeline_view_init(&self->view, self->tl);
    self->view.note_hidden_lanes = false;
    self->view.highlight_region = highlight;
    self->view.lanes = refresh ? lanes : SP_TIMELINE_LANES_AUTO;
    self->view.t0_ns = 0;
    self->view.t1_ns = time_limit(self);
    if (refresh) {
        if (!was_whole) {
            self->view.t0_ns = old.t0_ns;
            self->view.t1_ns = old.t1_ns;
        }
        self->view.scroll_y = old.scroll_y;
    }
    update_adjustments(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

SpRunDocument *sp_timeline_chart_get_document(SpTimelineChart *self) { return self->doc; }

void sp_timeline_chart_set_highlight_region(SpTimelineChart *self, int region)
{
    g_return_if_fail(SP_IS_TIMELINE_CHART(self));
    if (self->view.highlight_region == region)
        return;
    self->view.highlight_region = region;
    /* A selected call of another region no longer matches the selection. */
    if (self->view.selected.depth >= 0 && self->selected_region != region)
        clear_selection(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sp_timeline_chart_set_lanes(SpTimelineChart *self, sp_timeline_lanes mode)
{
    if (self->view.lanes == mode)
        return;
    self->view.lanes = mode;
    update_adjustments(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

sp_timeline_lanes sp_timeline_chart_get_lanes(SpTimelineChart *self) { return self->view.lanes; }

gboolean sp_timeline_chart_is_overview(SpTimelineChart *self)
{
    sp_timeline_geometry g;
    return get_geometry(self, &g) && g.overview;
}

void sp_timeline_chart_show_lane(SpTimelineChart *self, size_t lane)
{
    if (!self->tl || lane >= sp_timeline_lane_count(self->tl))
        return;
    sp_plot_style st;
    widget_style(self, &st);
    self->view.lanes = SP_TIMELINE_LANES_DETAIL;
    self->view.scroll_y = sp_timeline_lane_y(self->tl, gtk_widget_get_width(GTK_WIDGET(self)),
                                             gtk_widget_get_height(GTK_WIDGET(self)), &self->view,
                                             &st, lane);
    update_adjustments(self);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

gboolean sp_timeline_chart_get_selected(SpTimelineChart *self, sp_timeline_call_ref *call,
                                        int *region)
{
    if (self->view.selected.depth < 0)
        return FALSE;
    if (call)
        *call = self->view.selected;
    if (region)
        *region = self->selected_region;
    return TRUE;
}

const char *sp_timeline_chart_get_selected_text(SpTimelineChart *self)
{
    return self->view.selected.depth >= 0 ? self->selected_text : NULL;
}

sp_timeline *sp_timeline_chart_get_timeline(SpTimelineChart *self) { return self->tl; }
const sp_timeline_view *sp_timeline_chart_get_view(SpTimelineChart *self) { return &self->view; }
SpTimelineLoader *sp_timeline_chart_get_loader(SpTimelineChart *self) { return self->loader; }

void sp_timeline_chart_set_arrows(SpTimelineChart *self, const sp_timeline_arrow *arrows, size_t n)
{
    self->view.arrows = arrows;
    self->view.narrows = arrows ? n : 0;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

GtkAdjustment *sp_timeline_chart_get_hadjustment(SpTimelineChart *self) { return self->hadj; }

static void update_scrollbar(GtkAdjustment *adj, GtkWidget *scrollbar)
{
    double range = gtk_adjustment_get_upper(adj) - gtk_adjustment_get_lower(adj);
    gtk_widget_set_visible(scrollbar, range > gtk_adjustment_get_page_size(adj) + 0.5);
}

void sp_timeline_chart_attach_scrollbar(SpTimelineChart *self, GtkScrollbar *scrollbar)
{
    gboolean vertical =
        gtk_orientable_get_orientation(GTK_ORIENTABLE(scrollbar)) == GTK_ORIENTATION_VERTICAL;
    GtkAdjustment *adj = vertical ? self->vadj : self->hadj;
    gtk_scrollbar_set_adjustment(scrollbar, adj);
    g_signal_connect_object(adj, "changed", G_CALLBACK(update_scrollbar), scrollbar, 0);
    update_scrollbar(adj, GTK_WIDGET(scrollbar));
}
GtkAdjustment *sp_timeline_chart_get_vadjustment(SpTimelineChart *self) { return self->vadj; }
