/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_series_chart.c - what the charts of one region's series (the
 * histogram, duration over time) share: drawing from a run through the
 * series cache, the empty state, and the "on rank 3" part of the subtitle.
 */
#include <stdio.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

int sp__plot_series_chart(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                          int32_t rank, const sp_plot_style *st, const char *fn,
                          sp__series_chart_fn chart)
{
    if (!cr || !run || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "%s: bad arguments", fn);
    if (region < 0 || (size_t)region >= run->nregions) {
        char msg[64];
        snprintf(msg, sizeof msg, "No such region (id %d)", region);
        return sp_plot_draw_empty(cr, w, h, st, msg);
    }
    sp_region_series *s = sp__series_get(run, region, rank);
    if (!s)
        return sp__error(SP_ENOMEM, "out of memory");
    int rc = chart(cr, w, h, s, st);
    sp_region_series_free(s);
    return rc;
}

int sp__series_canvas_begin(sp__canvas *c, cairo_t *cr, double w, double h,
                            const sp_region_series *s, const sp_plot_style *st, const char *fn)
{
    if (!cr || !s || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "%s: bad arguments", fn);
    return sp__canvas_begin(c, cr, w, h, st);
}

bool sp__series_draw_if_empty(sp__canvas *c, const sp_region_series *s)
{
    if (s->n > 0)
        return false;
    char msg[512];
    if (s->rank >= 0)
        snprintf(msg, sizeof msg, "No calls recorded for region '%s' on rank %d", s->name,
                 s->rank);
    else
        snprintf(msg, sizeof msg, "No calls recorded for region '%s'", s->name);
    sp__draw_empty_msg(c, msg);
    return true;
}

const char *sp__series_where(const sp_region_series *s, char *buf, size_t size)
{
    if (s->rank >= 0)
        snprintf(buf, size, "on rank %d", s->rank);
    else
        snprintf(buf, size, "on %s", s->run_nranks == 1 ? "1 rank" : "all ranks");
    return buf;
}
