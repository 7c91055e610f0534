/* SPDX-License-Identifier: MIT */
/*
 * plot_args.h - option values shared by plot and the other verbs of this
 * folder (export, report, tui, diff, check): rank lists, sizes, opening an
 * analyzed run, region selection and a filtered copy of a run.
 */
#ifndef PLOT_ARGS_H
#define PLOT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_analysis.h"
#include "sp_model.h"

/* A parsed --ranks list such as "0-3,5": inclusive ranges. */
typedef struct sp__rank_list {
    size_t n;
    struct {
        long lo, hi;
    } r[64];
} sp__rank_list;

/* Parse "N", "A-B", comma-separated (at most 64 ranges). 0 or SP_EINVAL
 * with sp_last_error() saying what is wrong. */
int sp__rank_list_parse(const char *s, sp__rank_list *out);

/* Is rank in the list? (an empty list holds every rank) */
bool sp__rank_list_has(const sp__rank_list *l, long rank);

/* The selection options of plot, export and report: -r/--ranks LIST,
 * -i/--include RE, -e/--exclude RE (NULL: unset). */
typedef struct sp__selection {
    sp__rank_list ranks;
    const char *include, *exclude;
} sp__selection;

/* Option c ('r', 'i' or 'e') with its value arg into sel. 0, or
 * SP_CLI_EXIT_USAGE after reporting a bad rank list as a usage error of
 * verb. */
int sp__selection_option(sp__selection *sel, int c, const char *arg, const char *verb);

/* Parse "WxH" (each 50..20000). 0 or SP_EINVAL. */
int sp__size_parse(const char *s, double *w, double *h);

/* Parse a positive integer option value (1..max). 0 or SP_EINVAL. */
int sp__count_parse(const char *s, const char *option, long max, long *out);

/*
 * Read a run aggregate-first with the selection of plot, export and report
 * (flags: SP_AGG_* extras). Only the ranks in `ranks` are read (NULL or
 * empty: all); the others stay, without calls, left out of the per-rank
 * figures, so "rank 5" is still rank 5. With a filter, the run is what it
 * would be had only the matching regions been recorded (sp_agg_keep_regions:
 * a call of a region left out gives its time to its nearest kept caller).
 * NULL after reporting the error (a listed rank the run does not have:
 * "--ranks: rank 7 is not in FILE (4 ranks: 0-3)").
 */
sp_run *sp__open_selected(const char *path, unsigned flags, const sp__rank_list *ranks,
                          const sp_region_filter *filter);

/* sp__open_selected(path, 0, NULL, NULL). */
sp_run *sp__open_analyzed(const char *path);

/* Keep only the regions matching f in an aggregate-first run (see
 * sp__open_selected). 0 or SP_ENOMEM. */
int sp__run_keep_regions(sp_run *run, const sp_region_filter *f);

/* The same for the regions g with keep[g] (run->nregions entries). */
int sp__run_keep_region_ids(sp_run *run, const bool *keep);

/* A listed rank the run does not have: SP_EINVAL with sp_last_error()
 * "--ranks: rank 7 is not in 'path' (4 ranks: 0-3)"; else 0. */
int sp__check_rank_list(const sp_run *run, const sp__rank_list *ranks, const char *path);

/* Region id by name (--region), or the region with the largest own time
 * when name is NULL. -1 with sp_last_error() when there is no such region
 * (or no region with calls). */
int32_t sp__pick_region(const sp_run *run, const char *name, const char *path);

#endif
