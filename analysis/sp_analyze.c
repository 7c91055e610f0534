/* SPDX-License-Identifier: MIT */
/*
 * sp_analyze.c - sp_run_analyze(): per-region statistics and the call tree.
 *
 * Per-region statistics without an O(calls x regions) loop: the durations of
 * every call are scattered once (a counting sort) into one array grouped by
 * region, and within a region by rank. Each (region, rank) segment is sorted
 * for the per-rank statistics; for more than one rank the whole region
 * segment is sorted again for the all-ranks percentiles. Sorting is a radix
 * sort, so the whole analysis is O(calls + regions x ranks) time and two
 * int64 per call of temporary memory, with no allocation per call.
 *
 * Definitions (seconds):
 * - total: the sum of the durations of the region's calls (as the Python
 *   package's total_duration). A self-recursive region's nested calls are
 *   inside their caller's duration too, so its total counts them twice; use
 *   own time (or the call tree, which keeps recursion levels apart) for
 *   the time spent in it.
 * - own: exclusive time, each call's duration minus the durations of its
 *   direct children (calls whose parent it is). Never counts time twice.
 * - mean, min, max, std (population), p50/p95/p99: see sp_stats.c.
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mem.h"

/* Check what the analysis indexes with, so malformed input cannot make it
 * read out of bounds. */
static int validate(const sp_run *run)
{
    if (run->nregions > (size_t)INT32_MAX)
        return sp__error(SP_EINVAL, "too many regions (%zu)", run->nregions);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            if (rk->region[i] < 0 || (size_t)rk->region[i] >= run->nregions)
                return sp__error(SP_EINVAL,
                                 "rank %zu, call %zu: region id %d out of range (%zu regions)", r,
                                 i, (int)rk->region[i], run->nregions);
        }
    }
    return 0;
}

static void free_regions(sp_run *run)
{
    if (run->regions)
        for (size_t g = 0; g < run->nregions; g++)
            free(run->regions[g].per_rank);
    free(run->regions);
    run->regions = NULL;
}

/* Drop derived arrays a producer may have left (never leak them). */
static void reset_derived(sp_run *run)
{
    free_regions(run);
    free(run->tree.nodes);
    memset(&run->tree, 0, sizeof run->tree);
    for (size_t r = 0; r < run->nranks; r++) {
        free(run->ranks[r].depth);
        free(run->ranks[r].tree_node);
        run->ranks[r].depth = NULL;
        run->ranks[r].tree_node = NULL;
    }
}

static int alloc_regions(sp_run *run)
{
    size_t nr = run->nranks;
    run->regions = calloc(run->nregions ? run->nregions : 1, sizeof *run->regions);
    if (!run->regions)
        return SP_ENOMEM;
    for (size_t g = 0; g < run->nregions; g++) {
        sp_run_region *reg = &run->regions[g];
        reg->id = (int32_t)g;
        reg->name = run->region_names[g];
        reg->per_rank = calloc(nr ? nr : 1, sizeof *reg->per_rank);
        if (!reg->per_rank)
            return SP_ENOMEM;
        for (size_t r = 0; r < nr; r++)
            if (run->ranks[r].dropped)
                reg->dropped += run->ranks[r].dropped[g];
    }
    return 0;
}

/* Scratch arrays of the statistics pass; bucket b = region * nranks + rank. */
typedef struct stats_work {
    size_t nbuckets;
    size_t *offset;  /* nbuckets + 1: start of each bucket in durs */
    size_t *cursor;  /* fill position while scattering */
    int64_t *own_ns; /* exclusive time per bucket */
    int64_t *durs;   /* every call's duration, grouped by bucket */
    int64_t *tmp;    /* radix sort buffer, the largest region's size */
} stats_work;

static void work_free(stats_work *w)
{
    free(w->offset);
    free(w->cursor);
    free(w->own_ns);
    free(w->durs);
    free(w->tmp);
}

static int scatter(const sp_run *run, stats_work *w)
{
    size_t nr = run->nranks, total = 0;
    if (run->nregions && nr > SIZE_MAX / sizeof(size_t) / 2 / run->nregions)
        return SP_ENOMEM;
    w->nbuckets = run->nregions * nr;
    w->offset = calloc(w->nbuckets + 1, sizeof *w->offset);
    w->cursor = malloc((w->nbuckets ? w->nbuckets : 1) * sizeof *w->cursor);
    w->own_ns = calloc(w->nbuckets ? w->nbuckets : 1, sizeof *w->own_ns);
    if (!w->offset || !w->cursor || !w->own_ns)
        return SP_ENOMEM;
    for (size_t r = 0; r < nr; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++)
            w->offset[(size_t)rk->region[i] * nr + r + 1]++;
        total += rk->ncalls;
    }
    for (size_t b = 0; b < w->nbuckets; b++) {
        w->offset[b + 1] += w->offset[b];
        w->cursor[b] = w->offset[b];
    }
    w->durs = sp_alloc_big(total * sizeof *w->durs);
    if (!w->durs)
        return SP_ENOMEM;
    for (size_t r = 0; r < nr; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int64_t d = rk->end_ns[i] - rk->start_ns[i];
            size_t b = (size_t)rk->region[i] * nr + r;
            w->durs[w->cursor[b]++] = d;
            w->own_ns[b] += d;
            int64_t p = sp__valid_parent(rk, i);
            if (p >= 0) /* a child's time is not its parent's own time */
                w->own_ns[(size_t)rk->region[p] * nr + r] -= d;
        }
    }
    /* One buffer big enough for the largest region serves every sort. */
    size_t biggest = 0;
    for (size_t g = 0; g < run->nregions; g++) {
        size_t n = w->offset[(g + 1) * nr] - w->offset[g * nr];
        if (n > biggest)
            biggest = n;
    }
    /* Without it the sorts fall back to qsort: slower, still correct. */
    w->tmp = biggest ? sp_alloc_big(biggest * sizeof *w->tmp) : NULL;
    return 0;
}

static void region_stats(sp_run *run, stats_work *w, size_t g)
{
    size_t nr = run->nranks;
    sp_run_region *reg = &run->regions[g];
    int64_t own = 0;
    for (size_t r = 0; r < nr; r++) {
        size_t b = g * nr + r;
        size_t n = w->offset[b + 1] - w->offset[b];
        sp__sort_i64(w->durs + w->offset[b], n, w->tmp);
        sp__stats_from_sorted(w->durs + w->offset[b], n, &reg->per_rank[r]);
        reg->per_rank[r].own_s = (double)w->own_ns[b] * 1e-9;
        own += w->own_ns[b];
    }
    if (nr == 1) {
        reg->all = reg->per_rank[0];
        return;
    }
    size_t first = w->offset[g * nr], n = w->offset[(g + 1) * nr] - first;
    sp__sort_i64(w->durs + first, n, w->tmp);
    sp__stats_from_sorted(w->durs + first, n, &reg->all);
    reg->all.own_s = (double)own * 1e-9;
}

static int compute_stats(sp_run *run)
{
    stats_work w;
    memset(&w, 0, sizeof w);
    int rc = scatter(run, &w);
    if (rc == 0)
        for (size_t g = 0; g < run->nregions; g++)
            region_stats(run, &w, g);
    work_free(&w);
    return rc;
}

int sp_run_analyze(sp_run *run)
{
    if (!run)
        return sp__error(SP_EINVAL, "sp_run_analyze: run is NULL");
    if (run->analyzed)
        return 0;
    int rc = validate(run);
    if (rc)
        return rc;
    reset_derived(run);
    if (alloc_regions(run) || compute_stats(run)) {
        free_regions(run);
        return sp__error(SP_ENOMEM, "out of memory computing region statistics");
    }
    rc = sp__build_call_tree(run);
    if (rc) {
        free_regions(run);
        return rc;
    }
    run->analyzed = 1;
    return 0;
}

int sp__ensure_analyzed(const sp_run *run)
{
    if (!run)
        return sp__error(SP_EINVAL, "run is NULL");
    return run->analyzed ? 0 : sp_run_analyze((sp_run *)run);
}
