/* SPDX-License-Identifier: MIT */
/* sp_timeline_hit.c - what is under a point of a drawn timeline. */
#include <math.h>
#include <string.h>

#include "sp_timeline_private.h"

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
    if (tl->nlanes == 0)
        return SP_TIMELINE_HIT_NONE;
    double cy = y - lay.data_y + lay.scroll_y;
    size_t l = sp__tl_lane_at(tl, &lay, cy);
    double ltop = sp__tl_lane_top(tl, &lay, l);
    if (cy >= ltop + sp__tl_lane_height(tl, &lay, l))
        return SP_TIMELINE_HIT_NONE; /* the gap below a lane, or below the last */
    const sp__tl_lane *ln = &tl->lanes[l];
    out->kind = SP_TIMELINE_HIT_LANE;
    out->lane = l;
    out->rank = ln->rank;
    out->thread = ln->thread;
    if (x < lay.data_x)
        return SP_TIMELINE_HIT_LANE; /* the lane's name */
    double ry = cy - ltop - lay.lane_pad;
    if (ry < 0 || ry >= ln->depths * lay.row_h)
        return SP_TIMELINE_HIT_LANE;
    int32_t depth = (int32_t)(ry / lay.row_h);
    out->depth = depth;
    const sp__tl_row *row = &ln->rows[depth];
    if (row->n == 0)
        return SP_TIMELINE_HIT_LANE;
    /* The call covering t within half a pixel: the first ending after
     * t - tol, if it starts before t + tol; else the one before it. */
    double tol = 0.5 * p;
    size_t k = sp__tl_row_first_after(ln, row, (int64_t)floor(t - tol));
    if (k >= row->n || (double)sp__tl_start(ln, row, k) > t + tol)
        return SP_TIMELINE_HIT_LANE;
    /* Among the calls within the tolerance, the one nearest t. */
    size_t best = k;
    double best_d = 1e300;
    for (size_t j = k; j < row->n && (double)sp__tl_start(ln, row, j) <= t + tol; j++) {
        double s = (double)sp__tl_start(ln, row, j), e = (double)sp__tl_end(ln, row, j);
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
    out->region = ln->region[call];
    return SP_TIMELINE_HIT_CALL;
}
