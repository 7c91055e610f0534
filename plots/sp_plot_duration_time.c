/* SPDX-License-Identifier: MIT */
/* sp_plot_duration_time.c - one region's call durations against start time. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

#define MAX_RANK_COLORS 10

/* Series colours for ranks: the palette's saturated half first. */
static sp_rgba rank_color(size_t r, bool dark)
{
    static const int order[MAX_RANK_COLORS] = {0, 1, 2, 3, 4, 11, 12, 13, 14, 19};
    return sp__palette_color(order[r % MAX_RANK_COLORS], dark);
}

typedef struct pt {
    double x, y; /* run time (s), duration (s) */
    int32_t rank;
} pt;

int sp_plot_duration_time(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                          int32_t rank, const sp_plot_style *st)
{
    if (!cr || !run || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_duration_time: bad arguments");
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    char msg[512];
    pt *p = NULL;
    float *env = NULL;
    if (region < 0 || (size_t)region >= run->nregions) {
        snprintf(msg, sizeof msg, "No such region (id %d)", region);
        sp__draw_empty_msg(&c, msg);
        goto out;
    }
    const char *name = run->region_names[region];
    /* Run time origin and span over every call (as the timeline). */
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t n = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            t0 = rk->start_ns[i] + rk->clock_offset_ns < t0 ? rk->start_ns[i] + rk->clock_offset_ns
                                                            : t0;
            t1 = rk->end_ns[i] + rk->clock_offset_ns > t1 ? rk->end_ns[i] + rk->clock_offset_ns : t1;
            n += rk->region[i] == region && (rank < 0 || (int32_t)r == rank);
        }
    }
    if (n == 0) {
        if (rank >= 0)
            snprintf(msg, sizeof msg, "No calls recorded for region '%s' on rank %d", name, rank);
        else
            snprintf(msg, sizeof msg, "No calls recorded for region '%s'", name);
        sp__draw_empty_msg(&c, msg);
        goto out;
    }
    p = malloc(n * sizeof *p);
    if (!p) {
        rc = sp__error(SP_ENOMEM, "out of memory");
        goto out;
    }
    size_t k = 0;
    double ymin = INFINITY, ymax = 0, yminpos = INFINITY;
    for (size_t r = 0; r < run->nranks; r++) {
        if (rank >= 0 && (int32_t)r != rank)
            continue;
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++)
            if (rk->region[i] == region) {
                double x = (double)(rk->start_ns[i] + rk->clock_offset_ns - t0) * 1e-9;
                double y = (double)(rk->end_ns[i] - rk->start_ns[i]) * 1e-9;
                p[k++] = (pt){x, y, (int32_t)r};
                ymin = fmin(ymin, y);
                ymax = fmax(ymax, y);
                if (y > 0)
                    yminpos = fmin(yminpos, y);
            }
    }
    bool logy = isfinite(yminpos) && ymax / yminpos > 100;
    bool by_rank = rank < 0 && run->nranks > 1 && run->nranks <= MAX_RANK_COLORS;

    char title[600], sub[300], where[48];
    snprintf(title, sizeof title, "%s: duration of each call over time", name);
    if (rank >= 0)
        snprintf(where, sizeof where, "on rank %d", rank);
    else
        snprintf(where, sizeof where, "on %s", run->nranks == 1 ? "1 rank" : "all ranks");
    snprintf(sub, sizeof sub, "%zu call%s %s · x: call start in run time · y: duration%s", n,
             n == 1 ? "" : "s", where, logy ? " (log scale)" : "");
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;
    /* Legend: ranks when coloured by rank, else the region. */
    sp__legend_item items[MAX_RANK_COLORS];
    char labels[MAX_RANK_COLORS][32];
    size_t nitems = 0;
    if (by_rank) {
        for (size_t r = 0; r < run->nranks; r++) {
            snprintf(labels[r], sizeof labels[r], "rank %zu", r);
            items[nitems++] = (sp__legend_item){labels[r], rank_color(r, c.style.dark), false};
        }
    } else {
        items[nitems++] = (sp__legend_item){name, sp_plot_region_color(name, c.style.dark), false};
    }
    y += sp__legend(&c, items, nitems, w - pad, y, w - 2 * pad, true) + 4 * c.s;

    sp__axis ay = {.kind = SP__AXIS_TIME, .log = logy};
    if (logy) {
        ay.lo = yminpos / 1.3;
        ay.hi = ymax * 1.3;
    } else {
        ay.lo = 0;
        ay.hi = ymax > 0 ? ymax * 1.1 : 1e-6;
    }
    double bottom = h - sp__axis_x_height(&c, true) - 8 * c.s;
    double top = y + c.line_h[SP__FONT_SMALL] + 8 * c.s;
    ay.p0 = bottom;
    ay.p1 = top;
    double lw = sp__axis_y_label_width(&c, &ay);
    sp__rect r = {pad + lw + 10 * c.s, top, 0, bottom - top};
    r.w = w - r.x - pad;
    if (r.w < 20 || r.h < 20) {
        sp__draw_empty_msg(&c, "Too small to draw");
        goto out;
    }
    double span = (double)(t1 - t0) * 1e-9;
    sp__axis ax = {.lo = 0, .hi = span > 0 ? span : 1e-6, .kind = SP__AXIS_TIME, .p0 = r.x,
                   .p1 = r.x + r.w};
    sp__axis_draw_y(&c, &ay, r, true, "duration", NULL);
    sp__axis_draw_x(&c, &ax, r, true, "run time", NULL);

    cairo_save(cr);
    cairo_rectangle(cr, r.x - 4 * c.s, r.y - 4 * c.s, r.w + 8 * c.s, r.h + 8 * c.s);
    cairo_clip(cr);
    size_t nser = by_rank ? run->nranks : 1;
    size_t cols = (size_t)ceil(r.w) + 1;
    if (n <= 3 * cols) {
        /* Few calls: a thin line per series and a dot per call. */
        for (size_t s = 0; s < nser; s++) {
            sp_rgba col = by_rank ? rank_color(s, c.style.dark)
                                  : sp_plot_region_color(name, c.style.dark);
            size_t ns = 0;
            col.a = 0.45;
            sp__set_color(cr, col);
            cairo_set_line_width(cr, 1.2 * c.s);
            /* Points are in rank order, each rank's by start time. */
            for (size_t i = 0; i < n; i++) {
                if (by_rank && p[i].rank != (int32_t)s)
                    continue;
                double px = sp__axis_map(&ax, p[i].x), py = sp__axis_map(&ay, p[i].y);
                bool new_series = ns == 0 || (!by_rank && i > 0 && p[i].rank != p[i - 1].rank);
                if (new_series)
                    cairo_move_to(cr, px, py);
                else
                    cairo_line_to(cr, px, py);
                ns++;
            }
            if (ns > 1 && ns <= 60 && ns * 12 * c.s < r.w) /* lines only while readable */
                cairo_stroke(cr);
            cairo_new_path(cr);
            col.a = by_rank ? 0.85 : 1.0; /* overlapping series stay visible */
            sp__set_color(cr, col);
            double rad = (n > cols ? 1.8 : 2.8) * c.s;
            for (size_t i = 0; i < n; i++) {
                if (by_rank && p[i].rank != (int32_t)s)
                    continue;
                double px = sp__axis_map(&ax, p[i].x), py = sp__axis_map(&ay, p[i].y);
                cairo_new_sub_path(cr);
                cairo_arc(cr, px, py, rad, 0, 2 * M_PI);
            }
            cairo_fill(cr);
        }
    } else {
        /* Many calls: per series and pixel column, the min..max envelope. */
        env = malloc(cols * 2 * sizeof *env);
        if (!env) {
            cairo_restore(cr);
            rc = sp__error(SP_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t s = 0; s < nser; s++) {
            for (size_t j = 0; j < cols; j++) {
                env[2 * j] = INFINITY;
                env[2 * j + 1] = -INFINITY;
            }
            for (size_t i = 0; i < n; i++) {
                if (by_rank && p[i].rank != (int32_t)s)
                    continue;
                double px = sp__axis_map(&ax, p[i].x) - r.x;
                size_t j = px < 0 ? 0 : px >= (double)cols ? cols - 1 : (size_t)px;
                double py = sp__axis_map(&ay, p[i].y);
                env[2 * j] = fminf(env[2 * j], (float)py);
                env[2 * j + 1] = fmaxf(env[2 * j + 1], (float)py);
            }
            sp_rgba col = by_rank ? rank_color(s, c.style.dark)
                                  : sp_plot_region_color(name, c.style.dark);
            col.a = by_rank ? 0.75 : 1.0;
            sp__set_color(cr, col);
            for (size_t j = 0; j < cols; j++)
                if (env[2 * j] <= env[2 * j + 1]) {
                    double y0 = env[2 * j] - 1.2 * c.s, y1 = env[2 * j + 1] + 1.2 * c.s;
                    cairo_rectangle(cr, r.x + j - 0.5 * c.s, y0, fmax(1, 1.6 * c.s), y1 - y0);
                }
            cairo_fill(cr);
        }
    }
    cairo_restore(cr);
out:
    free(env);
    free(p);
    sp__canvas_end(&c);
    return rc;
}
