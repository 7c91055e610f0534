/* SPDX-License-Identifier: MIT */
/* sp_plot_duration_time.c - one region's call durations against start time. */
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

int sp_plot_duration_time(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                          int32_t rank, const sp_plot_style *st)
{
    return sp__plot_series_chart(cr, w, h, run, region, rank, st, "sp_plot_duration_time",
                                 sp_plot_duration_time_series);
}

/* Column of run time x (s) on axis ax whose plot starts at x0, clamped. */
static size_t column(const sp__axis *ax, double x0, size_t cols, double x)
{
    double px = sp__axis_map(ax, x) - x0;
    return px < 0 ? 0 : px >= (double)cols ? cols - 1 : (size_t)px;
}

/* Fold the points of groups [g0, g1) into the per-column envelope env
 * (pairs of min, max y in pixels). A block of points whose first and last
 * start fall in the same column contributes its precomputed min / max;
 * only blocks straddling a column boundary are read point by point, so a
 * draw reads about n / 64 + 64 * columns entries. */
static void envelope(const sp_region_series *s, size_t g0, size_t g1, const sp__axis *ax,
                     const sp__axis *ay, double x0, size_t cols, float *env)
{
    const sp__pt *p = s->pt;
    /* Blocks never cross groups: find the first block of group g0. */
    size_t lo = 0, hi = s->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->block_off[mid] < s->group_off[g0])
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t b = lo; b < s->nblocks && s->block_off[b] < s->group_off[g1]; b++) {
        size_t a = s->block_off[b], e = s->block_off[b + 1];
        size_t j0 = column(ax, x0, cols, p[a].x), j1 = column(ax, x0, cols, p[e - 1].x);
        if (j0 == j1) {
            float y0 = (float)sp__axis_map(ay, s->block_ymin[b]);
            float y1 = (float)sp__axis_map(ay, s->block_ymax[b]);
            env[2 * j0] = fminf(env[2 * j0], fminf(y0, y1));
            env[2 * j0 + 1] = fmaxf(env[2 * j0 + 1], fmaxf(y0, y1));
            continue;
        }
        for (size_t i = a; i < e; i++) {
            size_t j = column(ax, x0, cols, p[i].x);
            float py = (float)sp__axis_map(ay, p[i].y);
            env[2 * j] = fminf(env[2 * j], py);
            env[2 * j + 1] = fmaxf(env[2 * j + 1], py);
        }
    }
}

/* A bin's mark is at least MARK_PX (scaled) wide and tall, centred on the
 * bin: a run of a few calls draws them as marks a reader can see, not as
 * dots of one or two pixels lost in the chart. */
#define MARK_PX 9.0

static void bin_columns(const sp__axis *ax, const sp__bin *b, double scale, double *x0,
                        double *x1)
{
    double a = sp__axis_map(ax, b->x0), z = sp__axis_map(ax, b->x1);
    double w = fmax(z - a, MARK_PX * scale), mid = (a + z) / 2;
    *x0 = mid - w / 2;
    *x1 = mid + w / 2;
}

/* From the aggregates (a run read aggregate-first): per bin of start time,
 * a bar from the shortest to the longest call and a tick at the mean. */
static void draw_bins(sp__canvas *c, double w, double h, const sp_region_series *s)
{
    cairo_t *cr = c->cr;
    char title[600], sub[300], where[48], shown[32];
    if (!s->nbins) {
        snprintf(title, sizeof title, "%s: no duration over time for this selection%s", s->name,
                 s->bins_all_ranks ? " (read that rank alone: --ranks N)" : "");
        sp__draw_empty_msg(c, title);
        return;
    }
    double ymax = 0, yminpos = INFINITY;
    for (size_t i = 0; i < s->nbins; i++) {
        ymax = fmax(ymax, s->bins[i].ymax);
        if (s->bins[i].ymin > 0)
            yminpos = fmin(yminpos, s->bins[i].ymin);
        else if (s->bins[i].ymax > 0)
            yminpos = fmin(yminpos, s->bins[i].ymax);
    }
    bool logy = isfinite(yminpos) && ymax / yminpos > 100;
    snprintf(title, sizeof title, "%s: duration of calls over time", s->name);
    snprintf(sub, sizeof sub,
             "%zu call%s %s · x: call start in run time, bins of %s · y: shortest to longest, "
             "mean marked%s",
             s->n, s->n == 1 ? "" : "s", sp__series_where(s, where, sizeof where),
             sp_plot_format_duration(s->bins[0].x1 - s->bins[0].x0, shown, sizeof shown),
             logy ? " (log scale)" : "");
    double y = sp__draw_title(c, title, sub);
    double pad = 16 * c->s;
    sp__legend_item item = {s->name, sp__series_color(c, s), false};
    y += sp__legend(c, &item, 1, w - pad, y, w - 2 * pad, true) + 4 * c->s;
    sp__axis ay = {.kind = SP__AXIS_TIME, .log = logy};
    if (logy) {
        ay.lo = yminpos / 1.3;
        ay.hi = ymax * 1.3;
    } else {
        ay.lo = 0;
        ay.hi = ymax > 0 ? ymax * 1.1 : 1e-6;
    }
    double bottom = h - sp__axis_x_height(c, true) - 8 * c->s;
    double top = y + c->line_h[SP__FONT_SMALL] + 8 * c->s;
    ay.p0 = bottom;
    ay.p1 = top;
    double lw = sp__axis_y_label_width(c, &ay);
    sp__rect r = {pad + lw + 10 * c->s, top, 0, bottom - top};
    r.w = w - r.x - pad;
    if (r.w < 20 || r.h < 20) {
        sp__draw_empty_msg(c, "Too small to draw");
        return;
    }
    double span = (double)s->span_ns * 1e-9;
    sp__axis ax = {.lo = 0, .hi = span > 0 ? span : 1e-6, .kind = SP__AXIS_TIME, .p0 = r.x,
                   .p1 = r.x + r.w};
    sp__axis_draw_y(c, &ay, r, true, "duration", NULL);
    sp__axis_draw_x(c, &ax, r, true, "run time", NULL);
    cairo_save(cr);
    cairo_rectangle(cr, r.x - 4 * c->s, r.y - 4 * c->s, r.w + 8 * c->s, r.h + 8 * c->s);
    cairo_clip(cr);
    sp_rgba col = sp__series_color(c, s);
    sp_rgba faint = col;
    faint.a = 0.35;
    sp__set_color(cr, faint);
    for (size_t i = 0; i < s->nbins; i++) {
        const sp__bin *b = &s->bins[i];
        double x0, x1;
        bin_columns(&ax, b, c->s, &x0, &x1);
        double y0 = sp__axis_map(&ay, logy ? fmax(b->ymax, yminpos) : b->ymax);
        double y1 = sp__axis_map(&ay, logy ? fmax(b->ymin, yminpos) : b->ymin);
        double grow = fmax(1.2 * c->s, (MARK_PX * c->s - (y1 - y0)) / 2);
        cairo_rectangle(cr, x0, y0 - grow, x1 - x0, y1 - y0 + 2 * grow);
    }
    cairo_fill(cr);
    sp__set_color(cr, col);
    cairo_set_line_width(cr, 2 * c->s);
    for (size_t i = 0; i < s->nbins; i++) {
        const sp__bin *b = &s->bins[i];
        double x0, x1;
        bin_columns(&ax, b, c->s, &x0, &x1);
        double ym = sp__axis_map(&ay, logy ? fmax(b->ymean, yminpos) : b->ymean);
        cairo_move_to(cr, x0, ym);
        cairo_line_to(cr, x1, ym);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

int sp_plot_duration_time_series(cairo_t *cr, double w, double h, const sp_region_series *s,
                                 const sp_plot_style *st)
{
    sp__canvas c;
    int rc = sp__series_canvas_begin(&c, cr, w, h, s, st, "sp_plot_duration_time");
    if (rc)
        return rc;
    float *env = NULL;
    const char *name = s->name;
    int32_t rank = s->rank;
    size_t n = s->n;
    if (sp__series_draw_if_empty(&c, s))
        goto out;
    if (s->from_agg) {
        draw_bins(&c, w, h, s);
        goto out;
    }
    /* Durations are sorted: extremes without a scan. */
    double ymax = (double)s->dur[n - 1] * 1e-9;
    double yminpos = INFINITY;
    {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->dur[mid] <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n)
            yminpos = (double)s->dur[lo] * 1e-9;
    }
    bool logy = isfinite(yminpos) && ymax / yminpos > 100;
    bool by_rank = rank < 0 && s->run_nranks > 1 && s->run_nranks <= MAX_RANK_COLORS;

    char title[600], sub[300], where[48];
    snprintf(title, sizeof title, "%s: duration of each call over time", name);
    snprintf(sub, sizeof sub, "%zu call%s %s · x: call start in run time · y: duration%s", n,
             n == 1 ? "" : "s", sp__series_where(s, where, sizeof where), logy ? " (log scale)" : "");
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;
    /* Legend: ranks when coloured by rank, else the region. */
    sp__legend_item items[MAX_RANK_COLORS];
    char labels[MAX_RANK_COLORS][32];
    size_t nitems = 0;
    if (by_rank) {
        for (size_t r = 0; r < s->run_nranks; r++) {
            snprintf(labels[r], sizeof labels[r], "rank %zu", r);
            items[nitems++] = (sp__legend_item){labels[r], rank_color(r, c.style.dark), false};
        }
    } else {
        items[nitems++] = (sp__legend_item){name, sp__series_color(&c, s), false};
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
    double span = (double)s->span_ns * 1e-9;
    sp__axis ax = {.lo = 0, .hi = span > 0 ? span : 1e-6, .kind = SP__AXIS_TIME, .p0 = r.x,
                   .p1 = r.x + r.w};
    sp__axis_draw_y(&c, &ay, r, true, "duration", NULL);
    sp__axis_draw_x(&c, &ax, r, true, "run time", NULL);

    cairo_save(cr);
    cairo_rectangle(cr, r.x - 4 * c.s, r.y - 4 * c.s, r.w + 8 * c.s, r.h + 8 * c.s);
    cairo_clip(cr);
    const sp__pt *p = s->pt;
    /* A series is a group (one rank) when coloured by rank, else all. */
    size_t nser = by_rank ? s->ngroups : 1;
    size_t cols = (size_t)ceil(r.w) + 1;
    for (size_t si = 0; si < nser; si++) {
        size_t g0 = by_rank ? si : 0, g1 = by_rank ? si + 1 : s->ngroups;
        size_t a = s->group_off[g0], b = s->group_off[g1];
        sp_rgba col = by_rank ? rank_color((size_t)s->group_rank[g0], c.style.dark)
                              : sp__series_color(&c, s);
        if (n <= 3 * cols) {
            /* Few calls: a thin line per rank and a dot per call. */
            col.a = 0.45;
            sp__set_color(cr, col);
            cairo_set_line_width(cr, 1.2 * c.s);
            size_t g = g0;
            for (size_t i = a; i < b; i++) {
                double px = sp__axis_map(&ax, p[i].x), py = sp__axis_map(&ay, p[i].y);
                if (i == s->group_off[g]) { /* a rank's line starts anew */
                    cairo_move_to(cr, px, py);
                    g++;
                } else {
                    cairo_line_to(cr, px, py);
                }
            }
            size_t ns = b - a;
            if (ns > 1 && ns <= 60 && ns * 12 * c.s < r.w) /* lines only while readable */
                cairo_stroke(cr);
            cairo_new_path(cr);
            col.a = by_rank ? 0.85 : 1.0; /* overlapping series stay visible */
            sp__set_color(cr, col);
            double rad = (n > cols ? 1.8 : 2.8) * c.s;
            for (size_t i = a; i < b; i++) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, sp__axis_map(&ax, p[i].x), sp__axis_map(&ay, p[i].y), rad, 0,
                          2 * M_PI);
            }
            cairo_fill(cr);
            continue;
        }
        /* Many calls: per series and pixel column, the min..max envelope. */
        if (!env && !(env = malloc(cols * 2 * sizeof *env))) {
            cairo_restore(cr);
            rc = sp__error(SP_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t j = 0; j < cols; j++) {
            env[2 * j] = INFINITY;
            env[2 * j + 1] = -INFINITY;
        }
        envelope(s, g0, g1, &ax, &ay, r.x, cols, env);
        col.a = by_rank ? 0.75 : 1.0;
        sp__set_color(cr, col);
        for (size_t j = 0; j < cols; j++)
            if (env[2 * j] <= env[2 * j + 1]) {
                double y0 = env[2 * j] - 1.2 * c.s, y1 = env[2 * j + 1] + 1.2 * c.s;
                cairo_rectangle(cr, r.x + j - 0.5 * c.s, y0, fmax(1, 1.6 * c.s), y1 - y0);
            }
        cairo_fill(cr);
    }
    cairo_restore(cr);
out:
    free(env);
    sp__canvas_end(&c);
    return rc;
}
