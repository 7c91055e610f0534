/* SPDX-License-Identifier: MIT */
/* sp_plot_histogram.c - histogram of one region's call durations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

/* Number of sorted durations below v (ns). */
static size_t count_below(const int64_t *d, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((double)d[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double pct(const int64_t *d, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)floor(pos);
    double f = pos - (double)i;
    return i + 1 < n ? d[i] * (1 - f) + d[i + 1] * f : (double)d[i];
}

/* The durations of a series, sorted (calls in memory) or as a histogram
 * (aggregates: within SP_HIST_REL_ERROR; count, min and max exact). */
static double ser_quantile(const sp_region_series *s, double q)
{
    return s->from_agg ? sp_hist_quantile(&s->hist, q) : pct(s->dur, s->n, q);
}

/* Durations below v (ns). */
static size_t ser_count_below(const sp_region_series *s, double v)
{
    if (!s->from_agg)
        return count_below(s->dur, s->n, v);
    if (v <= 0)
        return 0;
    if (v > (double)s->max_ns)
        return s->n;
    return (size_t)sp_hist_count_le(&s->hist, (int64_t)ceil(v) - 1);
}

static double ser_min(const sp_region_series *s)
{
    return s->from_agg ? (double)s->min_ns : (double)s->dur[0];
}

static double ser_max(const sp_region_series *s)
{
    return s->from_agg ? (double)s->max_ns : (double)s->dur[s->n - 1];
}

/* The smallest duration above zero (0: none), given nzero of them zero. */
static double ser_min_positive(const sp_region_series *s, size_t nzero)
{
    if (nzero >= s->n)
        return 0;
    return s->from_agg ? (double)sp_hist_value_at_rank(&s->hist, nzero) : (double)s->dur[nzero];
}

/* A vertical marker line with its label at the top of the plot. */
static void marker(sp__canvas *c, const sp__axis *ax, sp__rect r, double v, const char *what,
                   bool dashed, double label_y, bool right_side)
{
    cairo_t *cr = c->cr;
    double x = sp__snap(sp__axis_map(ax, v)) + 0.5;
    if (dashed) {
        double d[2] = {5 * c->s, 3 * c->s};
        cairo_set_dash(cr, d, 2, 0);
    }
    cairo_set_line_width(cr, 1.5 * c->s);
    sp__set_color(cr, c->th.fg);
    cairo_move_to(cr, x, r.y);
    cairo_line_to(cr, x, r.y + r.h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1);
    char lab[64], dur[32];
    snprintf(lab, sizeof lab, "%s %s", what, sp_plot_format_duration(v, dur, sizeof dur));
    double tw = sp__text_width(c, SP__FONT_SMALL, lab);
    /* Label beside the line, flipped to the other side near the edge. */
    bool right = right_side ? x + 4 * c->s + tw <= r.x + r.w : x - 4 * c->s - tw < r.x;
    sp__text_draw(c, SP__FONT_SMALL, lab, right ? x + 4 * c->s : x - 4 * c->s, label_y,
                  right ? 0 : 1, 0, 0, c->th.fg);
}

int sp_plot_histogram(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                      int32_t rank, const sp_plot_style *st)
{
    return sp__plot_series_chart(cr, w, h, run, region, rank, st, "sp_plot_histogram",
                                 sp_plot_histogram_series);
}

int sp_plot_histogram_series(cairo_t *cr, double w, double h, const sp_region_series *s,
                             const sp_plot_style *st)
{
    sp__canvas c;
    int rc = sp__series_canvas_begin(&c, cr, w, h, s, st, "sp_plot_histogram");
    if (rc)
        return rc;
    size_t n = s->n;
    const char *name = s->name;
    if (sp__series_draw_if_empty(&c, s))
        goto out;
    double mn = ser_min(s), mx = ser_max(s);
    double mean = s->sum_ns / (double)n, med = ser_quantile(s, 0.5), p95 = ser_quantile(s, 0.95);
    size_t nzero = ser_count_below(s, 0.5);
    double minpos = ser_min_positive(s, nzero);
    bool logx = minpos > 0 && mx / minpos > 100;

    char title[600], sub[400], a[32], b[32], m[32], where[32];
    snprintf(title, sizeof title, "%s: call durations", name);
    snprintf(sub, sizeof sub, "%zu call%s %s · min %s · mean %s · max %s%s%s", n,
             n == 1 ? "" : "s", sp__series_where(s, where, sizeof where),
             sp_plot_format_duration(mn * 1e-9, a, sizeof a),
             sp_plot_format_duration(mean * 1e-9, m, sizeof m),
             sp_plot_format_duration(mx * 1e-9, b, sizeof b), logx ? " · log scale" : "",
             s->from_agg ? " · median, p95 within " SP_HIST_REL_ERROR_TEXT : "");
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;

    /* X range (in ns, as the axis is labelled by sp__axis in seconds we map
     * ns * 1e-9 everywhere). */
    sp__axis ax = {.kind = SP__AXIS_TIME, .log = logx};
    if (logx) {
        ax.lo = minpos * 1e-9 / 1.15;
        ax.hi = mx * 1e-9 * 1.15;
    } else {
        double span = mx - mn;
        if (span <= 0)
            span = fmax(mn * 0.2, 10);
        ax.lo = fmax(0, mn - 0.04 * span) * 1e-9;
        ax.hi = (mx + 0.04 * span) * 1e-9;
        if (mx == mn) {
            ax.lo = (mn - span) * 1e-9 < 0 ? 0 : (mn - span) * 1e-9;
            ax.hi = (mx + span) * 1e-9;
        }
    }
    /* Bins: Freedman-Diaconis in the (log) space, within what the width shows. */
    double lo_t = logx ? log10(ax.lo) : ax.lo, hi_t = logx ? log10(ax.hi) : ax.hi;
    double q1 = ser_quantile(s, 0.25), q3 = ser_quantile(s, 0.75);
    double iqr_t = logx ? log10(fmax(q3, minpos)) - log10(fmax(q1, minpos)) : (q3 - q1) * 1e-9;
    double bw_fd = iqr_t > 0 ? 2 * iqr_t / cbrt((double)n) : (hi_t - lo_t) / 20;
    double plot_w_est = w - 2 * pad - 60 * c.s;
    int nb = (int)ceil((hi_t - lo_t) / bw_fd);
    int nbmax = (int)fmax(5, fmin(120, plot_w_est / (6 * c.s)));
    if (nb < 10)
        nb = 10;
    if (nb > nbmax)
        nb = nbmax;
    size_t *cnt = calloc((size_t)nb, sizeof *cnt);
    if (!cnt) {
        rc = sp__error(SP_ENOMEM, "out of memory");
        goto out;
    }
    /* Bin k holds [edge k, edge k+1); the first and last bins also take
     * what lies beyond (as clamping did). Durations are sorted, so each
     * edge is one binary search: O(bins * log n) per draw. */
    size_t cmax = 0, below = 0;
    for (int k = 0; k < nb; k++) {
        size_t upto = n;
        if (k + 1 < nb) {
            double e = lo_t + (hi_t - lo_t) * (k + 1) / nb;
            upto = ser_count_below(s, (logx ? pow(10, e) : e) * 1e9);
        }
        cnt[k] = upto - below;
        below = upto;
        if (cnt[k] > cmax)
            cmax = cnt[k];
    }
    sp__axis ay = {.lo = 0, .hi = cmax * 1.12, .kind = SP__AXIS_NUMBER, .integer = true};
    double bottom = h - sp__axis_x_height(&c, true) - 8 * c.s;
    double top = y + c.line_h[SP__FONT_SMALL] + 8 * c.s; /* room for the y caption */
    ay.p0 = bottom;
    ay.p1 = top;
    double lw = sp__axis_y_label_width(&c, &ay);
    sp__rect r = {pad + lw + 10 * c.s, top, 0, bottom - top};
    r.w = w - r.x - pad;
    if (r.w < 20 || r.h < 20) {
        sp__draw_empty_msg(&c, "Too small to draw");
        free(cnt);
        goto out;
    }
    ax.p0 = r.x;
    ax.p1 = r.x + r.w;
    sp__axis_draw_y(&c, &ay, r, true, "calls", NULL);
    sp__axis_draw_x(&c, &ax, r, false, logx ? "call duration (log scale)" : "call duration", NULL);
    sp_rgba col = sp__series_color(&c, s);
    sp__set_color(cr, col);
    for (int k = 0; k < nb; k++) {
        if (!cnt[k])
            continue;
        double b0 = lo_t + (hi_t - lo_t) * k / nb, b1 = lo_t + (hi_t - lo_t) * (k + 1) / nb;
        double x0 = sp__axis_map(&ax, logx ? pow(10, b0) : b0);
        double x1 = sp__axis_map(&ax, logx ? pow(10, b1) : b1);
        double yt = sp__axis_map(&ay, (double)cnt[k]);
        double gap = x1 - x0 > 4 ? 1 : 0;
        cairo_rectangle(cr, x0, yt, fmax(x1 - x0 - gap, 0.8), bottom - yt);
    }
    cairo_fill(cr);
    free(cnt);
    /* Median and p95 markers; labels on two lines so they never collide. */
    double ly = r.y + 2 * c.s;
    marker(&c, &ax, r, med * 1e-9, "median", false, ly, false);
    marker(&c, &ax, r, p95 * 1e-9, "p95", true, ly + c.line_h[SP__FONT_SMALL] + 2 * c.s, true);
out:
    sp__canvas_end(&c);
    return rc;
}
