/* SPDX-License-Identifier: MIT */
/* sp_lod.c - the timeline's level-of-detail index (see sp_lod.h). */
#include "sp_lod.h"

#include <stdlib.h>
#include <string.h>

#include "sp_agg_internal.h"
#include "sp_error.h"

static void level_free(sp_lod_level *l, uint32_t ndepth)
{
    for (uint32_t d = 0; d < ndepth; d++) {
        free(l->region ? l->region[d] : NULL);
        free(l->dur ? l->dur[d] : NULL);
        free(l->cover ? l->cover[d] : NULL);
    }
    free(l->region);
    free(l->dur);
    free(l->cover);
}

void sp_lod_free(sp_lod *lod)
{
    if (!lod)
        return;
    for (size_t k = 0; k < lod->nlevels; k++)
        level_free(&lod->levels[k], SP_LOD_MAX_DEPTH);
    free(lod->levels);
    free(lod);
}

static int level_alloc(sp_lod_level *l)
{
    l->region = calloc(SP_LOD_MAX_DEPTH, sizeof *l->region);
    l->dur = calloc(SP_LOD_MAX_DEPTH, sizeof *l->dur);
    l->cover = calloc(SP_LOD_MAX_DEPTH, sizeof *l->cover);
    return l->region && l->dur && l->cover ? 0 : SP_ENOMEM;
}

sp_lod *sp_lod_new(int64_t first_ns, int64_t last_ns, uint64_t calls)
{
    sp_lod *lod = calloc(1, sizeof *lod);
    if (!lod)
        return NULL;
    /* A bin per 64 calls (a screen of the finest bins shows a few thousand
     * calls: a window that loads them exactly), within [1024, 2^18]. */
    size_t nbins = 1024;
    while (nbins < SP_LOD_MAX_BINS && nbins * 64 < calls)
        nbins *= 2;
    /* Unsigned: hostile clocks may span all of int64. The last block's
     * calls end after its start: an eighth more. */
    uint64_t d = last_ns > first_ns ? (uint64_t)last_ns - (uint64_t)first_ns : 1;
    int64_t span = d > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)(d + d / 8 + 1);
    lod->origin_ns = first_ns;
    lod->levels = calloc(1, sizeof *lod->levels);
    if (!lod->levels || level_alloc(&lod->levels[0])) {
        sp_lod_free(lod);
        return NULL;
    }
    lod->nlevels = 1;
    lod->levels[0].nbins = nbins;
    lod->levels[0].bin_ns = span / (int64_t)nbins + 1;
    lod->inv_bin = 1.0 / (double)lod->levels[0].bin_ns;
    for (uint32_t k = 0; k < SP_LOD_MAX_DEPTH; k++)
        lod->cursor[k] = (sp_lod_cursor){.lo = 1, .hi = 0};
    return lod;
}

/* Arrays of depth d at the finest level, allocated on first use. */
static int use_depth(sp_lod *lod, uint32_t d)
{
    sp_lod_level *l = &lod->levels[0];
    if (l->region[d])
        return 0;
    l->region[d] = malloc(l->nbins * sizeof *l->region[d]);
    l->dur[d] = calloc(l->nbins, sizeof *l->dur[d]);
    l->cover[d] = calloc(l->nbins, sizeof *l->cover[d]);
    if (!l->region[d] || !l->dur[d] || !l->cover[d])
        return SP_ENOMEM;
    for (size_t b = 0; b < l->nbins; b++)
        l->region[d][b] = -1;
    if (d + 1 > lod->ndepth)
        lod->ndepth = d + 1;
    return 0;
}

/* The finest bin of offset a (>= 0) from the origin, clamped to the last:
 * by multiplication (a division per call costs more than the rest of the
 * pass's work on it), corrected at the edges where rounding misses. */
static inline size_t bin_of(const sp_lod *lod, int64_t a)
{
    const sp_lod_level *l = &lod->levels[0];
    double f = (double)a * lod->inv_bin;
    size_t last = l->nbins - 1;
    if (!(f < (double)last))
        return last;
    size_t b = (size_t)f;
    if ((int64_t)b * l->bin_ns > a)
        b--;
    else if ((int64_t)(b + 1) * l->bin_ns <= a && b < last)
        b++;
    return b;
}

/* Bin b's longest call at depth d: this one if longer. */
static inline void keep_longest(int32_t *reg, int64_t *du, size_t b, int64_t dur, int32_t region)
{
    if (dur > du[b] || reg[b] < 0) {
        du[b] = dur;
        reg[b] = region;
    }
}

int sp_lod_add(sp_lod *lod, int64_t start_ns, int64_t end_ns, int32_t region, uint32_t depth)
{
    if (depth >= SP_LOD_MAX_DEPTH)
        return 0;
    sp_lod_level *l = &lod->levels[0];
    if (!l->region[depth] && use_depth(lod, depth))
        return SP_ENOMEM;
    int64_t w = l->bin_ns, a = sp__sat_sub(start_ns, lod->origin_ns),
            e = sp__sat_sub(end_ns, lod->origin_ns);
    if (a < 0)
        a = 0;
    if (e < a)
        e = a;
    int64_t dur = sp__sat_sub(end_ns, start_ns);
    int32_t *reg = l->region[depth];
    int64_t *du = l->dur[depth];
    float *cov = l->cover[depth];
    sp_lod_cursor *cur = &lod->cursor[depth];
    /* Covers are kept in ns while built (fractions at sp_lod_finish). */
    if (a >= cur->lo && e < cur->hi) { /* most calls: within the last call's bin */
        keep_longest(cur->region, cur->dur, 0, dur, region);
        *cur->cover += (float)(e - a);
        return 0;
    }
    size_t b0 = bin_of(lod, a), last = l->nbins - 1;
    *cur = (sp_lod_cursor){.lo = (int64_t)b0 * w,
                           .hi = b0 == last ? INT64_MAX : (int64_t)(b0 + 1) * w,
                           .region = reg + b0,
                           .dur = du + b0,
                           .cover = cov + b0};
    if (e < cur->hi || b0 == last) { /* within one bin (the last holds all beyond) */
        keep_longest(reg, du, b0, dur, region);
        cov[b0] += (float)(e - a);
        return 0;
    }
    size_t b1 = bin_of(lod, e);
    for (size_t b = b0; b <= b1; b++) {
        keep_longest(reg, du, b, dur, region);
        int64_t lo = (int64_t)b * w, hi = lo + w;
        int64_t ov = (e < hi ? e : hi) - (a > lo ? a : lo);
        if (ov > 0)
            cov[b] += (float)ov;
    }
    return 0;
}

/* Level k + 1 from level k: each bin the longer of two, covers averaged. */
static int coarsen(sp_lod *lod, const sp_lod_level *f, sp_lod_level *c)
{
    c->nbins = f->nbins / 2;
    c->bin_ns = f->bin_ns * 2;
    if (level_alloc(c))
        return SP_ENOMEM;
    for (uint32_t d = 0; d < lod->ndepth; d++) {
        if (!f->region[d])
            continue;
        c->region[d] = malloc(c->nbins * sizeof *c->region[d]);
        c->dur[d] = malloc(c->nbins * sizeof *c->dur[d]);
        c->cover[d] = malloc(c->nbins * sizeof *c->cover[d]);
        if (!c->region[d] || !c->dur[d] || !c->cover[d])
            return SP_ENOMEM;
        for (size_t b = 0; b < c->nbins; b++) {
            size_t x = 2 * b, y = x + 1;
            bool take_y = f->region[d][y] >= 0 &&
                          (f->region[d][x] < 0 || f->dur[d][y] > f->dur[d][x]);
            c->region[d][b] = take_y ? f->region[d][y] : f->region[d][x];
            c->dur[d][b] = take_y ? f->dur[d][y] : f->dur[d][x];
            c->cover[d][b] = (f->cover[d][x] + f->cover[d][y]) * 0.5f;
        }
    }
    return 0;
}

int sp_lod_finish(sp_lod *lod)
{
    size_t n = 1;
    while ((lod->levels[0].nbins >> (n - 1)) > 64)
        n++;
    sp_lod_level *f = &lod->levels[0];
    float inv = (float)(1.0 / (double)f->bin_ns);
    for (uint32_t d = 0; d < lod->ndepth; d++) /* covers become fractions */
        for (size_t b = 0; f->cover[d] && b < f->nbins; b++)
            f->cover[d][b] = f->cover[d][b] * inv > 1.0f ? 1.0f : f->cover[d][b] * inv;
    sp_lod_level *lv = realloc(lod->levels, n * sizeof *lv);
    if (!lv)
        return SP_ENOMEM;
    lod->levels = lv;
    memset(lv + lod->nlevels, 0, (n - lod->nlevels) * sizeof *lv);
    for (size_t k = lod->nlevels; k < n; k++) {
        lod->nlevels = k + 1; /* freed with the rest on failure */
        if (coarsen(lod, &lv[k - 1], &lv[k]))
            return SP_ENOMEM;
    }
    /* The durations only chose the longest call: drawing needs none. */
    for (size_t k = 0; k < lod->nlevels; k++)
        for (uint32_t d = 0; d < SP_LOD_MAX_DEPTH; d++) {
            free(lv[k].dur[d]);
            lv[k].dur[d] = NULL;
        }
    return 0;
}

const sp_lod_level *sp_lod_pick(const sp_lod *lod, int64_t t0, int64_t t1, double w)
{
    double px = w > 0 ? (double)(t1 - t0) / w : 0;
    size_t k = 0;
    while (k + 1 < lod->nlevels && (double)lod->levels[k + 1].bin_ns <= px)
        k++;
    return &lod->levels[k];
}

size_t sp_lod_bytes(const sp_lod *lod)
{
    size_t n = sizeof *lod;
    for (size_t k = 0; lod && k < lod->nlevels; k++)
        for (uint32_t d = 0; d < lod->ndepth; d++)
            if (lod->levels[k].region[d])
                n += lod->levels[k].nbins * 8;
    return n;
}
