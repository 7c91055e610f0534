/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_wire.c - an aggregate as bytes and back: from the process that
 * read a file to the one that shows it, and between MPI processes that
 * split a run's ranks. Little-endian, versioned, and checked on the way in
 * as strictly as a file: every id in range, every count consistent, so a
 * damaged or hostile stream is an error, never an out-of-bounds index.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_agg_internal.h"
#include "sp_error.h"
#include "sp_lod.h"
#include "sp_run_read.h"
#include "sp_varint.h"

#define WIRE_MAGIC 0x47415053u /* "SPAG" */
#define WIRE_VERSION 5u /* 2: per-region segments (SP_AGG_SEGMENTS); 3: sums of squares
                             exact, as 128-bit integers; 4: segments sparse; 5: integers
                             as LEB128 (sp_varint.h), doubles still 8 bytes */

/* ---- writing ---- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} wbuf;

static void need(wbuf *b, size_t k)
{
    if (b->failed || b->n + k <= b->cap)
        return;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + k)
        c *= 2;
    uint8_t *p = realloc(b->p, c);
    if (!p) {
        b->failed = 1;
        return;
    }
    b->p = p;
    b->cap = c;
}

/* An integer (signed ones as their two's complement: -1 takes 10 bytes,
 * and only ids of roots are negative). */
static void put64(wbuf *b, uint64_t v)
{
    need(b, SP_VARINT_MAX);
    if (!b->failed)
        b->n += sp_varint_put(b->p + b->n, v);
}

/* A double: its 8 bytes, little-endian. */
static void putd(wbuf *b, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    need(b, 8);
    if (b->failed)
        return;
    for (int i = 0; i < 8; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void put_hist(wbuf *b, const sp_hist *h)
{
    size_t k = sp_hist_encoded_size(h);
    need(b, k);
    if (!b->failed)
        b->n += sp_hist_encode(h, b->p + b->n);
}

static void put_cells(wbuf *b, const sp_agg_cell *c, size_t n)
{
    put64(b, n);
    for (size_t i = 0; i < n; i++) {
        put64(b, (uint64_t)(int64_t)c[i].key);
        put64(b, (uint64_t)(int64_t)c[i].thread);
        put64(b, c[i].calls);
        put64(b, (uint64_t)c[i].incl_ns);
        put64(b, (uint64_t)c[i].own_ns);
    }
}

static void put_lod(wbuf *b, const sp_lod *lod)
{
    put64(b, lod != NULL);
    if (!lod)
        return;
    put64(b, (uint64_t)lod->origin_ns);
    put64(b, lod->ndepth);
    put64(b, lod->nlevels);
    for (size_t k = 0; k < lod->nlevels; k++) {
        const sp_lod_level *l = &lod->levels[k];
        put64(b, (uint64_t)l->bin_ns);
        put64(b, l->nbins);
        for (uint32_t d = 0; d < lod->ndepth; d++) {
            put64(b, l->region[d] != NULL);
            if (!l->region[d])
                continue;
            need(b, l->nbins * 8);
            if (b->failed)
                return;
            for (size_t i = 0; i < l->nbins; i++) {
                uint32_t r = (uint32_t)l->region[d][i];
                float c = l->cover[d][i];
                memcpy(b->p + b->n, &r, 4); /* little-endian hosts only (x86-64, arm64) */
                memcpy(b->p + b->n + 4, &c, 4);
                b->n += 8;
            }
        }
    }
}

static void put_lanes(wbuf *b, const sp_agg_rank *o)
{
    put64(b, o->nlanes);
    for (size_t i = 0; i < o->nlanes; i++) {
        const sp_agg_lane *l = &o->lanes[i];
        put64(b, (uint64_t)(int64_t)l->thread);
        put64(b, l->calls);
        put64(b, l->has_span);
        put64(b, (uint64_t)l->first_ns);
        put64(b, (uint64_t)l->last_ns);
        put64(b, l->max_depth);
        put64(b, l->nspans);
        for (size_t k = 0; k < l->nspans; k++) {
            const sp_agg_span *sp = &l->spans[k];
            put64(b, (uint64_t)sp->start_ns);
            put64(b, (uint64_t)sp->end_ns);
            put64(b, (uint64_t)(int64_t)sp->region);
            put64(b, sp->depth);
            put64(b, sp->begin_block);
            put64(b, sp->end_block);
        }
        put_lod(b, l->lod);
    }
}

/* SP_AGG_SEGMENTS, sparse: a mask of the values that are not zero, then
 * those. A region called a few times fills two or three of the 22 (its
 * segment, and the wait without samples is 0): sent whole, the segments of
 * 10^6 regions were most of what the reading helper sent and took to
 * write. */
#define SEGS_NVALUES (2 * (SP_AGG_NSEGS + 1))

static const double *segs_value(const sp_agg_segs *s, int i)
{
    int w = i / (SP_AGG_NSEGS + 1), k = i % (SP_AGG_NSEGS + 1);
    return k < SP_AGG_NSEGS ? &s->time_ns[w][k] : &s->wait_ns[w];
}

static void put_segs(wbuf *b, const sp_agg_segs *s)
{
    uint64_t mask = 0;
    for (int i = 0; i < SEGS_NVALUES; i++)
        if (*segs_value(s, i) != 0)
            mask |= 1ull << i;
    put64(b, mask);
    for (int i = 0; i < SEGS_NVALUES; i++)
        if (mask >> i & 1)
            putd(b, *segs_value(s, i));
}

static void put_rank(wbuf *b, const sp_agg_rank *o, bool segs)
{
    put64(b, o->read);
    put64(b, o->calls);
    put64(b, o->open_calls);
    put64(b, o->torn_blocks);
    put64(b, o->blocks_read);
    put64(b, o->has_span);
    put64(b, (uint64_t)o->first_ns);
    put64(b, (uint64_t)o->last_ns);
    put64(b, o->max_depth);
    put64(b, o->nregions);
    for (size_t i = 0; i < o->nregions; i++) {
        const sp_agg_region *r = &o->regions[i];
        put64(b, (uint64_t)(int64_t)r->region);
        put64(b, r->nthreads);
        put64(b, r->calls);
        put64(b, r->nested);
        put64(b, (uint64_t)r->total_ns);
        put64(b, (uint64_t)r->all_ns);
        put64(b, (uint64_t)r->own_ns);
        put64(b, (uint64_t)r->min_ns);
        put64(b, (uint64_t)r->max_ns);
        put64(b, (uint64_t)r->sumsq); /* exact: low and high halves */
        put64(b, (uint64_t)(r->sumsq >> 64));
        put_hist(b, &r->hist);
        put_hist(b, &r->own_hist);
        if (segs)
            put_segs(b, &r->segs);
    }
    put_cells(b, o->region_cells, o->nregion_cells);
    put64(b, o->nnodes);
    for (size_t i = 0; i < o->nnodes; i++) {
        put64(b, (uint64_t)(int64_t)o->nodes[i].region);
        put64(b, (uint64_t)(int64_t)o->nodes[i].parent);
    }
    put_cells(b, o->node_cells, o->nnode_cells);
    put64(b, o->nnode_hists);
    for (size_t i = 0; i < o->nnode_hists; i++) {
        put64(b, (uint64_t)(int64_t)o->node_hists[i].node);
        put_hist(b, &o->node_hists[i].hist);
        put_hist(b, &o->node_hists[i].own_hist);
        if (segs)
            put_segs(b, &o->node_hists[i].segs);
    }
    put_lanes(b, o);
}

int sp_agg_encode(const sp_agg *a, uint8_t **out, size_t *len)
{
    wbuf b = {0};
    put64(&b, WIRE_MAGIC);
    put64(&b, WIRE_VERSION);
    put64(&b, a->flags);
    put64(&b, a->nranks);
    put64(&b, a->nregions);
    for (size_t r = 0; r < a->nranks; r++)
        put_rank(&b, &a->ranks[r], a->flags & SP_AGG_SEGMENTS);
    put64(&b, a->series != NULL);
    for (size_t g = 0; a->series && g < a->nregions; g++) {
        const sp_agg_series *s = &a->series[g];
        put64(&b, (uint64_t)s->origin_ns);
        put64(&b, (uint64_t)s->width_ns);
        put64(&b, s->nbins);
        put64(&b, s->bins != NULL);
        for (size_t i = 0; s->bins && i < s->nbins; i++) {
            put64(&b, s->bins[i].calls);
            put64(&b, (uint64_t)s->bins[i].sum_ns);
            put64(&b, (uint64_t)s->bins[i].min_ns);
            put64(&b, (uint64_t)s->bins[i].max_ns);
        }
    }
    if (b.failed) {
        free(b.p);
        return sp__error(SP_ENOMEM, "out of memory encoding the aggregates");
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* ---- reading ---- */

typedef struct rbuf {
    const uint8_t *p;
    size_t n, at;
    int bad;
} rbuf;

static uint64_t get64(rbuf *b)
{
    uint64_t v = 0;
    if (!b->bad && !sp_varint_next(b->p, b->n, &b->at, &v))
        b->bad = 1;
    return v;
}

static double getd(rbuf *b)
{
    if (b->bad || b->n - b->at < 8) {
        b->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)b->p[b->at + i] << (8 * i);
    b->at += 8;
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* A count of items of at least `min_bytes` each that the rest can hold
 * (an integer takes at least a byte, a histogram 4, a double 8). */
static size_t get_count(rbuf *b, size_t min_bytes)
{
    uint64_t n = get64(b);
    if (b->bad || n > (b->n - b->at) / min_bytes) {
        b->bad = 1;
        return 0;
    }
    return (size_t)n;
}

static int32_t get_id(rbuf *b, int64_t lo, int64_t hi) /* lo <= id < hi */
{
    int64_t v = (int64_t)get64(b);
    if (v < lo || v >= hi || v > INT32_MAX) {
        b->bad = 1;
        return 0;
    }
    return (int32_t)v;
}

static void get_hist(rbuf *b, sp_hist *h)
{
    sp_hist_init(h);
    if (b->bad)
        return;
    int rc = sp_hist_decode(h, b->p, b->n, &b->at);
    if (rc)
        b->bad = rc == SP_ENOMEM ? 2 : 1;
}

static sp_agg_cell *get_cells(rbuf *b, size_t *n, int64_t nkeys, int64_t nthreads)
{
    *n = get_count(b, 5);
    sp_agg_cell *c = calloc(*n ? *n : 1, sizeof *c);
    if (!c) {
        b->bad = 2;
        return NULL;
    }
    for (size_t i = 0; i < *n && !b->bad; i++) {
        c[i].key = get_id(b, 0, nkeys);
        c[i].thread = get_id(b, 0, nthreads);
        c[i].calls = get64(b);
        c[i].incl_ns = (int64_t)get64(b);
        c[i].own_ns = (int64_t)get64(b);
    }
    return c;
}

static sp_lod *get_lod(rbuf *b, int64_t nregions)
{
    if (!get64(b) || b->bad)
        return NULL;
    sp_lod *lod = calloc(1, sizeof *lod);
    if (!lod) {
        b->bad = 2;
        return NULL;
    }
    lod->origin_ns = (int64_t)get64(b);
    uint64_t ndepth = get64(b), nlevels = get64(b);
    if (ndepth > SP_LOD_MAX_DEPTH || nlevels == 0 || nlevels > 64) {
        b->bad = 1;
        return lod;
    }
    lod->ndepth = (uint32_t)ndepth;
    if (!(lod->levels = calloc(nlevels, sizeof *lod->levels))) {
        b->bad = 2;
        return lod;
    }
    lod->nlevels = (size_t)nlevels;
    for (size_t k = 0; k < lod->nlevels && !b->bad; k++) {
        sp_lod_level *l = &lod->levels[k];
        l->region = calloc(SP_LOD_MAX_DEPTH, sizeof *l->region);
        l->dur = calloc(SP_LOD_MAX_DEPTH, sizeof *l->dur);
        l->cover = calloc(SP_LOD_MAX_DEPTH, sizeof *l->cover);
        if (!l->region || !l->dur || !l->cover) {
            b->bad = 2;
            break;
        }
        l->bin_ns = (int64_t)get64(b);
        l->nbins = (size_t)get64(b);
        if (l->bin_ns <= 0 || l->nbins == 0 || l->nbins > SP_LOD_MAX_BINS) {
            b->bad = 1;
            break;
        }
        for (uint32_t d = 0; d < lod->ndepth && !b->bad; d++) {
            if (!get64(b))
                continue;
            if ((b->n - b->at) / 8 < l->nbins) {
                b->bad = 1;
                break;
            }
            l->region[d] = malloc(l->nbins * sizeof *l->region[d]);
            l->cover[d] = malloc(l->nbins * sizeof *l->cover[d]);
            if (!l->region[d] || !l->cover[d]) {
                b->bad = 2;
                break;
            }
            for (size_t i = 0; i < l->nbins; i++) {
                int32_t r;
                float c;
                memcpy(&r, b->p + b->at, 4);
                memcpy(&c, b->p + b->at + 4, 4);
                b->at += 8;
                if (r < -1 || r >= nregions || !(c >= 0.0f && c <= 1.0f))
                    b->bad = 1;
                l->region[d][i] = r;
                l->cover[d][i] = c;
            }
        }
    }
    return lod;
}

static void get_lanes(rbuf *b, sp_agg_rank *o, int64_t nthreads, int64_t nregions)
{
    o->nlanes = get_count(b, 8);
    o->lanes = calloc(o->nlanes ? o->nlanes : 1, sizeof *o->lanes);
    if (!o->lanes) {
        b->bad = 2;
        o->nlanes = 0;
        return;
    }
    int32_t prev = -1;
    for (size_t i = 0; i < o->nlanes && !b->bad; i++) {
        sp_agg_lane *l = &o->lanes[i];
        l->thread = get_id(b, prev + 1, nthreads); /* by thread, unique */
        prev = l->thread;
        l->calls = get64(b);
        l->has_span = get64(b) != 0;
        l->first_ns = (int64_t)get64(b);
        l->last_ns = (int64_t)get64(b);
        l->max_depth = (uint32_t)get64(b);
        l->nspans = get_count(b, 6);
        if (b->bad)
            break;
        if (!(l->spans = calloc(l->nspans ? l->nspans : 1, sizeof *l->spans))) {
            b->bad = 2;
            l->nspans = 0;
            break;
        }
        for (size_t k = 0; k < l->nspans && !b->bad; k++) {
            sp_agg_span *sp = &l->spans[k];
            sp->start_ns = (int64_t)get64(b);
            sp->end_ns = (int64_t)get64(b);
            sp->region = get_id(b, 0, nregions);
            sp->depth = (uint32_t)get64(b);
            sp->begin_block = (uint32_t)get64(b);
            sp->end_block = (uint32_t)get64(b);
            if (sp->end_block < sp->begin_block || sp->end_ns < sp->start_ns ||
                (k && (sp->begin_block < sp[-1].begin_block ||
                       (sp->begin_block == sp[-1].begin_block && sp->depth <= sp[-1].depth))))
                b->bad = 1; /* sorted by begin block, then depth */
        }
        l->lod = get_lod(b, nregions);
    }
}

/* SP_AGG_SEGMENTS (put_segs): sums of times, never negative nor
 * infinite; a mask with bits beyond the values is damage. */
static void get_segs(rbuf *b, sp_agg_segs *s)
{
    uint64_t mask = get64(b);
    if (mask >> SEGS_NVALUES) {
        b->bad = 1;
        return;
    }
    memset(s, 0, sizeof *s);
    for (int i = 0; i < SEGS_NVALUES; i++) {
        if (!(mask >> i & 1))
            continue;
        double d = getd(b);
        *(double *)segs_value(s, i) = isfinite(d) && d >= 0 ? d : 0;
    }
}

static void get_rank(rbuf *b, sp_agg_rank *o, const sp_rank_data *rk, int64_t nregions, bool segs)
{
    /* Threads: the header's table, or as many as a hand-built run used. */
    int64_t nthreads = rk->nthreads ? (int64_t)rk->nthreads : INT32_MAX;
    o->read = get64(b) != 0;
    o->calls = get64(b);
    o->open_calls = get64(b);
    o->torn_blocks = get64(b);
    o->blocks_read = get64(b);
    o->has_span = get64(b) != 0;
    o->first_ns = (int64_t)get64(b);
    o->last_ns = (int64_t)get64(b);
    o->max_depth = (uint32_t)get64(b);
    o->nregions = get_count(b, 11 + 2 * 4);
    o->regions = calloc(o->nregions ? o->nregions : 1, sizeof *o->regions);
    if (!o->regions) {
        b->bad = 2;
        o->nregions = 0;
        return;
    }
    int32_t prev = -1;
    for (size_t i = 0; i < o->nregions; i++) {
        sp_agg_region *r = &o->regions[i];
        sp_hist_init(&r->hist);
        sp_hist_init(&r->own_hist);
        if (b->bad)
            continue;
        r->region = get_id(b, prev + 1, nregions); /* sorted, unique */
        prev = r->region;
        r->nthreads = (uint32_t)get64(b);
        r->calls = get64(b);
        r->nested = get64(b);
        r->total_ns = (int64_t)get64(b);
        r->all_ns = (int64_t)get64(b);
        r->own_ns = (int64_t)get64(b);
        r->min_ns = (int64_t)get64(b);
        r->max_ns = (int64_t)get64(b);
        uint64_t sq_lo = get64(b);
        r->sumsq = (sp_agg_sumsq)get64(b) << 64 | sq_lo;
        get_hist(b, &r->hist);
        get_hist(b, &r->own_hist);
        if (segs)
            get_segs(b, &r->segs);
        if (!b->bad && (r->hist.count != r->calls || r->own_hist.count != r->calls ||
                        r->nested > r->calls || r->min_ns > r->max_ns))
            b->bad = 1;
    }
    if (b->bad)
        return;
    o->region_cells = get_cells(b, &o->nregion_cells, nregions, nthreads);
    if (b->bad)
        return;
    o->nnodes = get_count(b, 2);
    o->nodes = calloc(o->nnodes ? o->nnodes : 1, sizeof *o->nodes);
    if (!o->nodes) {
        b->bad = 2;
        return;
    }
    for (size_t i = 0; i < o->nnodes && !b->bad; i++) {
        /* node 0 is the root; every other node's parent comes before it */
        o->nodes[i].region = i ? get_id(b, 0, nregions) : get_id(b, -1, 0);
        o->nodes[i].parent = i ? get_id(b, 0, (int64_t)i) : get_id(b, -1, 0);
    }
    if (!b->bad && o->nnodes == 0)
        b->bad = 1;
    if (b->bad)
        return;
    o->node_cells = get_cells(b, &o->nnode_cells, (int64_t)o->nnodes, nthreads);
    if (b->bad)
        return;
    o->nnode_hists = get_count(b, 1 + 2 * 4);
    o->node_hists = calloc(o->nnode_hists ? o->nnode_hists : 1, sizeof *o->node_hists);
    if (!o->node_hists) {
        b->bad = 2;
        o->nnode_hists = 0;
        return;
    }
    for (size_t i = 0; i < o->nnode_hists; i++) {
        sp_hist_init(&o->node_hists[i].hist);
        sp_hist_init(&o->node_hists[i].own_hist);
        if (b->bad)
            continue;
        o->node_hists[i].node = get_id(b, 0, (int64_t)o->nnodes);
        get_hist(b, &o->node_hists[i].hist);
        get_hist(b, &o->node_hists[i].own_hist);
        if (segs)
            get_segs(b, &o->node_hists[i].segs);
    }
    if (!b->bad)
        get_lanes(b, o, nthreads, nregions);
}

static void get_series(rbuf *b, sp_agg *a)
{
    if (!get64(b) || b->bad)
        return;
    a->series = calloc(a->nregions ? a->nregions : 1, sizeof *a->series);
    if (!a->series) {
        b->bad = 2;
        return;
    }
    for (size_t g = 0; g < a->nregions && !b->bad; g++) {
        sp_agg_series *s = &a->series[g];
        s->origin_ns = (int64_t)get64(b);
        s->width_ns = (int64_t)get64(b);
        s->nbins = (size_t)get64(b);
        if (s->width_ns <= 0 || s->nbins == 0 || s->nbins > 65536) {
            b->bad = 1;
            return;
        }
        if (!get64(b))
            continue;
        if (b->n - b->at < s->nbins * 4) { /* room for the bins: 4 integers each */
            b->bad = 1;
            return;
        }
        if (!(s->bins = calloc(s->nbins, sizeof *s->bins))) {
            b->bad = 2;
            return;
        }
        for (size_t i = 0; i < s->nbins; i++) {
            s->bins[i].calls = get64(b);
            s->bins[i].sum_ns = (int64_t)get64(b);
            s->bins[i].min_ns = (int64_t)get64(b);
            s->bins[i].max_ns = (int64_t)get64(b);
        }
    }
}

int sp_agg_decode(const uint8_t *buf, size_t len, const sp_run *run, sp_agg **out)
{
    *out = NULL;
    rbuf b = {buf, len, 0, 0};
    sp_agg *a = calloc(1, sizeof *a);
    if (!a)
        return sp__error(SP_ENOMEM, "out of memory decoding the aggregates");
    if (get64(&b) != WIRE_MAGIC || get64(&b) != WIRE_VERSION)
        b.bad = 1;
    a->flags = (unsigned)get64(&b);
    a->nranks = (size_t)get64(&b);
    a->nregions = (size_t)get64(&b);
    if (!b.bad && (a->nranks != run->nranks || a->nregions != run->nregions))
        b.bad = 1;
    if (!b.bad && !(a->ranks = calloc(a->nranks ? a->nranks : 1, sizeof *a->ranks)))
        b.bad = 2;
    for (size_t r = 0; r < a->nranks && !b.bad; r++)
        get_rank(&b, &a->ranks[r], &run->ranks[r], (int64_t)a->nregions,
                 a->flags & SP_AGG_SEGMENTS);
    get_series(&b, a);
    if (!b.bad && b.at != b.n)
        b.bad = 1;
    if (b.bad) {
        if (!a->ranks)
            a->nranks = 0;
        sp_agg_free(a);
        return b.bad == 2 ? sp__error(SP_ENOMEM, "out of memory decoding the aggregates")
                          : sp__error(SP_EFORMAT, "damaged aggregates");
    }
    for (size_t r = 0; r < a->nranks; r++) {
        sp_agg_rank *o = &a->ranks[r];
        if (o->has_span) {
            if (!a->has_span || o->first_ns < a->first_ns)
                a->first_ns = o->first_ns;
            if (!a->has_span || o->last_ns > a->last_ns)
                a->last_ns = o->last_ns;
            a->has_span = true;
        }
    }
    *out = a;
    return 0;
}
