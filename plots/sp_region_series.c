/* SPDX-License-Identifier: MIT */
/*
 * sp_region_series.c - one region's calls prepared for the histogram and the
 * duration-over-time chart (sorted durations, points sorted by start with a
 * min/max per block), and the small cache the chart functions share.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_agg.h"
#include "sp_error.h"
#include "sp_plot_internal.h"

/* ---- sorting ---- */

/* LSD radix sort of non-negative int64 keys, 8 bits per pass; passes where
 * every key has the same byte are skipped (durations rarely exceed 40 bits),
 * so 8M keys sort in ~0.1 s instead of ~0.9 s with qsort. */
static int radix_sort_u64(int64_t *a, size_t n)
{
    if (n < 2)
        return 0;
    int64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return SP_ENOMEM;
    int64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((uint64_t)src[i] >> shift) & 255]++;
        if (cnt[((uint64_t)src[0] >> shift) & 255] == n)
            continue;
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = cnt[b];
            cnt[b] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[((uint64_t)src[i] >> shift) & 255]++] = src[i];
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    return 0;
}

/* Natural merge sort of points by x: a rank's calls come sorted by start
 * per thread, so a group is a few ascending runs and this costs
 * O(n log runs). tmp has room for n points. */
static void sort_points(sp__pt *p, size_t n, sp__pt *tmp)
{
    for (;;) {
        size_t runs = 0;
        size_t i = 0, o = 0;
        while (i < n) {
            size_t a0 = i;
            while (i + 1 < n && p[i].x <= p[i + 1].x)
                i++;
            size_t a1 = ++i, b0 = i;
            while (i + 1 < n && p[i].x <= p[i + 1].x)
                i++;
            size_t b1 = i < n ? ++i : n;
            size_t x = a0, y = b0;
            while (x < a1 && y < b1)
                tmp[o++] = p[y].x < p[x].x ? p[y++] : p[x++];
            while (x < a1)
                tmp[o++] = p[x++];
            while (y < b1)
                tmp[o++] = p[y++];
            runs++;
        }
        memcpy(p, tmp, n * sizeof *p);
        if (runs <= 1)
            return;
    }
}

/* ---- building ---- */

static void series_destroy(sp_region_series *s)
{
    if (!s)
        return;
    free(s->name);
    free(s->dur);
    free(s->pt);
    free(s->group_rank);
    free(s->group_off);
    free(s->block_off);
    free(s->block_ymin);
    free(s->block_ymax);
    sp_hist_free(&s->hist);
    free(s->bins);
    free(s);
}

static bool has_calls(const sp_run *run)
{
    for (size_t r = 0; r < run->nranks; r++)
        if (run->ranks[r].ncalls)
            return true;
    return false;
}

/* A series from the run's aggregates: the ranks' histograms merged, exact
 * count, sum, min and max, and (all ranks) the duration-over-time bins. */
static int build_from_agg(sp_region_series *s, const sp_run *run, int32_t region, int32_t rank)
{
    const sp_agg *a = run->agg;
    s->from_agg = true;
    sp_hist_init(&s->hist);
    s->span_ns = a->has_span && a->last_ns > a->first_ns ? a->last_ns - a->first_ns : 0;
    for (size_t r = 0; r < a->nranks; r++) {
        if (rank >= 0 && (int32_t)r != rank)
            continue;
        const sp_agg_region *x = sp_agg_rank_region(&a->ranks[r], region);
        if (!x || !x->calls)
            continue;
        if (sp_hist_merge(&s->hist, &x->hist))
            return SP_ENOMEM;
        if (s->n == 0 || x->min_ns < s->min_ns)
            s->min_ns = x->min_ns;
        if (s->n == 0 || x->max_ns > s->max_ns)
            s->max_ns = x->max_ns;
        s->n += x->calls;
        s->sum_ns += (double)x->all_ns;
    }
    const sp_agg_series *se = a->series && (size_t)region < a->nregions ? &a->series[region] : NULL;
    if (rank < 0 && se && se->bins && se->nbins) {
        if (!(s->bins = malloc(se->nbins * sizeof *s->bins)))
            return SP_ENOMEM;
        memcpy(s->bins, se->bins, se->nbins * sizeof *s->bins);
        s->nbins = se->nbins;
        s->bin0_s = (double)(se->origin_ns - a->first_ns) * 1e-9;
        s->bin_w_s = (double)se->width_ns * 1e-9;
    }
    s->bytes = sizeof *s + s->nbins * sizeof *s->bins + SP_HIST_NBUCKETS * 8;
    return 0;
}

static sp_region_series *build(const sp_run *run, int32_t region, int32_t rank)
{
    sp_region_series *s = calloc(1, sizeof *s);
    if (!s)
        return sp__error_null(SP_ENOMEM, "out of memory");
    s->refs = 1;
    s->region = region;
    s->rank = rank;
    s->run_nranks = run->nranks;
    s->name = strdup(run->region_names[region]);
    /* The colour the run's own map gives the region (building a map only
     * reads the run, so any drawing thread may do it). */
    s->color_slot = sp_palette_hash_slot(run->region_names[region]);
    sp_color_map *cm = sp_color_map_for_run(run);
    if (cm)
        s->color_slot = sp_color_map_slot(cm, run->region_names[region]);
    sp_color_map_free(cm);
    s->group_rank = malloc((run->nranks + 1) * sizeof *s->group_rank);
    s->group_off = malloc((run->nranks + 1) * sizeof *s->group_off);
    if (!s->name || !s->group_rank || !s->group_off)
        goto oom;
    s->group_off[0] = 0;
    if (run->agg && !has_calls(run)) {
        if (build_from_agg(s, run, region, rank))
            goto oom;
        return s;
    }
    /* Run time origin and span over every call (as the timeline). */
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t n = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        bool mine = rank < 0 || (int32_t)r == rank;
        for (size_t i = 0; i < rk->ncalls; i++) {
            lo = rk->start_ns[i] < lo ? rk->start_ns[i] : lo;
            hi = rk->end_ns[i] > hi ? rk->end_ns[i] : hi;
            n += mine && rk->region[i] == region;
        }
        if (rk->ncalls) {
            t0 = lo + rk->clock_offset_ns < t0 ? lo + rk->clock_offset_ns : t0;
            t1 = hi + rk->clock_offset_ns > t1 ? hi + rk->clock_offset_ns : t1;
        }
    }
    s->span_ns = t1 > t0 ? t1 - t0 : 0;
    s->n = n;
    s->group_off[0] = 0;
    if (n == 0) {
        s->block_off = calloc(1, sizeof *s->block_off);
        if (!s->block_off)
            goto oom;
        return s;
    }
    s->dur = malloc(n * sizeof *s->dur);
    s->pt = malloc(n * sizeof *s->pt);
    if (!s->dur || !s->pt)
        goto oom;
    size_t k = 0;
    bool negative = false;
    for (size_t r = 0; r < run->nranks; r++) {
        if (rank >= 0 && (int32_t)r != rank)
            continue;
        const sp_rank_data *rk = &run->ranks[r];
        size_t k0 = k;
        for (size_t i = 0; i < rk->ncalls; i++)
            if (rk->region[i] == region) {
                int64_t d = rk->end_ns[i] - rk->start_ns[i];
                negative |= d < 0;
                s->dur[k] = d;
                s->sum_ns += (double)d;
                s->pt[k].x = (float)((double)(rk->start_ns[i] + rk->clock_offset_ns - t0) * 1e-9);
                s->pt[k].y = (float)((double)d * 1e-9);
                k++;
            }
        if (k > k0) {
            s->group_rank[s->ngroups] = (int32_t)r;
            s->group_off[++s->ngroups] = k;
        }
    }
    if (negative) /* a broken file: keep going rather than mis-sort */
        for (size_t i = 0; i < n; i++)
            s->dur[i] = s->dur[i] < 0 ? 0 : s->dur[i];
    if (radix_sort_u64(s->dur, n))
        goto oom;
    sp__pt *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        goto oom;
    size_t nb = 0;
    for (size_t g = 0; g < s->ngroups; g++) {
        size_t a = s->group_off[g], b = s->group_off[g + 1];
        sort_points(s->pt + a, b - a, tmp);
        nb += (b - a + SP__SERIES_BLOCK - 1) / SP__SERIES_BLOCK;
    }
    free(tmp);
    s->nblocks = nb;
    s->block_off = malloc((nb + 1) * sizeof *s->block_off);
    s->block_ymin = malloc(nb * sizeof *s->block_ymin);
    s->block_ymax = malloc(nb * sizeof *s->block_ymax);
    if (!s->block_off || !s->block_ymin || !s->block_ymax)
        goto oom;
    size_t bi = 0;
    for (size_t g = 0; g < s->ngroups; g++)
        for (size_t a = s->group_off[g], b = s->group_off[g + 1]; a < b; a += SP__SERIES_BLOCK) {
            size_t e = a + SP__SERIES_BLOCK < b ? a + SP__SERIES_BLOCK : b;
            float mn = s->pt[a].y, mx = s->pt[a].y;
            for (size_t i = a + 1; i < e; i++) {
                mn = fminf(mn, s->pt[i].y);
                mx = fmaxf(mx, s->pt[i].y);
            }
            s->block_off[bi] = a;
            s->block_ymin[bi] = mn;
            s->block_ymax[bi++] = mx;
        }
    s->block_off[nb] = n;
    s->bytes = sizeof *s + n * (sizeof *s->dur + sizeof *s->pt) +
               nb * (sizeof *s->block_off + 2 * sizeof(float));
    return s;
oom:
    series_destroy(s);
    return sp__error_null(SP_ENOMEM, "out of memory");
}

/* ---- cache ---- */

#define CACHE_N 4
#define CACHE_MAX_BYTES ((size_t)512 << 20)

typedef struct cache_ent {
    const sp_run *run; /* compared, never dereferenced (it may be freed) */
    int32_t region, rank;
    uint64_t fp;
    uint64_t used;     /* LRU stamp */
    sp_region_series *s;
} cache_ent;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_ent g_cache[CACHE_N];
static uint64_t g_clock;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/*
 * A fingerprint of the run's calls: sizes, column addresses, clock offsets
 * and 33 sampled calls per rank. A run freed and another allocated at the
 * same address would need the same sizes, addresses and samples to hit a
 * stale entry; sp_plot_cache_forget() removes even that risk.
 */
static uint64_t fingerprint(const sp_run *run, int32_t region)
{
    uint64_t h = mix(0x5350u, run->nranks);
    h = mix(h, (uint64_t)(uintptr_t)run->ranks);
    h = mix(h, (uint64_t)(uintptr_t)run->agg);
    h = mix(h, run->nregions);
    for (const char *p = run->region_names[region]; *p; p++)
        h = mix(h, (unsigned char)*p);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        h = mix(h, rk->ncalls);
        h = mix(h, (uint64_t)(uintptr_t)rk->start_ns);
        h = mix(h, (uint64_t)(uintptr_t)rk->end_ns);
        h = mix(h, (uint64_t)(uintptr_t)rk->region);
        h = mix(h, (uint64_t)rk->clock_offset_ns);
        for (size_t k = 0; rk->ncalls && k <= 32; k++) {
            size_t i = (size_t)((double)(rk->ncalls - 1) * (double)k / 32.0);
            h = mix(h, (uint64_t)rk->start_ns[i]);
            h = mix(h, (uint64_t)rk->end_ns[i]);
            h = mix(h, (uint64_t)(uint32_t)rk->region[i]);
        }
    }
    return h;
}

/* Drop a reference; caller holds g_mu. Returns the series to destroy (after
 * unlocking) or NULL. */
static sp_region_series *unref_locked(sp_region_series *s)
{
    return s && --s->refs == 0 ? s : NULL;
}

sp_region_series *sp__series_get(const sp_run *run, int32_t region, int32_t rank)
{
    uint64_t fp = fingerprint(run, region);
    sp__plot_stats *stats = sp__plot_stats_active();
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < CACHE_N; i++) {
        cache_ent *e = &g_cache[i];
        if (e->s && e->run == run && e->region == region && e->rank == rank && e->fp == fp) {
            e->used = ++g_clock;
            e->s->refs++;
            sp_region_series *s = e->s;
            pthread_mutex_unlock(&g_mu);
            if (stats)
                stats->series_reused++;
            return s;
        }
    }
    pthread_mutex_unlock(&g_mu);
    /* Build outside the lock so other charts keep drawing meanwhile; two
     * threads missing at once both build and the second insert wins. */
    sp_region_series *s = build(run, region, rank);
    if (!s)
        return NULL;
    if (stats)
        stats->series_built++;
    sp_region_series *dead[CACHE_N + 1] = {0};
    int ndead = 0;
    pthread_mutex_lock(&g_mu);
    /* Replace an entry of the same key, else the least recently used. */
    int slot = -1;
    for (int i = 0; i < CACHE_N && slot < 0; i++)
        if (g_cache[i].s && g_cache[i].run == run && g_cache[i].region == region &&
            g_cache[i].rank == rank)
            slot = i;
    for (int i = 0; i < CACHE_N && slot < 0; i++)
        if (!g_cache[i].s)
            slot = i;
    if (slot < 0) {
        slot = 0;
        for (int i = 1; i < CACHE_N; i++)
            if (g_cache[i].used < g_cache[slot].used)
                slot = i;
    }
    if (g_cache[slot].s && (dead[ndead] = unref_locked(g_cache[slot].s)))
        ndead++;
    g_cache[slot] = (cache_ent){run, region, rank, fp, ++g_clock, s};
    s->refs++; /* the cache's reference */
    /* Bound the memory: evict the oldest others while over the limit. */
    for (;;) {
        size_t total = 0;
        int old = -1;
        for (int i = 0; i < CACHE_N; i++)
            if (g_cache[i].s) {
                total += g_cache[i].s->bytes;
                if (i != slot && (old < 0 || g_cache[i].used < g_cache[old].used))
                    old = i;
            }
        if (total <= CACHE_MAX_BYTES || old < 0)
            break;
        if ((dead[ndead] = unref_locked(g_cache[old].s)))
            ndead++;
        g_cache[old].s = NULL;
    }
    pthread_mutex_unlock(&g_mu);
    for (int i = 0; i < ndead; i++)
        series_destroy(dead[i]);
    return s;
}

void sp_plot_cache_forget(const sp_run *run)
{
    sp_region_series *dead[CACHE_N];
    int ndead = 0;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < CACHE_N; i++)
        if (g_cache[i].s && (!run || g_cache[i].run == run)) {
            if ((dead[ndead] = unref_locked(g_cache[i].s)))
                ndead++;
            g_cache[i].s = NULL;
        }
    pthread_mutex_unlock(&g_mu);
    for (int i = 0; i < ndead; i++)
        series_destroy(dead[i]);
}

/* ---- public object ---- */

sp_region_series *sp_region_series_new(const sp_run *run, int32_t region, int32_t rank)
{
    if (!run || region < 0 || (size_t)region >= run->nregions)
        return sp__error_null(SP_EINVAL, "sp_region_series_new: bad arguments");
    return build(run, region, rank);
}

void sp_region_series_free(sp_region_series *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&g_mu);
    sp_region_series *dead = unref_locked(s);
    pthread_mutex_unlock(&g_mu);
    series_destroy(dead);
}

size_t sp_region_series_count(const sp_region_series *s)
{
    return s ? s->n : 0;
}

sp_rgba sp__series_color(const sp__canvas *c, const sp_region_series *s)
{
    if (c->style.colors)
        return sp_plot_color_in(c->style.colors, s->name, c->style.dark);
    return sp__palette_color(s->color_slot, c->style.dark);
}
