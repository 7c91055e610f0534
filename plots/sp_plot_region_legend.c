/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_region_legend.c - the legend of the regions a chart shows (the
 * timeline, the call tree): swatch + name entries in left-aligned rows, the
 * most time first, at most max_rows rows; what does not fit is counted in a
 * last "+ N more" entry, so a legend never drops regions silently.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp_plot_internal.h"

typedef struct ordered {
    long rank;
    int32_t region;
} ordered;

static int cmp_ordered(const void *pa, const void *pb)
{
    const ordered *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->region < b->region ? -1 : a->region > b->region;
}

double sp__region_legend_height(const sp__canvas *c, int max_rows)
{
    return max_rows * (c->line_h[SP__FONT_SMALL] + 2 * c->s);
}

/* Width of an entry: swatch, gap, text, spacing. */
static double entry_w(sp__canvas *c, const char *label)
{
    return 0.8 * c->fs + 0.4 * c->fs + sp__text_width(c, SP__FONT_SMALL, label) + 1.2 * c->fs;
}

size_t sp__region_legend(sp__canvas *c, const sp_run *run, const bool *shown, const sp_color_map *m,
                         double x, double y, double w, int max_rows)
{
    size_t n = 0;
    for (size_t g = 0; g < run->nregions; g++)
        n += shown[g];
    if (n == 0 || max_rows < 1)
        return 0;
    ordered *o = malloc(n * sizeof *o);
    if (!o)
        return 0;
    n = 0;
    for (size_t g = 0; g < run->nregions; g++)
        if (shown[g]) {
            long rk = sp_color_map_rank(m, run->region_names[g]);
            o[n++] = (ordered){rk < 0 ? (long)run->nregions + (long)g : rk, (int32_t)g};
        }
    qsort(o, n, sizeof *o, cmp_ordered);
    double lh = c->line_h[SP__FONT_SMALL] + 2 * c->s, sw = 0.8 * c->fs;
    char more[48];
    int row = 0;
    double xx = x;
    size_t drawn = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = run->region_names[o[i].region];
        double ew = entry_w(c, name);
        /* room for the "+ N more" entry on the last row when items remain */
        snprintf(more, sizeof more, "+ %zu more", n - i - 1);
        double reserve = (row == max_rows - 1 && i + 1 < n) ? entry_w(c, more) : 0;
        if (xx > x && xx + ew + reserve > x + w) {
            if (row == max_rows - 1)
                break;
            row++;
            xx = x;
        }
        double yy = y + row * lh;
        sp__set_color(c->cr, sp__region_color(c, run, name));
        cairo_rectangle(c->cr, xx, yy + (lh - sw) / 2, sw, sw);
        cairo_fill(c->cr);
        sp__text_draw(c, SP__FONT_SMALL, name, xx + sw + 0.4 * c->fs, yy + lh / 2, 0, 0.5,
                      fmax(x + w - xx - sw - 0.4 * c->fs, 1), c->th.fg);
        xx += ew;
        drawn++;
    }
    if (drawn < n) {
        snprintf(more, sizeof more, "+ %zu more", n - drawn);
        sp__text_draw(c, SP__FONT_SMALL, more, xx, y + row * lh + lh / 2, 0, 0.5, 0, c->th.muted);
    }
    free(o);
    return drawn;
}
