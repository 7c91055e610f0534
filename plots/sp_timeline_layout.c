/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_layout.c - where things go in a timeline draw. Sizes derive
 * from the font size and scale by fixed ratios (not from measured text), so
 * hit testing and scroll ranges need no cairo context and always agree with
 * the drawing.
 */
#include <math.h>

#include "sp_error.h"
#include "sp_timeline_private.h"

void sp__tl_layout_get(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                       const sp_plot_style *st, sp__tl_layout *lay)
{
    sp_plot_style def;
    if (!st) {
        sp_plot_style_init(&def);
        st = &def;
    }
    double s = st->scale > 0 && isfinite(st->scale) ? st->scale : 1.0;
    double fs = (st->font_size > 0 && isfinite(st->font_size) ? st->font_size : 12.0) * s;
    bool labels = view ? view->show_lane_labels : true;
    bool axis = view ? view->show_axis : true;
    lay->title_h = st->title && *st->title ? round(2.4 * fs) : 0;
    lay->axis_y = lay->title_h;
    lay->axis_h = axis ? round(2.0 * fs) : 0;
    lay->data_x = labels ? round(fmin(9.0 * fs, w * 0.35)) : 0;
    lay->data_y = lay->title_h + lay->axis_h;
    lay->data_w = fmax(1.0, w - lay->data_x);
    lay->row_h = round(1.55 * fs);
    lay->lane_pad = round(3 * s);
    lay->lane_gap = fmax(1.0, round(s));
    size_t nl = tl ? tl->nlanes : 0;
    lay->content_h = nl * (2 * lay->lane_pad + lay->lane_gap) +
                     (double)(tl ? tl->total_depths : 0) * lay->row_h;
    /* Bottom bands: the legend (two rows of the small font, generously),
     * and above it one line naming the lanes that do not fit, when asked. */
    /* ... unless the chart is too short to give lanes the room first (a
     * strip of timeline, e.g. one of a comparison's, whose page shows the
     * colours in its table). */
    bool legend = (view ? view->show_legend : true) && nl > 0 && h - lay->data_y >= 12 * fs;
    lay->legend_h = legend ? round(2 * 1.45 * fs + 8 * s) : 0;
    double avail = fmax(0.0, h - lay->data_y - lay->legend_h);
    /* The overview when asked, or when not even one row per lane fits. */
    sp_timeline_lanes mode = view ? view->lanes : SP_TIMELINE_LANES_AUTO;
    double thinnest = 2 * lay->lane_pad + lay->lane_gap + lay->row_h;
    lay->overview = nl > 0 && (mode == SP_TIMELINE_LANES_OVERVIEW ||
                               (mode == SP_TIMELINE_LANES_AUTO && (double)nl * thinnest > avail));
    bool note = !lay->overview && (view ? view->note_hidden_lanes : true) && nl > 0;
    lay->note_h = note && lay->content_h > avail ? round(1.6 * fs) : 0;
    lay->data_h = fmax(0.0, avail - lay->note_h);
    lay->note_y = lay->data_y + lay->data_h;
    lay->legend_y = lay->note_y + lay->note_h;
    if (lay->overview) {
        lay->content_h = lay->data_h;
        lay->lane_h = lay->data_h / (double)nl;
        lay->row_h = lay->lane_h;
    }
    double max_scroll = fmax(0.0, lay->content_h - lay->data_h);
    double sy = view && !lay->overview ? view->scroll_y : 0;
    lay->scroll_y = isfinite(sy) ? fmin(fmax(sy, 0.0), max_scroll) : 0;
    double t0 = 0, t1 = tl ? (double)tl->duration : 0;
    if (view && view->t1_ns > view->t0_ns) {
        t0 = (double)view->t0_ns;
        t1 = (double)view->t1_ns;
    }
    if (!(t1 > t0))
        t1 = t0 + 1;
    lay->t0 = t0;
    lay->t1 = t1;
}

size_t sp__tl_overview_rows(const sp_timeline *tl, const sp__tl_layout *lay)
{
    if (lay->lane_h >= 1)
        return tl->nlanes;
    return (size_t)floor(lay->data_h);
}

size_t sp__tl_overview_row(const sp_timeline *tl, const sp__tl_layout *lay, size_t k, double *y0,
                           double *y1)
{
    if (lay->lane_h >= 1) {
        /* A pixel between lanes once they are tall enough to spare it. */
        double gap = lay->lane_h >= 4 ? 1 : 0;
        *y0 = round((double)k * lay->lane_h);
        *y1 = fmax(*y0 + 1, round((double)(k + 1) * lay->lane_h) - gap);
        return k;
    }
    /* More lanes than pixel rows: each pixel row shows the first of its lanes. */
    size_t rows = sp__tl_overview_rows(tl, lay);
    *y0 = (double)k;
    *y1 = (double)k + 1;
    size_t l = (size_t)((double)k * (double)tl->nlanes / (double)(rows ? rows : 1));
    return l < tl->nlanes ? l : tl->nlanes - 1;
}

size_t sp__tl_overview_lanes(const sp_timeline *tl, const sp__tl_layout *lay, size_t k,
                             size_t *lanes)
{
    double y0, y1;
    size_t l0 = sp__tl_overview_row(tl, lay, k, &y0, &y1);
    size_t rows = sp__tl_overview_rows(tl, lay);
    size_t l1 = lay->lane_h >= 1 || k + 1 >= rows ? (lay->lane_h >= 1 ? l0 + 1 : tl->nlanes)
                                                  : sp__tl_overview_row(tl, lay, k + 1, &y0, &y1);
    if (l1 <= l0)
        l1 = l0 + 1;
    size_t n = l1 - l0 < SP__TL_OV_MERGE ? l1 - l0 : SP__TL_OV_MERGE;
    for (size_t i = 0; i < n; i++)
        lanes[i] = l0 + i * (l1 - l0) / n;
    return n;
}

size_t sp__tl_overview_lane_at(const sp_timeline *tl, const sp__tl_layout *lay, double y)
{
    if (tl->nlanes == 0)
        return 0;
    double y0, y1;
    size_t rows = sp__tl_overview_rows(tl, lay);
    size_t k = y <= 0 ? 0 : (size_t)(lay->lane_h >= 1 ? floor(y / lay->lane_h) : floor(y));
    if (k >= rows)
        k = rows ? rows - 1 : 0;
    return sp__tl_overview_row(tl, lay, k, &y0, &y1);
}

double sp__tl_lane_top(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane)
{
    return (double)lane * (2 * lay->lane_pad + lay->lane_gap) +
           (double)tl->lanes[lane].depth_before * lay->row_h;
}

double sp__tl_lane_height(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane)
{
    return 2 * lay->lane_pad + tl->lanes[lane].depths * lay->row_h;
}

size_t sp__tl_lane_at(const sp_timeline *tl, const sp__tl_layout *lay, double cy)
{
    if (tl->nlanes == 0)
        return 0;
    size_t lo = 0, hi = tl->nlanes; /* last lane whose top <= cy */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp__tl_lane_top(tl, lay, mid) <= cy)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int sp_timeline_get_geometry(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                             const sp_plot_style *st, sp_timeline_geometry *g)
{
    if (!tl || !g)
        return sp__error(SP_EINVAL, "sp_timeline_get_geometry: bad arguments");
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    g->data_x = lay.data_x;
    g->data_y = lay.data_y;
    g->data_w = lay.data_w;
    g->data_h = lay.data_h;
    g->content_h = lay.content_h;
    g->row_h = lay.row_h;
    g->overview = lay.overview;
    return 0;
}

double sp_timeline_x_to_ns(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                           const sp_plot_style *st, double x)
{
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    return lay.t0 + (x - lay.data_x) / lay.data_w * (lay.t1 - lay.t0);
}

double sp_timeline_ns_to_x(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                           const sp_plot_style *st, double t_ns)
{
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    return lay.data_x + (t_ns - lay.t0) / (lay.t1 - lay.t0) * lay.data_w;
}

size_t sp_timeline_lanes_shown(const sp_timeline *tl, double w, double h,
                               const sp_timeline_view *view, const sp_plot_style *st)
{
    if (!tl)
        return 0;
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    if (lay.overview)
        return tl->nlanes;
    size_t n = 0;
    for (size_t l = 0; l < tl->nlanes; l++) {
        double top = sp__tl_lane_top(tl, &lay, l) - lay.scroll_y;
        if (top >= 0 && top + sp__tl_lane_height(tl, &lay, l) <= lay.data_h + 0.5)
            n++;
    }
    return n;
}

size_t sp_timeline_visible_lanes(const sp_timeline *tl, double w, double h,
                                 const sp_timeline_view *view, const sp_plot_style *st,
                                 size_t *lanes, size_t max)
{
    if (!tl || tl->nlanes == 0)
        return 0;
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    size_t n = 0;
    if (lay.overview) {
        size_t rows = sp__tl_overview_rows(tl, &lay), prev = SIZE_MAX;
        for (size_t k = 0; k < rows; k++) {
            size_t row[SP__TL_OV_MERGE];
            size_t m = sp__tl_overview_lanes(tl, &lay, k, row);
            for (size_t i = 0; i < m; i++) {
                if (row[i] == prev)
                    continue;
                prev = row[i];
                if (n < max)
                    lanes[n] = row[i];
                n++;
            }
        }
        return n;
    }
    for (size_t l = sp__tl_lane_at(tl, &lay, lay.scroll_y); l < tl->nlanes; l++) {
        if (sp__tl_lane_top(tl, &lay, l) >= lay.scroll_y + lay.data_h)
            break;
        if (n < max)
            lanes[n] = l;
        n++;
    }
    return n;
}

double sp_timeline_lane_y(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                          const sp_plot_style *st, size_t lane)
{
    if (!tl || lane >= tl->nlanes)
        return 0;
    sp__tl_layout lay;
    sp__tl_layout_get(tl, w, h, view, st, &lay);
    if (lay.overview) { /* where the lane lies in the detail layout */
        sp_timeline_view v;
        if (view)
            v = *view;
        else
            sp_timeline_view_init(&v, tl);
        v.lanes = SP_TIMELINE_LANES_DETAIL;
        sp__tl_layout_get(tl, w, h, &v, st, &lay);
    }
    return sp__tl_lane_top(tl, &lay, lane);
}
