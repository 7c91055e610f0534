/* SPDX-License-Identifier: MIT */
/*
 * run_subset.c - runs with their calls in memory, for the comparisons
 * (diff, check, scaling, report and plot of several runs): the comparison
 * model (analysis/sp_compare*.c) still reads every call. Everything else
 * reads aggregate-first (sp__open_selected). This file goes when the
 * comparisons work on the aggregates' histograms.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "plot_args.h"
#include "sp_error.h"

static int copy_kvlist(sp_kvlist *dst, const sp_kvlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (sp_kvlist_set(dst, src->items[i].key, src->items[i].value))
            return SP_ENOMEM;
    return 0;
}

static char *dup_or_null(const char *s, int *rc)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *rc = SP_ENOMEM;
    return d;
}

/* Copy the kept calls of src into dst (rank data already zeroed). */
static int subset_rank(sp_rank_data *dst, const sp_rank_data *src, const bool *keep_region,
                       bool keep_rank)
{
    int rc = 0;
    dst->clock_offset_ns = src->clock_offset_ns;
    dst->clock_offset_err_ns = src->clock_offset_err_ns;
    dst->excluded = src->excluded || !keep_rank; /* per-rank figures skip it */
    if (copy_kvlist(&dst->meta, &src->meta))
        return SP_ENOMEM;
    dst->nthreads = src->nthreads;
    dst->threads = calloc(src->nthreads ? src->nthreads : 1, sizeof *dst->threads);
    if (!dst->threads)
        return SP_ENOMEM;
    for (size_t t = 0; t < src->nthreads; t++) {
        dst->threads[t].os_tid = src->threads[t].os_tid;
        dst->threads[t].name = dup_or_null(src->threads[t].name, &rc);
    }
    size_t n = 0;
    for (size_t i = 0; keep_rank && i < src->ncalls; i++)
        n += keep_region[src->region[i]];
    if (rc || sp_rank_alloc_calls(dst, n))
        return SP_ENOMEM;
    int64_t *newidx = malloc((src->ncalls ? src->ncalls : 1) * sizeof *newidx);
    if (!newidx)
        return SP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; keep_rank && i < src->ncalls; i++) {
        newidx[i] = -1;
        /* Nearest kept ancestor: parents come first, so newidx[p] is known. */
        int64_t p = src->parent[i];
        int64_t np = -1;
        while (p >= 0 && (size_t)p < i) {
            if (newidx[p] >= 0) {
                np = newidx[p];
                break;
            }
            int64_t pp = src->parent[p];
            p = (pp >= 0 && pp < p) ? pp : -1;
        }
        if (!keep_region[src->region[i]])
            continue;
        dst->start_ns[k] = src->start_ns[i];
        dst->end_ns[k] = src->end_ns[i];
        dst->region[k] = src->region[i];
        dst->thread[k] = src->thread[i];
        dst->parent[k] = np;
        newidx[i] = (int64_t)k++;
    }
    free(newidx);
    return 0;
}

sp_run *sp__run_subset(const sp_run *run, const sp__rank_list *ranks, const sp_region_filter *f)
{
    if (sp__check_rank_list(run, ranks, run->source_path ? run->source_path : "the run"))
        return NULL;
    sp_run *out = sp_run_new();
    bool *keep = calloc(run->nregions ? run->nregions : 1, sizeof *keep);
    int rc = (!out || !keep) ? SP_ENOMEM : 0;
    for (size_t g = 0; !rc && g < run->nregions; g++) {
        keep[g] = sp_region_filter_match(f, run->region_names[g]);
        if (sp_run_intern_region(out, run->region_names[g]) < 0)
            rc = SP_ENOMEM;
    }
    if (!rc) {
        out->schema_version = run->schema_version;
        out->source_path = dup_or_null(run->source_path, &rc);
        out->layout = dup_or_null(run->layout, &rc);
    }
    if (!rc && (copy_kvlist(&out->meta, &run->meta) || sp_run_set_ranks(out, run->nranks)))
        rc = SP_ENOMEM;
    if (!rc && run->nregion_flags && run->region_flags) {
        /* sampled / throttled marks (sp_figures.h) follow the regions */
        out->region_flags = malloc(run->nregion_flags * sizeof *out->region_flags);
        if (!out->region_flags)
            rc = SP_ENOMEM;
        else {
            memcpy(out->region_flags, run->region_flags,
                   run->nregion_flags * sizeof *out->region_flags);
            out->nregion_flags = run->nregion_flags;
        }
    }
    for (size_t r = 0; !rc && r < run->nranks; r++)
        rc = subset_rank(&out->ranks[r], &run->ranks[r], keep, sp__rank_list_has(ranks, (long)r));
    free(keep);
    if (!rc)
        rc = sp_run_analyze(out);
    if (rc) {
        sp_run_free(out);
        return sp__error_null(rc, "out of memory filtering the run");
    }
    return out;
}

sp_run *sp__open_with_calls(const char *path, const sp__rank_list *ranks,
                            const sp_region_filter *filter)
{
    sp_run *run = sp__cli_open_run(path);
    if (!run || ((!ranks || !ranks->n) && !filter))
        return run;
    sp_run *sub = sp__run_subset(run, ranks, filter);
    if (!sub)
        sp__cli_error("%s", sp_last_error());
    sp_run_free(run);
    return sub;
}
