/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_walk.c - what one depth row of a lane shows between two
 * times, as entries in time order: from a prepared window (single calls
 * and, where calls are narrower than a pixel, the merged runs of the level
 * whose bucket is at most a pixel) or from the level-of-detail index (its
 * bins, at the level whose bins are at most a pixel). The detail drawing,
 * the overview and hit testing all read rows through here.
 */
#include <math.h>

#include "sp_timeline_private.h"

/* The merge level for p ns per pixel: the highest kept level (even index)
 * with 2^L <= p. */
static const sp__tl_level *pick_level(const sp__tl_row *row, double p)
{
    if (row->nlevels == 0 || p < 1)
        return NULL;
    int L = (int)floor(log2(p));
    if (L < row->lmin)
        return NULL;
    int k = L - row->lmin;
    if (k >= row->nlevels)
        k = row->nlevels - 1;
    k &= ~1;
    const sp__tl_level *lev = &row->levels[k];
    return lev->nruns ? lev : NULL;
}

size_t sp__tl_walk_calls(const sp_timeline_calls *c, int32_t depth, double t0, double t1,
                         double p, sp__tl_visit fn, void *ud)
{
    if (!c || depth < 0 || depth >= c->depths)
        return 0;
    const sp__tl_row *row = &c->rows[depth];
    const sp__tl_level *lev = pick_level(row, p);
    size_t i = sp__tl_row_first_after(c, row, (int64_t)floor(t0));
    size_t r = 0, visited = 0;
    if (lev) { /* first run not entirely before i */
        size_t lo = 0, hi = lev->nruns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((size_t)lev->runs[mid].first + lev->runs[mid].count <= i)
                lo = mid + 1;
            else
                hi = mid;
        }
        r = lo;
        if (r < lev->nruns && lev->runs[r].first < i)
            i = lev->runs[r].first;
    }
    sp__tl_entry e = {0};
    while (i < row->n) {
        if (lev && r < lev->nruns && lev->runs[r].first == i) {
            const sp__tl_run *run = &lev->runs[r++];
            e.s = (double)run->t0;
            if (e.s >= t1)
                break;
            e.e = e.s + run->dur_ns;
            e.region = run->region;
            e.dom = run->dom_ns;
            e.cov = run->cov_ns;
            e.calls = run->count;
            i += run->count;
        } else {
            uint32_t call = row->calls[i];
            e.s = (double)sp__tl_start(c, row, i);
            if (e.s >= t1)
                break;
            e.e = (double)sp__tl_end(c, row, i);
            e.region = c->w->region[call];
            e.dom = e.cov = e.e - e.s;
            e.calls = 1;
            e.call = call;
            i++;
        }
        visited++;
        if (!fn(ud, &e))
            break;
    }
    return visited;
}

size_t sp__tl_walk_index(const sp_lod *lod, int64_t origin, int32_t depth, double t0, double t1,
                         double p, sp__tl_visit fn, void *ud)
{
    if (!lod || depth < 0 || (uint32_t)depth >= lod->ndepth)
        return 0;
    double w = p > 0 ? (t1 - t0) / p : 0;
    const sp_lod_level *lv = sp_lod_pick(lod, (int64_t)t0, (int64_t)t1, w);
    if (!lv->region[depth])
        return 0;
    /* Bins in run time: bin b covers origin' + [b, b + 1) * bin_ns. */
    double base = (double)(lod->origin_ns - origin), bw = (double)lv->bin_ns;
    double fb0 = floor((t0 - base) / bw), fb1 = ceil((t1 - base) / bw);
    size_t b0 = fb0 < 0 ? 0 : (size_t)fb0;
    size_t b1 = fb1 < 0 ? 0 : fb1 > (double)lv->nbins ? lv->nbins : (size_t)fb1;
    const int32_t *reg = lv->region[depth];
    const float *cov = lv->cover[depth];
    sp__tl_entry e = {.from_index = true, .calls = 2};
    size_t visited = 0;
    for (size_t b = b0; b < b1; b++) {
        if (reg[b] < 0)
            continue;
        e.s = base + (double)b * bw;
        e.e = e.s + bw;
        e.region = reg[b];
        /* The longest call names the bin; the cover says how much of it
         * calls fill (a bin of a call that ends inside it counts as that
         * call's region, however little it covers). */
        e.cov = (double)cov[b] * bw;
        e.dom = e.cov;
        visited++;
        if (!fn(ud, &e))
            break;
    }
    return visited;
}
