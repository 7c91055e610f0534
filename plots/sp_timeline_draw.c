/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_draw.c - drawing a frame of the timeline: the chrome (axis,
 * lane names, legend, notes), and in the detail layout every visible
 * (lane, depth) row from the lane's window or its index (sp_timeline_walk.c).
 * Entries at least a pixel wide are boxes (calls labelled with their
 * region's name); narrower ones are gathered per pixel column into one box
 * coloured by the dominant region (neutral when none covers half). Boxes
 * are collected per colour and filled with one cairo_fill per colour, then
 * labels, the selection, arrows and the chrome are drawn on top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_timeline_private.h"

#define SLOT_NEUTRAL SP__TL_SLOT_NEUTRAL
#define SLOTS_PER_SET SP__TL_SLOTS_PER_SET
#define NSLOTS SP__TL_NSLOTS

typedef sp__tl_label label_item;

/* What the detail layout keeps over a draw besides the shared state. */
typedef struct detail {
    sp__tl_draw *d;
    label_item **labels; /* the timeline's label buffer and capacity */
    size_t *caplabels;
    size_t nlabels;
    double min_label_w;
} detail;

int sp__tl_region_slot(sp__tl_draw *d, int32_t region)
{
    int slot = SLOT_NEUTRAL;
    if (region >= 0 && (size_t)region < d->tl->run->nregions) {
        slot = d->slot_of[region];
        d->shown[region] = true;
    }
    if (d->highlight >= 0 && region != d->highlight)
        slot += SLOTS_PER_SET;
    return slot;
}

static float *rect_push(sp__tl_draw *d, int slot)
{
    sp__tl_rectbuf *b = &d->slots[slot];
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        float *v = realloc(b->v, cap * 4 * sizeof *v);
        if (!v) {
            d->oom = true;
            return NULL;
        }
        b->v = v;
        b->cap = cap;
    }
    return &b->v[4 * b->n++];
}

void sp__tl_emit(sp__tl_draw *d, double x0, double x1, double y, double h, int slot, bool merged)
{
    double w = d->lay.data_w;
    if (x1 < -1 || x0 > w + 1)
        return;
    x0 = fmax(x0, -2);
    x1 = fmin(x1, w + 2);
    double bx0, bx1;
    bool narrow = x1 - x0 < 3;
    if (narrow) {
        bx0 = floor(x0);
        bx1 = fmax(bx0 + 1, ceil(x1 - 0.25));
    } else { /* leave a one-pixel gap so neighbouring calls stay apart */
        bx0 = round(x0);
        bx1 = fmax(bx0 + 1, round(x1) - 1);
    }
    if (narrow && slot == d->last_slot && bx0 <= d->last_x1) {
        float *r = &d->slots[slot].v[4 * d->last_idx];
        double nx1 = fmax(d->last_x1, bx1);
        r[2] = (float)(nx1 - (r[0] - d->lay.data_x));
        d->last_x1 = nx1;
        if (!d->last_merged) { /* a call box grew into a merged one */
            d->st.merged_boxes++;
            d->last_merged = true;
        }
        return;
    }
    float *r = rect_push(d, slot);
    if (!r)
        return;
    r[0] = (float)(d->lay.data_x + bx0);
    r[1] = (float)y;
    r[2] = (float)(bx1 - bx0);
    r[3] = (float)h;
    d->st.boxes++;
    if (merged)
        d->st.merged_boxes++;
    if (narrow) {
        d->last_slot = slot;
        d->last_x1 = bx1;
        d->last_idx = d->slots[slot].n - 1;
        d->last_merged = merged;
    } else {
        d->last_slot = -1;
    }
}

void sp__tl_rect(sp__tl_draw *d, double x0, double x1, double y, double h, int slot)
{
    float *r = rect_push(d, slot);
    if (!r)
        return;
    r[0] = (float)(d->lay.data_x + x0);
    r[1] = (float)y;
    r[2] = (float)(x1 - x0);
    r[3] = (float)h;
    d->st.boxes++;
}

static void push_label(detail *dt, double x0, double x1, double y, int32_t region, int slot)
{
    sp__tl_draw *d = dt->d;
    double vx0 = fmax(x0, 0), vx1 = fmin(x1, d->lay.data_w);
    if (vx1 - vx0 < dt->min_label_w)
        return;
    if (dt->nlabels == *dt->caplabels) {
        size_t cap = *dt->caplabels ? *dt->caplabels * 2 : 128;
        label_item *v = realloc(*dt->labels, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            return;
        }
        *dt->labels = v;
        *dt->caplabels = cap;
    }
    (*dt->labels)[dt->nlabels++] = (label_item){(float)(d->lay.data_x + vx0),
                                               (float)(d->lay.data_x + vx1), (float)y, region,
                                               slot};
}

/* ---- one row ---- */

/* Entries merged into one pixel column. */
typedef struct acc_t {
    bool active;
    double col, x1;
    size_t calls;
    int n;
    int32_t region[4];
    double w[4];
    double cov;
    double span;        /* the entries' own spans, summed */
} acc_t;

typedef struct row_ctx {
    detail *dt;
    const sp__tl_lane *ln;
    int32_t depth;
    double y;
    acc_t acc;
    bool index;          /* entries come from the index */
    /* The index names regions, not calls: runs of boxes of one region that
     * fill their pixels are labelled as one. */
    bool lab_on;
    double lab_x0, lab_x1;
    int32_t lab_region;
    int lab_slot;
} row_ctx;

static void acc_add(acc_t *a, int32_t region, double w, double cov, double span, size_t calls)
{
    a->cov += cov;
    a->span += span;
    a->calls += calls;
    if (region < 0)
        return;
    for (int i = 0; i < a->n; i++)
        if (a->region[i] == region) {
            a->w[i] += w;
            return;
        }
    if (a->n < 4) {
        a->region[a->n] = region;
        a->w[a->n++] = w;
    } else {
        int lo = 0;
        for (int i = 1; i < 4; i++)
            if (a->w[i] < a->w[lo])
                lo = i;
        if (w > a->w[lo]) {
            a->region[lo] = region;
            a->w[lo] = w;
        }
    }
}

static void label_flush(row_ctx *rc)
{
    if (rc->lab_on)
        push_label(rc->dt, rc->lab_x0, rc->lab_x1, rc->y, rc->lab_region, rc->lab_slot);
    rc->lab_on = false;
}

/* An index box [x0, x1) of region (full: its pixels are covered). */
static void label_track(row_ctx *rc, double x0, double x1, int32_t region, int slot, bool full)
{
    if (rc->lab_on && full && region == rc->lab_region && x0 <= rc->lab_x1 + 1.01) {
        rc->lab_x1 = fmax(rc->lab_x1, x1);
        return;
    }
    label_flush(rc);
    if (full && region >= 0) {
        rc->lab_on = true;
        rc->lab_x0 = x0;
        rc->lab_x1 = x1;
        rc->lab_region = region;
        rc->lab_slot = slot;
    }
}

static void acc_flush(row_ctx *rc)
{
    acc_t *a = &rc->acc;
    sp__tl_draw *d = rc->dt->d;
    if (!a->active)
        return;
    int best = -1;
    for (int i = 0; i < a->n; i++)
        if (best < 0 || a->w[i] > a->w[best])
            best = i;
    int32_t region = -1;
    /* Dominant only when it covers at least half of the merged time;
     * a single call is always its own colour. */
    if (best >= 0 && (a->calls == 1 || a->w[best] >= 0.5 * a->cov))
        region = a->region[best];
    int slot = region >= 0 ? sp__tl_region_slot(d, region)
                           : SLOT_NEUTRAL + (d->highlight >= 0 ? SLOTS_PER_SET : 0);
    double x1 = fmax(a->x1, a->col + 1);
    sp__tl_emit(d, a->col, x1, rc->y, d->lay.row_h - 1, slot, a->calls > 1);
    if (rc->index) /* the bins merged here are full: a run of one region goes on */
        label_track(rc, a->col, x1, region, slot, a->cov >= 0.9 * a->span);
    memset(a, 0, sizeof *a);
}

static bool visit_detail(void *ud, const sp__tl_entry *e)
{
    row_ctx *rc = ud;
    detail *dt = rc->dt;
    sp__tl_draw *d = dt->d;
    double t0 = d->lay.t0, p = d->p;
    double x0 = (e->s - t0) / p, x1 = (e->e - t0) / p;
    if (x1 - x0 >= 1.0 && (e->calls == 1 || e->from_index)) {
        acc_flush(rc);
        int slot = sp__tl_region_slot(d, e->region);
        sp__tl_emit(d, x0, x1, rc->y, d->lay.row_h - 1, slot, e->from_index);
        if (e->from_index)
            label_track(rc, x0, x1, e->region, slot, e->cov >= 0.9 * (e->e - e->s));
        else
            push_label(dt, x0, x1, rc->y, e->region, slot);
        return true;
    }
    double col = floor(x0);
    if (rc->acc.active && col != rc->acc.col)
        acc_flush(rc);
    if (!rc->acc.active) {
        rc->acc.active = true;
        rc->acc.col = col;
    }
    rc->acc.x1 = fmax(rc->acc.x1, x1);
    acc_add(&rc->acc, e->region, e->dom, e->cov, e->e - e->s, e->calls);
    return true;
}

/* A lane with nothing to draw yet: a faint band over its time span. */
static void draw_pending(sp__tl_draw *d, const sp__tl_lane *ln, double y, double h)
{
    double x0 = ((double)ln->first - d->lay.t0) / d->p, x1 = ((double)ln->last - d->lay.t0) / d->p;
    d->last_slot = -1;
    sp__tl_emit(d, x0, fmax(x1, x0 + 1), y, h, SP__TL_SLOT_PENDING, false);
    d->st.pending_rows++;
}

static void draw_row(detail *dt, const sp__tl_lane *ln, int32_t depth, double y)
{
    sp__tl_draw *d = dt->d;
    row_ctx rc = {.dt = dt, .ln = ln, .depth = depth, .y = y};
    d->last_slot = -1;
    switch (sp__tl_lane_source(ln, d->lay.t0, d->lay.t1)) {
    case SP__TL_FROM_WINDOW:
    case SP__TL_FROM_PART:
        d->st.window_rows++;
        d->st.entries +=
            sp__tl_walk_calls(ln->calls, depth, d->lay.t0, d->lay.t1, d->p, visit_detail, &rc);
        break;
    case SP__TL_FROM_INDEX:
        if ((uint32_t)depth >= ln->lod->ndepth) {
            /* Deeper than the index goes (it keeps SP_LOD_MAX_DEPTH depths):
             * a band on the first such row until a window arrives. */
            if (depth == (int32_t)SP_LOD_MAX_DEPTH)
                draw_pending(d, ln, y, d->lay.row_h - 1);
            break;
        }
        rc.index = true;
        d->st.index_rows++;
        d->st.entries += sp__tl_walk_index(ln->lod, d->tl->origin, depth, d->lay.t0, d->lay.t1,
                                           d->p, visit_detail, &rc);
        break;
    case SP__TL_FROM_NONE:
        if (depth == 0)
            draw_pending(d, ln, y, d->lay.row_h - 1);
        break;
    }
    acc_flush(&rc);
    label_flush(&rc);
}

/* ---- colours, labels, chrome ---- */

sp_rgba sp__tl_slot_color(const sp__tl_draw *d, int slot)
{
    bool faded = slot >= SLOTS_PER_SET;
    int base = faded ? slot - SLOTS_PER_SET : slot;
    sp_rgba c = base == SLOT_NEUTRAL ? d->c->th.neutral : sp__palette_color(base, d->c->style.dark);
    if (faded)
        c = sp__mix(c, d->c->th.bg, 0.72);
    return c;
}

void sp__tl_fill_slots(sp__tl_draw *d)
{
    cairo_t *cr = d->c->cr;
    for (int k = 0; k < NSLOTS; k++) {
        sp__tl_rectbuf *b = &d->slots[k];
        if (!b->n)
            continue;
        sp__set_color(cr, sp__tl_slot_color(d, k));
        for (size_t i = 0; i < b->n; i++)
            cairo_rectangle(cr, b->v[4 * i], b->v[4 * i + 1], b->v[4 * i + 2], b->v[4 * i + 3]);
        cairo_fill(cr);
    }
}

static void draw_labels(detail *dt)
{
    sp__tl_draw *d = dt->d;
    sp__canvas *c = d->c;
    double pad = 4 * c->s;
    size_t nreg = d->tl->run->nregions;
    /* Widths measured once per region drawn (a run may have 10^6). */
    double *widths = NULL;
    size_t nw = 0;
    int32_t *wreg = NULL;
    if (dt->nlabels) {
        widths = malloc(dt->nlabels * sizeof *widths);
        wreg = malloc(dt->nlabels * sizeof *wreg);
        if (!widths || !wreg) {
            free(widths);
            free(wreg);
            d->oom = true;
            return;
        }
    }
    for (size_t i = 0; i < dt->nlabels; i++) {
        const label_item *l = &(*dt->labels)[i];
        const char *name = sp__region_name(d->tl->run, l->region);
        double avail = l->x1 - l->x0 - 2 * pad;
        if (l->region >= 0 && (size_t)l->region < nreg) {
            double tw = -1;
            for (size_t k = nw; k-- > 0 && nw - k <= 16;) /* recent regions first */
                if (wreg[k] == l->region) {
                    tw = widths[k];
                    break;
                }
            if (tw < 0) {
                tw = sp__text_width(c, SP__FONT_SMALL, name);
                wreg[nw] = l->region;
                widths[nw++] = tw;
            }
            /* A truncated label needs room for a few characters to help. */
            if (tw > avail && avail < 3.2 * c->fs)
                continue;
        }
        sp_rgba bgc = sp__tl_slot_color(d, l->slot);
        sp_rgba fg = sp_plot_text_color_on(bgc);
        if (l->slot >= SLOTS_PER_SET)
            fg = sp__mix(fg, bgc, 0.45);
        if (sp__text_draw(c, SP__FONT_SMALL, name, l->x0 + pad, l->y + (d->lay.row_h - 1) / 2, 0,
                          0.5, avail, fg) > 0)
            d->st.labels++;
    }
    free(widths);
    free(wreg);
}

/* Each region's slot under map m, recomputed only when the map changes;
 * and a cleared "shown" flag per region. false on out of memory. */
static bool prepare_colors(sp_timeline *tl, const sp_color_map *m)
{
    size_t n = tl->run->nregions ? tl->run->nregions : 1;
    if (!tl->slot_of) {
        tl->slot_of = malloc(n * sizeof *tl->slot_of);
        tl->shown = malloc(n * sizeof *tl->shown);
        if (!tl->slot_of || !tl->shown)
            return false;
        tl->slot_map_set = false;
    }
    if (!tl->slot_map_set || tl->slot_map != m) {
        for (size_t g = 0; g < tl->run->nregions; g++)
            tl->slot_of[g] = sp_color_map_slot(m, tl->run->region_names[g]);
        tl->slot_map = m;
        tl->slot_map_set = true;
    }
    memset(tl->shown, 0, n * sizeof *tl->shown);
    return true;
}

/* "6-7,9" style list of the ranks of lanes [from, nlanes) into buf. */
static void hidden_ranks(const sp_timeline *tl, size_t from, char *buf, size_t n)
{
    size_t o = 0;
    int32_t lo = -1, prev = -1;
    buf[0] = '\0';
    for (size_t l = from; l <= tl->nlanes && o < n; l++) {
        int32_t r = l < tl->nlanes ? tl->lanes[l].rank : -2;
        if (r == prev)
            continue;
        if (lo < 0 || r != prev + 1 || r < 0) { /* close the range lo..prev */
            if (lo >= 0)
                o += (size_t)snprintf(buf + o, n - o, "%s%d", o ? "," : "", (int)lo);
            if (lo >= 0 && prev > lo && o < n)
                o += (size_t)snprintf(buf + o, n - o, "-%d", (int)prev);
            lo = r;
        }
        prev = r;
    }
}

/* The line under the lanes naming those that did not fit. */
static void draw_hidden_note(sp__tl_draw *d)
{
    const sp_timeline *tl = d->tl;
    const sp__tl_layout *lay = &d->lay;
    size_t first_hidden = tl->nlanes;
    for (size_t l = 0; l < tl->nlanes; l++)
        if (sp__tl_lane_top(tl, lay, l) + sp__tl_lane_height(tl, lay, l) >
            lay->scroll_y + lay->data_h + 0.5) {
            first_hidden = l;
            break;
        }
    if (first_hidden >= tl->nlanes)
        return;
    char ranks[96], text[256];
    hidden_ranks(tl, first_hidden, ranks, sizeof ranks);
    size_t nh = tl->nlanes - first_hidden;
    snprintf(text, sizeof text,
             "%zu of %zu lanes (rank%s %s) did not fit: draw a taller chart (plot --size) or "
             "choose ranks (--ranks %s)",
             nh, tl->nlanes, strpbrk(ranks, ",-") ? "s" : "", ranks, ranks);
    sp__canvas *c = d->c;
    sp__text_draw(c, SP__FONT_SMALL, text, 12 * c->s, lay->note_y + lay->note_h / 2, 0, 0.5,
                  c->w - 24 * c->s, c->th.bad);
}

static void draw_axis(sp__tl_draw *d)
{
    sp__canvas *c = d->c;
    cairo_t *cr = c->cr;
    const sp__tl_layout *lay = &d->lay;
    sp__axis a = {.lo = lay->t0 * 1e-9, .hi = lay->t1 * 1e-9, .kind = SP__AXIS_TIME,
                  .p0 = lay->data_x, .p1 = lay->data_x + lay->data_w};
    sp__ticks t;
    /* Labels sit to the right of their tick, so they need the whole gap. */
    sp__axis_ticks_fit(c, &a, lay->data_w * 0.8, &t);
    double ya = lay->axis_y, yb = lay->axis_y + lay->axis_h;
    sp__set_color(cr, c->th.bg);
    cairo_rectangle(cr, 0, ya, c->w, lay->axis_h);
    cairo_fill(cr);
    cairo_save(cr);
    cairo_rectangle(cr, lay->data_x, ya, lay->data_w, lay->data_y + lay->data_h - ya);
    cairo_clip(cr);
    for (int i = 0; i < t.n; i++) {
        double x = sp__snap(sp__axis_map(&a, t.v[i])) + 0.5;
        sp__set_color(cr, c->th.axis);
        cairo_move_to(cr, x, ya + lay->axis_h * 0.35);
        cairo_line_to(cr, x, yb);
        cairo_stroke(cr);
        sp__set_color(cr, sp__mix(c->th.grid, c->th.bg, 0.2));
        cairo_move_to(cr, x, yb);
        cairo_line_to(cr, x, c->h);
        cairo_stroke(cr);
        if (t.label[i][0] &&
            x + 3 * c->s + sp__text_width(c, SP__FONT_SMALL, t.label[i]) <= c->w - 2 * c->s)
            sp__text_draw(c, SP__FONT_SMALL, t.label[i], x + 3 * c->s, ya + lay->axis_h * 0.5, 0,
                          0.5, 0, c->th.muted);
    }
    cairo_restore(cr);
    sp__set_color(cr, c->th.axis);
    cairo_move_to(cr, 0, yb - 0.5);
    cairo_line_to(cr, c->w, yb - 0.5);
    cairo_stroke(cr);
}

static void lane_label(sp__tl_draw *d, size_t l, double y, double h)
{
    sp__canvas *c = d->c;
    const sp__tl_lane *ln = &d->tl->lanes[l];
    const sp_rank_data *rk = &d->tl->run->ranks[ln->rank];
    char rank[32], thr[64];
    snprintf(rank, sizeof rank, "Rank %d", ln->rank);
    const char *tname = (size_t)ln->thread < rk->nthreads ? rk->threads[ln->thread].name : NULL;
    if (tname && *tname)
        snprintf(thr, sizeof thr, "%s", tname);
    else if ((size_t)ln->thread < rk->nthreads && rk->threads[ln->thread].os_tid >= 0)
        snprintf(thr, sizeof thr, "thread %d (tid %lld)", ln->thread,
                 (long long)rk->threads[ln->thread].os_tid);
    else
        snprintf(thr, sizeof thr, "thread %d", ln->thread);
    double pad = 8 * c->s, maxw = d->lay.data_x - 2 * pad;
    double two = c->line_h[SP__FONT_BOLD] + c->line_h[SP__FONT_SMALL];
    if (h >= two + 2 * c->s) {
        /* Sticky: a lane scrolled partly out keeps its name in view. */
        double y0 = fmin(fmax(y + d->lay.lane_pad, d->lay.data_y + d->lay.lane_pad),
                         y + h - two - d->lay.lane_pad);
        sp__text_draw(c, SP__FONT_BOLD, rank, pad, y0, 0, 0, maxw, c->th.fg);
        sp__text_draw(c, SP__FONT_SMALL, thr, pad, y0 + c->line_h[SP__FONT_BOLD], 0, 0, maxw,
                      c->th.muted);
    } else {
        double rw = sp__text_draw(c, SP__FONT_BOLD, rank, pad, y + h / 2, 0, 0.5, maxw, c->th.fg);
        if (rw > 0 && maxw - rw > 2 * c->fs)
            sp__text_draw(c, SP__FONT_SMALL, thr, pad + rw + 0.5 * c->fs, y + h / 2, 0, 0.5,
                          maxw - rw - 0.5 * c->fs, c->th.muted);
    }
}

/* The y of the middle of a lane's top row in this draw, or NAN when the
 * lane is not drawn. */
static double arrow_y(const sp__tl_draw *d, int32_t rank, int32_t thread)
{
    int64_t l = sp_timeline_find_lane(d->tl, rank, thread);
    if (l < 0)
        return NAN;
    const sp__tl_layout *lay = &d->lay;
    if (lay->overview) {
        size_t rows = sp__tl_overview_rows(d->tl, lay);
        double y0, y1;
        /* A sampled overview draws a lane in the pixel row that samples it. */
        size_t k = lay->lane_h >= 1 ? (size_t)l
                                    : (size_t)floor((double)l * (double)rows /
                                                    (double)d->tl->nlanes);
        if (k >= rows)
            return NAN;
        sp__tl_overview_row(d->tl, lay, k, &y0, &y1);
        return lay->data_y + (y0 + y1) / 2;
    }
    return lay->data_y - lay->scroll_y + sp__tl_lane_top(d->tl, lay, (size_t)l) + lay->lane_pad +
           lay->row_h / 2;
}

static void draw_arrows(sp__tl_draw *d)
{
    const sp_timeline_view *v = d->view;
    if (!v->arrows || !v->narrows)
        return;
    cairo_t *cr = d->c->cr;
    cairo_set_line_width(cr, 1.2 * d->c->s);
    for (size_t i = 0; i < v->narrows; i++) {
        const sp_timeline_arrow *a = &v->arrows[i];
        double y0 = arrow_y(d, a->from_rank, a->from_thread);
        double y1 = arrow_y(d, a->to_rank, a->to_thread);
        if (isnan(y0) || isnan(y1))
            continue;
        double x0 = d->lay.data_x + ((double)a->from_ns - d->lay.t0) / d->p;
        double x1 = d->lay.data_x + ((double)a->to_ns - d->lay.t0) / d->p;
        sp__set_color(cr, a->color.a > 0 ? a->color : d->c->th.fg);
        cairo_move_to(cr, x0, y0);
        cairo_line_to(cr, x1, y1);
        cairo_stroke(cr);
        /* A head at the receiving end. */
        double ang = atan2(y1 - y0, x1 - x0), hl = 5 * d->c->s;
        cairo_move_to(cr, x1, y1);
        cairo_line_to(cr, x1 - hl * cos(ang - 0.45), y1 - hl * sin(ang - 0.45));
        cairo_line_to(cr, x1 - hl * cos(ang + 0.45), y1 - hl * sin(ang + 0.45));
        cairo_close_path(cr);
        cairo_fill(cr);
    }
    cairo_set_line_width(cr, 1);
}

/* The selected call's outline, from its bounds (its lane may draw from
 * the index, or from a window that does not hold it). */
static void draw_selected(sp__tl_draw *d)
{
    const sp_timeline_call_ref *s = &d->view->selected;
    if (s->depth < 0)
        return;
    int64_t l = sp_timeline_find_lane(d->tl, s->rank, s->thread);
    if (l < 0 || s->depth >= d->tl->lanes[l].depths)
        return;
    const sp__tl_layout *lay = &d->lay;
    sp__canvas *c = d->c;
    double y = lay->data_y - lay->scroll_y + sp__tl_lane_top(d->tl, lay, (size_t)l) +
               lay->lane_pad + s->depth * lay->row_h;
    double x0 = ((double)s->start_ns - lay->t0) / d->p, x1 = ((double)s->end_ns - lay->t0) / d->p;
    if (y + lay->row_h < lay->data_y || y > lay->data_y + lay->data_h || x1 < -2 ||
        x0 > lay->data_w + 2)
        return;
    x0 = fmax(x0, -2);
    x1 = fmin(fmax(x1, x0 + 1), lay->data_w + 2);
    cairo_t *cr = c->cr;
    sp__set_color(cr, c->th.select);
    cairo_set_line_width(cr, 2 * c->s);
    double bx = lay->data_x + (x1 - x0 >= 3 ? round(x0) : floor(x0));
    double bw = x1 - x0 >= 3 ? fmax(round(x1) - 1 - round(x0), 1) : fmax(ceil(x1) - floor(x0), 1);
    cairo_rectangle(cr, bx + c->s, y + c->s, fmax(bw - 2 * c->s, 1), lay->row_h - 1 - 2 * c->s);
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1);
}

/* The detail layout: lanes with a row per depth, scrolled. */
static void draw_detail(sp__tl_draw *d, detail *dt)
{
    const sp_timeline *tl = d->tl;
    const sp__tl_layout *lay = &d->lay;
    cairo_t *cr = d->c->cr;
    double h = d->c->h;
    double top = lay->data_y - lay->scroll_y;
    size_t first = sp__tl_lane_at(tl, lay, lay->scroll_y);
    size_t last = first;
    for (size_t l = first; l < tl->nlanes && !d->oom; l++) {
        const sp__tl_lane *ln = &tl->lanes[l];
        double lt = top + sp__tl_lane_top(tl, lay, l);
        if (lt >= h)
            break;
        last = l + 1;
        double ly = lt + lay->lane_pad;
        d->st.lanes_drawn++;
        /* Rows in view only: a lane may be 2^20 rows deep. */
        int32_t dep0 = ly < lay->data_y ? (int32_t)fmin(floor((lay->data_y - ly) / lay->row_h),
                                                        (double)ln->depths)
                                        : 0;
        for (int32_t dep = dep0; dep < ln->depths; dep++) {
            double ry = ly + dep * lay->row_h;
            if (ry + lay->row_h <= lay->data_y)
                continue;
            if (ry >= h)
                break;
            d->st.rows_drawn++;
            draw_row(dt, ln, dep, ry);
        }
    }
    sp__tl_fill_slots(d);
    draw_selected(d);
    if (!d->oom)
        draw_labels(dt);
    draw_arrows(d);
    cairo_restore(cr);

    /* Lane names over their column. */
    if (lay->data_x > 0) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, lay->data_y, lay->data_x, lay->data_h);
        cairo_clip(cr);
        for (size_t l = first; l < last; l++) {
            double ly = top + sp__tl_lane_top(tl, lay, l);
            lane_label(d, l, ly, sp__tl_lane_height(tl, lay, l));
        }
        cairo_restore(cr);
    }
}

/* Lane bands (alternating background, gap lines) of the detail layout. */
static void draw_bands(sp__tl_draw *d)
{
    const sp_timeline *tl = d->tl;
    const sp__tl_layout *lay = &d->lay;
    cairo_t *cr = d->c->cr;
    double top = lay->data_y - lay->scroll_y;
    for (size_t l = sp__tl_lane_at(tl, lay, lay->scroll_y); l < tl->nlanes; l++) {
        double ly = top + sp__tl_lane_top(tl, lay, l);
        if (ly >= d->c->h)
            break;
        double lh = sp__tl_lane_height(tl, lay, l);
        if (l % 2) {
            sp__set_color(cr, d->c->th.band);
            cairo_rectangle(cr, 0, ly, d->c->w, lh);
            cairo_fill(cr);
        }
        sp__set_color(cr, d->c->th.grid);
        cairo_rectangle(cr, 0, ly + lh, d->c->w, lay->lane_gap);
        cairo_fill(cr);
    }
}

int sp_timeline_draw_ex(cairo_t *cr, double w, double h, const sp_timeline *tl,
                        const sp_timeline_view *view, const sp_plot_style *style,
                        sp_timeline_stats *stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!cr || !tl || !(w > 0) || !(h > 0) || !isfinite(w) || !isfinite(h))
        return sp__error(SP_EINVAL, "sp_timeline_draw: bad arguments");
    sp_timeline_view defv;
    if (!view) {
        sp_timeline_view_init(&defv, tl);
        view = &defv;
    }
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, style);
    if (rc)
        return rc;
    sp__tl_draw d;
    memset(&d, 0, sizeof d);
    d.c = &c;
    d.tl = tl;
    /* Scratch buffers live in the timeline so frames reuse them; the API
     * allows one draw at a time per timeline, so this is not shared. */
    sp_timeline *mtl = (sp_timeline *)tl;
    d.slots = mtl->slots;
    for (int k = 0; k < NSLOTS; k++)
        d.slots[k].n = 0;
    /* The caller's colour map, else the run's own (legend and boxes agree),
     * built once (never analyzes the run); NULL: hash colours. */
    if (!c.style.colors && !mtl->colors)
        mtl->colors = sp_color_map_for_run(tl->run);
    if (!c.style.colors)
        c.style.colors = tl->colors;
    if (!prepare_colors(mtl, c.style.colors)) {
        sp__canvas_end(&c);
        return sp__error(SP_ENOMEM, "out of memory drawing the timeline");
    }
    d.slot_of = mtl->slot_of;
    d.shown = mtl->shown;
    d.view = view;
    d.highlight = view->highlight_region;
    d.last_slot = -1;
    sp__tl_layout_get(tl, w, h, view, &c.style, &d.lay);
    const sp__tl_layout *lay = &d.lay;
    d.p = (lay->t1 - lay->t0) / lay->data_w;
    d.st.overview = lay->overview;

    if (lay->title_h > 0)
        sp__text_draw(&c, SP__FONT_TITLE, c.style.title, 12 * c.s, lay->title_h / 2, 0, 0.5,
                      w - 24 * c.s, c.th.fg);
    if (tl->nlanes == 0) {
        sp__draw_empty_msg(&c, "No calls recorded in this run");
        sp__canvas_end(&c);
        return 0;
    }

    cairo_save(cr);
    cairo_rectangle(cr, 0, lay->data_y, w, lay->data_h);
    cairo_clip(cr);
    if (!lay->overview)
        draw_bands(&d);
    cairo_restore(cr);
    if (view->show_axis) /* grid under the boxes */
        draw_axis(&d);
    cairo_save(cr);
    cairo_rectangle(cr, lay->data_x, lay->data_y, lay->data_w, lay->data_h);
    cairo_clip(cr);
    if (lay->overview) {
        sp__tl_draw_overview(&d); /* restores cr itself, draws its labels */
    } else {
        detail dt = {.d = &d, .labels = &mtl->labels, .caplabels = &mtl->caplabels,
                     .min_label_w = 2.2 * c.fs};
        draw_detail(&d, &dt);
    }
    if (lay->data_x > 0) {
        sp__set_color(cr, c.th.axis);
        cairo_move_to(cr, lay->data_x - 0.5, lay->data_y);
        cairo_line_to(cr, lay->data_x - 0.5, lay->data_y + lay->data_h);
        cairo_stroke(cr);
    }
    if (lay->note_h > 0)
        draw_hidden_note(&d);
    if (lay->legend_h > 0)
        sp__region_legend(&c, tl->run, d.shown, c.style.colors, 12 * c.s, lay->legend_y + 4 * c.s,
                          w - 24 * c.s, 2);
    /* Scroll indicator when the lanes do not fit. */
    if (!lay->overview && lay->content_h > lay->data_h && lay->data_h > 0) {
        double bh = fmax(20 * c.s, lay->data_h * lay->data_h / lay->content_h);
        double by = lay->data_y + (lay->data_h - bh) * (lay->scroll_y / (lay->content_h - lay->data_h));
        sp_rgba sc = c.th.axis;
        sc.a = 0.55;
        sp__set_color(cr, sc);
        cairo_rectangle(cr, w - 6 * c.s, by, 4 * c.s, bh);
        cairo_fill(cr);
    }

    if (stats)
        *stats = d.st;
    sp__canvas_end(&c);
    if (d.oom)
        return sp__error(SP_ENOMEM, "out of memory drawing the timeline");
    return 0;
}

int sp_timeline_draw(cairo_t *cr, double w, double h, const sp_timeline *tl,
                     const sp_timeline_view *view, const sp_plot_style *st)
{
    return sp_timeline_draw_ex(cr, w, h, tl, view, st, NULL);
}
