/* SPDX-License-Identifier: MIT */
/* sp_plot_rank_bars.c - one region's statistic per rank, with mean and imbalance. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

int sp_rank_metric_parse(const char *s, sp_rank_metric *out)
{
    static const char *const names[] = {"total", "mean", "own", "calls"};
    for (int i = 0; s && i < 4; i++)
        if (strcasecmp(s, names[i]) == 0) {
            if (out)
                *out = (sp_rank_metric)i;
            return 0;
        }
    return sp__error(SP_EINVAL, "unknown metric '%s' (expected total, mean, own or calls)",
                     s ? s : "(null)");
}

double sp__rank_metric_value(const sp_stats *s, sp_rank_metric m)
{
    switch (m) {
    case SP_RANK_MEAN:
        return s->mean_s;
    case SP_RANK_OWN:
        return s->own_s;
    case SP_RANK_CALLS:
        return (double)s->calls;
    case SP_RANK_TOTAL:
    default:
        return s->total_s;
    }
}

const char *sp__rank_metric_label(sp_rank_metric m)
{
    switch (m) {
    case SP_RANK_MEAN:
        return "mean time per call";
    case SP_RANK_OWN:
        return "own time";
    case SP_RANK_CALLS:
        return "calls";
    case SP_RANK_TOTAL:
    default:
        return "total time";
    }
}

void sp__format_metric(double v, sp_rank_metric m, char *buf, size_t n)
{
    if (m == SP_RANK_CALLS)
        sp__format_number(v, 0, buf, n);
    else
        sp_plot_format_duration(v, buf, n);
}

int sp__check_analyzed(const sp_run *run, const char *what)
{
    if (!run)
        return sp__error(SP_EINVAL, "%s: no run", what);
    if (!run->analyzed || (run->nregions && !run->regions))
        return sp__error(SP_EINVAL, "%s: the run is not analysed (call sp_run_analyze first)",
                         what);
    return 0;
}

void sp__rank_labels(sp__canvas *c, sp__rect r, double bottom, size_t n, size_t highlight,
                     const char *caption)
{
    cairo_t *cr = c->cr;
    double slot = r.w / (double)n;
    sp__set_color(cr, c->th.axis);
    cairo_move_to(cr, r.x, bottom + 0.5);
    cairo_line_to(cr, r.x + r.w, bottom + 0.5);
    cairo_stroke(cr);
    char lab[32];
    snprintf(lab, sizeof lab, "%zu", n - 1);
    double lwid = sp__text_width(c, SP__FONT_SMALL, lab) + 8 * c->s;
    size_t every = 1;
    static const size_t steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        every = steps[k];
        if (slot * (double)every >= lwid)
            break;
    }
    double last_right = -1e9;
    for (size_t i = 0; i < n; i++) {
        if (i % every && i != highlight)
            continue;
        snprintf(lab, sizeof lab, "%zu", i);
        double xc = r.x + ((double)i + 0.5) * slot;
        double tw = sp__text_width(c, SP__FONT_SMALL, lab);
        if (xc - tw / 2 < last_right + 4 * c->s)
            continue;
        sp__text_draw(c, i == highlight ? SP__FONT_BOLD : SP__FONT_SMALL, lab, xc,
                      bottom + 5 * c->s, 0.5, 0, 0, i == highlight ? c->th.fg : c->th.muted);
        last_right = xc + tw / 2;
    }
    sp__text_draw(c, SP__FONT_SMALL, caption, r.x + r.w / 2,
                  bottom + 9 * c->s + c->line_h[SP__FONT_SMALL], 0.5, 0, 0, c->th.muted);
}

int sp_plot_rank_bars(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                      sp_rank_metric metric, const sp_plot_style *st)
{
    if (!cr || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_rank_bars: bad arguments");
    int rc = sp__check_analyzed(run, "sp_plot_rank_bars");
    if (rc)
        return rc;
    sp__canvas c;
    if ((rc = sp__canvas_begin(&c, cr, w, h, st)) != 0)
        return rc;
    char msg[512];
    if (region < 0 || (size_t)region >= run->nregions || run->nranks == 0 ||
        run->regions[region].all.calls == 0) {
        if (region < 0 || (size_t)region >= run->nregions)
            snprintf(msg, sizeof msg, "No such region (id %d)", region);
        else
            snprintf(msg, sizeof msg, "No calls recorded for region '%s'",
                     run->region_names[region]);
        sp__draw_empty_msg(&c, msg);
        sp__canvas_end(&c);
        return 0;
    }
    const sp_run_region *rr = &run->regions[region];
    const char *name = run->region_names[region];
    size_t n = run->nranks;
    double *v = malloc(n * sizeof *v);
    if (!v) {
        sp__canvas_end(&c);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    double sum = 0, vmax = 0;
    size_t imax = 0;
    for (size_t r = 0; r < n; r++) {
        v[r] = rr->per_rank ? sp__rank_metric_value(&rr->per_rank[r], metric) : 0;
        sum += v[r];
        if (v[r] > vmax) {
            vmax = v[r];
            imax = r;
        }
    }
    double mean = sum / (double)n;
    double imb = mean > 0 ? vmax / mean : 1;

    char title[600], sub[300], a[32], b[32];
    snprintf(title, sizeof title, "%s: %s per rank", name, sp__rank_metric_label(metric));
    sp__format_metric(mean, metric, a, sizeof a);
    sp__format_metric(vmax, metric, b, sizeof b);
    snprintf(sub, sizeof sub, "mean %s · max %s on rank %zu · imbalance %.2f× (max / mean)", a, b,
             imax, imb);
    double y = sp__draw_title(&c, title, sub);

    sp_rgba col = sp__region_color(&c, run, name);
    sp__legend_item items[2] = {{name, col, false}, {"mean over ranks", c.th.fg, true}};
    double pad = 16 * c.s;
    y += sp__legend(&c, items, 2, w - pad, y, w - 2 * pad, true) + 6 * c.s;

    /* Plot area: y axis at the left, rank labels below. */
    sp__axis ay = {.lo = 0, .hi = vmax * 1.08,
                   .kind = metric == SP_RANK_CALLS ? SP__AXIS_NUMBER : SP__AXIS_TIME,
                   .integer = metric == SP_RANK_CALLS};
    double bottom = h - sp__axis_x_height(&c, true) - 8 * c.s;
    ay.p0 = bottom;
    ay.p1 = y + c.line_h[SP__FONT_SMALL]; /* room for the value above the tallest bar */
    double lw = sp__axis_y_label_width(&c, &ay);
    sp__rect r = {pad + lw + 10 * c.s, ay.p1, 0, bottom - ay.p1};
    r.w = w - r.x - pad - sp__text_width(&c, SP__FONT_SMALL, "mean") - 6 * c.s;
    if (r.w < 20 || r.h < 20) {
        sp__draw_empty_msg(&c, "Too small to draw");
        free(v);
        sp__canvas_end(&c);
        return 0;
    }
    sp__axis_draw_y(&c, &ay, r, true, NULL, NULL);

    /* Bars: a gap of 25% of the slot while bars stay wider than 3 units. */
    double slot = r.w / (double)n;
    double gap = slot * 0.25 >= 1.5 * c.s ? slot * 0.25 : (slot >= 3 ? 1 : 0);
    double bw = slot - gap;
    sp_rgba maxcol = sp__mix(col, c.th.fg, 0.25);
    for (size_t i = 0; i < n; i++) {
        double x0 = r.x + i * slot + gap / 2;
        double yt = sp__axis_map(&ay, v[i]);
        sp__set_color(cr, i == imax && n > 1 ? maxcol : col);
        cairo_rectangle(cr, x0, yt, fmax(bw, 0.6), bottom - yt);
        cairo_fill(cr);
    }
    /* Value labels where they fit above the bars. */
    for (size_t i = 0; i < n; i++) {
        char lab[32];
        sp__format_metric(v[i], metric, lab, sizeof lab);
        double tw = sp__text_width(&c, SP__FONT_SMALL, lab);
        if (tw > slot - 2 * c.s && i != imax)
            continue;
        double xc = r.x + (i + 0.5) * slot;
        double yt = sp__axis_map(&ay, v[i]);
        sp__text_draw(&c, i == imax ? SP__FONT_BOLD : SP__FONT_SMALL, lab,
                      fmin(fmax(xc, r.x + tw / 2), r.x + r.w - tw / 2), yt - 2 * c.s, 0.5, 1, 0,
                      c.th.fg);
    }
    /* Mean line. */
    double ym = sp__snap(sp__axis_map(&ay, mean)) + 0.5;
    double dash[2] = {5 * c.s, 3 * c.s};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_line_width(cr, 1.5 * c.s);
    sp__set_color(cr, c.th.fg);
    cairo_move_to(cr, r.x, ym);
    cairo_line_to(cr, r.x + r.w, ym);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1);
    /* "mean" in the right margin, level with the line. */
    sp__text_draw(&c, SP__FONT_SMALL, "mean", r.x + r.w + 6 * c.s, ym, 0, 0.5, 0, c.th.fg);

    sp__rank_labels(&c, r, bottom, n, n > 1 ? imax : SIZE_MAX, "rank");
    free(v);
    sp__canvas_end(&c);
    return 0;
}
