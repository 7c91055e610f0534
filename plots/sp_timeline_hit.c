/* SPDX-License-Identifier: MIT */
/* sp_timeline_hit.c - what is under a point of a drawn timeline. */
#include <math.h>
#include <string.h>

#include "sp_timeline_private.h"

/* The call of the lane's window at depth covering t within tol, nearest t:
 * the first ending after t - tol, if it starts before t + tol. */
static bool hit_window(const sp__tl_lane *ln, int32_t depth, double t, double tol,
                       sp_timeline_hit_info *out)
{
    const sp_timeline_calls *c = ln->calls;
    if (!c || depth >= c->depths)
        return false;
    const sp__tl_row *row = &c->rows[depth];
    size_t k = sp__tl_row_first_after(c, row, (int64_t)floor(t - tol));
    if (k >= row->n || (double)sp__tl_start(c, row, k) > t + tol)
        return false;
    size_t best = k;
    double best_d = 1e300;
    for (size_t j = k; j < row->n && (double)sp__tl_start(c, row, j) <= t + tol; j++) {
        double s = (double)sp__tl_start(c, row, j), e = (double)sp__tl_end(c, row, j);
        double dist = t < s ? s - t : t > e ? t - e : 0;
        if (dist < best_d) {
            best_d = dist;
            best = j;
        }
        if (dist == 0 || j - k > 64) /* inside one, or enough candidates */
            break;
    }
    uint32_t call = row->calls[best];
    out->kind = SP_TIMELINE_HIT_CALL;
    out->call = call;
    out->region = c->w->region[call];
    out->start_ns = sp__tl_start(c, row, best);
    out->end_ns = sp__tl_end(c, row, best);
    return true;
}

/* The index's box at depth under t. */
typedef struct index_hit {
    double t, tol;
    int32_t region;
} index_hit;

static bool visit_index(void *ud, const sp__tl_entry *e)
{
    index_hit *h = ud;
    if (e->e >= h->t - h->tol && e->s <= h->t + h->tol) {
        h->region = e->region;
        return e->s < h->t; /* a later bin may still be the one under t */
    }
    return e->s <= h->t + h->tol;
}

sp_timeline_hit_kind sp_timeline_hit(const sp_timeline *tl, double w, double h,
                                     const sp_timeline_view *view, const sp_plot_style *st,
                                     double x, double y, sp_timeline_hit_info *out)
{
    sp_timeline_hit_info none = {.kind = SP_TIMELINE_HIT_NONE, .depth = -1, .call = -1,
                                 .region = -1, .rank = -1, .thread = -1};
    if (!out)
        return SP_TIMELINE_HIT_NONE;
    *out = none;
    if (!tl || !(w > 0) || !(h > 0) || x < 0 || y < 0 || x >= w || y >= h)
        return SP_TIMELINE_HIT_NONE;
    sp_timeline_view defv;
    if (!view) {
        sp_timeline_view_init(&defv, tl);
        view = &defv;
    }
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    double p = (lay.t1 - lay.t0) / lay.data_w;
    double t = lay.t0 + (x - lay.data_x) * p;
    out->t_ns = (int64_t)llround(t);
    if (y < lay.axis_y)
        return SP_TIMELINE_HIT_NONE; /* the title */
    if (y < lay.data_y)
        return out->kind = SP_TIMELINE_HIT_AXIS;
    if (tl->nlanes == 0 || y >= lay.data_y + lay.data_h)
        return SP_TIMELINE_HIT_NONE;
    size_t l;
    if (lay.overview) {
        l = sp__tl_overview_lane_at(tl, &lay, y - lay.data_y);
    } else {
        double cy = y - lay.data_y + lay.scroll_y;
        l = sp__tl_lane_at(tl, &lay, cy);
        if (cy >= sp__tl_lane_top(tl, &lay, l) + sp__tl_lane_height(tl, &lay, l))
            return SP_TIMELINE_HIT_NONE; /* the gap below a lane, or below the last */
    }
    const sp__tl_lane *ln = &tl->lanes[l];
    out->kind = SP_TIMELINE_HIT_LANE;
    out->lane = l;
    out->rank = ln->rank;
    out->thread = ln->thread;
    if (x < lay.data_x || lay.overview)
        return SP_TIMELINE_HIT_LANE; /* the lane's name, or a row of the overview */
    double ry = y - lay.data_y + lay.scroll_y - sp__tl_lane_top(tl, &lay, l) - lay.lane_pad;
    if (ry < 0 || ry >= ln->depths * lay.row_h)
        return SP_TIMELINE_HIT_LANE;
    int32_t depth = (int32_t)(ry / lay.row_h);
    out->depth = depth;
    double tol = 0.5 * p;
    /* The window when it holds t (even if it does not cover the view). */
    if (ln->calls && !ln->calls->w->truncated &&
        (double)(ln->calls->w->t0_ns - ln->calls->origin) <= t &&
        (double)(ln->calls->w->t1_ns - ln->calls->origin) >= t)
        return hit_window(ln, depth, t, tol, out) ? SP_TIMELINE_HIT_CALL : SP_TIMELINE_HIT_LANE;
    if (ln->lod) {
        index_hit ih = {t, tol, -1};
        sp__tl_walk_index(ln->lod, tl->origin, depth, t - tol, t + tol + 1, p, visit_index, &ih);
        if (ih.region >= 0) {
            out->region = ih.region;
            return out->kind = SP_TIMELINE_HIT_INDEX;
        }
        return SP_TIMELINE_HIT_LANE;
    }
    if (ln->calls && hit_window(ln, depth, t, tol, out))
        return SP_TIMELINE_HIT_CALL;
    return SP_TIMELINE_HIT_LANE;
}
