/* SPDX-License-Identifier: MIT */
/* sp_plot_axes.c - 1-2-5 ticks, linear and log axes, titles and legends. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_plot_internal.h"

double sp__nice_step(double span, double target_count)
{
    if (!(span > 0) || !isfinite(span))
        return 1;
    if (target_count < 1)
        target_count = 1;
    double raw = span / target_count;
    double mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;
    double nice = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
    return nice * mag;
}

void sp__nice_range(double *lo, double *hi, double target_count)
{
    if (!(*hi > *lo)) {
        double d = *lo != 0 ? fabs(*lo) * 0.5 : 1;
        *lo -= d;
        *hi += d;
    }
    double step = sp__nice_step(*hi - *lo, target_count);
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
}

double sp__axis_map(const sp__axis *a, double v)
{
    double f;
    if (a->log) {
        double lv = log10(v > 0 ? v : a->lo);
        double l0 = log10(a->lo), l1 = log10(a->hi);
        f = l1 > l0 ? (lv - l0) / (l1 - l0) : 0.5;
    } else {
        f = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0.5;
    }
    return a->p0 + f * (a->p1 - a->p0);
}

double sp__axis_unmap(const sp__axis *a, double p)
{
    double f = a->p1 != a->p0 ? (p - a->p0) / (a->p1 - a->p0) : 0;
    if (a->log)
        return pow(10, log10(a->lo) + f * (log10(a->hi) - log10(a->lo)));
    return a->lo + f * (a->hi - a->lo);
}

/* Label of a value on a log axis: one significant digit in a fitting unit. */
static void log_label(const sp__axis *a, double v, char *buf, size_t n)
{
    if (a->kind == SP__AXIS_TIME) {
        double unit;
        const char *name;
        sp__time_unit(v, &unit, &name);
        snprintf(buf, n, "%g %s", round(v / unit * 1000) / 1000, name);
    } else {
        sp__format_number(v, 0, buf, n);
    }
}

static void ticks_log(const sp__axis *a, double target, sp__ticks *t)
{
    t->n = 0;
    int k0 = (int)floor(log10(a->lo) + 1e-9), k1 = (int)ceil(log10(a->hi) - 1e-9);
    int decades = k1 - k0;
    int every = decades > target ? (int)ceil(decades / fmax(target, 1)) : 1;
    int majors_in = 0;
    for (int k = k0; k <= k1; k++) {
        double v = pow(10, k);
        if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
            majors_in++;
    }
    for (int k = k0; k <= k1 && t->n < SP__MAX_TICKS; k++) {
        for (int m = 1; m <= 9 && t->n < SP__MAX_TICKS; m++) {
            double v = m * pow(10, k);
            if (v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9))
                continue;
            bool major = m == 1 && ((k - k0) % every == 0);
            if (majors_in < 2 && (m == 2 || m == 5)) /* narrow range: label 2 and 5 too */
                major = true;
            /* Minors: all within 5 decades, 2 and 5 up to 10, none beyond
             * (they would only blur a wide axis). */
            if (!major && (decades > 10 || (decades > 5 && m != 2 && m != 5)))
                continue;
            t->v[t->n] = v;
            t->major[t->n] = major;
            t->label[t->n][0] = 0;
            if (major)
                log_label(a, v, t->label[t->n], sizeof t->label[0]);
            t->n++;
        }
    }
}

static void ticks_linear(const sp__axis *a, double target, sp__ticks *t)
{
    t->n = 0;
    double step = sp__nice_step(a->hi - a->lo, target);
    if (a->integer && step < 1)
        step = 1;
    double first = ceil(a->lo / step - 1e-9) * step;
    double unit = 1;
    const char *uname = "";
    if (a->kind == SP__AXIS_TIME)
        sp__time_unit(fmax(fabs(a->lo), fabs(a->hi)), &unit, &uname);
    for (int i = 0; t->n < SP__MAX_TICKS; i++) {
        double v = first + i * step;
        if (v > a->hi + step * 1e-9)
            break;
        if (fabs(v) < step * 1e-9)
            v = 0;
        t->v[t->n] = v;
        t->major[t->n] = true;
        if (a->kind == SP__AXIS_TIME)
            sp__format_time_tick(v, step, unit, uname, t->label[t->n], sizeof t->label[0]);
        else
            sp__format_number(v, step, t->label[t->n], sizeof t->label[0]);
        t->n++;
    }
}

void sp__axis_ticks(const sp__axis *a, double target, sp__ticks *t)
{
    if (a->log && a->lo > 0 && a->hi > a->lo)
        ticks_log(a, target, t);
    else
        ticks_linear(a, target, t);
}

/* Widest label of a tick set. */
static double widest(sp__canvas *c, const sp__ticks *t)
{
    double m = 0;
    for (int i = 0; i < t->n; i++)
        if (t->label[i][0])
            m = fmax(m, sp__text_width(c, SP__FONT_SMALL, t->label[i]));
    return m;
}

/* Ticks whose labels do not collide along a horizontal axis of length len. */
void sp__axis_ticks_fit(sp__canvas *c, const sp__axis *a, double len, sp__ticks *t)
{
    double target = fmax(2, len / (90 * c->s));
    for (int iter = 0; iter < 6; iter++) {
        sp__axis_ticks(a, target, t);
        int labelled = 0;
        for (int i = 0; i < t->n; i++)
            labelled += t->label[i][0] != 0;
        double need = (widest(c, t) + 1.2 * c->fs) * (labelled > 1 ? labelled - 1 : 1);
        if (need <= len || target <= 2)
            return;
        target = fmax(2, target * len / need * 0.9);
    }
}

double sp__axis_x_height(sp__canvas *c, bool caption)
{
    return 6 * c->s + c->line_h[SP__FONT_SMALL] + (caption ? c->line_h[SP__FONT_SMALL] + 4 * c->s : 0) +
           2 * c->s;
}

void sp__axis_draw_x(sp__canvas *c, const sp__axis *a, sp__rect r, bool grid, const char *caption,
                     sp__ticks *out)
{
    cairo_t *cr = c->cr;
    sp__ticks local, *t = out ? out : &local;
    sp__axis_ticks_fit(c, a, r.w, t);
    double yb = sp__snap(r.y + r.h);
    cairo_set_line_width(cr, 1);
    for (int i = 0; i < t->n; i++) {
        double x = sp__snap(sp__axis_map(a, t->v[i])) + 0.5;
        if (grid) {
            sp_rgba g = t->major[i] ? c->th.grid : sp__mix(c->th.grid, c->th.bg, 0.55);
            sp__set_color(cr, g);
            cairo_move_to(cr, x, r.y);
            cairo_line_to(cr, x, yb);
            cairo_stroke(cr);
        }
        sp__set_color(cr, c->th.axis);
        cairo_move_to(cr, x, yb);
        cairo_line_to(cr, x, yb + (t->major[i] ? 4 : 2) * c->s);
        cairo_stroke(cr);
    }
    /* Labels: centred under the tick, but kept inside the chart. */
    for (int i = 0; i < t->n; i++) {
        if (!t->label[i][0])
            continue;
        double x = sp__axis_map(a, t->v[i]);
        double tw = sp__text_width(c, SP__FONT_SMALL, t->label[i]);
        double lx = fmin(fmax(x - tw / 2, 2 * c->s), c->w - tw - 2 * c->s);
        sp__text_draw(c, SP__FONT_SMALL, t->label[i], lx, yb + 6 * c->s, 0, 0, 0, c->th.muted);
    }
    sp__set_color(cr, c->th.axis);
    cairo_move_to(cr, r.x, yb + 0.5);
    cairo_line_to(cr, r.x + r.w, yb + 0.5);
    cairo_stroke(cr);
    if (caption)
        sp__text_draw(c, SP__FONT_SMALL, caption, r.x + r.w / 2,
                      yb + 10 * c->s + c->line_h[SP__FONT_SMALL], 0.5, 0, r.w, c->th.muted);
}

static void ticks_y(sp__canvas *c, const sp__axis *a, sp__ticks *t)
{
    double len = fabs(a->p1 - a->p0);
    sp__axis_ticks(a, fmax(2, len / (4.0 * c->line_h[SP__FONT_SMALL])), t);
}

double sp__axis_y_label_width(sp__canvas *c, const sp__axis *a)
{
    sp__ticks t;
    ticks_y(c, a, &t);
    return widest(c, &t);
}

void sp__axis_draw_y(sp__canvas *c, const sp__axis *a, sp__rect r, bool grid, const char *caption,
                     sp__ticks *out)
{
    cairo_t *cr = c->cr;
    sp__ticks local, *t = out ? out : &local;
    ticks_y(c, a, t);
    double xl = sp__snap(r.x);
    cairo_set_line_width(cr, 1);
    for (int i = 0; i < t->n; i++) {
        double y = sp__snap(sp__axis_map(a, t->v[i])) + 0.5;
        if (grid) {
            sp_rgba g = t->major[i] ? c->th.grid : sp__mix(c->th.grid, c->th.bg, 0.55);
            sp__set_color(cr, g);
            cairo_move_to(cr, xl, y);
            cairo_line_to(cr, r.x + r.w, y);
            cairo_stroke(cr);
        }
        sp__set_color(cr, c->th.axis);
        cairo_move_to(cr, xl - (t->major[i] ? 4 : 2) * c->s, y);
        cairo_line_to(cr, xl, y);
        cairo_stroke(cr);
        if (t->label[i][0])
            sp__text_draw(c, SP__FONT_SMALL, t->label[i], xl - 6 * c->s, y, 1, 0.5, 0,
                          c->th.muted);
    }
    sp__set_color(cr, c->th.axis);
    cairo_move_to(cr, xl - 0.5, r.y);
    cairo_line_to(cr, xl - 0.5, r.y + r.h);
    cairo_stroke(cr);
    if (caption)
        sp__text_draw(c, SP__FONT_SMALL, caption, 12 * c->s, r.y - 6 * c->s, 0, 1,
                      r.x + r.w - 12 * c->s, c->th.muted);
}

double sp__draw_title(sp__canvas *c, const char *def_title, const char *subtitle)
{
    const char *title = c->style.title ? c->style.title : def_title;
    double pad = 12 * c->s, y = pad;
    if (title && *title) {
        sp__text_draw(c, SP__FONT_TITLE, title, pad, y, 0, 0, c->w - 2 * pad, c->th.fg);
        y += c->line_h[SP__FONT_TITLE] + 2 * c->s;
    }
    if (subtitle && *subtitle) {
        sp__text_draw(c, SP__FONT_SMALL, subtitle, pad, y, 0, 0, c->w - 2 * pad, c->th.muted);
        y += c->line_h[SP__FONT_SMALL];
    }
    return y + (y > pad ? 8 * c->s : 0);
}

/* Width of a legend entry's swatch (a dashed line is longer than a box). */
static double swatch_w(const sp__canvas *c, const sp__legend_item *it)
{
    return (it->dashed ? 1.8 : 1.0) * 0.8 * c->fs;
}

/*
 * Entries are measured first and laid out in greedy rows: a row takes every
 * entry that fits with the tightest spacing, then spreads the spare width up
 * to the normal spacing. So a legend shrinks its spacing, then wraps to
 * another row, and only an entry wider than the whole legend on its own is
 * ellipsized. Labels are drawn without a width limit when they fit: a limit
 * computed from the accumulated x can come out a hair under the measured
 * width and would ellipsize the last label of a row ("rank 3" -> "ran…").
 */
double sp__legend(sp__canvas *c, const sp__legend_item *items, size_t n, double x_right, double y,
                  double max_w, bool draw)
{
    if (n == 0)
        return 0;
    double sw = 0.8 * c->fs, gap = 0.4 * c->fs;
    double spacing = 1.2 * c->fs, min_spacing = 0.6 * c->fs;
    double lh = c->line_h[SP__FONT_SMALL];
    double iw_fixed[16], *iw = n <= 16 ? iw_fixed : malloc(n * sizeof *iw);
    sp__plot_stats *stats = draw ? sp__plot_stats_active() : NULL;
    for (size_t k = 0; k < n; k++) {
        double tw = sp__text_width(c, SP__FONT_SMALL, items[k].label);
        if (iw)
            iw[k] = swatch_w(c, &items[k]) + gap + tw;
    }
    size_t i = 0;
    double yy = y;
    while (i < n) {
        size_t j = i + 1;
        double sum = iw ? iw[i] : max_w; /* entries' widths without spacing */
        while (iw && j < n && sum + (double)(j - i) * min_spacing + iw[j] <= max_w) {
            sum += iw[j];
            j++;
        }
        double sp = j - i > 1 ? fmin(spacing, (max_w - sum) / (double)(j - i - 1)) : 0;
        double row_w = sum + sp * (double)(j - i - 1);
        if (draw) {
            double x = x_right - fmin(row_w, max_w);
            for (size_t k = i; k < j; k++) {
                double swd = swatch_w(c, &items[k]);
                sp__set_color(c->cr, items[k].color);
                if (items[k].dashed) {
                    double d[2] = {3 * c->s, 2 * c->s};
                    cairo_set_dash(c->cr, d, 2, 0);
                    cairo_set_line_width(c->cr, 1.5 * c->s);
                    cairo_move_to(c->cr, x, yy + lh / 2);
                    cairo_line_to(c->cr, x + swd, yy + lh / 2);
                    cairo_stroke(c->cr);
                    cairo_set_dash(c->cr, NULL, 0, 0);
                    cairo_set_line_width(c->cr, 1);
                } else {
                    cairo_rectangle(c->cr, x, yy + (lh - sw) / 2, sw, sw);
                    cairo_fill(c->cr);
                }
                x += swd + gap;
                /* Alone and too wide for the legend: the only case that
                 * ellipsizes. */
                bool too_wide = !iw || iw[k] > max_w;
                double tw = sp__text_draw(c, SP__FONT_SMALL, items[k].label, x, yy, 0, 0,
                                          too_wide ? fmax(x_right - x, 1) : 0, c->th.fg);
                x += tw + sp;
                if (stats) {
                    stats->legend_items++;
                    stats->legend_ellipsized += too_wide;
                }
            }
            if (stats)
                stats->legend_rows++;
        }
        yy += lh + 2 * c->s;
        i = j;
    }
    if (iw != iw_fixed)
        free(iw);
    return yy - y;
}

const char *sp__region_name(const sp_run *run, int32_t region)
{
    if (!run || region < 0 || (size_t)region >= run->nregions)
        return "?";
    return run->region_names[region];
}
