/* SPDX-License-Identifier: MIT */
/*
 * sp_figures.h - what a figure of a run means, one rule for every surface
 * (summary, inspect, report, exports, plots, viewer). Pure computation.
 *
 * THE RANK RULE
 * - A time figure is per rank. For a run of N > 1 ranks (the ranks
 *   considered: all, or a --ranks selection), a region's or a call path's
 *   time is the MEAN over the N ranks of each rank's time (a rank without the
 *   region counts 0 s, as in `scope-profiler ranks`), shown with the MAX
 *   beside it: the slowest rank, which is what the job's wall clock sees.
 * - Within a rank, where a region ran on several threads, the rank's time is
 *   the mean over those threads and the max is the slowest thread (OpenMP
 *   workers run a region at the same time: their sum is not time anyone
 *   waited for).
 * - A sum over ranks (and threads) appears only where it is labelled "sum
 *   over N ranks".
 * - Calls are per rank too: the range over the considered ranks ("200x" when
 *   every rank made 200 calls, "0-3x" otherwise).
 * - The headline of a run is its wall-clock span: the first call's start to
 *   the last call's end over every rank, clocks aligned to rank 0.
 * - Per-call statistics (mean, min, max, std, percentiles of one call's
 *   duration) are over every call of every considered rank: a call is a call.
 * With one rank and no region on several threads, every figure is simply the
 * rank's own (mean = max = sum), and the tools print the seed's one-column
 * shape.
 *
 * ESTIMATES
 * - A region flagged "sampled" (SP_REGION_FLAG_SAMPLED: calls synthesized
 *   from call-stack samples by `scope-profiler run`) has estimated calls and
 *   times: printed "~12x", "~0.012000"; its per-call min / max / std /
 *   percentiles are not shown (their resolution is the sampling period,
 *   sp_figures.sample_period_s, which is printed instead).
 * - A region flagged "throttled" (SP_REGION_FLAG_THROTTLED: tracing stopped
 *   after very many very short calls) has lower bounds: ">=100000x",
 *   ">=0.003100".
 */
#ifndef SP_FIGURES_H
#define SP_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How exact a region's figures are. */
typedef enum sp_fig_kind {
    SP_FIG_EXACT = 0,      /* measured */
    SP_FIG_ESTIMATE = 1,   /* from samples: "~" */
    SP_FIG_LOWER_BOUND = 2 /* throttled: ">=" */
} sp_fig_kind;

/* One time figure under the rank rule (seconds). */
typedef struct sp_fig {
    double mean_s; /* per rank: mean over the considered ranks */
    double max_s;  /* the slowest rank (or thread) */
    double sum_s;  /* sum over every considered rank and thread (label it!) */
} sp_fig;

/* Calls under the rank rule: per rank, over the considered ranks. */
typedef struct sp_fig_calls {
    uint64_t min, max; /* fewest / most calls of one rank (0 when a rank lacks it) */
    double mean;       /* mean calls per rank */
    uint64_t sum;      /* every rank */
    uint32_t nhave;    /* considered ranks with at least one call */
} sp_fig_calls;

typedef struct sp_figures {
    size_t nranks;               /* ranks considered (not excluded by a selection) */
    size_t nranks_file;          /* ranks in the run */
    bool threads;                /* some region ran on several threads of one rank */
    bool two_columns;            /* nranks > 1 || threads: show mean and max */
    bool has_span;               /* the run has calls */
    double span_s;               /* wall-clock span (first start to last end) */
    double sample_period_s;      /* call-stack sampling period; 0 when not sampled */
    size_t nsampled, nthrottled; /* regions with those flags */

    size_t nnodes;     /* run->tree.nnodes */
    sp_fig *node_incl; /* inclusive time per call path (node 0: unused) */
    sp_fig *node_own;  /* own time per call path */
    sp_fig_calls *node_calls;

    size_t nregions;
    sp_fig *region_total; /* a region's total (sum of its calls' durations) */
    sp_fig *region_own;
    sp_fig_calls *region_calls;
} sp_figures;

/*
 * The figures of run under the rank rule (analyzes the run if needed). Ranks
 * with rk->excluded set are not considered. O(calls + nodes + regions), a few
 * arrays of nodes and regions. Returns a malloc'ed object (free with
 * sp_figures_free()), or NULL with sp_last_error() on SP_ENOMEM / SP_EINVAL.
 */
sp_figures *sp_figures_new(const sp_run *run);
void sp_figures_free(sp_figures *f);

/* How exact region id's figures are (EXACT for an id out of range). */
sp_fig_kind sp_region_fig_kind(const sp_run *run, int32_t region);

/* The call-stack sampling period of run in seconds (1 / stack_sample_hz),
 * or 0 when the run was not stack-sampled. */
double sp_run_sample_period_s(const sp_run *run);

/* "1 rank", "4 ranks", "1 of 8 ranks" (a selection): into buf, returns buf. */
const char *sp_figures_ranks_text(const sp_figures *f, char *buf, size_t n);

/* Text of a time in seconds, "%.6f" with the kind's mark: "0.012000",
 * "~0.012000", ">=0.012000". Returns buf. */
char *sp_fig_format_s(double s, sp_fig_kind kind, char *buf, size_t n);

/* Text of a call count with the kind's mark: "12", "~12", ">=100000".
 * Returns buf. */
char *sp_fig_format_calls(uint64_t calls, sp_fig_kind kind, char *buf, size_t n);

/* Calls per rank as text: "200" when every considered rank made 200 calls,
 * "150-250" otherwise; with the kind's mark. Returns buf. */
char *sp_fig_format_calls_range(const sp_fig_calls *c, sp_fig_kind kind, char *buf, size_t n);

/* The rule in one sentence for a table's footnote, for f's run:
 * "Times are per rank: the mean over the 4 ranks (a rank without a region
 * counts 0 s) and the max (the slowest rank: what the job's wall clock
 * sees)." (and the thread clause when f->threads). "" when !two_columns.
 * Returns buf. */
const char *sp_figures_rule_text(const sp_figures *f, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SP_FIGURES_H */
