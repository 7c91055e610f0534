/* SPDX-License-Identifier: MIT */
/* sp_plot_heatmap.c - rank x region heat map, each column scaled to its maximum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

/* Diverging ramp for f in [-1, 1]: blue below the mean, a neutral close to
 * the background at the mean, red above (ColorBrewer RdBu ends). */
static sp_rgba ramp(double f, bool dark)
{
    const sp_rgba lo = {0.129, 0.400, 0.675, 1}, hi = {0.698, 0.094, 0.169, 1};
    const sp_rgba mid = dark ? (sp_rgba){0.23, 0.24, 0.26, 1} : (sp_rgba){0.965, 0.965, 0.965, 1};
    f = fmax(-1, fmin(1, f));
    /* sqrt: small deviations are already visible, large ones saturate. */
    return f < 0 ? sp__mix(mid, lo, sqrt(-f)) : sp__mix(mid, hi, sqrt(f));
}

/* A value relative to its column mean: (v - mean) / mean, never below -1
 * (a rank without the region) and without bound above (one rank holding
 * all of it: N - 1 over N ranks). */
static double deviation(double v, double mean)
{
    return mean > 0 ? (v - mean) / mean : 0;
}

/* x rounded up to a 1-2-5 step (0.1, 0.2, 0.5, 1, 2, ...), so the legend
 * reads well. */
static double nice_up(double x)
{
    double mag = pow(10, floor(log10(x))), m = 1;
    while (m * mag < x * (1 - 1e-9))
        m = m == 1 ? 2 : m == 2 ? 5 : 10;
    return m * mag;
}

/* A cell's value as it fits in max_w: "332 ms", else "332ms", else nothing
 * (a value cut to "332 …" loses its unit; the colour still tells). */
static bool value_label(sp__canvas *c, double v, sp_rank_metric metric, double max_w, char *buf,
                        size_t n)
{
    if (v > 0)
        sp__format_metric(v, metric, buf, n);
    else
        snprintf(buf, n, "–");
    if (sp__text_width(c, SP__FONT_SMALL, buf) <= max_w)
        return true;
    char *sp = strchr(buf, ' ');
    if (sp)
        memmove(sp, sp + 1, strlen(sp));
    return sp__text_width(c, SP__FONT_SMALL, buf) <= max_w;
}

static double column_mean(const sp_run *run, const sp_run_region *rr, sp_rank_metric metric)
{
    double sum = 0;
    for (size_t i = 0; i < run->nranks; i++)
        sum += rr->per_rank ? sp__rank_metric_value(&rr->per_rank[i], metric) : 0;
    return run->nranks ? sum / (double)run->nranks : 0;
}

/* qsort_r (GNU): drawing stays reentrant. */
static int by_total_desc(const void *pa, const void *pb, void *ctx)
{
    const sp_run *sort_run = ctx;
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    double ta = sort_run->regions[a].all.total_s, tb = sort_run->regions[b].all.total_s;
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return strcmp(sort_run->region_names[a], sort_run->region_names[b]);
}

int sp_plot_rank_heatmap(cairo_t *cr, double w, double h, const sp_run *run, sp_rank_metric metric,
                         const int32_t *regions, size_t nregions, const sp_plot_style *st)
{
    if (!cr || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_rank_heatmap: bad arguments");
    int rc = sp__check_analyzed(run, "sp_plot_rank_heatmap");
    if (rc)
        return rc;
    /* Columns: the given regions, or every region with calls by total. */
    size_t ncols = 0;
    int32_t *cols = malloc((regions ? nregions : run->nregions) * sizeof *cols + 1);
    if (!cols)
        return sp__error(SP_ENOMEM, "out of memory");
    if (regions) {
        for (size_t i = 0; i < nregions; i++)
            if (regions[i] >= 0 && (size_t)regions[i] < run->nregions)
                cols[ncols++] = regions[i];
    } else {
        for (size_t i = 0; i < run->nregions; i++)
            if (run->regions[i].all.calls > 0)
                cols[ncols++] = (int32_t)i;
        qsort_r(cols, ncols, sizeof *cols, by_total_desc, (void *)run);
    }
    sp__canvas c;
    if ((rc = sp__canvas_begin(&c, cr, w, h, st)) != 0) {
        free(cols);
        return rc;
    }
    if (ncols == 0 || run->nranks == 0) {
        sp__draw_empty_msg(&c, "No calls recorded in this run");
        goto out;
    }
    size_t nr = run->nranks;
    char title[128];
    const char *ml = sp__rank_metric_label(metric);
    snprintf(title, sizeof title, "%c%s per rank and region",
             ml[0] >= 'a' && ml[0] <= 'z' ? ml[0] - 'a' + 'A' : ml[0], ml + 1);
    double y = sp__draw_title(&c, title,
                              "colour: each rank against its region's mean over ranks "
                              "(red above the mean, blue below)");
    double pad = 16 * c.s;
    double lh = c.line_h[SP__FONT_SMALL];

    /* Row labels column and cell grid. */
    char lab[64];
    snprintf(lab, sizeof lab, "Rank %zu", nr - 1);
    double rlw = sp__text_width(&c, SP__FONT_SMALL, lab) + 12 * c.s;
    double gx = pad + rlw, gw = w - gx - pad;
    /* As many columns as fit at >= 40 units each when the caller did not choose. */
    size_t maxcols = (size_t)fmax(1, floor(gw / (40 * c.s)));
    size_t dropped = 0;
    if (!regions && ncols > maxcols) {
        dropped = ncols - maxcols;
        ncols = maxcols;
    }
    /* Colour range, each side on its own: below the mean down to the
     * largest shortfall shown (at most -100 %: a rank cannot spend less than
     * nothing), above it up to the largest excess (+700 % for a region that
     * only one of 8 ranks runs); at least 10 %, rounded up to a 1-2-5 step.
     * One scale for both ran to "-500 %" for a quantity bounded by -100 %. */
    double below = 0.1, above = 0.1;
    for (size_t j = 0; j < ncols; j++) {
        const sp_run_region *rr = &run->regions[cols[j]];
        double mean = column_mean(run, rr, metric);
        for (size_t i = 0; i < nr && rr->per_rank; i++) {
            double d = deviation(sp__rank_metric_value(&rr->per_rank[i], metric), mean);
            below = fmax(below, -d);
            above = fmax(above, d);
        }
    }
    below = fmin(nice_up(below), 1.0);
    above = nice_up(above);
    sp__plot_stats *stats = sp__plot_stats_active();
    if (stats) {
        stats->heatmap_below = below;
        stats->heatmap_above = above;
    }
    {
        /* Colour bar legend at the top right: "-B%  [ramp]  +A%  vs. mean",
         * the mean in its middle. */
        char lo_l[32], hi_l[32];
        snprintf(lo_l, sizeof lo_l, "-%g%%", below * 100);
        snprintf(hi_l, sizeof hi_l, "+%g%% vs. mean", above * 100);
        double cbw = fmin(160 * c.s, w * 0.3), cbh = 0.7 * c.fs;
        double x1 = w - pad - sp__text_width(&c, SP__FONT_SMALL, hi_l) - 6 * c.s;
        /* a narrow chart narrows the bar, never pushes "-100%" off the left */
        cbw = fmax(12 * c.s,
                   fmin(cbw, x1 - pad - 12 * c.s - sp__text_width(&c, SP__FONT_SMALL, lo_l)));
        double x0 = x1 - cbw;
        for (int i = 0; i < 64; i++) {
            sp__set_color(cr, ramp(((i + 0.5) / 64.0) * 2 - 1, c.style.dark));
            cairo_rectangle(cr, x0 + cbw * i / 64.0, y + (lh - cbh) / 2, cbw / 64.0 + 0.5, cbh);
            cairo_fill(cr);
        }
        sp__set_color(cr, c.th.axis);
        cairo_rectangle(cr, sp__snap(x0 + cbw / 2), y + (lh - cbh) / 2 - 2 * c.s, 1, cbh + 4 * c.s);
        cairo_fill(cr);
        sp__text_draw(&c, SP__FONT_SMALL, lo_l, x0 - 6 * c.s, y + lh / 2, 1, 0.5, 0, c.th.muted);
        sp__text_draw(&c, SP__FONT_SMALL, hi_l, x1 + 6 * c.s, y + lh / 2, 0, 0.5, 0, c.th.muted);
        y += lh + 10 * c.s;
    }
    double cw = gw / (double)ncols;
    /* Column headers: horizontal when every name fits, else vertical. */
    double maxname = 0;
    for (size_t j = 0; j < ncols; j++)
        maxname = fmax(maxname, sp__text_width(&c, SP__FONT_SMALL, run->region_names[cols[j]]));
    bool vertical = maxname > cw - 6 * c.s;
    double head_h = vertical ? fmin(maxname, 11 * c.fs) + 8 * c.s : lh + 8 * c.s;
    double note_h = dropped ? lh + 6 * c.s : 0;
    double gy = y + head_h, gh = h - gy - pad - note_h;
    if (gh < 10 || cw < 2) {
        sp__draw_empty_msg(&c, "Too small to draw");
        goto out;
    }
    double rh = gh / (double)nr;
    if (rh > 2.6 * c.fs) { /* do not stretch a few ranks over the whole height */
        rh = 2.6 * c.fs;
        gh = rh * nr;
    }
    for (size_t j = 0; j < ncols; j++) {
        const sp_run_region *rr = &run->regions[cols[j]];
        const char *name = run->region_names[cols[j]];
        double cx = gx + (j + 0.5) * cw;
        /* Region colour tick above the column ties it to the other charts. */
        sp__set_color(cr, sp__region_color(&c, run, name));
        cairo_rectangle(cr, gx + j * cw + 1, gy - 4 * c.s, cw - 2, 3 * c.s);
        cairo_fill(cr);
        if (vertical)
            sp__name_draw_vertical(&c, SP__FONT_SMALL, name, cx, gy - 6 * c.s, 0.5, 1,
                                   head_h - 8 * c.s, c.th.fg);
        else
            sp__name_draw(&c, SP__FONT_SMALL, name, cx, gy - 6 * c.s, 0.5, 1, cw - 4 * c.s, c.th.fg);
        double mean = column_mean(run, rr, metric);
        for (size_t i = 0; i < nr; i++) {
            double v = rr->per_rank ? sp__rank_metric_value(&rr->per_rank[i], metric) : 0;
            double dev = deviation(v, mean);
            double f = fabs(dev) < 0.02 ? 0 : dev / (dev < 0 ? below : above); /* 2%: even */
            sp_rgba cc = ramp(f, c.style.dark);
            double x0 = gx + j * cw, y0 = gy + i * rh;
            sp__set_color(cr, cc);
            cairo_rectangle(cr, x0, y0, cw - (cw > 6 ? 1 : 0), rh - (rh > 6 ? 1 : 0));
            cairo_fill(cr);
            char vl[32];
            if (rh < lh + 2 * c.s)
                continue; /* rows too thin for text */
            bool shown = value_label(&c, v, metric, cw - 6 * c.s, vl, sizeof vl);
            if (shown)
                sp__text_draw(&c, SP__FONT_SMALL, vl, x0 + cw / 2, y0 + rh / 2, 0.5, 0.5, 0,
                              sp_plot_text_color_on(cc));
            if (stats)
                *(shown ? &stats->heatmap_values_shown : &stats->heatmap_values_hidden) += 1;
        }
    }
    /* Rank labels, thinned to what fits. */
    size_t every = (size_t)ceil(lh * 1.1 / rh);
    if (every < 1)
        every = 1;
    for (size_t i = 0; i < nr; i += every) {
        snprintf(lab, sizeof lab, "Rank %zu", i);
        sp__text_draw(&c, SP__FONT_SMALL, lab, gx - 8 * c.s, gy + (i + 0.5) * rh, 1, 0.5, 0,
                      c.th.muted);
    }
    if (dropped) {
        snprintf(lab, sizeof lab, "+ %zu more region%s not shown", dropped, dropped > 1 ? "s" : "");
        sp__text_draw(&c, SP__FONT_SMALL, lab, w - pad, gy + gh + 6 * c.s, 1, 0, 0, c.th.muted);
    }
out:
    free(cols);
    sp__canvas_end(&c);
    return 0;
}
