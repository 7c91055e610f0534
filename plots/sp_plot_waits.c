/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_waits.c - waiting in MPI per rank, stacked by pattern (late
 * sender, late receiver, barrier, N x N, broadcast, reduce): the chart of
 * the viewer's Ranks page and of `scope-profiler plot waits`
 * (analysis/sp_waits.h). The largest wait, with its cause, is the
 * subtitle.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"
#include "sp_waits.h"

/* One colour per pattern, from the region palette (apart from each other). */
static sp_rgba pattern_color(int p, bool dark) { return sp__palette_color(p, dark); }

int sp_plot_waits(cairo_t *cr, double w, double h, const sp_waits *waits,
                  const sp_plot_style *st)
{
    if (!cr || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_waits: bad arguments");
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    double total = 0, vmax = 0;
    size_t n = waits ? waits->nranks : 0, imax = 0;
    for (int p = 0; waits && p < SP_WAIT_NPATTERNS; p++)
        total += waits->pattern_s[p];
    for (size_t r = 0; r < n; r++) {
        double v = 0;
        for (int p = 0; p < SP_WAIT_NPATTERNS; p++)
            v += waits->rank_pattern_s[r * SP_WAIT_NPATTERNS + p];
        if (v > vmax)
            vmax = v, imax = r;
    }
    if (!waits || n == 0 || !(total > 0)) {
        sp__draw_empty_msg(&c, !waits ? "No MPI messages recorded: time the MPI calls "
                                        "(use_mpi_regions) with the MPI library"
                                      : "No rank waited for another in the recorded MPI calls");
        sp__canvas_end(&c);
        return 0;
    }
    char sub[1200], line[1024], a[32];
    sp_waits_sentence(waits, 0, line, sizeof line);
    snprintf(sub, sizeof sub, "%s summed over %zu ranks · largest: %s",
             sp_plot_format_duration(total, a, sizeof a), n, line);
    double y = sp__draw_title(&c, "Waiting in MPI per rank, by pattern", sub);

    sp__legend_item items[SP_WAIT_NPATTERNS];
    size_t ni = 0;
    bool dark = c.style.dark;
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++)
        if (waits->pattern_s[p] > 0)
            items[ni++] = (sp__legend_item){sp_wait_pattern_name(p), pattern_color(p, dark), false};
    double pad = 16 * c.s;
    y += sp__legend(&c, items, ni, w - pad, y, w - 2 * pad, true) + 6 * c.s;

    sp__axis ay = {.lo = 0, .hi = vmax * 1.08, .kind = SP__AXIS_TIME};
    double bottom = h - sp__axis_x_height(&c, true) - 8 * c.s;
    ay.p0 = bottom;
    ay.p1 = y + c.line_h[SP__FONT_SMALL];
    double lw = sp__axis_y_label_width(&c, &ay);
    sp__rect r = {pad + lw + 10 * c.s, ay.p1, 0, bottom - ay.p1};
    r.w = w - r.x - pad;
    if (r.w < 20 || r.h < 20) {
        sp__draw_empty_msg(&c, "Too small to draw");
        sp__canvas_end(&c);
        return 0;
    }
    sp__axis_draw_y(&c, &ay, r, true, NULL, NULL);
    double slot = r.w / (double)n;
    double gap = slot * 0.25 >= 1.5 * c.s ? slot * 0.25 : (slot >= 3 ? 1 : 0);
    for (size_t i = 0; i < n; i++) {
        double x0 = r.x + (double)i * slot + gap / 2, base = 0;
        for (int p = 0; p < SP_WAIT_NPATTERNS; p++) {
            double v = waits->rank_pattern_s[i * SP_WAIT_NPATTERNS + p];
            if (v <= 0)
                continue;
            double y0 = sp__axis_map(&ay, base), y1 = sp__axis_map(&ay, base + v);
            sp__set_color(cr, pattern_color(p, dark));
            cairo_rectangle(cr, x0, y1, fmax(slot - gap, 0.6), fmax(y0 - y1, 0.5));
            cairo_fill(cr);
            base += v;
        }
    }
    sp__rank_labels(&c, r, bottom, n, imax, "rank (the one that waited)");
    sp__canvas_end(&c);
    return 0;
}
