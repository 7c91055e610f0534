/* SPDX-License-Identifier: MIT */
/* sp_plot_compare.c - base vs candidate per region, with the change in percent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

static bool is_time(const sp_compare_data *d)
{
    return !d->unit || strcmp(d->unit, "s") == 0;
}

static void fmt_value(const sp_compare_data *d, double v, char *buf, size_t n)
{
    if (is_time(d)) {
        sp_plot_format_duration(v, buf, n);
    } else {
        char num[32];
        sp__format_number(v, 0, num, sizeof num);
        snprintf(buf, n, "%s%s%s", num, *d->unit ? " " : "", d->unit);
    }
}

/* -1 better, +1 worse, 0 within noise (or no change). */
static int verdict(const sp_compare_data *d, size_t i)
{
    if (d->significant && !d->significant[i])
        return 0;
    double b = d->base[i], c = d->candidate[i];
    if (b == c)
        return 0;
    bool up = c > b;
    return (up == d->lower_is_better) ? 1 : -1;
}

int sp_plot_compare(cairo_t *cr, double w, double h, const sp_compare_data *data,
                    const sp_plot_style *st)
{
    if (!cr || !data || !(w > 0) || !(h > 0) ||
        (data->n && (!data->names || !data->base || !data->candidate)))
        return sp__error(SP_EINVAL, "sp_plot_compare: bad arguments");
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    if (data->n == 0) {
        sp__draw_empty_msg(&c, "No regions to compare");
        sp__canvas_end(&c);
        return 0;
    }
    const char *bl = data->base_label ? data->base_label : "base";
    const char *cl = data->candidate_label ? data->candidate_label : "candidate";
    char title[256];
    snprintf(title, sizeof title, "%s vs %s", bl, cl);
    size_t nbetter = 0, nworse = 0;
    for (size_t i = 0; i < data->n; i++) {
        int v = verdict(data, i);
        nbetter += v < 0;
        nworse += v > 0;
    }
    char sub[256];
    const char *better = data->lower_is_better ? "faster" : "better";
    const char *worse = data->lower_is_better ? "slower" : "worse";
    snprintf(sub, sizeof sub, "%zu region%s · %zu %s · %zu %s · %zu within noise", data->n,
             data->n == 1 ? "" : "s", nbetter, better, nworse, worse,
             data->n - nbetter - nworse);
    double y = sp__draw_title(&c, title, sub);
    double pad = 16 * c.s;

    sp_rgba base_col = sp__mix(c.th.neutral, c.th.bg, 0.5);
    char lb[160], lc[160];
    snprintf(lb, sizeof lb, "%s (upper bar)", bl);
    snprintf(lc, sizeof lc, "%s: %s", cl, better);
    sp__legend_item items[4] = {{lb, base_col, false},
                                {lc, c.th.good, false},
                                {worse, c.th.bad, false},
                                {"within noise", c.th.neutral, false}};
    y += sp__legend(&c, items, 4, w - pad, y, w - 2 * pad, true) + 8 * c.s;

    /* Columns: names | bars | change. */
    double name_w = 0;
    for (size_t i = 0; i < data->n; i++)
        name_w = fmax(name_w, sp__text_width(&c, SP__FONT_BODY, data->names[i] ? data->names[i] : "?"));
    name_w = fmin(name_w, w * 0.3) + 1.2 * c.fs; /* + swatch */
    double pct_w = sp__text_width(&c, SP__FONT_BOLD, "+999.9%") + 8 * c.s;
    double vmax = 0;
    for (size_t i = 0; i < data->n; i++)
        vmax = fmax(vmax, fmax(data->base[i], data->candidate[i]));
    sp__axis ax = {.lo = 0, .hi = vmax > 0 ? vmax : 1,
                   .kind = is_time(data) ? SP__AXIS_TIME : SP__AXIS_NUMBER};
    char vl[64];
    fmt_value(data, vmax, vl, sizeof vl);
    double val_w = sp__text_width(&c, SP__FONT_SMALL, vl) + 8 * c.s; /* value after a bar */
    sp__rect r = {pad + name_w + 10 * c.s, y, 0, 0};
    r.w = w - r.x - pad - pct_w - val_w;
    double bar_h = round(0.85 * c.fs), row_h = 2 * bar_h + round(0.75 * c.fs);
    double axis_h = sp__axis_x_height(&c, false);
    double avail = h - y - axis_h - pad;
    size_t fit = avail > 0 ? (size_t)floor(avail / row_h) : 0;
    size_t shown = data->n <= fit ? data->n : (fit > 0 ? fit - 1 : 0); /* keep a line for "+ N more" */
    if (r.w < 40 || shown == 0) {
        sp__draw_empty_msg(&c, "Too small to draw");
        sp__canvas_end(&c);
        return 0;
    }
    r.h = shown * row_h;
    ax.p0 = r.x;
    ax.p1 = r.x + r.w;
    sp__axis_draw_x(&c, &ax, r, true, NULL, NULL);
    for (size_t i = 0; i < shown; i++) {
        double ry = r.y + i * row_h + round(0.35 * c.fs);
        const char *nm = data->names[i] ? data->names[i] : "?";
        if (i % 2) {
            sp_rgba band = c.th.band;
            band.a = 0.8;
            sp__set_color(cr, band);
            cairo_rectangle(cr, pad / 2, r.y + i * row_h, w - pad, row_h);
            cairo_fill(cr);
        }
        /* Name with its region colour swatch. */
        double sw = 0.7 * c.fs;
        sp__set_color(cr, sp_plot_region_color(nm, c.style.dark));
        cairo_rectangle(cr, r.x - 10 * c.s - sw, ry + bar_h - sw / 2, sw, sw);
        cairo_fill(cr);
        sp__text_draw(&c, SP__FONT_BODY, nm, r.x - 14 * c.s - sw, ry + bar_h, 1, 0.5,
                      name_w - sw - 6 * c.s, c.th.fg);
        int v = verdict(data, i);
        sp_rgba cc = v < 0 ? c.th.good : v > 0 ? c.th.bad : c.th.neutral;
        double xb = sp__axis_map(&ax, data->base[i]), xc = sp__axis_map(&ax, data->candidate[i]);
        sp__set_color(cr, base_col);
        cairo_rectangle(cr, r.x, ry, fmax(xb - r.x, data->base[i] > 0 ? 1 : 0), bar_h - 1);
        cairo_fill(cr);
        sp__set_color(cr, cc);
        cairo_rectangle(cr, r.x, ry + bar_h, fmax(xc - r.x, data->candidate[i] > 0 ? 1 : 0),
                        bar_h - 1);
        cairo_fill(cr);
        fmt_value(data, data->base[i], vl, sizeof vl);
        sp__text_draw(&c, SP__FONT_SMALL, vl, xb + 4 * c.s, ry + bar_h / 2, 0, 0.5, 0, c.th.muted);
        fmt_value(data, data->candidate[i], vl, sizeof vl);
        sp__text_draw(&c, SP__FONT_SMALL, vl, xc + 4 * c.s, ry + 1.5 * bar_h, 0, 0.5, 0, c.th.fg);
        double pct = data->base[i] > 0 ? (data->candidate[i] - data->base[i]) / data->base[i] * 100
                     : data->candidate[i] > 0 ? INFINITY
                                              : 0;
        char pl[32];
        sp__format_percent(pct, pl, sizeof pl);
        sp_rgba pc = v == 0 ? c.th.muted : cc;
        sp__text_draw(&c, v ? SP__FONT_BOLD : SP__FONT_BODY, pl, w - pad, ry + bar_h, 1, 0.5, 0, pc);
    }
    if (shown < data->n) {
        char more[64];
        snprintf(more, sizeof more, "+ %zu more region%s", data->n - shown,
                 data->n - shown == 1 ? "" : "s");
        sp__text_draw(&c, SP__FONT_SMALL, more, pad, r.y + r.h + axis_h + 2 * c.s, 0, 0, 0,
                      c.th.muted);
    }
    sp__canvas_end(&c);
    return 0;
}
