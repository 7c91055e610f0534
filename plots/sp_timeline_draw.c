/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_draw.c - drawing a frame of the timeline with level of detail.
 *
 * Per visible row: a binary search finds the first visible call, then the
 * walk alternates between long calls (drawn as boxes) and merged runs of the
 * level whose bucket is at most a pixel (see sp_timeline_private.h). Entries
 * narrower than a pixel are gathered per pixel column into one box coloured
 * by the dominant region (neutral when none covers half). Boxes are collected
 * per colour and filled with one cairo_fill per colour, then labels and the
 * chrome (axis, lane names) are drawn on top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_timeline_private.h"

/* Colour slots: palette colours, neutral, then the same faded. */
#define SLOT_NEUTRAL SP__PALETTE_N
#define SLOTS_PER_SET (SP__PALETTE_N + 1)
#define NSLOTS SP__TL_NSLOTS

typedef sp__tl_buf rectbuf; /* x, y, w, h per rectangle */
typedef sp__tl_label label_item;

typedef struct acc_t {
    bool active;
    double col, x1;
    size_t calls;
    int n;
    int32_t region[4];
    double w[4];
    double cov;
} acc_t;

typedef struct draw_ctx {
    sp__canvas *c;
    const sp_timeline *tl;
    const sp_timeline_view *view;
    sp__tl_layout lay;
    double p;           /* ns per pixel */
    int32_t highlight;
    rectbuf *slots;      /* NSLOTS buffers owned by the timeline */
    label_item **labels; /* the timeline's label buffer and capacity */
    size_t *caplabels;
    size_t nlabels;
    double min_label_w;
    bool oom;
    /* coalescing of narrow boxes within the current row */
    int last_slot;
    double last_x1;
    size_t last_idx;
    bool last_merged;   /* the last rectangle already counts as merged */
    bool have_sel;
    double sel_x0, sel_x1, sel_y;
    const int *slot_of; /* palette slot per region under the map in use */
    bool *shown;        /* regions with a box drawn (the legend) */
    sp_timeline_stats st;
} draw_ctx;

static int region_slot(const draw_ctx *d, int32_t region)
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

static float *rect_push(draw_ctx *d, int slot)
{
    rectbuf *b = &d->slots[slot];
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

/* Emit a box [x0, x1) (pixels relative to the data area) at row y. */
static void emit(draw_ctx *d, double x0, double x1, double y, int slot, bool merged)
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
    r[3] = (float)(d->lay.row_h - 1);
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

static void acc_add(acc_t *a, int32_t region, double w, double cov, size_t calls)
{
    a->cov += cov;
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

static void acc_flush(draw_ctx *d, acc_t *a, double y)
{
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
    int slot = region >= 0 ? region_slot(d, region)
                           : SLOT_NEUTRAL + (d->highlight >= 0 ? SLOTS_PER_SET : 0);
    emit(d, a->col, fmax(a->x1, a->col + 1), y, slot, a->calls > 1);
    memset(a, 0, sizeof *a);
}

static void push_label(draw_ctx *d, double x0, double x1, double y, int32_t region, int slot)
{
    double vx0 = fmax(x0, 0), vx1 = fmin(x1, d->lay.data_w);
    if (vx1 - vx0 < d->min_label_w)
        return;
    if (d->nlabels == *d->caplabels) {
        size_t cap = *d->caplabels ? *d->caplabels * 2 : 128;
        label_item *v = realloc(*d->labels, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            return;
        }
        *d->labels = v;
        *d->caplabels = cap;
    }
    (*d->labels)[d->nlabels++] = (label_item){(float)(d->lay.data_x + vx0),
                                           (float)(d->lay.data_x + vx1), (float)y, region, slot};
}

/* Choose the merge level for p ns per pixel: the highest kept level (even
 * index, see drop_odd_levels) with 2^L <= p. */
static const sp__tl_level *pick_level(const sp__tl_row *row, double p)
{
    if (row->nlevels == 0 || p < 1)
        return NULL;
    int L = (int)floor(log2(p));
    if (L < row->lmin)
        return NULL;
    int k = L - row->lmin;
    if (k >= row->nlevels)
        k = row->nlevels - 1;
    k &= ~1;
    const sp__tl_level *lev = &row->levels[k];
    return lev->nruns ? lev : NULL;
}

static void draw_row(draw_ctx *d, const sp__tl_lane *ln, const sp__tl_row *row, double y)
{
    const double t0 = d->lay.t0, t1 = d->lay.t1, p = d->p;
    const sp__tl_level *lev = pick_level(row, p);
    size_t i = sp__tl_row_first_after(ln, row, (int64_t)floor(t0));
    size_t r = 0;
    if (lev) { /* first run not entirely before i */
        size_t lo = 0, hi = lev->nruns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((size_t)lev->runs[mid].first + lev->runs[mid].count <= i)
                lo = mid + 1;
            else
                hi = mid;
        }
        r = lo;
        if (r < lev->nruns && lev->runs[r].first < i)
            i = lev->runs[r].first;
    }
    d->last_slot = -1;
    acc_t acc = {0};
    bool sel_here = d->view->selected_call >= 0 && d->view->selected_rank == ln->rank;
    while (i < row->n) {
        double s, e, w_dom, cov;
        int32_t region;
        size_t calls;
        bool single;
        uint32_t call = 0;
        if (lev && r < lev->nruns && lev->runs[r].first == i) {
            const sp__tl_run *run = &lev->runs[r++];
            s = (double)run->t0;
            if (s >= t1)
                break;
            d->st.entries++;
            e = s + run->dur_ns;
            region = run->region;
            w_dom = run->dom_ns;
            cov = run->cov_ns;
            calls = run->count;
            single = false;
            i += run->count;
        } else {
            call = row->calls[i];
            s = (double)sp__tl_start(ln, row, i);
            if (s >= t1)
                break;
            d->st.entries++;
            e = (double)sp__tl_end(ln, row, i);
            region = ln->region[call];
            w_dom = cov = e - s;
            calls = 1;
            single = true;
            i++;
        }
        double x0 = (s - t0) / p, x1 = (e - t0) / p;
        if (single && x1 - x0 >= 1.0) {
            acc_flush(d, &acc, y);
            int slot = region_slot(d, region);
            emit(d, x0, x1, y, slot, false);
            push_label(d, x0, x1, y, region, slot);
            if (sel_here && (int64_t)call == d->view->selected_call) {
                d->have_sel = true;
                d->sel_x0 = d->lay.data_x + fmax(x0, -2);
                d->sel_x1 = d->lay.data_x + fmin(x1, d->lay.data_w + 2);
                d->sel_y = y;
            }
            continue;
        }
        double col = floor(x0);
        if (acc.active && col != acc.col)
            acc_flush(d, &acc, y);
        if (!acc.active) {
            acc.active = true;
            acc.col = col;
        }
        acc.x1 = fmax(acc.x1, x1);
        acc_add(&acc, region, w_dom, cov, calls);
        if (sel_here && single && (int64_t)call == d->view->selected_call) {
            d->have_sel = true;
            d->sel_x0 = d->lay.data_x + col;
            d->sel_x1 = d->sel_x0 + 1;
            d->sel_y = y;
        }
    }
    acc_flush(d, &acc, y);
}

static sp_rgba slot_color(const draw_ctx *d, int slot)
{
    bool faded = slot >= SLOTS_PER_SET;
    int base = faded ? slot - SLOTS_PER_SET : slot;
    sp_rgba c = base == SLOT_NEUTRAL ? d->c->th.neutral : sp__palette_color(base, d->c->style.dark);
    if (faded)
        c = sp__mix(c, d->c->th.bg, 0.72);
    return c;
}

static void fill_slots(draw_ctx *d)
{
    cairo_t *cr = d->c->cr;
    for (int k = 0; k < NSLOTS; k++) {
        rectbuf *b = &d->slots[k];
        if (!b->n)
            continue;
        sp__set_color(cr, slot_color(d, k));
        for (size_t i = 0; i < b->n; i++)
            cairo_rectangle(cr, b->v[4 * i], b->v[4 * i + 1], b->v[4 * i + 2], b->v[4 * i + 3]);
        cairo_fill(cr);
    }
}

static void draw_labels(draw_ctx *d)
{
    sp__canvas *c = d->c;
    double pad = 4 * c->s;
    size_t nreg = d->tl->run->nregions;
    double *widths = malloc((nreg ? nreg : 1) * sizeof *widths);
    if (!widths) {
        d->oom = true;
        return;
    }
    for (size_t i = 0; i < nreg; i++)
        widths[i] = -1;
    for (size_t i = 0; i < d->nlabels; i++) {
        const label_item *l = &(*d->labels)[i];
        const char *name = sp__region_name(d->tl->run, l->region);
        double avail = l->x1 - l->x0 - 2 * pad;
        if (l->region >= 0 && (size_t)l->region < nreg) {
            if (widths[l->region] < 0) /* measured once per region */
                widths[l->region] = sp__text_width(c, SP__FONT_SMALL, name);
            /* A truncated label needs room for a few characters to help. */
            if (widths[l->region] > avail && avail < 3.2 * c->fs)
                continue;
        }
        sp_rgba bgc = slot_color(d, l->slot);
        sp_rgba fg = sp_plot_text_color_on(bgc);
        if (l->slot >= SLOTS_PER_SET)
            fg = sp__mix(fg, bgc, 0.45);
        if (sp__text_draw(c, SP__FONT_SMALL, name, l->x0 + pad, l->y + (d->lay.row_h - 1) / 2, 0,
                          0.5, avail, fg) > 0)
            d->st.labels++;
    }
    free(widths);
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

/* "Rank 6, rank 7" style list of the ranks of lanes [from, to) into buf. */
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
static void draw_hidden_note(draw_ctx *d)
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

static void draw_axis(draw_ctx *d)
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

static void lane_label(draw_ctx *d, size_t l, double y, double h)
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
    draw_ctx d;
    memset(&d, 0, sizeof d);
    d.c = &c;
    d.tl = tl;
    /* Scratch buffers live in the timeline so frames reuse them; the API
     * allows one draw at a time per timeline, so this is not shared. */
    sp_timeline *mtl = (sp_timeline *)tl;
    d.slots = mtl->slots;
    d.labels = &mtl->labels;
    d.caplabels = &mtl->caplabels;
    for (int k = 0; k < NSLOTS; k++)
        d.slots[k].n = 0;
    /* The caller's colour map, else the run's own (legend and boxes agree). */
    if (!c.style.colors)
        c.style.colors = tl->colors;
    if (!prepare_colors(mtl, c.style.colors)) {
        sp__canvas_end(&c);
        return sp__error(SP_ENOMEM, "out of memory drawing the timeline");
    }
    d.slot_of = mtl->slot_of;
    d.shown = mtl->shown;
    d.view = view;
    d.highlight = view ? view->highlight_region : -1;
    sp__tl_layout_get(tl, w, h, view, &c.style, &d.lay);
    const sp__tl_layout *lay = &d.lay;
    d.p = (lay->t1 - lay->t0) / lay->data_w;
    d.min_label_w = 2.2 * c.fs;

    if (lay->title_h > 0)
        sp__text_draw(&c, SP__FONT_TITLE, c.style.title, 12 * c.s, lay->title_h / 2, 0, 0.5,
                      w - 24 * c.s, c.th.fg);
    if (tl->nlanes == 0) {
        sp__draw_empty_msg(&c, "No calls recorded in this run");
        sp__canvas_end(&c);
        return 0;
    }

    /* Visible lanes: binary search for the first, stop below the area. */
    double top = lay->data_y - lay->scroll_y;
    size_t first = sp__tl_lane_at(tl, lay, lay->scroll_y);
    cairo_save(cr);
    cairo_rectangle(cr, 0, lay->data_y, w, lay->data_h);
    cairo_clip(cr);
    size_t last = first;
    for (size_t l = first; l < tl->nlanes; l++) {
        double ly = top + sp__tl_lane_top(tl, lay, l);
        if (ly >= h)
            break;
        last = l + 1;
        double lh = sp__tl_lane_height(tl, lay, l);
        if (l % 2) {
            sp__set_color(cr, c.th.band);
            cairo_rectangle(cr, 0, ly, w, lh);
            cairo_fill(cr);
        }
        sp__set_color(cr, c.th.grid);
        cairo_rectangle(cr, 0, ly + lh, w, lay->lane_gap);
        cairo_fill(cr);
    }
    if (view->show_axis) { /* grid under the boxes */
        cairo_restore(cr);
        cairo_save(cr);
        draw_axis(&d);
        cairo_rectangle(cr, lay->data_x, lay->data_y, lay->data_w, lay->data_h);
        cairo_clip(cr);
    } else {
        cairo_restore(cr);
        cairo_save(cr);
        cairo_rectangle(cr, lay->data_x, lay->data_y, lay->data_w, lay->data_h);
        cairo_clip(cr);
    }
    for (size_t l = first; l < last && !d.oom; l++) {
        const sp__tl_lane *ln = &tl->lanes[l];
        double ly = top + sp__tl_lane_top(tl, lay, l) + lay->lane_pad;
        d.st.lanes_drawn++;
        for (int32_t dep = 0; dep < ln->depths; dep++) {
            double ry = ly + dep * lay->row_h;
            if (ry + lay->row_h <= lay->data_y)
                continue;
            if (ry >= h)
                break;
            d.st.rows_drawn++;
            draw_row(&d, ln, &ln->rows[dep], ry);
        }
    }
    fill_slots(&d);
    if (d.have_sel) {
        sp__set_color(cr, c.th.select);
        cairo_set_line_width(cr, 2 * c.s);
        cairo_rectangle(cr, d.sel_x0 + c.s, d.sel_y + c.s, fmax(d.sel_x1 - d.sel_x0 - 2 * c.s, 1),
                        lay->row_h - 1 - 2 * c.s);
        cairo_stroke(cr);
        cairo_set_line_width(cr, 1);
    }
    if (!d.oom)
        draw_labels(&d);
    cairo_restore(cr);

    /* Lane names over their column. */
    if (lay->data_x > 0) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, lay->data_y, lay->data_x, lay->data_h);
        cairo_clip(cr);
        for (size_t l = first; l < last; l++) {
            double ly = top + sp__tl_lane_top(tl, lay, l);
            lane_label(&d, l, ly, sp__tl_lane_height(tl, lay, l));
        }
        cairo_restore(cr);
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
    if (lay->content_h > lay->data_h && lay->data_h > 0) {
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
