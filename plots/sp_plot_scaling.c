/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_scaling.c - a scaling study as two panels: speedup and parallel
 * efficiency against the rank (or thread) count, with the ideal lines, the
 * whole run in bold and the largest regions in their colours.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"
#include "sp_scaling.h"

/* x positions: log2 of the count, so 1, 2, 4, 8 are evenly spaced. */
static double map_x(const sp_scaling *s, double p, double x0, double x1)
{
    double a = log2(s->p[0]), b = log2(s->p[s->nruns - 1]);
    return b > a ? x0 + (log2(p) - a) / (b - a) * (x1 - x0) : 0.5 * (x0 + x1);
}

typedef struct panel {
    sp__rect r;
    sp__axis y;
} panel;

static void draw_x_axis(sp__canvas *c, const sp_scaling *s, const panel *pn, const char *caption)
{
    cairo_t *cr = c->cr;
    double yb = pn->r.y + pn->r.h;
    sp__set_color(cr, c->th.axis);
    cairo_set_line_width(cr, 1 * c->s);
    cairo_move_to(cr, pn->r.x, sp__snap(yb) + 0.5);
    cairo_line_to(cr, pn->r.x + pn->r.w, sp__snap(yb) + 0.5);
    cairo_stroke(cr);
    for (size_t j = 0; j < s->nruns; j++) {
        double x = map_x(s, s->p[j], pn->r.x, pn->r.x + pn->r.w);
        sp__set_color(cr, c->th.grid);
        cairo_move_to(cr, sp__snap(x) + 0.5, pn->r.y);
        cairo_line_to(cr, sp__snap(x) + 0.5, yb);
        cairo_stroke(cr);
        char lab[32];
        snprintf(lab, sizeof lab, "%g", s->p[j]);
        sp__text_draw(c, SP__FONT_SMALL, lab, x, yb + 4 * c->s, 0.5, 0, 0, c->th.muted);
    }
    sp__text_draw(c, SP__FONT_SMALL, caption, pn->r.x + pn->r.w / 2,
                  yb + 6 * c->s + c->line_h[SP__FONT_SMALL], 0.5, 0, pn->r.w, c->th.muted);
}

/* A series of points (x = counts, y = values, NAN = gap). */
static void draw_series(sp__canvas *c, const sp_scaling *s, const panel *pn, const double *v,
                        sp_rgba col, double lw, bool dashed, bool markers)
{
    cairo_t *cr = c->cr;
    sp__set_color(cr, col);
    cairo_set_line_width(cr, lw);
    if (dashed) {
        double d[] = {6 * c->s, 4 * c->s};
        cairo_set_dash(cr, d, 2, 0);
    }
    bool pen = false;
    for (size_t j = 0; j < s->nruns; j++) {
        if (!isfinite(v[j])) {
            pen = false;
            continue;
        }
        double x = map_x(s, s->p[j], pn->r.x, pn->r.x + pn->r.w);
        double y = sp__axis_map(&pn->y, fmin(fmax(v[j], pn->y.lo), pn->y.hi));
        if (pen)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y);
        pen = true;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    for (size_t j = 0; markers && j < s->nruns; j++) {
        if (!isfinite(v[j]))
            continue;
        double x = map_x(s, s->p[j], pn->r.x, pn->r.x + pn->r.w);
        double y = sp__axis_map(&pn->y, fmin(fmax(v[j], pn->y.lo), pn->y.hi));
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, lw * 1.6, 0, 2 * M_PI);
        cairo_fill(cr);
    }
}

int sp_plot_scaling(cairo_t *cr, double w, double h, const sp_scaling *s, size_t max_regions,
                    const sp_plot_style *st)
{
    if (!cr || !s || !(w > 0) || !(h > 0) || s->nruns < 2)
        return sp__error(SP_EINVAL, "sp_plot_scaling: bad arguments");
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    const char *axis = sp_scaling_axis_name(s->opts.axis);
    char title[160], sub[800], stops[400];
    snprintf(title, sizeof title, "%s scaling: %zu runs, %g-%g %s", s->weak ? "Weak" : "Strong",
             s->nruns, s->p[0], s->p[s->nruns - 1], axis);
    sp_scaling_stops_text(s, stops, sizeof stops);
    /* Why weak (or why not, when the metadata disagrees with what was
     * asked) first: the list of regions may run past the edge. */
    int o = 0;
    if (s->weak || strstr(s->kind_why, "suggests"))
        o = snprintf(sub, sizeof sub, "%s scaling, %s  ·  ", s->weak ? "Weak" : "Strong",
                     s->kind_why);
    if (o >= 0 && (size_t)o < sizeof sub) {
        if (*stops)
            snprintf(sub + o, sizeof sub - (size_t)o, "Stop scaling (efficiency < %.2f): %s",
                     s->opts.min_efficiency, stops);
        else
            snprintf(sub + o, sizeof sub - (size_t)o,
                     "Every region over %g %% of the run keeps efficiency >= %.2f",
                     s->opts.min_share_pct, s->opts.min_efficiency);
    }
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;

    /* Regions drawn: the largest max_regions by the reference run's time. */
    size_t nreg = s->nregions < max_regions ? s->nregions : max_regions;
    sp__legend_item *items = calloc(nreg + 2, sizeof *items);
    char (*labels)[160] = calloc(nreg + 1, sizeof *labels);
    double *sp = calloc(s->nruns, sizeof *sp), *ef = calloc(s->nruns, sizeof *ef);
    double *ideal = calloc(s->nruns, sizeof *ideal);
    if (!items || !labels || !sp || !ef || !ideal) {
        free(items), free(labels), free(sp), free(ef), free(ideal);
        sp__canvas_end(&c);
        return sp__error(SP_ENOMEM, "out of memory drawing the scaling chart");
    }
    size_t ni = 0;
    items[ni++] = (sp__legend_item){"whole run", c.th.fg, false};
    for (size_t g = 0; g < nreg; g++) {
        const sp_scaling_region *r = &s->regions[g];
        if (r->stops)
            snprintf(labels[g], sizeof labels[g], "%s (stops at %g)", r->name, s->p[r->stop_at]);
        else
            snprintf(labels[g], sizeof labels[g], "%s", r->name);
        items[ni++] = (sp__legend_item){labels[g], sp_plot_color_in(c.style.colors, r->name, c.style.dark), false};
    }
    items[ni++] = (sp__legend_item){"ideal", c.th.muted, true};
    y += sp__legend(&c, items, ni, w - pad, y, w - 2 * pad, true) + 8 * c.s;
    y += c.line_h[SP__FONT_BOLD] + 6 * c.s; /* panel titles */

    /* Two panels side by side. */
    double smax = s->p[s->nruns - 1] / s->p[0], emax = 1.1;
    for (size_t j = 0; j < s->nruns; j++) {
        if (isfinite(s->whole[j].speedup))
            smax = fmax(smax, s->whole[j].speedup), emax = fmax(emax, s->whole[j].efficiency);
        for (size_t g = 0; g < nreg; g++) {
            const sp_scaling_point *q = &s->regions[g].pt[j];
            if (isfinite(q->speedup))
                smax = fmax(smax, q->speedup), emax = fmax(emax, q->efficiency);
        }
    }
    smax = fmin(smax, 4 * s->p[s->nruns - 1] / s->p[0]);
    emax = fmin(emax, 4);
    double gap = 48 * c.s, axis_h = 2 * c.line_h[SP__FONT_SMALL] + 12 * c.s;
    panel pl = {.y = {.lo = 0, .hi = smax, .kind = SP__AXIS_NUMBER}};
    panel pr = {.y = {.lo = 0, .hi = emax, .kind = SP__AXIS_NUMBER}};
    sp__nice_range(&pl.y.lo, &pl.y.hi, 5);
    sp__nice_range(&pr.y.lo, &pr.y.hi, 5);
    double lw_l = sp__axis_y_label_width(&c, &pl.y) + 10 * c.s + c.line_h[SP__FONT_SMALL];
    double lw_r = sp__axis_y_label_width(&c, &pr.y) + 10 * c.s + c.line_h[SP__FONT_SMALL];
    double pw = (w - 2 * pad - gap - lw_l - lw_r) / 2;
    double ph = h - y - axis_h - pad;
    if (pw < 80 || ph < 60) {
        free(items), free(labels), free(sp), free(ef), free(ideal);
        sp__draw_empty_msg(&c, "Too small to draw");
        sp__canvas_end(&c);
        return 0;
    }
    pl.r = (sp__rect){pad + lw_l, y, pw, ph};
    pr.r = (sp__rect){pl.r.x + pw + gap + lw_r, y, pw, ph};
    pl.y.p0 = pr.y.p0 = y + ph;
    pl.y.p1 = pr.y.p1 = y;
    char cap[64];
    snprintf(cap, sizeof cap, "%s", axis);
    sp__axis_draw_y(&c, &pl.y, pl.r, true, NULL, NULL);
    sp__axis_draw_y(&c, &pr.y, pr.r, true, NULL, NULL);
    /* Panel titles over each plot (the axis caption sits at the chart's
     * left edge, which two panels cannot share). */
    sp__text_draw(&c, SP__FONT_BOLD, s->weak ? "Scaled speedup" : "Speedup", pl.r.x,
                  pl.r.y - 4 * c.s, 0, 1, pl.r.w, c.th.fg);
    sp__text_draw(&c, SP__FONT_BOLD, "Parallel efficiency", pr.r.x, pr.r.y - 4 * c.s, 0, 1, pr.r.w,
                  c.th.fg);
    draw_x_axis(&c, s, &pl, cap);
    draw_x_axis(&c, s, &pr, cap);

    for (size_t g = nreg; g-- > 0;) { /* largest drawn last, on top */
        const sp_scaling_region *r = &s->regions[g];
        for (size_t j = 0; j < s->nruns; j++) {
            sp[j] = r->pt[j].speedup;
            ef[j] = r->pt[j].efficiency;
        }
        sp_rgba col = sp_plot_color_in(c.style.colors, r->name, c.style.dark);
        draw_series(&c, s, &pl, sp, col, 2 * c.s, false, true);
        draw_series(&c, s, &pr, ef, col, 2 * c.s, false, true);
    }
    for (size_t j = 0; j < s->nruns; j++) {
        sp[j] = s->whole[j].speedup;
        ef[j] = s->whole[j].efficiency;
    }
    draw_series(&c, s, &pl, sp, c.th.fg, 2.6 * c.s, false, true);
    draw_series(&c, s, &pr, ef, c.th.fg, 2.6 * c.s, false, true);
    /* On top: the ideal lines (speedup p / p_ref, efficiency 1) and the
     * efficiency floor. */
    for (size_t j = 0; j < s->nruns; j++)
        ideal[j] = s->p[j] / s->p[0];
    draw_series(&c, s, &pl, ideal, c.th.muted, 1.2 * c.s, true, false);
    for (size_t j = 0; j < s->nruns; j++)
        ideal[j] = 1;
    draw_series(&c, s, &pr, ideal, c.th.muted, 1.2 * c.s, true, false);
    for (size_t j = 0; j < s->nruns; j++)
        ideal[j] = s->opts.min_efficiency;
    sp_rgba floor_col = c.th.bad;
    floor_col.a = 0.45;
    draw_series(&c, s, &pr, ideal, floor_col, 1 * c.s, true, false);

    free(items), free(labels), free(sp), free(ef), free(ideal);
    sp__canvas_end(&c);
    return 0;
}
