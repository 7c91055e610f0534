/* SPDX-License-Identifier: MIT */
/*
 * sp_analysis.h - statistics, call tree and summaries over an sp_run
 * (internal API shared by the CLI, plots and viewer). Pure computation: no
 * file I/O; the only output is to a FILE * the caller passes in.
 */
#ifndef SP_ANALYSIS_H
#define SP_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Derive everything analysis offers from the raw calls: per-region statistics
 * (all ranks and per rank, with percentiles and own time), the merged call
 * tree, and per-call depth and tree node. Idempotent (a second call is a
 * no-op). Returns 0 or SP_ENOMEM (SP_EINVAL for a region id out of range).
 * O(calls + regions x ranks + nodes log nodes), no allocation per call.
 * total_s sums every call's duration (a self-recursive region's nested calls
 * count inside their callers too, as in the Python package); own_s is the
 * exclusive time and never counts anything twice. A parent index that does
 * not point to an earlier call of the rank is treated as "top level".
 */
int sp_run_analyze(sp_run *run);

/* Statistics of an array of durations in ns (sorted in place). own_s is left
 * 0. n may be 0 (all zero). std is the population standard deviation;
 * percentiles interpolate linearly between closest ranks (numpy's default:
 * position q * (n - 1)), so p50 of {1, 2, 3, 4} is 2.5 (see sp_stats.c). */
void sp_stats_from_durations(int64_t *durations_ns, size_t n, sp_stats *out);

/* Calls of rank r (the aggregates' count for a run read aggregate-first,
 * whose calls are not in memory; else the rank's call columns), and of
 * every rank. 0 for r out of range. */
uint64_t sp_run_rank_calls(const sp_run *run, size_t r);
uint64_t sp_run_total_calls(const sp_run *run);

/* The time span of the run over every rank (after clock offsets), ns.
 * Returns 0 and fills *t0_ns and *t1_ns, or SP_ENOENT for a run without calls. */
int sp_run_time_span(const sp_run *run, int64_t *t0_ns, int64_t *t1_ns);

/* Whether run comes from a file that was never finished (killed, or still
 * being recorded): the reader said so in the metadata (`file_state`). */
bool sp_run_is_incomplete(const sp_run *run);

/* What an incomplete run lost, one sentence into buf (n bytes): "Incomplete
 * run: recording in progress or ended without finalize (killed); 1 call(s)
 * still open were cut ...; rank(s) 1 left no data; calls that ended after
 * the recorder's last flush ... are not in the file." "" for a whole run.
 * Returns buf. */
const char *sp_run_incomplete_text(const sp_run *run, char *buf, size_t n);

/* Region filter for listings: regex include/exclude (POSIX extended). */
typedef struct sp_region_filter sp_region_filter;

/* Compile a filter; include and exclude may be NULL. NULL and
 * sp_last_error() on a bad regex ("invalid --include regex '...': ..."). */
sp_region_filter *sp_region_filter_new(const char *include, const char *exclude);
bool sp_region_filter_match(const sp_region_filter *f, const char *name);
void sp_region_filter_free(sp_region_filter *f);

/* Sort keys for region listings. */
typedef enum sp_sort_key {
    SP_SORT_TOTAL, SP_SORT_OWN, SP_SORT_CALLS, SP_SORT_MEAN, SP_SORT_MIN,
    SP_SORT_MAX, SP_SORT_STD, SP_SORT_P95, SP_SORT_NAME
} sp_sort_key;

/* Parse "total", "own", "calls", "mean", "min", "max", "std", "p95", "name".
 * Returns 0 or SP_EINVAL (with the list of valid keys in the message). */
int sp_sort_key_parse(const char *s, sp_sort_key *out);

/* Region ids of run (analyzed) sorted by key (descending, name ascending),
 * keeping only those that match f (NULL = all). *out is malloc'ed (caller
 * frees); returns the count, or -1 (SP_ENOMEM). */
long sp_run_sorted_regions(const sp_run *run, sp_sort_key key,
                           const sp_region_filter *f, int32_t **out);

/* Print the seed's boxed tree table followed by the Info panel. `path` is
 * the file named in the panel (NULL: the run's source_path, else "FILE").
 * Large trees are capped (100 node rows, 20 children per node, 12 levels,
 * 60-column names; elided parts become "… N more" rows, see sp_summary.c).
 * Analyzes the run if needed. Returns 0 or SP_EIO. */
int sp_print_summary(sp_run *run, const char *path, FILE *out);

/* Print the run metadata and the per-region table (calls, total, own, mean,
 * min, max, std, p95) sorted and filtered. Returns 0 or SP_EIO. */
int sp_print_inspect(sp_run *run, sp_sort_key key, const sp_region_filter *f,
                     FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* SP_ANALYSIS_H */
