/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_merge.c - from the pass's rank states to an sp_agg, the ranks'
 * trees merged into the run's, and the run's summaries (per-region
 * statistics, the tree's figures) filled from the aggregates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_agg_internal.h"
#include "sp_error.h"
#include "sp_lod.h"

void sp_agg_free(sp_agg *a)
{
    if (!a)
        return;
    for (size_t r = 0; r < a->nranks; r++)
        sp__agg_rank_out_free(&a->ranks[r]);
    free(a->ranks);
    if (a->series)
        for (size_t g = 0; g < a->nregions; g++)
            free(a->series[g].bins);
    free(a->series);
    free(a);
}

/* The run's span from its ranks' spans. */
static void span_from_ranks(sp_agg *a)
{
    a->has_span = false;
    for (size_t r = 0; r < a->nranks; r++) {
        const sp_agg_rank *o = &a->ranks[r];
        if (!o->has_span)
            continue;
        if (!a->has_span || o->first_ns < a->first_ns)
            a->first_ns = o->first_ns;
        if (!a->has_span || o->last_ns > a->last_ns)
            a->last_ns = o->last_ns;
        a->has_span = true;
    }
}

void sp_agg_drop_ranks(sp_agg *a, const bool *keep)
{
    for (size_t r = 0; r < a->nranks; r++) {
        sp_agg_rank *o = &a->ranks[r];
        if (!keep[r]) {
            sp__agg_rank_out_free(o);
            o->read = false;
        }
    }
    span_from_ranks(a);
}

int sp_agg_merge_ranks(sp_agg *dst, sp_agg *src)
{
    if (src->nranks != dst->nranks || src->nregions != dst->nregions)
        return sp__error(SP_EINVAL, "aggregates of different runs (%zu and %zu ranks)",
                         dst->nranks, src->nranks);
    for (size_t r = 0; r < src->nranks; r++)
        if (src->ranks[r].read && dst->ranks[r].read)
            return sp__error(SP_EINVAL, "rank %zu was read twice", r);
    for (size_t g = 0; src->series && dst->series && g < src->nregions; g++) {
        const sp_agg_series *x = &src->series[g], *y = &dst->series[g];
        if (x->nbins != y->nbins || x->origin_ns != y->origin_ns || x->width_ns != y->width_ns)
            return sp__error(SP_EINVAL, "duration series on different time axes");
    }
    for (size_t r = 0; r < src->nranks; r++) {
        if (!src->ranks[r].read)
            continue;
        /* What the other side knew of a rank it did not read (damaged
         * blocks found at open) is the same on both: src's replaces it. */
        sp__agg_rank_out_free(&dst->ranks[r]);
        dst->ranks[r] = src->ranks[r];
        memset(&src->ranks[r], 0, sizeof src->ranks[r]);
    }
    dst->flags |= src->flags;
    if (src->series && !dst->series) {
        dst->series = src->series;
        src->series = NULL;
    } else if (src->series) {
        sp__agg_series_add(dst->series, src->series, src->nregions);
    }
    span_from_ranks(dst);
    return 0;
}

const sp_agg_region *sp_agg_rank_region(const sp_agg_rank *rk, int32_t region)
{
    /* Regions are few per rank and sorted by id after the pass. */
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid].region < region)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rk->nregions && rk->regions[lo].region == region ? &rk->regions[lo] : NULL;
}

int sp_agg_region_hist(const sp_agg *a, int32_t region, long rank, bool own, sp_hist *out)
{
    sp_hist_init(out);
    for (size_t r = 0; a && r < a->nranks; r++) {
        if (rank >= 0 && (size_t)rank != r)
            continue;
        const sp_agg_region *x = sp_agg_rank_region(&a->ranks[r], region);
        if (x && sp_hist_merge(out, own ? &x->own_hist : &x->hist)) {
            sp_hist_free(out);
            return sp__error(SP_ENOMEM, "out of memory");
        }
    }
    return 0;
}

static int cmp_region(const void *a, const void *b)
{
    int32_t x = ((const sp_agg_region *)a)->region, y = ((const sp_agg_region *)b)->region;
    return (x > y) - (x < y);
}

/* Count the threads of each region from its cells, and sort regions by id. */
static void finish_rank(sp_agg_rank *o)
{
    if (o->nregions) /* qsort on NULL is undefined, even of 0 elements */
        qsort(o->regions, o->nregions, sizeof *o->regions, cmp_region);
    for (size_t i = 0; i < o->nregion_cells; i++) {
        sp_agg_region *r =
            (sp_agg_region *)sp_agg_rank_region(o, o->region_cells[i].key);
        if (r)
            r->nthreads++;
    }
}

static int cmp_span(const void *a, const void *b)
{
    const sp_agg_span *x = a, *y = b;
    if (x->begin_block != y->begin_block)
        return (x->begin_block > y->begin_block) - (x->begin_block < y->begin_block);
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The lanes of the threads that made calls, spans sorted, indexes built. */
static int take_lanes(sp__rank_state *rs, sp_agg_rank *o)
{
    size_t n = 0;
    for (size_t t = 0; rs->lanes && t < rs->nthreads; t++)
        n += rs->lanes[t].calls > 0;
    if (!n)
        return 0;
    if (!(o->lanes = calloc(n, sizeof *o->lanes)))
        return SP_ENOMEM;
    for (size_t t = 0; t < rs->nthreads; t++) {
        sp_agg_lane *l = &rs->lanes[t];
        if (!l->calls)
            continue;
        if (l->nspans)
            qsort(l->spans, l->nspans, sizeof *l->spans, cmp_span);
        if (l->lod && sp_lod_finish(l->lod))
            return SP_ENOMEM;
        o->lanes[o->nlanes++] = *l;
        memset(l, 0, sizeof *l);
    }
    return 0;
}

const sp_agg_lane *sp_agg_find_lane(const sp_agg *a, size_t rank, int32_t thread)
{
    if (!a || rank >= a->nranks)
        return NULL;
    const sp_agg_rank *o = &a->ranks[rank];
    size_t lo = 0, hi = o->nlanes; /* lanes are by thread */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->lanes[mid].thread < thread)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nlanes && o->lanes[lo].thread == thread ? &o->lanes[lo] : NULL;
}

/* Move the pass's rank states and series into a new sp_agg. */
static int take_result(sp__pass *p, sp_agg **out)
{
    sp_agg *a = calloc(1, sizeof *a);
    if (!a || !(a->ranks = calloc(p->nranks ? p->nranks : 1, sizeof *a->ranks))) {
        free(a);
        return SP_ENOMEM;
    }
    a->flags = p->opts.flags;
    a->nranks = p->nranks;
    a->nregions = p->src->run->nregions;
    for (size_t r = 0; r < p->nranks; r++) {
        a->ranks[r] = p->ranks[r].out;
        memset(&p->ranks[r].out, 0, sizeof p->ranks[r].out);
        sp_agg_rank *o = &a->ranks[r];
        finish_rank(o);
        if (take_lanes(&p->ranks[r], o)) {
            a->nranks = r + 1;
            sp_agg_free(a);
            return SP_ENOMEM;
        }
    }
    span_from_ranks(a);
    if (p->series && p->nseries == a->nregions) {
        a->series = p->series;
        p->series = NULL;
    }
    *out = a;
    return 0;
}

int sp_agg_run(sp_event_source *src, const sp_agg_opts *opts, sp_agg **out)
{
    *out = NULL;
    sp__pass *p;
    int rc = sp__pass_new(src, opts, &p);
    if (rc)
        return rc;
    rc = sp__pass_run(p);
    for (size_t r = 0; rc == 0 && r < p->nranks; r++) {
        if (!p->ranks[r].out.read)
            continue;
        rc = sp__pass_cut_open(p, r);
        if (rc == 0 && src->complete && p->ranks[r].out.open_calls)
            rc = sp__error(SP_EFORMAT, "rank %zu: %llu calls never end in a finished file", r,
                           (unsigned long long)p->ranks[r].out.open_calls);
    }
    if (rc == 0 && take_result(p, out))
        rc = sp__error(SP_ENOMEM, "out of memory");
    sp__pass_free(p);
    return rc;
}

/* ---- a pass that follows a recording run ---- */

struct sp_agg_follow {
    sp__pass *p;
};

int sp_agg_follow_new(sp_event_source *src, const sp_agg_opts *opts, sp_agg_follow **out)
{
    *out = NULL;
    sp_agg_follow *f = calloc(1, sizeof *f);
    if (!f)
        return sp__error(SP_ENOMEM, "out of memory");
    sp_agg_opts o = opts ? *opts : (sp_agg_opts){0};
    /* LOD: sized for the blocks at open, built for finished runs; segments:
     * cut from the span at open, which a growing run outgrows. */
    o.flags &= ~(SP_AGG_LOD | SP_AGG_SEGMENTS);
    int rc = sp__pass_new(src, &o, &f->p);
    if (rc) {
        free(f);
        return rc;
    }
    *out = f;
    return 0;
}

/* A copy of the pass with its state, to cut open calls in without
 * touching the pass that goes on. */
static int clone_pass(const sp__pass *p, sp__pass **out)
{
    sp__pass *c;
    int rc = sp__pass_new(p->src, &p->opts, &c);
    if (rc)
        return rc;
    for (size_t r = 0; r < p->nranks; r++) {
        sp__agg_rank_free_state(&c->ranks[r]);
        sp__agg_rank_out_free(&c->ranks[r].out);
        if ((rc = sp__agg_rank_clone(&c->ranks[r], &p->ranks[r])) != 0) {
            memset(&c->ranks[r], 0, sizeof c->ranks[r]);
            sp__pass_free(c);
            return rc;
        }
    }
    for (size_t g = 0; p->series && c->series && g < p->nseries && g < c->nseries; g++) {
        if (!p->series[g].bins)
            continue;
        c->series[g] = p->series[g];
        c->series[g].bins = malloc(p->series[g].nbins * sizeof *c->series[g].bins);
        if (!c->series[g].bins) {
            sp__pass_free(c);
            return SP_ENOMEM;
        }
        memcpy(c->series[g].bins, p->series[g].bins,
               p->series[g].nbins * sizeof *c->series[g].bins);
    }
    *out = c;
    return 0;
}

int sp_agg_follow_update(sp_agg_follow *f, sp_agg **out)
{
    *out = NULL;
    int rc = sp__pass_run(f->p);
    if (rc)
        return rc;
    sp__pass *c;
    if ((rc = clone_pass(f->p, &c)) != 0)
        return sp__error(SP_ENOMEM, "out of memory following the run");
    for (size_t r = 0; rc == 0 && r < c->nranks; r++)
        if (c->ranks[r].out.read)
            rc = sp__pass_cut_open(c, r);
    if (rc == 0 && take_result(c, out))
        rc = sp__error(SP_ENOMEM, "out of memory following the run");
    sp__pass_free(c);
    return rc;
}

void sp_agg_follow_free(sp_agg_follow *f)
{
    if (!f)
        return;
    sp__pass_free(f->p);
    free(f);
}

/* ---- the run's tree from the ranks' trees ---- */

typedef struct tree_build {
    sp_tree_node *nodes;
    int64_t *incl, *own; /* exact ns while summing */
    size_t n, cap;
    sp_u64map map;       /* (parent, region) -> node */
} tree_build;

static int32_t global_child(tree_build *t, int32_t parent, int32_t region)
{
    uint64_t k = sp_u64map_key(parent, region);
    int32_t c = sp_u64map_get(&t->map, k);
    if (c >= 0)
        return c;
    if (t->n >= INT32_MAX)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        sp_tree_node *nodes = realloc(t->nodes, cap * sizeof *nodes);
        if (!nodes)
            return -1;
        t->nodes = nodes;
        int64_t *incl = realloc(t->incl, cap * sizeof *incl);
        if (!incl)
            return -1;
        t->incl = incl;
        int64_t *own = realloc(t->own, cap * sizeof *own);
        if (!own)
            return -1;
        t->own = own;
        t->cap = cap;
    }
    int32_t id = (int32_t)t->n;
    t->nodes[id] = (sp_tree_node){.region = region,
                                  .parent = parent,
                                  .first_child = -1,
                                  .next_sibling = -1,
                                  .depth = parent >= 0 ? t->nodes[parent].depth + 1 : 0};
    t->incl[id] = t->own[id] = 0;
    if (sp_u64map_put(&t->map, k, id))
        return -1;
    t->n++;
    return id;
}

/* Children sorted by inclusive time (descending), ties by name and node,
 * as linked lists; no recursion (trees can be 2^20 deep). */
typedef struct child_ref {
    int32_t parent, node;
    int64_t incl;
    const char *name;
} child_ref;

static int cmp_child(const void *a, const void *b)
{
    const child_ref *x = a, *y = b;
    if (x->parent != y->parent)
        return (x->parent > y->parent) - (x->parent < y->parent);
    if (x->incl != y->incl)
        return x->incl < y->incl ? 1 : -1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->node > y->node) - (x->node < y->node);
}

static int link_children(tree_build *t, const sp_run *run)
{
    if (t->n < 2)
        return 0;
    child_ref *c = malloc((t->n - 1) * sizeof *c);
    if (!c)
        return SP_ENOMEM;
    for (size_t i = 1; i < t->n; i++)
        c[i - 1] = (child_ref){t->nodes[i].parent, (int32_t)i, t->incl[i],
                               run->region_names[t->nodes[i].region]};
    qsort(c, t->n - 1, sizeof *c, cmp_child);
    for (size_t i = t->n - 1; i-- > 0;) { /* backwards: each becomes the first child */
        sp_tree_node *p = &t->nodes[c[i].parent];
        t->nodes[c[i].node].next_sibling = p->first_child;
        p->first_child = c[i].node;
    }
    free(c);
    return 0;
}

static int build_tree(sp_run *run, sp_agg *a)
{
    tree_build t;
    memset(&t, 0, sizeof t);
    int rc = 0;
    if (global_child(&t, -1, -1) != 0) /* the root, node 0 */
        rc = SP_ENOMEM;
    for (size_t r = 0; rc == 0 && r < a->nranks; r++) {
        sp_agg_rank *o = &a->ranks[r];
        free(o->global_node);
        o->global_node = malloc((o->nnodes ? o->nnodes : 1) * sizeof *o->global_node);
        if (!o->global_node) {
            rc = SP_ENOMEM;
            break;
        }
        if (o->nnodes)
            o->global_node[0] = 0;
        for (size_t i = 1; i < o->nnodes && rc == 0; i++) {
            int32_t g = global_child(&t, o->global_node[o->nodes[i].parent], o->nodes[i].region);
            if (g < 0)
                rc = SP_ENOMEM;
            o->global_node[i] = g;
        }
        for (size_t i = 0; i < o->nnode_cells && rc == 0; i++) {
            const sp_agg_cell *c = &o->node_cells[i];
            int32_t g = o->global_node[c->key];
            t.nodes[g].calls += c->calls;
            t.incl[g] = sp__sat_add(t.incl[g], c->incl_ns);
            t.own[g] = sp__sat_add(t.own[g], c->own_ns);
        }
    }
    if (rc == 0)
        rc = link_children(&t, run);
    if (rc == 0) {
        for (size_t i = 0; i < t.n; i++) {
            t.nodes[i].incl_s = (double)t.incl[i] * 1e-9;
            t.nodes[i].own_s = (double)t.own[i] * 1e-9;
        }
        /* The root spans its top-level nodes. */
        int64_t top = 0;
        for (int32_t c = t.nodes[0].first_child; c >= 0; c = t.nodes[c].next_sibling)
            top = sp__sat_add(top, t.incl[c]);
        t.nodes[0].incl_s = (double)top * 1e-9;
        free(run->tree.nodes);
        run->tree.nodes = t.nodes;
        run->tree.nnodes = t.n;
        t.nodes = NULL;
    }
    free(t.nodes);
    free(t.incl);
    free(t.own);
    sp_u64map_free(&t.map);
    return rc;
}

/* ---- per-region statistics ---- */

static void stats_from(const sp_agg_region *r, uint64_t calls, int64_t total, int64_t all,
                       int64_t own, int64_t min, int64_t max, sp_agg_sumsq sumsq,
                       const sp_hist *h, sp_stats *out)
{
    (void)r;
    memset(out, 0, sizeof *out);
    out->calls = calls;
    out->total_s = (double)total * 1e-9;
    out->own_s = (double)own * 1e-9;
    if (!calls)
        return;
    long double mean = (long double)all / (long double)calls;
    long double var = (long double)sumsq / (long double)calls - mean * mean;
    out->mean_s = (double)mean * 1e-9;
    out->min_s = (double)min * 1e-9;
    out->max_s = (double)max * 1e-9;
    out->std_s = var > 0 ? sqrt((double)var) * 1e-9 : 0.0;
    out->p50_s = sp_hist_quantile(h, 0.50) * 1e-9;
    out->p95_s = sp_hist_quantile(h, 0.95) * 1e-9;
    out->p99_s = sp_hist_quantile(h, 0.99) * 1e-9;
}

static int fill_regions(sp_run *run, const sp_agg *a)
{
    size_t nr = run->nranks;
    for (size_t g = 0; g < run->nregions; g++) {
        sp_run_region *reg = &run->regions[g];
        sp_hist all;
        sp_hist_init(&all);
        uint64_t calls = 0;
        int64_t total = 0, sum = 0, own = 0, min = 0, max = 0;
        sp_agg_sumsq sq = 0;
        for (size_t r = 0; r < nr && r < a->nranks; r++) {
            const sp_agg_region *x = sp_agg_rank_region(&a->ranks[r], (int32_t)g);
            if (!x) {
                memset(&reg->per_rank[r], 0, sizeof reg->per_rank[r]);
                continue;
            }
            stats_from(x, x->calls, x->total_ns, x->all_ns, x->own_ns, x->min_ns, x->max_ns,
                       x->sumsq, &x->hist, &reg->per_rank[r]);
            if (x->calls && (calls == 0 || x->min_ns < min))
                min = x->min_ns;
            if (x->calls && (calls == 0 || x->max_ns > max))
                max = x->max_ns;
            calls += x->calls;
            total = sp__sat_add(total, x->total_ns);
            sum = sp__sat_add(sum, x->all_ns);
            own = sp__sat_add(own, x->own_ns);
            sp_agg_sumsq_add(&sq, x->sumsq);
            if (sp_hist_merge(&all, &x->hist)) {
                sp_hist_free(&all);
                return SP_ENOMEM;
            }
        }
        stats_from(NULL, calls, total, sum, own, min, max, sq, &all, &reg->all);
        sp_hist_free(&all);
    }
    return 0;
}

int sp_agg_attach(sp_run *run, sp_agg *agg)
{
    /* The derived arrays a producer may have left go first. */
    if (run->regions)
        for (size_t g = 0; g < run->nregions; g++)
            free(run->regions[g].per_rank);
    free(run->regions);
    run->regions = NULL;
    size_t nr = run->nranks;
    run->regions = calloc(run->nregions ? run->nregions : 1, sizeof *run->regions);
    int rc = run->regions ? 0 : SP_ENOMEM;
    for (size_t g = 0; rc == 0 && g < run->nregions; g++) {
        sp_run_region *reg = &run->regions[g];
        reg->id = (int32_t)g;
        reg->name = run->region_names[g];
        if (!(reg->per_rank = calloc(nr ? nr : 1, sizeof *reg->per_rank)))
            rc = SP_ENOMEM;
        for (size_t r = 0; rc == 0 && r < nr; r++)
            if (run->ranks[r].dropped)
                reg->dropped += run->ranks[r].dropped[g];
    }
    if (rc == 0)
        rc = fill_regions(run, agg);
    if (rc == 0)
        rc = build_tree(run, agg);
    if (rc) {
        if (run->regions)
            for (size_t g = 0; g < run->nregions; g++)
                free(run->regions[g].per_rank);
        free(run->regions);
        run->regions = NULL;
        return sp__error(SP_ENOMEM, "out of memory summarising the run");
    }
    if (run->agg && run->agg != agg)
        sp_agg_free(run->agg);
    run->agg = agg;
    run->agg_free = sp_agg_free;
    run->analyzed = 1;
    return 0;
}
