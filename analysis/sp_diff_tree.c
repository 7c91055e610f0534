/* SPDX-License-Identifier: MIT */
/*
 * sp_diff_tree.c - diff of the merged call trees, matched by call path.
 *
 * Breadth-first over pairs of matched nodes (no recursion, so deep trees
 * cannot overflow the stack): the children of a pair are the base node's
 * children, each paired with the candidate's child of the same region name
 * (found by binary search in the candidate's children sorted by name), then
 * the candidate's unmatched children. Entries are then put into depth-first
 * order with siblings sorted by the options' key.
 */
#define _GNU_SOURCE /* qsort_r (analysis/CMakeLists.txt does not define it) */
#include "sp_diff.h"
#include "sp_diff_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

typedef struct tree_work {
    sp_diff_entry *e; /* entries in breadth-first order; e[0] = the root pair */
    size_t n, cap;
    int32_t *cand_kids; /* scratch: candidate children of the current pair */
    size_t nkids_cap;
    bool *cand_used; /* scratch, per candidate node */
} tree_work;

static const char *node_name(const sp_run *run, int32_t node)
{
    return run->region_names[run->tree.nodes[node].region];
}

static double node_value(const sp_run *run, int32_t node, sp_diff_metric m)
{
    if (node < 0)
        return 0.0;
    const sp_tree_node *t = &run->tree.nodes[node];
    switch (m) {
    case SP_METRIC_TOTAL:
        return t->incl_s;
    case SP_METRIC_OWN:
        return t->own_s;
    case SP_METRIC_CALLS:
        return (double)t->calls;
    default:
        return t->calls ? t->incl_s / (double)t->calls : 0.0;
    }
}

static int push(tree_work *w, const sp_run *base, const sp_run *cand, int32_t bn, int32_t cn,
                int32_t parent, sp_diff_metric m)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        sp_diff_entry *e = realloc(w->e, cap * sizeof *e);
        if (!e)
            return sp__error(SP_ENOMEM, "out of memory comparing call trees");
        w->e = e;
        w->cap = cap;
    }
    sp_diff_entry *e = &w->e[w->n++];
    memset(e, 0, sizeof *e);
    e->base_id = bn;
    e->cand_id = cn;
    e->parent = parent;
    e->depth = parent < 0 ? 0 : w->e[parent].depth + 1;
    e->name = parent < 0 ? "" : bn >= 0 ? node_name(base, bn) : node_name(cand, cn);
    e->presence = bn < 0 ? SP_DIFF_ONLY_CAND : cn < 0 ? SP_DIFF_ONLY_BASE : SP_DIFF_IN_BOTH;
    e->base_calls = bn >= 0 ? base->tree.nodes[bn].calls : 0;
    e->cand_calls = cn >= 0 ? cand->tree.nodes[cn].calls : 0;
    e->base = node_value(base, bn, m);
    e->cand = node_value(cand, cn, m);
    return 0;
}

static int cmp_kid(const void *a, const void *b, void *arg)
{
    const sp_run *run = arg;
    return strcmp(node_name(run, *(const int32_t *)a), node_name(run, *(const int32_t *)b));
}

static int32_t find_kid(const tree_work *w, size_t nk, const sp_run *cand, const char *name)
{
    size_t lo = 0, hi = nk;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(node_name(cand, w->cand_kids[mid]), name);
        if (c == 0)
            return (int32_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Push the children of pair p (base node bn, candidate node cn). */
static int expand(tree_work *w, const sp_run *base, const sp_run *cand, size_t p, sp_diff_metric m)
{
    int32_t bn = w->e[p].base_id, cn = w->e[p].cand_id;
    size_t nk = 0;
    if (cn >= 0) {
        for (int32_t k = cand->tree.nodes[cn].first_child; k >= 0;
             k = cand->tree.nodes[k].next_sibling) {
            if (nk == w->nkids_cap) {
                size_t cap = w->nkids_cap ? 2 * w->nkids_cap : 64;
                int32_t *kids = realloc(w->cand_kids, cap * sizeof *kids);
                if (!kids)
                    return sp__error(SP_ENOMEM, "out of memory comparing call trees");
                w->cand_kids = kids;
                w->nkids_cap = cap;
            }
            w->cand_kids[nk++] = k;
        }
        if (nk > 1)
            qsort_r(w->cand_kids, nk, sizeof *w->cand_kids, cmp_kid, (void *)cand);
    }
    if (bn >= 0) {
        for (int32_t k = base->tree.nodes[bn].first_child; k >= 0;
             k = base->tree.nodes[k].next_sibling) {
            int32_t at = nk ? find_kid(w, nk, cand, node_name(base, k)) : -1;
            int32_t match = at >= 0 ? w->cand_kids[at] : -1;
            if (match >= 0)
                w->cand_used[match] = true;
            if (push(w, base, cand, k, match, (int32_t)p, m))
                return SP_ENOMEM;
        }
    }
    for (size_t i = 0; i < nk; i++)
        if (!w->cand_used[w->cand_kids[i]] &&
            push(w, base, cand, -1, w->cand_kids[i], (int32_t)p, m))
            return SP_ENOMEM;
    return 0;
}

typedef struct sibling_ctx {
    const sp_diff_entry *e;
    sp_diff_sort key;
} sibling_ctx;

static int cmp_sibling(const void *a, const void *b, void *arg)
{
    const sibling_ctx *ctx = arg;
    sp_diff_sort key = ctx->key;
    return sp__diff_entry_cmp(&ctx->e[*(const size_t *)a], &ctx->e[*(const size_t *)b], &key);
}

/* Depth-first order of w->e[1..] (w->e[0] is the root pair, not emitted)
 * with siblings sorted by key, into d->entries. */
static int order_depth_first(tree_work *w, sp_diff *d, sp_diff_sort key)
{
    size_t n = w->n;
    size_t *first = calloc(n, sizeof *first), *count = calloc(n, sizeof *count);
    size_t *order = malloc(n * sizeof *order), *stack = malloc(n * sizeof *stack);
    int32_t *newidx = malloc(n * sizeof *newidx);
    d->entries = malloc(n * sizeof *d->entries);
    if (!first || !count || !order || !stack || !newidx || !d->entries) {
        free(first), free(count), free(order), free(stack), free(newidx);
        return sp__error(SP_ENOMEM, "out of memory comparing call trees");
    }
    /* Breadth-first order keeps each entry's children contiguous. */
    for (size_t i = n; i-- > 1;) {
        size_t p = (size_t)w->e[i].parent;
        first[p] = i;
        count[p]++;
    }
    sibling_ctx ctx = {w->e, key};
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t p = 0; p < n; p++)
        if (count[p] > 1)
            qsort_r(order + first[p], count[p], sizeof *order, cmp_sibling, &ctx);
    size_t top = 0;
    for (size_t k = count[0]; k-- > 0;)
        stack[top++] = order[first[0] + k];
    while (top) {
        size_t i = stack[--top];
        sp_diff_entry *e = &d->entries[d->n];
        *e = w->e[i];
        size_t parent = (size_t)w->e[i].parent;
        e->parent = parent == 0 ? -1 : newidx[parent];
        e->depth = e->parent < 0 ? 1 : d->entries[e->parent].depth + 1;
        newidx[i] = (int32_t)d->n++;
        for (size_t k = count[i]; k-- > 0;)
            stack[top++] = order[first[i] + k];
    }
    free(first), free(count), free(order), free(stack), free(newidx);
    return 0;
}

sp_diff *sp_diff_tree(const sp_run *base, const sp_run *cand, const sp_diff_options *opts)
{
    sp_diff_options defaults;
    sp_diff_options_init(&defaults);
    const sp_diff_options *o = opts ? opts : &defaults;
    if (sp__diff_check_args(base, cand, o))
        return NULL;
    sp_diff *d = calloc(1, sizeof *d);
    tree_work w = {0};
    w.cand_used = calloc(cand->tree.nnodes + 1, sizeof *w.cand_used);
    sp__diff_samples sb = {0}, sc = {0};
    int rc = (!d || !w.cand_used) ? sp__error(SP_ENOMEM, "out of memory comparing call trees") : 0;
    if (!rc) {
        d->metric = o->metric;
        d->alpha = o->alpha;
        rc = push(&w, base, cand, base->tree.nnodes ? 0 : -1, cand->tree.nnodes ? 0 : -1, -1,
                  o->metric);
    }
    for (size_t p = 0; !rc && p < w.n; p++)
        rc = expand(&w, base, cand, p, o->metric);
    bool test = o->noise && sp_diff_metric_is_time(o->metric);
    if (!rc && test) {
        bool own = o->metric == SP_METRIC_OWN;
        rc = sp__diff_samples_collect(base, true, own, &sb);
        if (!rc)
            rc = sp__diff_samples_collect(cand, true, own, &sc);
    }
    for (size_t i = 1; !rc && i < w.n; i++)
        rc = sp__diff_entry_finish(&w.e[i], o, test ? &sb : NULL, test ? &sc : NULL);
    if (!rc)
        rc = order_depth_first(&w, d, o->sort);
    sp__diff_samples_free(&sb);
    sp__diff_samples_free(&sc);
    free(w.e);
    free(w.cand_kids);
    free(w.cand_used);
    if (rc) {
        sp_diff_free(d);
        return NULL;
    }
    return d;
}
