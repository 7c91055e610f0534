/* SPDX-License-Identifier: MIT */
/*
 * sp_ranks.h - cross-rank statistics of a run (internal API shared by the
 * CLI, plots and viewer). Pure computation plus table printing to a FILE *
 * the caller passes in; no file I/O.
 *
 * Per region, over a set of ranks (all ranks, or a selection such as
 * "0-3,5"): the per-rank totals, their min / mean / max, the slowest and
 * fastest rank, and the imbalance max / mean. Definitions (seconds):
 *
 * - Every statistic over ranks covers ALL the considered ranks: a rank that
 *   never called the region counts as 0 calls and 0 s. That is the standard
 *   load-balance view (work a rank does not do is imbalance too), so a
 *   region only one of 4 ranks runs has imbalance 4. mean_have_s is the mean
 *   over the ranks that have the region, for comparison, and `missing`
 *   lists the ranks without it.
 * - imbalance = max_total_s / mean_total_s (1 = perfectly balanced; 0 when
 *   no considered rank spent time in the region); imbalance_pct = (imbalance
 *   - 1) x 100, the percentage the slowest rank is above the mean.
 * - slowest_rank / fastest_rank: the rank with the largest / smallest total
 *   (the lowest rank number on a tie); the fastest may be a rank that lacks
 *   the region (0 s).
 * - Per-rank calls, total, mean, min and max are the rank's own statistics
 *   (sp_run_region.per_rank).
 */
#ifndef SP_RANKS_H
#define SP_RANKS_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_analysis.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_rank_region {
    int32_t region;                                /* region id */
    size_t nranks;                                 /* ranks considered (the selection) */
    size_t nhave;                                  /* of those, ranks with at least one call */
    uint64_t calls;                                /* calls on the considered ranks */
    uint64_t calls_min, calls_max;                 /* of one considered rank (0: none) */
    double total_s;                                /* sum of the per-rank totals */
    double min_total_s, mean_total_s, max_total_s; /* over all considered ranks */
    double mean_have_s;                 /* mean total over the ranks that have the region */
    int32_t slowest_rank, fastest_rank; /* -1 when no rank is considered */
    double imbalance;                   /* max_total_s / mean_total_s, 0 when the mean is 0 */
    double imbalance_pct;               /* (imbalance - 1) x 100; 0 when imbalance is 0 */
    size_t nmissing;
    int32_t *missing; /* considered ranks without a call (malloc'ed, may be NULL) */
} sp_rank_region;

/*
 * Cross-rank statistics of region id `region` over the ranks r with sel[r]
 * (sel NULL: every rank). Analyzes the run if needed. Returns 0, SP_EINVAL
 * (bad region id), SP_ENOMEM. Free out with sp_rank_region_free().
 */
int sp_rank_region_stats(const sp_run *run, int32_t region, const bool *sel, sp_rank_region *out);
void sp_rank_region_free(sp_rank_region *s);

/*
 * Parse a rank list: comma-separated ranks and inclusive ranges ("0-3,5",
 * "7", "2-2"), every rank below nranks. *sel receives nranks flags
 * (malloc'ed, caller frees) and *count how many are set. Returns 0 or
 * SP_EINVAL ("--ranks '0-9': rank 9 is out of range (the run has 4 ranks)"),
 * SP_ENOMEM.
 */
int sp_rank_list_parse(const char *spec, size_t nranks, bool **sel, size_t *count);

/* The selection as a compact list ("0-3,5"), into buf (truncated with
 * "..." if needed). */
void sp_rank_list_format(const bool *sel, size_t nranks, char *buf, size_t len);

/*
 * Keep only the calls of the ranks r with keep[r]: the other ranks stay (so
 * rank numbers keep their meaning) with their metadata and thread table but
 * no calls, dropped counts or mode tables, and the run's statistics are
 * recomputed on the next analysis (the run is marked not analyzed). Returns
 * 0 or SP_ENOMEM.
 */
int sp_run_keep_ranks(sp_run *run, const bool *keep);

/* Sort orders of the cross-rank listing. */
typedef enum sp_ranks_sort {
    SP_RANKS_SORT_MAX,       /* largest per-rank total first (default) */
    SP_RANKS_SORT_IMBALANCE, /* most imbalanced first */
    SP_RANKS_SORT_TOTAL,     /* largest total over the ranks first */
    SP_RANKS_SORT_NAME       /* A to Z */
} sp_ranks_sort;

/* Parse "max", "imbalance", "total", "name". 0 or SP_EINVAL. */
int sp_ranks_sort_parse(const char *s, sp_ranks_sort *out);

/*
 * Print the cross-rank table: one row per region matching f (NULL: all),
 * with ranks having it, calls, min / mean / max of the per-rank totals, the
 * slowest and fastest rank and the imbalance; then, if detail, for each of
 * those regions its per-rank table (calls, total, mean, min, max, difference
 * to the mean) and the ranks missing it. sel: the considered ranks (NULL:
 * all). Returns 0, SP_ENOMEM, SP_EIO (output error).
 */
int sp_print_ranks(sp_run *run, const sp_region_filter *f, const bool *sel, sp_ranks_sort sort,
                   bool detail, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* SP_RANKS_H */
