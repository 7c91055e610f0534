/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_overview.c - every lane on one screen: one thin row per lane
 * (a pixel row per several lanes when they outnumber the pixel rows), each
 * pixel coloured by the innermost region that covers at least half of it
 * (a region covering less shows only where nothing covers half). Rows are
 * painted depth by depth into one region per pixel column, from the lane's
 * window or index (sp_timeline_walk.c), then drawn as runs of equal
 * colour. A frame costs O(rows x depths x pixels) whatever the calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_timeline_private.h"

/* Depths painted: deeper calls hardly ever cover half a pixel of an
 * overview, and a 2^20-deep lane must not cost 2^20 walks per frame. */
#define OVERVIEW_MAX_DEPTH 64

typedef struct paint {
    const sp__tl_draw *d;
    int32_t *col;       /* region per pixel column, -1 none */
    uint8_t *strong;    /* 1: a region covers at least half of it */
    size_t ncol;
    size_t entries;
} paint;

static bool visit_paint(void *ud, const sp__tl_entry *e)
{
    paint *pt = ud;
    pt->entries++;
    if (e->region < 0)
        return true;
    double t0 = pt->d->lay.t0, p = pt->d->p;
    double x0 = (e->s - t0) / p, x1 = (e->e - t0) / p;
    if (x1 <= 0 || x0 >= (double)pt->ncol)
        return true;
    double len = e->e - e->s;
    /* How much of its own span the entry's region fills. */
    double frac = e->calls == 1 && !e->from_index ? 1.0 : len > 0 ? fmin(e->dom / len, 1.0) : 1.0;
    size_t c0 = x0 < 0 ? 0 : (size_t)x0;
    size_t c1 = x1 >= (double)pt->ncol ? pt->ncol : (size_t)ceil(x1);
    for (size_t c = c0; c < c1; c++) {
        double ov = fmin(x1, (double)c + 1) - fmax(x0, (double)c);
        bool strong = ov * frac >= 0.5;
        if (strong || (!pt->strong[c] && pt->col[c] < 0)) {
            pt->col[c] = e->region;
            pt->strong[c] = strong;
        }
    }
    return true;
}

/* Grow the timeline's column scratch to n entries (regions + flags). */
static bool columns(sp_timeline *tl, size_t n)
{
    size_t need = n * sizeof(int32_t) + n;
    if (tl->capcolumn >= need)
        return true;
    int32_t *v = realloc(tl->column, need);
    if (!v)
        return false;
    tl->column = v;
    tl->capcolumn = need;
    return true;
}

/* Paint lane ln over the row's columns. */
static void paint_lane(sp__tl_draw *d, const sp__tl_lane *ln, paint *pt)
{
    const sp__tl_layout *lay = &d->lay;
    switch (sp__tl_lane_source(ln, lay->t0, lay->t1)) {
    case SP__TL_FROM_WINDOW:
    case SP__TL_FROM_PART:
        d->st.window_rows++;
        for (int32_t dep = 0; dep < ln->calls->depths && dep < OVERVIEW_MAX_DEPTH; dep++)
            sp__tl_walk_calls(ln->calls, dep, lay->t0, lay->t1, d->p, visit_paint, pt);
        break;
    case SP__TL_FROM_INDEX:
        d->st.index_rows++;
        for (uint32_t dep = 0; dep < ln->lod->ndepth; dep++)
            sp__tl_walk_index(ln->lod, d->tl->origin, (int32_t)dep, lay->t0, lay->t1, d->p,
                              visit_paint, pt);
        break;
    case SP__TL_FROM_NONE:
        break;
    }
}

/* Rank names down the label column, as many as fit without overlapping. */
static void draw_rank_labels(sp__tl_draw *d, size_t rows)
{
    sp__canvas *c = d->c;
    const sp__tl_layout *lay = &d->lay;
    double pad = 8 * c->s, maxw = lay->data_x - 2 * pad, lh = c->line_h[SP__FONT_SMALL];
    double last_y = -1e300;
    int32_t prev_rank = -1;
    for (size_t k = 0; k < rows; k++) {
        double y0, y1;
        size_t l = sp__tl_overview_row(d->tl, lay, k, &y0, &y1);
        const sp__tl_lane *ln = &d->tl->lanes[l];
        bool new_rank = ln->rank != prev_rank;
        prev_rank = ln->rank;
        double y = lay->data_y + (y0 + y1) / 2;
        if (!new_rank || y - last_y < lh * 1.15 || y + lh / 2 > lay->data_y + lay->data_h)
            continue;
        char text[48];
        snprintf(text, sizeof text, "Rank %d", ln->rank);
        sp__text_draw(c, SP__FONT_SMALL, text, pad, fmax(y, lay->data_y + lh / 2), 0, 0.5, maxw,
                      c->th.fg);
        last_y = y;
    }
    /* How many ranks and lanes the rows stand for, above the labels. */
    size_t nranks = 0;
    int32_t r = -1;
    for (size_t l = 0; l < d->tl->nlanes; l++)
        if (d->tl->lanes[l].rank != r) {
            r = d->tl->lanes[l].rank;
            nranks++;
        }
    char what[96];
    snprintf(what, sizeof what, "%zu rank%s", nranks, nranks == 1 ? "" : "s");
    if (nranks != d->tl->nlanes) /* threads too, when the column has room */
        snprintf(what + strlen(what), sizeof what - strlen(what), " · %zu lanes", d->tl->nlanes);
    if (nranks != d->tl->nlanes && sp__text_width(c, SP__FONT_SMALL, what) > maxw)
        snprintf(what, sizeof what, "%zu rank%s", nranks, nranks == 1 ? "" : "s");
    if (lay->axis_h > 0)
        sp__text_draw(c, SP__FONT_SMALL, what, pad, lay->axis_y + lay->axis_h / 2, 0, 0.5, maxw,
                      c->th.muted);
}

void sp__tl_draw_overview(sp__tl_draw *d)
{
    sp_timeline *tl = (sp_timeline *)d->tl;
    const sp__tl_layout *lay = &d->lay;
    cairo_t *cr = d->c->cr;
    size_t ncol = (size_t)ceil(lay->data_w);
    size_t rows = sp__tl_overview_rows(tl, lay);
    if (!columns(tl, ncol)) {
        d->oom = true;
        cairo_restore(cr);
        return;
    }
    paint pt = {d, tl->column, (uint8_t *)(tl->column + ncol), ncol, 0};
    size_t prev_lane = SIZE_MAX;
    for (size_t k = 0; k < rows; k++) {
        double y0, y1;
        size_t l = sp__tl_overview_row(tl, lay, k, &y0, &y1);
        const sp__tl_lane *ln = &tl->lanes[l];
        if (l != prev_lane)
            d->st.lanes_drawn++;
        prev_lane = l;
        d->st.rows_drawn++;
        for (size_t c = 0; c < ncol; c++)
            pt.col[c] = -1;
        memset(pt.strong, 0, ncol);
        paint_lane(d, ln, &pt);
        double y = lay->data_y + y0, h = y1 - y0;
        d->last_slot = -1;
        if (ln->lod == NULL && ln->calls == NULL) { /* still loading */
            double x0 = ((double)ln->first - lay->t0) / d->p;
            double x1 = ((double)ln->last - lay->t0) / d->p;
            sp__tl_emit(d, x0, fmax(x1, x0 + 1), y, h, SP__TL_SLOT_PENDING, false);
            d->st.pending_rows++;
            continue;
        }
        /* Runs of one region become one box. */
        for (size_t c = 0; c < ncol;) {
            int32_t g = pt.col[c];
            size_t e = c + 1;
            while (e < ncol && pt.col[e] == g)
                e++;
            if (g >= 0)
                sp__tl_rect(d, (double)c, (double)e, y, h, sp__tl_region_slot(d, g));
            c = e;
        }
    }
    d->st.entries += pt.entries;
    sp__tl_fill_slots(d);
    cairo_restore(cr);
    if (lay->data_x > 0) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, lay->axis_y, lay->data_x, lay->data_y + lay->data_h - lay->axis_y);
        cairo_clip(cr);
        draw_rank_labels(d, rows);
        cairo_restore(cr);
    }
}
