/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_filter.c - aggregates as if some regions had never been recorded
 * (sp_agg_keep_regions, the --include / --exclude of export, plot and
 * report).
 *
 * Per rank, the call tree loses the nodes of the regions left out: a kept
 * node moves under its nearest kept ancestor, and paths that become equal
 * merge (main;solve;kernel and main;setup;kernel both become main;kernel
 * without solve and setup). A path's calls and inclusive time add up over
 * the nodes merged into it; its own time is its inclusive time minus its new
 * children's, so the time of a region left out goes to its nearest kept
 * caller, exactly as a run recorded without that region would show it. A
 * kept region's calls, total and per-call durations do not depend on other
 * regions and stay as measured; its own time is summed from its new paths.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_agg_internal.h"
#include "sp_error.h"

static int cmp_cell(const void *a, const void *b)
{
    const sp_agg_cell *x = a, *y = b;
    if (x->thread != y->thread)
        return (x->thread > y->thread) - (x->thread < y->thread);
    return (x->key > y->key) - (x->key < y->key);
}

typedef struct new_tree {
    sp_agg_node *nodes;
    size_t n, cap;
    sp_u64map child; /* (parent, region) -> node */
} new_tree;

static int32_t tree_child(new_tree *t, int32_t parent, int32_t region)
{
    uint64_t key = sp_u64map_key(parent, region);
    int32_t v = sp_u64map_get(&t->child, key);
    if (v >= 0)
        return v;
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 64;
        sp_agg_node *p = realloc(t->nodes, c * sizeof *p);
        if (!p)
            return -1;
        t->nodes = p;
        t->cap = c;
    }
    int32_t id = (int32_t)t->n++;
    t->nodes[id] = (sp_agg_node){region, parent};
    if (parent >= 0 && sp_u64map_put(&t->child, key, id))
        return -1;
    return id;
}

/* Cells (key, thread) summed into a new array keyed by map[key] (entries
 * with map[key] < 0 dropped); own left 0. */
static int rekey_cells(const sp_agg_cell *in, size_t n, const int32_t *map, sp_agg_cell **out,
                       size_t *nout)
{
    sp_u64map m;
    memset(&m, 0, sizeof m);
    sp_agg_cell *c = malloc((n ? n : 1) * sizeof *c);
    int rc = c && sp_u64map_init(&m, 64) == 0 ? 0 : SP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int32_t key = map[in[i].key];
        if (key < 0)
            continue;
        uint64_t mk = sp_u64map_key(key, in[i].thread);
        int32_t at = sp_u64map_get(&m, mk);
        if (at < 0) {
            at = (int32_t)k++;
            c[at] = (sp_agg_cell){.key = key, .thread = in[i].thread};
            if (sp_u64map_put(&m, mk, at)) {
                rc = SP_ENOMEM;
                break;
            }
        }
        c[at].calls += in[i].calls;
        c[at].incl_ns = sp__sat_add(c[at].incl_ns, in[i].incl_ns);
    }
    sp_u64map_free(&m);
    if (rc) {
        free(c);
        return rc;
    }
    *out = c;
    *nout = k;
    return 0;
}

/* One rank's aggregates without the regions left out. */
static int filter_rank(sp_agg_rank *o, const bool *keep, size_t nkeep)
{
    new_tree t;
    memset(&t, 0, sizeof t);
    int32_t *map = malloc((o->nnodes ? o->nnodes : 1) * sizeof *map); /* old -> new */
    int32_t *kept = malloc((o->nnodes ? o->nnodes : 1) * sizeof *kept); /* old -> new, or -1 */
    sp_agg_cell *ncells = NULL;
    size_t nn = 0;
    int rc = map && kept && sp_u64map_init(&t.child, 64) == 0 ? 0 : SP_ENOMEM;
    if (rc == 0 && o->nnodes && tree_child(&t, -1, -1) != 0)
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < o->nnodes; i++) {
        if (i == 0) {
            map[0] = kept[0] = 0;
            continue;
        }
        int32_t g = o->nodes[i].region, p = map[o->nodes[i].parent];
        bool in = g >= 0 && (size_t)g < nkeep && keep[g];
        map[i] = in ? tree_child(&t, p, g) : p;
        kept[i] = in ? map[i] : -1;
        if (map[i] < 0)
            rc = SP_ENOMEM;
    }
    if (rc == 0)
        rc = rekey_cells(o->node_cells, o->nnode_cells, kept, &ncells, &nn);
    /* Own time: inclusive minus the new children's, per thread. */
    sp_u64map cm;
    memset(&cm, 0, sizeof cm);
    int64_t *child_ns = NULL;
    if (rc == 0 && (sp_u64map_init(&cm, 64) || !(child_ns = calloc(nn ? nn : 1, sizeof *child_ns))))
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nn; i++)
        if (sp_u64map_put(&cm, sp_u64map_key(ncells[i].key, ncells[i].thread), (int32_t)i))
            rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nn; i++) {
        int32_t p = t.nodes[ncells[i].key].parent;
        int32_t pc = p > 0 ? sp_u64map_get(&cm, sp_u64map_key(p, ncells[i].thread)) : -1;
        if (pc >= 0)
            child_ns[pc] = sp__sat_add(child_ns[pc], ncells[i].incl_ns);
    }
    for (size_t i = 0; rc == 0 && i < nn; i++) {
        int64_t own = ncells[i].incl_ns - child_ns[i];
        ncells[i].own_ns = own > 0 ? own : 0;
    }
    /* Regions: the kept ones, own time from their paths. */
    for (size_t i = 0; rc == 0 && i < o->nregion_cells; i++)
        o->region_cells[i].own_ns = 0;
    sp_u64map rm;
    memset(&rm, 0, sizeof rm);
    if (rc == 0 && sp_u64map_init(&rm, 64))
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < o->nregion_cells; i++)
        if (sp_u64map_put(&rm, sp_u64map_key(o->region_cells[i].key, o->region_cells[i].thread),
                          (int32_t)i))
            rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nn; i++) {
        int32_t g = t.nodes[ncells[i].key].region;
        int32_t rcell = sp_u64map_get(&rm, sp_u64map_key(g, ncells[i].thread));
        if (rcell >= 0)
            o->region_cells[rcell].own_ns =
                sp__sat_add(o->region_cells[rcell].own_ns, ncells[i].own_ns);
    }
    sp_u64map_free(&rm);
    sp_u64map_free(&cm);
    free(child_ns);
    if (rc == 0) {
        size_t k = 0;
        for (size_t i = 0; i < o->nregion_cells; i++) {
            int32_t g = o->region_cells[i].key;
            if (g >= 0 && (size_t)g < nkeep && keep[g])
                o->region_cells[k++] = o->region_cells[i];
        }
        o->nregion_cells = k;
        k = 0;
        o->calls = 0;
        for (size_t i = 0; i < o->nregions; i++) {
            sp_agg_region *r = &o->regions[i];
            if (r->region < 0 || (size_t)r->region >= nkeep || !keep[r->region]) {
                sp_hist_free(&r->hist);
                sp_hist_free(&r->own_hist);
                continue;
            }
            r->own_ns = 0;
            for (size_t c = 0; c < o->nregion_cells; c++)
                if (o->region_cells[c].key == r->region)
                    r->own_ns = sp__sat_add(r->own_ns, o->region_cells[c].own_ns);
            o->calls += r->calls;
            o->regions[k++] = *r;
        }
        o->nregions = k;
    }
    /* Per-path histograms follow their paths (durations merge exactly). */
    int32_t *hist_at = rc == 0 && o->nnode_hists ? malloc((t.n ? t.n : 1) * sizeof *hist_at) : NULL;
    if (rc == 0 && o->nnode_hists && !hist_at)
        rc = SP_ENOMEM;
    for (size_t i = 0; hist_at && i < t.n; i++)
        hist_at[i] = -1;
    if (rc == 0 && o->nnode_hists) {
        size_t k = 0;
        for (size_t i = 0; i < o->nnode_hists; i++) {
            sp_agg_node_hist *h = &o->node_hists[i];
            int32_t node = kept[h->node];
            if (node >= 0 && hist_at[node] < 0) {
                hist_at[node] = (int32_t)k;
                h->node = node;
                o->node_hists[k++] = *h;
                continue;
            }
            if (node >= 0) {
                sp_agg_node_hist *same = &o->node_hists[hist_at[node]];
                if (sp_hist_merge(&same->hist, &h->hist) ||
                    sp_hist_merge(&same->own_hist, &h->own_hist))
                    rc = SP_ENOMEM;
                sp__agg_segs_merge(&same->segs, &h->segs);
            }
            sp_hist_free(&h->hist);
            sp_hist_free(&h->own_hist);
        }
        o->nnode_hists = k;
    }
    free(hist_at);
    if (rc == 0) {
        if (nn) /* qsort on NULL is undefined, even of 0 elements */
            qsort(ncells, nn, sizeof *ncells, cmp_cell);
        if (o->nregion_cells)
            qsort(o->region_cells, o->nregion_cells, sizeof *o->region_cells, cmp_cell);
        free(o->node_cells);
        o->node_cells = ncells;
        o->nnode_cells = nn;
        ncells = NULL;
        free(o->nodes);
        o->nodes = t.nodes;
        o->nnodes = t.n;
        t.nodes = NULL;
        free(o->global_node); /* the merge into the run's tree makes it again */
        o->global_node = NULL;
    }
    free(ncells);
    free(t.nodes);
    sp_u64map_free(&t.child);
    free(map);
    free(kept);
    return rc;
}

int sp_agg_keep_regions(sp_agg *a, const bool *keep, size_t nkeep)
{
    for (size_t r = 0; r < a->nranks; r++) {
        if (!a->ranks[r].read)
            continue;
        int rc = filter_rank(&a->ranks[r], keep, nkeep);
        if (rc)
            return sp__error(rc, "out of memory selecting regions");
    }
    for (size_t g = 0; a->series && g < a->nregions; g++) {
        if (g < nkeep && keep[g])
            continue;
        free(a->series[g].bins);
        a->series[g].bins = NULL;
    }
    return 0;
}
