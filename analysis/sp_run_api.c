/* SPDX-License-Identifier: MIT */
/*
 * sp_run_api.c - the public read-side API of scope_profiler.h over the model.
 *
 * Runs from sp_read_h5() are always analyzed before they are returned. The
 * accessors take a const run; on a run that is not analyzed yet (built by
 * hand or by another producer) the ones that need statistics analyze it
 * lazily through sp__ensure_analyzed(), which casts the const away: analysis
 * only fills derived fields. Do that first call from one thread.
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_h5.h"

sp_run *sp_read_h5(const char *path)
{
    if (!path)
        return sp__error_null(SP_EINVAL, "sp_read_h5: path is NULL");
    sp_run *run = sp_h5_read(path, NULL);
    if (!run)
        return NULL; /* the reader set the message */
    if (sp_run_analyze(run)) {
        sp_run_free(run);
        return NULL;
    }
    return run;
}

size_t sp_run_num_regions(const sp_run *run)
{
    return run ? run->nregions : 0;
}

size_t sp_run_num_ranks(const sp_run *run)
{
    return run ? run->nranks : 0;
}

const sp_run_region *sp_run_region_at(const sp_run *run, size_t i)
{
    if (!run || i >= run->nregions)
        return sp__error_null(SP_EINVAL, "region index %zu out of range (%zu regions)", i,
                              run ? run->nregions : 0);
    if (sp__ensure_analyzed(run))
        return NULL;
    return &run->regions[i];
}

const sp_run_region *sp_run_find(const sp_run *run, const char *name)
{
    if (!run || !name)
        return sp__error_null(SP_EINVAL, "sp_run_find: run and name must not be NULL");
    int32_t id = sp_run_region_id(run, name);
    if (id < 0)
        return sp__error_null(SP_ENOENT, "no region named '%s' in the run", name);
    if (sp__ensure_analyzed(run))
        return NULL;
    return &run->regions[id];
}

const char *sp_run_region_name(const sp_run_region *r)
{
    return r ? r->name : NULL;
}

uint64_t sp_run_region_num_calls(const sp_run_region *r)
{
    return r ? r->all.calls : 0;
}

double sp_run_region_total_s(const sp_run_region *r)
{
    return r ? r->all.total_s : 0.0;
}

const char *sp_run_metadata(const sp_run *run, const char *key)
{
    if (!run || !key)
        return NULL;
    return sp_kvlist_get(&run->meta, key);
}

int sp_run_print_summary(const sp_run *run, FILE *out)
{
    if (!run || !out)
        return sp__error(SP_EINVAL, "sp_run_print_summary: run and out must not be NULL");
    int rc = sp__ensure_analyzed(run);
    /* Printing reads only; sp_print_summary takes a non-const run because it
     * may analyze, which ensure_analyzed has done. */
    return rc ? rc : sp_print_summary((sp_run *)run, NULL, out);
}
