/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_store.c - where the aggregate pass keeps one rank: region slots,
 * per-thread cells, the rank's call tree and per-path histograms, grown in
 * place as the pass meets them (see sp_agg_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sp_agg_internal.h"
#include "sp_error.h"
#include "sp_lod.h"

/* Grow *arr (elements of size elem) to hold need entries. */
static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / elem)
        return SP_ENOMEM;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return SP_ENOMEM;
    *arr = p;
    *cap = c;
    return 0;
}

int sp__agg_rank_init(sp__rank_state *rs)
{
    memset(rs, 0, sizeof *rs);
    if (grow((void **)&rs->out.nodes, &rs->cap_nodes, 1, sizeof *rs->out.nodes))
        return SP_ENOMEM;
    rs->out.nodes[0] = (sp_agg_node){-1, -1};
    rs->out.nnodes = 1;
    return 0;
}

int32_t sp__agg_region_slot(sp__rank_state *rs, sp__worker *w, int32_t g)
{
    int32_t s = w->slot[g];
    if (s >= 0)
        return s;
    sp_agg_rank *o = &rs->out;
    if (o->nregions >= INT32_MAX ||
        grow((void **)&o->regions, &rs->cap_regions, o->nregions + 1, sizeof *o->regions))
        return -1;
    sp_agg_region *r = &o->regions[o->nregions];
    memset(r, 0, sizeof *r);
    r->region = g;
    sp_hist_init(&r->hist);
    sp_hist_init(&r->own_hist);
    w->slot[g] = s = (int32_t)o->nregions++;
    return s;
}

int32_t sp__agg_cell(sp_agg_cell **cells, size_t *n, size_t *cap, sp_u64map *map, int32_t key,
                     int32_t thread)
{
    uint64_t k = sp_u64map_key(key, thread);
    int32_t c = sp_u64map_get(map, k);
    if (c >= 0)
        return c;
    if (*n >= INT32_MAX || grow((void **)cells, cap, *n + 1, sizeof **cells) ||
        sp_u64map_put(map, k, (int32_t)*n))
        return -1;
    (*cells)[*n] = (sp_agg_cell){.key = key, .thread = thread};
    return (int32_t)(*n)++;
}

int32_t sp__agg_child(sp__rank_state *rs, int32_t parent, int32_t region)
{
    uint64_t k = sp_u64map_key(parent, region);
    int32_t c = sp_u64map_get(&rs->child_map, k);
    if (c >= 0)
        return c;
    sp_agg_rank *o = &rs->out;
    if (o->nnodes >= INT32_MAX ||
        grow((void **)&o->nodes, &rs->cap_nodes, o->nnodes + 1, sizeof *o->nodes) ||
        sp_u64map_put(&rs->child_map, k, (int32_t)o->nnodes))
        return -1;
    o->nodes[o->nnodes] = (sp_agg_node){region, parent};
    return (int32_t)o->nnodes++;
}

sp_agg_node_hist *sp__agg_node_hist(sp__rank_state *rs, int32_t node)
{
    sp_agg_rank *o = &rs->out;
    if ((size_t)node >= rs->cap_node_hist_slot) {
        size_t old = rs->cap_node_hist_slot;
        if (grow((void **)&rs->node_hist_slot, &rs->cap_node_hist_slot, (size_t)node + 1,
                 sizeof *rs->node_hist_slot))
            return NULL;
        for (size_t i = old; i < rs->cap_node_hist_slot; i++)
            rs->node_hist_slot[i] = -1;
    }
    int32_t s = rs->node_hist_slot[node];
    if (s < 0) {
        if (grow((void **)&o->node_hists, &rs->cap_nhists, o->nnode_hists + 1,
                 sizeof *o->node_hists))
            return NULL;
        sp_agg_node_hist *h = &o->node_hists[o->nnode_hists];
        memset(h, 0, sizeof *h);
        h->node = node;
        sp_hist_init(&h->hist);
        sp_hist_init(&h->own_hist);
        rs->node_hist_slot[node] = s = (int32_t)o->nnode_hists++;
    }
    return &o->node_hists[s];
}

int sp__agg_worker_load(sp__worker *w, const sp__rank_state *rs, size_t nregions)
{
    if (nregions > w->nregions) {
        int32_t *s = realloc(w->slot, (nregions ? nregions : 1) * sizeof *s);
        if (!s)
            return SP_ENOMEM;
        w->slot = s;
        uint32_t *o = realloc(w->open_cnt, (nregions ? nregions : 1) * sizeof *o);
        if (!o)
            return SP_ENOMEM;
        w->open_cnt = o;
        w->nregions = nregions;
    }
    for (size_t i = 0; i < w->nregions; i++) {
        w->slot[i] = -1;
        w->open_cnt[i] = 0;
    }
    for (size_t i = 0; i < rs->out.nregions; i++)
        w->slot[rs->out.regions[i].region] = (int32_t)i;
    w->cur_thread = -1;
    return 0;
}

void sp__agg_worker_free(sp__worker *w)
{
    free(w->slot);
    free(w->open_cnt);
    memset(w, 0, sizeof *w);
}

void sp__agg_lane_free(sp_agg_lane *l)
{
    free(l->spans);
    sp_lod_free(l->lod);
    memset(l, 0, sizeof *l);
}

void sp__agg_rank_free_state(sp__rank_state *rs)
{
    for (size_t t = 0; rs->lanes && t < rs->nthreads; t++)
        sp__agg_lane_free(&rs->lanes[t]);
    free(rs->lanes);
    free(rs->cap_spans);
    rs->lanes = NULL;
    rs->cap_spans = NULL;
    sp_u64map_free(&rs->rcell_map);
    sp_u64map_free(&rs->ncell_map);
    sp_u64map_free(&rs->child_map);
    free(rs->node_hist_slot);
    rs->node_hist_slot = NULL;
    sp_sched_index_free(&rs->sched);
    rs->segs_ready = false;
    rs->cap_node_hist_slot = 0;
    for (size_t t = 0; t < rs->nthreads; t++)
        free(rs->threads[t].stack);
    free(rs->threads);
    rs->threads = NULL;
    rs->nthreads = 0;
}

void sp__agg_rank_out_free(sp_agg_rank *o)
{
    for (size_t i = 0; i < o->nregions; i++) {
        sp_hist_free(&o->regions[i].hist);
        sp_hist_free(&o->regions[i].own_hist);
    }
    for (size_t i = 0; i < o->nnode_hists; i++) {
        sp_hist_free(&o->node_hists[i].hist);
        sp_hist_free(&o->node_hists[i].own_hist);
    }
    for (size_t i = 0; i < o->nlanes; i++)
        sp__agg_lane_free(&o->lanes[i]);
    free(o->lanes);
    free(o->regions);
    free(o->region_cells);
    free(o->nodes);
    free(o->global_node);
    free(o->node_cells);
    free(o->node_hists);
    memset(o, 0, sizeof *o);
}

static void *dup_mem(const void *p, size_t n, size_t elem)
{
    void *d = malloc(n ? n * elem : 1);
    if (d && n)
        memcpy(d, p, n * elem);
    return d;
}

int sp__agg_rank_out_copy(sp_agg_rank *dst, const sp_agg_rank *src)
{
    *dst = *src;
    dst->regions = dup_mem(src->regions, src->nregions, sizeof *src->regions);
    dst->region_cells = dup_mem(src->region_cells, src->nregion_cells, sizeof *src->region_cells);
    dst->nodes = dup_mem(src->nodes, src->nnodes, sizeof *src->nodes);
    dst->global_node = NULL;
    dst->node_cells = dup_mem(src->node_cells, src->nnode_cells, sizeof *src->node_cells);
    dst->node_hists = dup_mem(src->node_hists, src->nnode_hists, sizeof *src->node_hists);
    dst->lanes = NULL; /* lanes stay with the pass (windows read them there) */
    dst->nlanes = 0;
    int rc = (!dst->regions || !dst->region_cells || !dst->nodes || !dst->node_cells ||
              !dst->node_hists) ? SP_ENOMEM : 0;
    /* The histograms: pointers copied above must not be shared. */
    size_t done_r = 0, done_n = 0;
    for (; rc == 0 && done_r < src->nregions; done_r++) {
        sp_agg_region *r = &dst->regions[done_r];
        if (sp_hist_copy(&r->hist, &src->regions[done_r].hist) ||
            sp_hist_copy(&r->own_hist, &src->regions[done_r].own_hist)) {
            sp_hist_free(&r->hist);
            rc = SP_ENOMEM;
            break;
        }
    }
    for (; rc == 0 && done_n < src->nnode_hists; done_n++) {
        sp_agg_node_hist *h = &dst->node_hists[done_n];
        if (sp_hist_copy(&h->hist, &src->node_hists[done_n].hist) ||
            sp_hist_copy(&h->own_hist, &src->node_hists[done_n].own_hist)) {
            sp_hist_free(&h->hist);
            rc = SP_ENOMEM;
            break;
        }
    }
    if (rc) {
        /* Free what was copied, never the source's histograms. */
        if (dst->regions)
            dst->nregions = done_r;
        else
            dst->nregions = 0;
        if (dst->node_hists)
            dst->nnode_hists = done_n;
        else
            dst->nnode_hists = 0;
        sp__agg_rank_out_free(dst);
    }
    return rc;
}

static int map_copy(sp_u64map *dst, const sp_u64map *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->cap)
        return 0;
    dst->keys = malloc(src->cap * sizeof *dst->keys);
    dst->vals = malloc(src->cap * sizeof *dst->vals);
    if (!dst->keys || !dst->vals) {
        sp_u64map_free(dst);
        return SP_ENOMEM;
    }
    memcpy(dst->keys, src->keys, src->cap * sizeof *dst->keys);
    memcpy(dst->vals, src->vals, src->cap * sizeof *dst->vals);
    dst->cap = src->cap;
    dst->n = src->n;
    return 0;
}

int sp__agg_rank_clone(sp__rank_state *dst, const sp__rank_state *src)
{
    memset(dst, 0, sizeof *dst);
    int rc = sp__agg_rank_out_copy(&dst->out, &src->out);
    if (rc)
        return rc;
    dst->cap_regions = dst->out.nregions;
    dst->cap_rcells = dst->out.nregion_cells;
    dst->cap_nodes = dst->out.nnodes;
    dst->cap_ncells = dst->out.nnode_cells;
    dst->cap_nhists = dst->out.nnode_hists;
    dst->next_block = src->next_block;
    dst->stopped = src->stopped;
    if (map_copy(&dst->rcell_map, &src->rcell_map) || map_copy(&dst->ncell_map, &src->ncell_map) ||
        map_copy(&dst->child_map, &src->child_map))
        goto oom;
    if (src->cap_node_hist_slot) {
        dst->node_hist_slot = dup_mem(src->node_hist_slot, src->cap_node_hist_slot,
                                      sizeof *src->node_hist_slot);
        if (!dst->node_hist_slot)
            goto oom;
        dst->cap_node_hist_slot = src->cap_node_hist_slot;
    }
    size_t n = src->nthreads;
    dst->threads = calloc(n ? n : 1, sizeof *dst->threads);
    dst->lanes = calloc(n ? n : 1, sizeof *dst->lanes);
    dst->cap_spans = calloc(n ? n : 1, sizeof *dst->cap_spans);
    if (!dst->threads || !dst->lanes || !dst->cap_spans)
        goto oom;
    dst->nthreads = n;
    for (size_t t = 0; t < n; t++) {
        const sp__thread *a = &src->threads[t];
        sp__thread *b = &dst->threads[t];
        *b = *a;
        b->stack = NULL;
        b->cap = 0;
        if (a->depth) {
            if (!(b->stack = dup_mem(a->stack, a->depth, sizeof *a->stack)))
                goto oom;
            b->cap = a->depth;
        }
        if (src->lanes) {
            const sp_agg_lane *la = &src->lanes[t];
            sp_agg_lane *lb = &dst->lanes[t];
            *lb = *la;
            lb->lod = NULL; /* the index is not copied: a snapshot serves windows */
            lb->spans = NULL;
            if (la->nspans && !(lb->spans = dup_mem(la->spans, la->nspans, sizeof *la->spans)))
                goto oom;
            dst->cap_spans[t] = la->nspans;
        }
    }
    return 0;
oom:
    sp__agg_rank_free_state(dst);
    sp__agg_rank_out_free(&dst->out);
    return SP_ENOMEM;
}
