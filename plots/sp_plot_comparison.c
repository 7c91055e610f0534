/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_comparison.c - the comparison model as a chart: per region the
 * quantity its verdict rests on (the typical time per rank, or the total
 * for a tail change; named on the row), both sides, and its change with
 * its interval (a forest plot) against the +-budget band, coloured by
 * verdict. The subtitle is the
 * model's own tally, so it reads as every other surface.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_compare.h"
#include "sp_error.h"
#include "sp_plot_internal.h"

/* The change axis never runs past these (a CI of +900 % is drawn clipped,
 * with an arrow). */
#define AXIS_MIN_PCT -100.0
#define AXIS_MAX_PCT 300.0

static sp_rgba verdict_color(const sp__canvas *c, sp_cmp_verdict v)
{
    switch (v) {
    case SP_CMP_SLOWER:
    case SP_CMP_NEW:
        return c->th.bad;
    case SP_CMP_FASTER:
    case SP_CMP_REMOVED:
        return c->th.good;
    default:
        return c->th.neutral;
    }
}

/* Axis range covering what is drawn, at least the budget band. */
static void change_range(const sp_compare *cmp, const size_t *rows, size_t n, double *lo,
                         double *hi)
{
    double b = cmp->opts.min_change_pct;
    *lo = -fmax(2 * b, 5);
    *hi = fmax(2 * b, 5);
    for (size_t i = 0; i < n; i++) {
        const sp_cmp_entry *e = &cmp->entries[rows ? rows[i] : i];
        if (e->verdict == SP_CMP_NEW || e->verdict == SP_CMP_REMOVED)
            continue;
        sp_cmp_quantity q;
        sp_cmp_entry_quantity(e, &q);
        double a = q.tested ? q.lo_pct : q.change_pct;
        double z = q.tested ? q.hi_pct : q.change_pct;
        if (isfinite(a))
            *lo = fmin(*lo, a);
        if (isfinite(z))
            *hi = fmax(*hi, z);
    }
    *lo = fmax(*lo, AXIS_MIN_PCT);
    *hi = fmin(*hi, AXIS_MAX_PCT);
    sp__nice_range(lo, hi, 6);
}

static void draw_marker(cairo_t *cr, double x, double y, double r, sp_rgba col, bool hollow,
                        double lw)
{
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, r, 0, 2 * M_PI);
    sp__set_color(cr, col);
    if (hollow) {
        cairo_set_line_width(cr, lw);
        cairo_stroke(cr);
    } else {
        cairo_fill(cr);
    }
}

/* A small arrow head at x pointing left (dir -1) or right (+1). */
static void draw_arrow(cairo_t *cr, double x, double y, double s, int dir, sp_rgba col)
{
    sp__set_color(cr, col);
    cairo_move_to(cr, x + dir * s, y);
    cairo_line_to(cr, x, y - s * 0.7);
    cairo_line_to(cr, x, y + s * 0.7);
    cairo_close_path(cr);
    cairo_fill(cr);
}

int sp_plot_comparison(cairo_t *cr, double w, double h, const sp_compare *cmp, const size_t *rows,
                       size_t nrows, const char *base_label, const char *cand_label,
                       const sp_plot_style *st)
{
    if (!cr || !cmp || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_comparison: bad arguments");
    size_t n = rows ? nrows : cmp->n;
    for (size_t i = 0; rows && i < n; i++)
        if (rows[i] >= cmp->n)
            return sp__error(SP_EINVAL, "sp_plot_comparison: row %zu out of range", rows[i]);
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    const char *bl = base_label ? base_label : "base";
    const char *cl = cand_label ? cand_label : "candidate";
    char title[256], sub[512], tally[256], mode[160];
    snprintf(title, sizeof title, "%s vs %s", bl, cl);
    sp_cmp_tally t;
    sp_compare_tally(cmp, &t);
    snprintf(sub, sizeof sub, "%s  ·  %s", sp_compare_tally_text(&t, tally, sizeof tally),
             sp_compare_mode_text(cmp, mode, sizeof mode));
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;
    if (n == 0) {
        sp__draw_empty_msg(&c, cmp->n ? "No region matches the filter" : "No regions to compare");
        sp__canvas_end(&c);
        return 0;
    }

    char band[64];
    snprintf(band, sizeof band, "±%g %% budget", cmp->opts.min_change_pct);
    sp_rgba band_col = sp__mix(c.th.neutral, c.th.bg, 0.75);
    sp__legend_item items[5] = {{"slower", c.th.bad, false},
                                {"faster", c.th.good, false},
                                {"within noise", c.th.neutral, false},
                                {"not comparable (○ observed)", sp__mix(c.th.neutral, c.th.bg, 0.4), false},
                                {band, band_col, false}};
    y += sp__legend(&c, items, 5, w - pad, y, w - 2 * pad, true) + 6 * c.s;

    /* Columns: name | base -> candidate per rank | forest | change text. */
    /* The times column is as wide as its heading too (it was cut to "time
     * per rank: typical or…" when every time was short). */
    static const char times_head[] = "time per rank: typical or total";
    double name_w = 0, times_w = sp__text_width(&c, SP__FONT_SMALL, times_head);
    char tb[48], tc[48], times[128];
    for (size_t i = 0; i < n; i++) {
        const sp_cmp_entry *e = &cmp->entries[rows ? rows[i] : i];
        sp_cmp_quantity q;
        sp_cmp_entry_quantity(e, &q);
        name_w = fmax(name_w, sp__text_width(&c, SP__FONT_BODY, e->name));
        snprintf(times, sizeof times, "%s → %s %s", sp_cmp_fmt_time(q.base_s, tb, sizeof tb),
                 sp_cmp_fmt_time(q.cand_s, tc, sizeof tc), q.name);
        times_w = fmax(times_w, sp__text_width(&c, SP__FONT_SMALL, times));
    }
    double sw = 0.7 * c.fs;
    name_w = fmin(name_w, w * 0.24) + sw + 16 * c.s;
    times_w = fmin(times_w, w * 0.2) + 12 * c.s;
    if (w < 760 * c.s) /* narrow (a side pane): the forest needs the room */
        times_w = 0;
    else
        y += c.line_h[SP__FONT_SMALL] + 2 * c.s; /* the "time per rank" heading */
    double txt_w = sp__text_width(&c, SP__FONT_BOLD, "+999.9 % within noise") + 8 * c.s;
    sp__rect r = {pad + name_w + times_w, y, 0, 0};
    r.w = w - r.x - pad - txt_w;
    double row_h = round(1.75 * c.fs), axis_h = sp__axis_x_height(&c, true);
    double avail = h - y - axis_h - pad - c.line_h[SP__FONT_SMALL];
    size_t fit = avail > 0 ? (size_t)floor(avail / row_h) : 0;
    size_t shown = n <= fit ? n : (fit > 0 ? fit - 1 : 0);
    if (r.w < 60 || shown == 0) {
        sp__draw_empty_msg(&c, "Too small to draw");
        sp__canvas_end(&c);
        return 0;
    }
    r.h = shown * row_h;
    double lo, hi;
    change_range(cmp, rows, shown, &lo, &hi);
    sp__axis ax = {.lo = lo, .hi = hi, .kind = SP__AXIS_NUMBER, .p0 = r.x, .p1 = r.x + r.w};
    /* Row bands first, then the budget band and axis over them. */
    for (size_t i = 0; i < shown; i++) {
        if (i % 2 == 0)
            continue;
        sp_rgba b = c.th.band;
        b.a = 0.8;
        sp__set_color(cr, b);
        cairo_rectangle(cr, pad / 2, r.y + i * row_h, w - pad, row_h);
        cairo_fill(cr);
    }
    double bx0 = sp__axis_map(&ax, fmax(-cmp->opts.min_change_pct, lo));
    double bx1 = sp__axis_map(&ax, fmin(cmp->opts.min_change_pct, hi));
    sp_rgba bc = band_col;
    bc.a = 0.55;
    sp__set_color(cr, bc);
    cairo_rectangle(cr, bx0, r.y, bx1 - bx0, r.h);
    cairo_fill(cr);
    sp__axis_draw_x(&c, &ax, r, true,
                    w < 760 * c.s ? "change per rank, %"
                                  : "change of the row's time per rank, % (dot: estimate, bar: "
                                    "interval)",
                    NULL);
    double x0 = sp__snap(sp__axis_map(&ax, 0)) + 0.5;
    sp__set_color(cr, c.th.axis);
    cairo_set_line_width(cr, 1.2 * c.s);
    cairo_move_to(cr, x0, r.y);
    cairo_line_to(cr, x0, r.y + r.h);
    cairo_stroke(cr);
    if (times_w > 0)
        sp__text_draw(&c, SP__FONT_SMALL, times_head, pad + name_w,
                      r.y - 2 * c.s, 0, 1, times_w, c.th.muted);

    for (size_t i = 0; i < shown; i++) {
        const sp_cmp_entry *e = &cmp->entries[rows ? rows[i] : i];
        double cy = r.y + (i + 0.5) * row_h;
        sp__set_color(cr, sp_plot_color_in(c.style.colors, e->name, c.style.dark));
        cairo_rectangle(cr, pad, cy - sw / 2, sw, sw);
        cairo_fill(cr);
        sp__text_draw(&c, SP__FONT_BODY, e->name, pad + sw + 6 * c.s, cy, 0, 0.5,
                      name_w - sw - 8 * c.s, c.th.fg);
        /* The row's one quantity: times, change and interval alike. */
        sp_cmp_quantity q;
        sp_cmp_entry_quantity(e, &q);
        if (e->verdict == SP_CMP_NEW)
            snprintf(times, sizeof times, "– → %s total",
                     sp_cmp_fmt_time(e->cand.time_mean_s, tc, sizeof tc));
        else if (e->verdict == SP_CMP_REMOVED)
            snprintf(times, sizeof times, "%s → – total",
                     sp_cmp_fmt_time(e->base.time_mean_s, tb, sizeof tb));
        else
            snprintf(times, sizeof times, "%s → %s %s", sp_cmp_fmt_time(q.base_s, tb, sizeof tb),
                     sp_cmp_fmt_time(q.cand_s, tc, sizeof tc), q.name);
        if (times_w > 0)
            sp__text_draw(&c, SP__FONT_SMALL, times, pad + name_w, cy, 0, 0.5, times_w - 8 * c.s,
                          c.th.muted);

        sp_rgba col = verdict_color(&c, e->verdict);
        bool counted = e->verdict == SP_CMP_SLOWER || e->verdict == SP_CMP_FASTER;
        char label[96], pct[48];
        if (e->verdict == SP_CMP_NEW || e->verdict == SP_CMP_REMOVED) {
            /* No ratio: the word at the axis end it points to. */
            bool up = e->verdict == SP_CMP_NEW;
            double xe = up ? r.x + r.w : r.x;
            draw_arrow(cr, xe, cy, 0.45 * c.fs, up ? 1 : -1, col);
            snprintf(label, sizeof label, "%s", sp_cmp_verdict_name(e->verdict));
        } else {
            double est = q.change_pct;
            if (q.tested) {
                /* Both ends clamped to the axis: an interval wholly past
                 * it (+270000 %..) is a mark at its end, not a line across
                 * the labels. */
                double a = sp__axis_map(&ax, fmin(fmax(q.lo_pct, lo), hi));
                double b = sp__axis_map(&ax, fmax(fmin(q.hi_pct, hi), lo));
                sp__set_color(cr, col);
                cairo_set_line_width(cr, (counted ? 2.2 : 1.6) * c.s);
                cairo_move_to(cr, a, cy);
                cairo_line_to(cr, b, cy);
                cairo_stroke(cr);
                double cap = 0.3 * c.fs;
                if (q.lo_pct >= lo && q.lo_pct <= hi) {
                    cairo_move_to(cr, a, cy - cap);
                    cairo_line_to(cr, a, cy + cap);
                }
                if (q.hi_pct <= hi && q.hi_pct >= lo) {
                    cairo_move_to(cr, b, cy - cap);
                    cairo_line_to(cr, b, cy + cap);
                }
                cairo_stroke(cr);
                if (q.lo_pct < lo)
                    draw_arrow(cr, r.x, cy, 0.4 * c.fs, -1, col);
                if (q.hi_pct > hi)
                    draw_arrow(cr, r.x + r.w, cy, 0.4 * c.fs, 1, col);
            }
            double xm = sp__axis_map(&ax, fmin(fmax(est, lo), hi));
            draw_marker(cr, xm, cy, (counted ? 0.36 : 0.3) * c.fs, col, !q.tested, 1.5 * c.s);
            sp__format_percent(est, pct, sizeof pct);
            snprintf(label, sizeof label, "%s %s", pct, sp_cmp_verdict_name(e->verdict));
        }
        sp__text_draw(&c, counted ? SP__FONT_BOLD : SP__FONT_BODY, label, w - pad, cy, 1, 0.5,
                      txt_w, counted ? col : c.th.muted);
    }
    if (shown < n) {
        char more[64];
        snprintf(more, sizeof more, "+ %zu more region%s", n - shown, n - shown == 1 ? "" : "s");
        sp__text_draw(&c, SP__FONT_SMALL, more, pad, r.y + r.h + axis_h + 2 * c.s, 0, 0, 0,
                      c.th.muted);
    }
    sp__canvas_end(&c);
    return 0;
}
