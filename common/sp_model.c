/* SPDX-License-Identifier: MIT */
/* sp_model.c - building, ordering and freeing the in-memory run model. */
#include "sp_model.h"
#include "sp_mpi_data.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_region_index.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- key/value lists ---- */

int sp_kvlist_set(sp_kvlist *l, const char *key, const char *value)
{
    if (!key || !value)
        return sp__error(SP_EINVAL, "metadata key and value must not be NULL");
    char *v = dup_str(value);
    if (!v)
        return sp__error(SP_ENOMEM, "out of memory storing metadata '%s'", key);
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->items[i].key, key) == 0) {
            free(l->items[i].value);
            l->items[i].value = v;
            return 0;
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        sp_kv *items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            free(v);
            return sp__error(SP_ENOMEM, "out of memory storing metadata '%s'", key);
        }
        l->items = items;
        l->cap = cap;
    }
    char *k = dup_str(key);
    if (!k) {
        free(v);
        return sp__error(SP_ENOMEM, "out of memory storing metadata '%s'", key);
    }
    l->items[l->n].key = k;
    l->items[l->n].value = v;
    l->n++;
    return 0;
}

const char *sp_kvlist_get(const sp_kvlist *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i].key, key) == 0)
            return l->items[i].value;
    return NULL;
}

int sp_kvlist_copy(sp_kvlist *dst, const sp_kvlist *src)
{
    /* The keys are unique already: copied in order, not through
     * sp_kvlist_set (a lookup per key: quadratic, 11 s for every copy of a
     * crafted run's 30,000 metadata keys). */
    memset(dst, 0, sizeof *dst);
    if (!src->n)
        return 0;
    if (!(dst->items = calloc(src->n, sizeof *dst->items)))
        return sp__error(SP_ENOMEM, "out of memory copying metadata");
    dst->cap = src->n;
    for (size_t i = 0; i < src->n; i++) {
        sp_kv *kv = &dst->items[i];
        kv->key = dup_str(src->items[i].key);
        kv->value = kv->key ? dup_str(src->items[i].value) : NULL;
        dst->n = i + 1; /* freed with the list even when half made */
        if (!kv->value) {
            sp_kvlist_free(dst);
            return sp__error(SP_ENOMEM, "out of memory copying metadata");
        }
    }
    return 0;
}

void sp_kvlist_free(sp_kvlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].key);
        free(l->items[i].value);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* ---- runs ---- */

sp_run *sp_run_new(void)
{
    sp_run *run = calloc(1, sizeof *run);
    if (!run)
        return sp__error_null(SP_ENOMEM, "out of memory creating a run");
    return run;
}

/* ---- region names by hash ---- */

/* The run's index and what it covers: names[0..covered) of the array
 * `names` (so an array replaced, or grown by someone else, is noticed),
 * and how many entries that array has room for (interning doubles it). */
struct sp_run_names {
    sp_region_index *ix;
    char **names;
    size_t covered, names_cap;
};

void sp_run_regions_changed(sp_run *run)
{
    if (run->region_index) {
        sp_region_index_free(run->region_index->ix);
        free(run->region_index);
        run->region_index = NULL;
    }
}

int sp_run_index_regions(sp_run *run, int32_t *dup)
{
    sp_run_regions_changed(run);
    struct sp_run_names *rn = calloc(1, sizeof *rn);
    if (!rn || !(rn->ix = sp_region_index_new(run->region_names, run->nregions, dup))) {
        free(rn);
        return sp__error(SP_ENOMEM, "out of memory indexing %zu region names", run->nregions);
    }
    rn->names = run->region_names;
    rn->covered = rn->names_cap = run->nregions;
    run->region_index = rn;
    return 0;
}

/* The run's index, brought up to date with region_names; NULL on ENOMEM. */
static struct sp_run_names *fresh_index(sp_run *run)
{
    struct sp_run_names *rn = run->region_index;
    if (rn && (rn->names != run->region_names || rn->covered > run->nregions))
        sp_run_regions_changed(run), rn = NULL;
    if (!rn)
        return sp_run_index_regions(run, NULL) == 0 ? run->region_index : NULL;
    for (; rn->covered < run->nregions; rn->covered++) { /* appended by someone else */
        if (sp_region_index_put(rn->ix, run->region_names, (int32_t)rn->covered) == SP_ENOMEM) {
            sp_run_regions_changed(run);
            return NULL;
        }
    }
    if (rn->names_cap < rn->covered)
        rn->names_cap = rn->covered;
    return rn;
}

int32_t sp_run_region_id(const sp_run *run, const char *name)
{
    /* The index is a cache: building it does not change what the run
     * holds, so a const run may get one (it was never defined const). */
    struct sp_run_names *rn = fresh_index((sp_run *)run);
    if (rn)
        return sp_region_index_find(rn->ix, run->region_names, name);
    for (size_t i = 0; i < run->nregions; i++) /* no memory for an index */
        if (strcmp(run->region_names[i], name) == 0)
            return (int32_t)i;
    return -1;
}

/* Grow the names array to room for at least `want` names (at least
 * doubling, so that reserving rank after rank stays linear). */
static int names_room(sp_run *run, struct sp_run_names *rn, size_t want)
{
    if (want <= rn->names_cap)
        return 0;
    size_t cap = 2 * rn->names_cap > want ? 2 * rn->names_cap : want;
    char **names = realloc(run->region_names, cap * sizeof *names);
    if (!names)
        return SP_ENOMEM;
    run->region_names = rn->names = names;
    rn->names_cap = cap;
    return 0;
}

int sp_run_reserve_regions(sp_run *run, size_t more)
{
    struct sp_run_names *rn = fresh_index(run);
    if (more > INT32_MAX - run->nregions)
        more = INT32_MAX - run->nregions; /* interning fails at the cap anyway */
    if (!rn || names_room(run, rn, run->nregions + more) ||
        sp_region_index_reserve(rn->ix, run->nregions + more))
        return sp__error(SP_ENOMEM, "out of memory for %zu more regions", more);
    return 0;
}

int32_t sp_run_intern_region(sp_run *run, const char *name)
{
    struct sp_run_names *rn = fresh_index(run);
    if (!rn)
        return -1;
    int32_t id = sp_region_index_find(rn->ix, run->region_names, name);
    if (id >= 0)
        return id;
    if (run->nregions >= INT32_MAX)
        return sp__error(SP_ENOMEM, "too many regions adding '%s'", name), -1;
    if (run->nregions == rn->names_cap &&
        names_room(run, rn, rn->names_cap < 16 ? 16 : rn->names_cap + 1))
        return sp__error(SP_ENOMEM, "out of memory adding region '%s'", name), -1;
    char *copy = dup_str(name);
    if (!copy)
        return sp__error(SP_ENOMEM, "out of memory adding region '%s'", name), -1;
    id = (int32_t)run->nregions;
    run->region_names[id] = copy;
    if (sp_region_index_put(rn->ix, run->region_names, id) == SP_ENOMEM) {
        free(copy);
        return -1;
    }
    run->nregions++;
    rn->covered++;
    return id;
}

int sp_run_rename_region(sp_run *run, int32_t id, const char *name)
{
    if (id < 0 || (size_t)id >= run->nregions)
        return sp__error(SP_EINVAL, "no region %d to rename", (int)id);
    struct sp_run_names *rn = fresh_index(run);
    if (!rn)
        return SP_ENOMEM;
    int32_t other = sp_region_index_find(rn->ix, run->region_names, name);
    if (other == id)
        return 0;
    if (other >= 0)
        return sp__error(SP_EINVAL, "cannot rename region %d: '%s' is region %d", (int)id,
                         name, (int)other);
    char *copy = dup_str(name);
    if (!copy)
        return sp__error(SP_ENOMEM, "out of memory renaming region '%s'", name);
    sp_region_index_remove(rn->ix, run->region_names, id);
    free(run->region_names[id]);
    run->region_names[id] = copy;
    if (sp_region_index_put(rn->ix, run->region_names, id) == SP_ENOMEM)
        sp_run_regions_changed(run); /* rebuilt by the next lookup */
    return 0;
}

int sp_run_set_ranks(sp_run *run, size_t nranks)
{
    sp_rank_data *ranks = calloc(nranks ? nranks : 1, sizeof *ranks);
    if (!ranks)
        return sp__error(SP_ENOMEM, "out of memory allocating %zu ranks", nranks);
    for (size_t i = 0; i < nranks; i++)
        ranks[i].rank = (int32_t)i;
    run->ranks = ranks;
    run->nranks = nranks;
    return 0;
}

int sp_rank_alloc_calls(sp_rank_data *rk, size_t n)
{
    size_t m = n ? n : 1;
    rk->start_ns = malloc(m * sizeof *rk->start_ns);
    rk->end_ns = malloc(m * sizeof *rk->end_ns);
    rk->region = malloc(m * sizeof *rk->region);
    rk->thread = malloc(m * sizeof *rk->thread);
    rk->parent = malloc(m * sizeof *rk->parent);
    if (!rk->start_ns || !rk->end_ns || !rk->region || !rk->thread || !rk->parent)
        return sp__error(SP_ENOMEM, "out of memory allocating %zu calls", n);
    for (size_t i = 0; i < n; i++)
        rk->parent[i] = -1;
    rk->ncalls = n;
    return 0;
}

void sp_rank_free_calls(sp_rank_data *rk)
{
    free(rk->start_ns);
    free(rk->end_ns);
    free(rk->region);
    free(rk->thread);
    free(rk->parent);
    rk->start_ns = rk->end_ns = NULL;
    rk->region = rk->thread = NULL;
    rk->parent = NULL;
    rk->ncalls = 0;
}

/* ---- ordering ---- */

static const sp_rank_data *sort_rank; /* qsort has no context argument in C11 */

static int call_order(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const sp_rank_data *rk = sort_rank;
    if (rk->thread[a] != rk->thread[b])
        return rk->thread[a] < rk->thread[b] ? -1 : 1;
    if (rk->start_ns[a] != rk->start_ns[b])
        return rk->start_ns[a] < rk->start_ns[b] ? -1 : 1;
    if (rk->end_ns[a] != rk->end_ns[b]) /* longer (enclosing) call first */
        return rk->end_ns[a] > rk->end_ns[b] ? -1 : 1;
    /* Same interval: a parent precedes its child. */
    if (rk->parent[b] == (int64_t)a)
        return -1;
    if (rk->parent[a] == (int64_t)b)
        return 1;
    return a < b ? -1 : (a > b);
}

#define PERMUTE(type, col)                                                     \
    do {                                                                       \
        type *tmp = malloc(n * sizeof *tmp);                                   \
        if (!tmp)                                                              \
            goto oom;                                                          \
        for (size_t i = 0; i < n; i++)                                         \
            tmp[i] = rk->col[order[i]];                                        \
        free(rk->col);                                                         \
        rk->col = tmp;                                                         \
    } while (0)

int sp_rank_sort_calls(sp_rank_data *rk)
{
    size_t n = rk->ncalls;
    if (n < 2)
        return 0;
    size_t *order = malloc(n * sizeof *order);
    int64_t *newpos = malloc(n * sizeof *newpos);
    if (!order || !newpos)
        goto oom;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_rank = rk;
    qsort(order, n, sizeof *order, call_order);
    sort_rank = NULL;
    for (size_t i = 0; i < n; i++)
        newpos[order[i]] = (int64_t)i;
    PERMUTE(int64_t, start_ns);
    PERMUTE(int64_t, end_ns);
    PERMUTE(int32_t, region);
    PERMUTE(int32_t, thread);
    PERMUTE(int64_t, parent);
    for (size_t i = 0; i < n; i++)
        if (rk->parent[i] >= 0)
            rk->parent[i] = newpos[rk->parent[i]];
    free(order);
    free(newpos);
    return 0;
oom:
    free(order);
    free(newpos);
    return sp__error(SP_ENOMEM, "out of memory sorting %zu calls", n);
}

void sp_rank_infer_parents(sp_rank_data *rk)
{
    /* A stack of open calls per thread; calls are in model order, so when a
     * call starts, every stacked call that ended before it is closed. Depth is
     * bounded by the data, so grow the stack as needed. */
    size_t cap = 64, top = 0;
    size_t *stack = malloc(cap * sizeof *stack);
    int32_t cur_thread = -1;
    for (size_t i = 0; i < rk->ncalls; i++) {
        if (rk->thread[i] != cur_thread) {
            cur_thread = rk->thread[i];
            top = 0;
        }
        /* Calls are sorted by start, so a stacked call contains call i
         * exactly when it does not end before i ends. */
        while (top > 0 && rk->end_ns[stack[top - 1]] < rk->end_ns[i])
            top--;
        rk->parent[i] = top > 0 ? (int64_t)stack[top - 1] : -1;
        if (!stack)
            continue; /* out of memory: parents stay flat, never crash */
        if (top == cap) {
            size_t *s = realloc(stack, 2 * cap * sizeof *s);
            if (!s)
                continue;
            stack = s;
            cap *= 2;
        }
        stack[top++] = i;
    }
    free(stack);
}

/* ---- the merged call tree ---- */

size_t *sp_tree_subtree_sizes(const sp_tree *tree)
{
    size_t *size = calloc(tree->nnodes ? tree->nnodes : 1, sizeof *size);
    if (!size)
        return NULL;
    for (size_t i = tree->nnodes; i-- > 0;) {
        size[i] += 1;
        if (i > 0 && tree->nodes[i].parent >= 0)
            size[tree->nodes[i].parent] += size[i];
    }
    return size;
}

/* ---- freeing ---- */

static void rank_free(sp_rank_data *rk)
{
    sp_kvlist_free(&rk->meta);
    for (size_t i = 0; i < rk->nthreads; i++)
        free(rk->threads[i].name);
    free(rk->threads);
    sp_rank_free_calls(rk);
    free(rk->dropped);
    free(rk->sched);
    free(rk->depth);
    free(rk->tree_node);
    /* Recording modes (line samples, counters). */
    for (size_t i = 0; i < rk->nlines; i++) {
        free(rk->line_file ? rk->line_file[i] : NULL);
        free(rk->line_function ? rk->line_function[i] : NULL);
    }
    free(rk->line_region);
    free(rk->line_file);
    free(rk->line_lineno);
    free(rk->line_function);
    free(rk->line_samples);
    free(rk->line_time_ns);
    for (size_t i = 0; i < rk->ncounters; i++)
        free(rk->counter_name ? rk->counter_name[i] : NULL);
    free(rk->counter_region);
    free(rk->counter_thread);
    free(rk->counter_cpu);
    free(rk->counter_source);
    free(rk->counter_name);
    free(rk->counter_value);
    free(rk->counter_calls);
}

void sp_run_free(sp_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; i < run->nranks; i++)
        rank_free(&run->ranks[i]);
    free(run->ranks);
    if (run->regions)
        for (size_t i = 0; i < run->nregions; i++)
            free(run->regions[i].per_rank);
    free(run->regions);
    free(run->tree.nodes);
    if (run->agg && run->agg_free)
        run->agg_free(run->agg);
    for (size_t i = 0; i < run->nregions; i++)
        free(run->region_names[i]);
    free(run->region_names);
    sp_run_regions_changed(run);
    sp_kvlist_free(&run->meta);
    free(run->source_path);
    free(run->layout);
    free(run->region_flags);
    sp_mpi_data_free(run->mpi);
    free(run);
}
