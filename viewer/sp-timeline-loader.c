/* SPDX-License-Identifier: MIT */
/*
 * sp-timeline-loader.c - windows of calls for a timeline chart, read in a
 * worker thread (see sp-timeline-loader.h).
 *
 * The main thread owns the timeline and the per-lane bookkeeping; the
 * worker owns nothing: it takes requests from a queue, reads a window from
 * the document's source (opened there on the first window:
 * sp_run_document_get_source), prepares it for drawing (sp_timeline_calls_new
 * reads only the timeline's immutable fields) and leaves the result in a
 * list that an idle callback hands to the timeline. The loader is
 * reference counted (the chart, the worker, a scheduled delivery), so a
 * chart that goes away never waits for a read.
 */
#include "sp-timeline-loader.h"

#include <math.h>

#include "sp_error.h"
#include "sp_lod.h"

typedef struct Request {
    size_t lane;
    int32_t rank, thread;
    gint64 t0, t1;       /* run time */
} Request;

typedef struct Result {
    Request req;
    sp_timeline_calls *calls; /* NULL: not read (too many calls, or failed) */
    gboolean too_big;
} Result;

/* Main-thread bookkeeping of a lane. */
typedef struct LaneState {
    gboolean asked;      /* a request is queued or in flight */
    gint64 ask_t0, ask_t1;
    gboolean denied;     /* the last range asked held too many calls */
    gint64 deny_t0, deny_t1;
    guint64 seen;        /* frame it was last visible in */
    size_t bytes;        /* of its window */
} LaneState;

struct SpTimelineLoader {
    gint refs;
    SpRunDocument *doc;
    gboolean windows;    /* the document may have a source (opened on first use) */
    gint no_source;      /* atomic: opening it failed, no windows after all */
    sp_timeline *tl;
    SpTimelineLoaderNotify notify;
    gpointer user_data;

    /* main thread */
    LaneState *lanes;
    size_t nlanes;
    guint64 frame;
    size_t bytes;
    size_t *visible;
    size_t cap_visible;

    /* shared, under lock */
    GMutex lock;
    GCond wake;
    GQueue queue;        /* Request * not started */
    GPtrArray *done;     /* Result * */
    gboolean closed;
    gboolean worker_running;
    gboolean delivery_scheduled;
    guint in_flight;
    guint64 loaded;
};

static SpTimelineLoader *loader_ref(SpTimelineLoader *self)
{
    g_atomic_int_inc(&self->refs);
    return self;
}

static void result_free(gpointer p)
{
    Result *r = p;
    sp_timeline_calls_free(r->calls);
    g_free(r);
}

static void loader_unref(SpTimelineLoader *self)
{
    if (!g_atomic_int_dec_and_test(&self->refs))
        return;
    g_queue_clear_full(&self->queue, g_free);
    g_ptr_array_unref(self->done);
    sp_timeline_free(self->tl);
    g_clear_object(&self->doc);
    g_free(self->lanes);
    g_free(self->visible);
    g_mutex_clear(&self->lock);
    g_cond_clear(&self->wake);
    g_free(self);
}

SpTimelineLoader *sp_timeline_loader_new(SpRunDocument *doc, SpTimelineLoaderNotify notify,
                                         gpointer user_data, GError **error)
{
    sp_timeline *tl = sp_timeline_new(sp_run_document_get_run(doc));
    if (!tl) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", sp_last_error());
        return NULL;
    }
    SpTimelineLoader *self = g_new0(SpTimelineLoader, 1);
    self->refs = 1;
    self->doc = g_object_ref(doc);
    self->windows = sp_run_document_may_have_source(doc);
    self->tl = tl;
    self->notify = notify;
    self->user_data = user_data;
    self->nlanes = sp_timeline_lane_count(tl);
    self->lanes = g_new0(LaneState, self->nlanes ? self->nlanes : 1);
    g_mutex_init(&self->lock);
    g_cond_init(&self->wake);
    g_queue_init(&self->queue);
    self->done = g_ptr_array_new_with_free_func(result_free);
    return self;
}

void sp_timeline_loader_free(SpTimelineLoader *self)
{
    if (!self)
        return;
    g_mutex_lock(&self->lock);
    self->closed = TRUE;
    g_queue_clear_full(&self->queue, g_free);
    g_cond_signal(&self->wake);
    g_mutex_unlock(&self->lock);
    loader_unref(self);
}

sp_timeline *sp_timeline_loader_get_timeline(SpTimelineLoader *self)
{
    return self->tl;
}

/* ---- delivery (main thread) ---- */

static gboolean deliver(gpointer data)
{
    SpTimelineLoader *self = data;
    g_mutex_lock(&self->lock);
    GPtrArray *done = self->done;
    self->done = g_ptr_array_new_with_free_func(result_free);
    self->delivery_scheduled = FALSE;
    gboolean closed = self->closed;
    g_mutex_unlock(&self->lock);
    for (guint i = 0; !closed && i < done->len; i++) {
        Result *r = g_ptr_array_index(done, i);
        LaneState *ls = &self->lanes[r->req.lane];
        if (ls->asked && ls->ask_t0 == r->req.t0 && ls->ask_t1 == r->req.t1)
            ls->asked = FALSE;
        if (r->too_big) {
            ls->denied = TRUE;
            ls->deny_t0 = r->req.t0;
            ls->deny_t1 = r->req.t1;
        }
        if (!r->calls)
            continue;
        size_t bytes = sp_timeline_calls_bytes(r->calls);
        if (sp_timeline_set_calls(self->tl, r->req.lane, r->calls) == 0) {
            self->bytes = self->bytes - ls->bytes + bytes;
            ls->bytes = bytes;
        }
        r->calls = NULL; /* the timeline's (or freed) */
    }
    g_ptr_array_unref(done);
    if (!closed && self->notify)
        self->notify(self->user_data);
    loader_unref(self);
    return G_SOURCE_REMOVE;
}

/* ---- the worker ---- */

static Result *read_one(SpTimelineLoader *self, const Request *q)
{
    Result *r = g_new0(Result, 1);
    r->req = *q;
    gint64 origin = sp_timeline_origin_ns(self->tl);
    gint64 a = q->t0 + origin, b = q->t1 + origin;
    /* Opened on the first window (here, off the main thread). */
    SpRunSource *src = sp_run_document_get_source(self->doc);
    if (!src) {
        g_atomic_int_set(&self->no_source, 1); /* no more requests */
        return r;
    }
    /* From the block table first: a window too big for memory is never read. */
    guint64 est = sp_run_source_estimate(src, (size_t)q->rank, q->thread, a, b);
    if (est > SP_TIMELINE_WINDOW_MAX) {
        r->too_big = TRUE;
        return r;
    }
    sp_window *w = NULL;
    const sp_agg *agg = sp_timeline_agg(self->tl);
    if (sp_run_source_load_window(src, agg, (size_t)q->rank, q->thread, a, b,
                                  SP_TIMELINE_WINDOW_MAX, &w) == 0)
        r->calls = sp_timeline_calls_new(self->tl, w); /* takes w */
    return r;
}

static gpointer worker_main(gpointer data)
{
    SpTimelineLoader *self = data;
    g_mutex_lock(&self->lock);
    for (;;) {
        while (!self->closed && g_queue_is_empty(&self->queue))
            g_cond_wait(&self->wake, &self->lock);
        if (self->closed)
            break;
        Request *q = g_queue_pop_head(&self->queue);
        self->in_flight++;
        g_mutex_unlock(&self->lock);
        Result *r = read_one(self, q);
        g_free(q);
        g_mutex_lock(&self->lock);
        self->in_flight--;
        self->loaded += r->calls != NULL;
        g_ptr_array_add(self->done, r);
        if (!self->delivery_scheduled && !self->closed) {
            self->delivery_scheduled = TRUE;
            g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, deliver, loader_ref(self), NULL);
        }
    }
    self->worker_running = FALSE;
    g_mutex_unlock(&self->lock);
    loader_unref(self);
    return NULL;
}

/* Start the worker if needed; caller holds the lock. */
static void wake_worker(SpTimelineLoader *self)
{
    if (!self->worker_running) {
        self->worker_running = TRUE;
        g_thread_unref(g_thread_new("sp-timeline-loader", worker_main, loader_ref(self)));
    }
    g_cond_signal(&self->wake);
}

/* ---- what to load (main thread) ---- */

static void push(GQueue *q, size_t lane, const sp_timeline_lane_info *li, gint64 t0, gint64 t1,
                 gboolean front)
{
    Request *r = g_new(Request, 1);
    *r = (Request){lane, li->rank, li->thread, t0, t1};
    if (front)
        g_queue_push_head(q, r);
    else
        g_queue_push_tail(q, r);
}

/* Drop the windows of lanes not seen this frame, oldest first, while the
 * windows hold more than the budget. */
static void evict(SpTimelineLoader *self)
{
    while (self->bytes > SP_TIMELINE_WINDOW_BUDGET) {
        size_t old = SIZE_MAX;
        for (size_t l = 0; l < self->nlanes; l++)
            if (self->lanes[l].bytes && self->lanes[l].seen < self->frame &&
                (old == SIZE_MAX || self->lanes[l].seen < self->lanes[old].seen))
                old = l;
        if (old == SIZE_MAX)
            return;
        sp_timeline_set_calls(self->tl, old, NULL);
        self->bytes -= self->lanes[old].bytes;
        self->lanes[old].bytes = 0;
    }
}

/* The range of lane li to load for the view [t0, t1] (run time) on data_w
 * pixels; FALSE when none is needed. */
static gboolean range_for(const sp_timeline_lane_info *li, gint64 t0, gint64 t1, double data_w,
                          gint64 *a, gint64 *b)
{
    if (!li->has_index && li->ncalls <= SP_TIMELINE_WHOLE_LANE_MAX) {
        *a = li->first_ns; /* small: the whole lane, once */
        *b = li->last_ns;
        return TRUE;
    }
    /* An index with a bin per pixel draws as exactly as the calls (if it
     * holds every depth of the lane: a deeper recursion needs the calls). */
    if (li->has_index && li->index_bin_ns > 0 && li->depths <= (int32_t)SP_LOD_MAX_DEPTH &&
        (double)(t1 - t0) / (double)li->index_bin_ns >= data_w)
        return FALSE;
    gint64 span = t1 - t0, margin = span / 2;
    *a = MAX(t0 - margin, li->first_ns);
    *b = MIN(t1 + margin, li->last_ns);
    if (*b < *a)
        return FALSE;
    /* A quick bound before the exact one the worker asks the blocks for. */
    double lane_span = (double)MAX(li->last_ns - li->first_ns, 1);
    double guess = (double)li->ncalls * (double)(*b - *a) / lane_span;
    return guess <= 4.0 * (double)SP_TIMELINE_WINDOW_MAX;
}

void sp_timeline_loader_update(SpTimelineLoader *self, const sp_timeline_view *view, double w,
                               double h, const sp_plot_style *st)
{
    if (!self->windows || g_atomic_int_get(&self->no_source) || !self->nlanes)
        return;
    self->frame++;
    sp_timeline_geometry g;
    if (sp_timeline_get_geometry(self->tl, w, h, view, st, &g) != 0 || g.data_w <= 0)
        return;
    gint64 t0 = view->t0_ns, t1 = view->t1_ns;
    if (t1 <= t0) {
        t0 = 0;
        t1 = sp_timeline_duration_ns(self->tl);
    }
    size_t n = sp_timeline_visible_lanes(self->tl, w, h, view, st, self->visible, self->cap_visible);
    if (n > self->cap_visible) {
        self->cap_visible = n;
        self->visible = g_renew(size_t, self->visible, n);
        n = sp_timeline_visible_lanes(self->tl, w, h, view, st, self->visible, n);
    }
    GQueue fresh = G_QUEUE_INIT;
    for (size_t i = 0; i < n; i++) {
        size_t l = self->visible[i];
        LaneState *ls = &self->lanes[l];
        ls->seen = self->frame;
        if (sp_timeline_lane_covered(self->tl, l, t0, t1))
            continue;
        sp_timeline_lane_info li;
        sp_timeline_lane_info_get(self->tl, l, &li);
        gint64 a, b;
        if (!range_for(&li, t0, t1, g.data_w, &a, &b))
            continue;
        /* Asked already for a range holding the view: keep that. */
        if (ls->asked && ls->ask_t0 <= MAX(t0, li.first_ns) && ls->ask_t1 >= MIN(t1, li.last_ns))
            continue;
        /* Found too big before: not again for a range as wide there. */
        if (ls->denied && b - a >= (ls->deny_t1 - ls->deny_t0) * 9 / 10 && a < ls->deny_t1 &&
            b > ls->deny_t0)
            continue;
        ls->asked = TRUE;
        ls->ask_t0 = a;
        ls->ask_t1 = b;
        push(&fresh, l, &li, a, b, FALSE);
    }
    g_mutex_lock(&self->lock);
    /* Requests not started yet for lanes no longer asked are dropped; the
     * others are kept, after the new ones (what the view needs now first). */
    for (GList *it = self->queue.head; it; it = it->next) {
        Request *q = it->data;
        LaneState *ls = &self->lanes[q->lane];
        if (ls->seen == self->frame && ls->asked && ls->ask_t0 == q->t0 && ls->ask_t1 == q->t1 &&
            !g_queue_find(&fresh, q))
            g_queue_push_tail(&fresh, g_memdup2(q, sizeof *q));
        else if (ls->asked && ls->ask_t0 == q->t0 && ls->ask_t1 == q->t1 &&
                 ls->seen != self->frame)
            ls->asked = FALSE; /* out of view: forget it */
    }
    g_queue_clear_full(&self->queue, g_free);
    self->queue = fresh;
    if (!g_queue_is_empty(&self->queue))
        wake_worker(self);
    g_mutex_unlock(&self->lock);
    evict(self);
}

void sp_timeline_loader_request_point(SpTimelineLoader *self, size_t lane, gint64 t_ns,
                                      double ns_per_px)
{
    if (!self->windows || g_atomic_int_get(&self->no_source) || lane >= self->nlanes)
        return;
    sp_timeline_lane_info li;
    sp_timeline_lane_info_get(self->tl, lane, &li);
    gint64 pad = (gint64)ceil(4 * MAX(ns_per_px, 1.0));
    LaneState *ls = &self->lanes[lane];
    ls->asked = TRUE;
    ls->ask_t0 = t_ns - pad;
    ls->ask_t1 = t_ns + pad;
    g_mutex_lock(&self->lock);
    push(&self->queue, lane, &li, ls->ask_t0, ls->ask_t1, TRUE);
    wake_worker(self);
    g_mutex_unlock(&self->lock);
}

guint sp_timeline_loader_pending(SpTimelineLoader *self)
{
    g_mutex_lock(&self->lock);
    guint n = g_queue_get_length(&self->queue) + self->in_flight + self->done->len;
    g_mutex_unlock(&self->lock);
    return n;
}

guint64 sp_timeline_loader_loaded(SpTimelineLoader *self)
{
    g_mutex_lock(&self->lock);
    guint64 n = self->loaded;
    g_mutex_unlock(&self->lock);
    return n;
}

size_t sp_timeline_loader_bytes(SpTimelineLoader *self)
{
    return self->bytes;
}
