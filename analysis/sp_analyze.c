/* SPDX-License-Identifier: MIT */
/*
 * sp_analyze.c - sp_run_analyze(): a run held in memory goes through the
 * same streaming pass as a file (sp_agg.h), its calls handed out as events
 * (sp_source_mem.c); the per-region statistics and the call tree come from
 * the aggregates, and each call gets its depth and tree node.
 *
 * Definitions (seconds):
 * - total: the sum of the durations of the region's outermost calls: a call
 *   made inside a call of the same region (recursion) is inside its
 *   caller's duration already and is not added again; every call is still
 *   counted in calls and in the per-call figures.
 * - own: exclusive time, each call's duration minus the durations of its
 *   direct children. Never counts time twice.
 * - mean, min, max, std (population) over every call; p50/p95/p99 from the
 *   log-bucket histogram (sp_hist.h: within 0.8 %).
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_agg.h"
#include "sp_error.h"
#include "sp_source_mem.h"

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
            if (rk->thread[i] < 0)
                return sp__error(SP_EINVAL, "rank %zu, call %zu: thread %d", r, i,
                                 (int)rk->thread[i]);
        }
    }
    return 0;
}

/* Drop derived arrays a producer may have left (never leak them). */
static void reset_derived(sp_run *run)
{
    if (run->regions)
        for (size_t g = 0; g < run->nregions; g++)
            free(run->regions[g].per_rank);
    free(run->regions);
    run->regions = NULL;
    free(run->tree.nodes);
    memset(&run->tree, 0, sizeof run->tree);
    for (size_t r = 0; r < run->nranks; r++) {
        free(run->ranks[r].depth);
        free(run->ranks[r].tree_node);
        run->ranks[r].depth = NULL;
        run->ranks[r].tree_node = NULL;
    }
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
    /* The run's calls as a stream of events, through the same pass that
     * reads files (the run is its own header: taken back before the source
     * is freed). */
    sp_event_source *src = sp_source_mem_new(run, run);
    if (!src)
        return SP_ENOMEM;
    bool *sel = malloc((run->nranks ? run->nranks : 1) * sizeof *sel);
    if (!sel) {
        sp_event_source_take_run(src);
        sp_event_source_free(src);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < run->nranks; r++)
        sel[r] = !run->ranks[r].excluded;
    sp_agg_opts opts = {.ranks = sel, .threads = 1};
    sp_agg *agg = NULL;
    rc = sp_agg_run(src, &opts, &agg);
    free(sel);
    sp_event_source_take_run(src);
    sp_event_source_free(src);
    if (rc == 0 && (rc = sp_agg_attach(run, agg)) != 0)
        sp_agg_free(agg);
    if (rc == 0 && (rc = sp__calls_tree_nodes(run)) != 0)
        run->analyzed = 0;
    if (rc)
        reset_derived(run);
    return rc;
}

int sp__ensure_analyzed(const sp_run *run)
{
    if (!run)
        return sp__error(SP_EINVAL, "run is NULL");
    return run->analyzed ? 0 : sp_run_analyze((sp_run *)run);
}
