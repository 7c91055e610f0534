/* SPDX-License-Identifier: MIT */
/*
 * sp_compare.h - the comparison model: one meaning of "this region got
 * slower" for every surface (`diff`, `check`, the HTML report, `plot
 * compare`, the viewer's Compare page). Pure computation: no I/O.
 *
 * Input: one or more runs per side (BASE and CANDIDATE). Per region (or,
 * with `tree`, per call path) the model gives
 *   - on each side the region's time per rank: its summed call time on a
 *     rank divided by the number of that rank's threads that ran it (so
 *     threads working in parallel are not summed), mean and max over the
 *     ranks that ran the region, and its calls per rank (same averaging).
 *     Never a sum over ranks: runs with different rank or thread counts are
 *     compared per rank;
 *   - the estimated ratio candidate / base of that time per rank, with a
 *     1 - alpha confidence interval, and the change in percent;
 *   - the impact: (ratio - 1) x the base's typical time per rank (its
 *     typical call x calls per rank), in seconds per rank: the shift of
 *     the typical call x the calls; it ranks the regions and meets the
 *     floors;
 *   - a verdict: slower, faster, within noise, new, removed, or not
 *     comparable, with the reason.
 *
 * The typical call. Timing noise on a shared machine only ever adds time
 * (preemption, interrupts, another process on the core, cache and memory
 * contention), and it can hit half the calls of a run or more; a change of
 * the code moves every call, the fastest included. So a region's typical
 * call is the lower quartile of its call durations (estimator QUANTILE,
 * quantile 0.25, the default), or the Hodges-Lehmann location of all of
 * them (estimator HL: more efficient when the noise is symmetric, much
 * less robust when it is not; see README "Comparing runs" for both
 * measured on this machine).
 *
 * Two modes, chosen by the number of runs:
 *   SP_CMP_MODE_CALLS (one run per side): the per-call durations of the
 *     region (all ranks and threads pooled) are compared on a log scale:
 *     QUANTILE: log q(cand) - log q(base), interval from the two
 *     distribution-free order-statistic intervals of the quantile
 *     (Bonferroni, so the coverage is at least 1 - alpha); HL: the
 *     Hodges-Lehmann shift with its Mann-Whitney interval
 *     (sp_compare_stats.h). Ratio = exp(shift) x (calls per rank of the
 *     candidate / of the base): a changed call count is a real change of
 *     the time per rank and is reported as such ("calls 38 -> 76 per
 *     rank"). This mode sees only the scatter of calls within each run, not
 *     the run-to-run noise.
 *   SP_CMP_MODE_RUNS (two or more runs on a side): each run gives one value
 *     per region, its time per rank estimated robustly: typical call (as
 *     above, the median for HL) x calls per rank, so that a few preempted
 *     calls do not make a whole run look slow; the ratio is that of the
 *     geometric means of the runs' values with Welch's t interval on the
 *     logarithms: the run-to-run variation is the noise.
 *
 * Verdict: the change is statistically clear when the interval excludes a
 * ratio of 1, and practically relevant when |change| exceeds
 * min_change_pct (the budget of `check --max-regression`), |impact| is at
 * least min_time_s and at least min_share_pct of the base run's wall time
 * per rank (base_share_s). Slower / faster needs both; the direction is the sign of the
 * estimate, which lies inside its interval. Everything else measured on
 * both sides is "within noise" (why: not clear, or clear but small); "not
 * comparable" when no interval exists (one or too few calls per run, or a
 * region missing from some of a side's runs): repeat the runs.
 *
 * Ownership: an sp_compare owns its entries and their names; it does not
 * keep pointers into the runs.
 */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_analysis.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_cmp_verdict {
    SP_CMP_SLOWER = 0,
    SP_CMP_FASTER,
    SP_CMP_SAME, /* "within noise" */
    SP_CMP_NEW,
    SP_CMP_REMOVED,
    SP_CMP_NOT_COMPARABLE,
} sp_cmp_verdict;
#define SP_CMP_NVERDICTS 6

/* Why a verdict is "within noise" or "not comparable". */
typedef enum sp_cmp_why {
    SP_CMP_WHY_NONE = 0,
    SP_CMP_WHY_NOT_CLEAR,     /* within noise: the interval contains no change */
    SP_CMP_WHY_SMALL_CHANGE,  /* clear, but |change| <= min_change_pct */
    SP_CMP_WHY_SMALL_TIME,    /* clear, but |impact| < min_time_s */
    SP_CMP_WHY_SMALL_SHARE,   /* clear, but |impact| < min_share_pct of the run */
    SP_CMP_WHY_FEW_CALLS,     /* not comparable: too few calls per run for an
                                 interval (one run per side) */
    SP_CMP_WHY_MISSING_RUNS,  /* not comparable: absent from some runs of a side */
} sp_cmp_why;

typedef enum sp_cmp_mode {
    SP_CMP_MODE_CALLS = 0, /* one run per side: per-call durations */
    SP_CMP_MODE_RUNS,      /* repeated runs: run-to-run variation */
} sp_cmp_mode;

/* One side of an entry (averaged over the side's runs that have it). */
typedef struct sp_cmp_side {
    uint64_t calls;          /* calls over all runs, ranks and threads */
    double calls_per_rank;   /* per rank (and thread that ran it), mean */
    double time_mean_s;      /* time per rank, mean over ranks that ran it */
    double time_max_s;       /* time per rank, max over ranks */
    double per_call_s;       /* typical call (the estimator's location of the
                                call durations), mean over the side's runs */
    double typical_time_s;   /* robust time per rank: typical call x calls per
                                rank (mean over runs); preempted calls barely
                                move it, unlike time_mean_s */
    uint32_t runs;           /* runs of this side in which the entry has calls */
    uint32_t ranks;          /* ranks that ran it (largest over runs) */
} sp_cmp_side;

typedef struct sp_cmp_entry {
    char *name;            /* region name (tree: the last region of the path) */
    int32_t depth;         /* tree: 1 = top level; regions: 0 */
    int32_t parent;        /* tree: index of the parent entry or -1 */
    sp_cmp_side base, cand;
    bool tested;           /* ratio_lo / ratio_hi are set */
    double ratio;          /* candidate / base time per rank (estimate; when
                              untested, the ratio of the typical times) */
    double ratio_lo, ratio_hi;
    double change_pct;     /* 100 (ratio - 1); +INF for new, -100 removed */
    double change_lo_pct, change_hi_pct;
    double impact_s;       /* (ratio - 1) x base.typical_time_s: the shift of
                              the typical call x the calls per rank, s per
                              rank; new: the candidate's time per rank,
                              removed: minus the base's */
    double p_value;        /* of the test (informational): Welch's with
                              repeated runs, the Mann-Whitney p with HL; 1
                              for the quantile estimator and when untested */
    bool calls_changed;    /* calls per rank differ by more than 0.5 % */
    sp_cmp_verdict verdict;
    sp_cmp_why why;
} sp_cmp_entry;

typedef enum sp_cmp_estimator {
    SP_CMP_EST_QUANTILE = 0, /* the `quantile` of call durations (default) */
    SP_CMP_EST_HL,           /* Hodges-Lehmann */
} sp_cmp_estimator;

typedef struct sp_compare_options {
    sp_cmp_estimator estimator; /* SP_CMP_EST_QUANTILE */
    double quantile;       /* 0.25: the lower quartile (0 < quantile < 1) */
    double alpha;          /* 0.05: 95 % intervals (0 < alpha < 1) */
    double min_change_pct; /* 10: a smaller change is not counted */
    double min_time_s;     /* 1e-4: a smaller impact per rank is not counted */
    double min_share_pct;  /* 1: nor an impact below this % of the run */
    bool own;              /* true (default): own (exclusive) time, so a
                              slowdown shows where it happens and not again
                              in every enclosing region; false: inclusive */
    bool tree;             /* per call path instead of per region name */
    const sp_region_filter *filter; /* region names to keep; NULL = all */
} sp_compare_options;

/* Defaults above. */
void sp_compare_options_init(sp_compare_options *o);

typedef struct sp_compare {
    sp_compare_options opts; /* as used (filter pointer cleared) */
    sp_cmp_mode mode;
    size_t nbase, ncand;     /* runs per side */
    size_t base_ranks_min, base_ranks_max, cand_ranks_min, cand_ranks_max;
    size_t base_threads_max, cand_threads_max; /* threads per rank */
    double base_run_s, cand_run_s; /* wall time per run (span), mean */
    double base_share_s;     /* the base's time per rank the share floor is of:
                                with own time (default) the sum of every
                                region's typical time per rank, which a busy
                                machine inflates as little as the impacts it
                                is compared with; inclusive: base_run_s */
    size_t n;
    sp_cmp_entry *entries;   /* regions: by |impact| descending, then name;
                                tree: depth first, siblings so ordered */
    size_t n_filtered;       /* regions left out by the filter */
} sp_compare;

/*
 * Compare runs: base[0..nb), cand[0..nc), nb, nc >= 1. Runs need not be
 * analyzed, except with o->tree (call paths need sp_run_analyze()). o may be
 * NULL (defaults). NULL with sp_last_error() on SP_EINVAL (no runs, bad
 * option, tree on a run not analyzed) or SP_ENOMEM. O(calls) plus the
 * sorting of each region's calls (one run per side); a region with millions
 * of calls costs ~0.1 s (see sp__hl_shift).
 */
sp_compare *sp_compare_runs(const sp_run *const *base, size_t nb, const sp_run *const *cand,
                            size_t nc, const sp_compare_options *o);

void sp_compare_free(sp_compare *c);

/* ---------------------------------------------------------------- results */

/* The one tally of verdicts every surface prints. */
typedef struct sp_cmp_tally {
    size_t n[SP_CMP_NVERDICTS];
    size_t total;
} sp_cmp_tally;

void sp_compare_tally(const sp_compare *c, sp_cmp_tally *t);

/* "2 slower · 1 faster · 14 within noise · 1 new · 2 not comparable":
 * slower, faster and within noise always, the others when not zero.
 * Returns buf. */
char *sp_compare_tally_text(const sp_cmp_tally *t, char *buf, size_t n);

/* "slower", "faster", "within noise", "new", "removed", "not comparable". */
const char *sp_cmp_verdict_name(sp_cmp_verdict v);

/* Why the verdict, for a table cell or a message (NULL for verdicts that
 * need no reason): "interval includes no change", "change below 10 %",
 * "impact below 0.1 ms per rank", "impact below 1 % of the run",
 * "1 call per run: repeat the runs", "in 2 of 3 base runs". Returns buf. */
const char *sp_cmp_why_text(const sp_compare *c, const sp_cmp_entry *e, char *buf, size_t n);

/* "one run per side (per-call durations)", "3 base runs, 3 candidate runs
 * (run-to-run variation)". Returns buf. */
char *sp_compare_mode_text(const sp_compare *c, char *buf, size_t n);

/* Method and floors in one sentence for headers, e.g. "ratio of the lower
 * quartiles of call durations x calls per rank, own time, 95 % interval;
 * counted when beyond 10 %, 100 µs and 1 % of the run per rank". Returns
 * buf. */
char *sp_compare_method_text(const sp_compare *c, char *buf, size_t n);

/* How per-rank figures are formed, e.g. "time per rank = mean (max) over
 * the ranks that ran the region; 1 rank vs 8 ranks". Returns buf. */
char *sp_compare_ranks_text(const sp_compare *c, char *buf, size_t n);

/* A duration with 3 significant digits in ns, µs, ms or s: "1.50 ms",
 * "240 µs", "-12.0 ms". Every surface prints comparison times with it.
 * Returns buf. */
char *sp_cmp_fmt_time(double s, char *buf, size_t n);

/* "+24.8 % [+21.0, +28.9]", "+12.0 %" (untested), "new", "removed"; from
 * +900 % (ten times as long) ratios: "×2710 [×2689, ×2731]". */
#define SP_CMP_RATIO_FROM_PCT 900.0
char *sp_cmp_change_text(const sp_cmp_entry *e, char *buf, size_t n);

/* "calls 38 -> 76 per rank" when calls_changed, else "". Returns buf. */
char *sp_cmp_calls_text(const sp_cmp_entry *e, char *buf, size_t n);

/* Does e fail the `check` gate? SLOWER always (the model already applied
 * the budget); NEW with fail_on_new; NOT_COMPARABLE with fail_undecided
 * when its rough change (ratio of the observed times per rank) is above
 * min_change_pct. */
bool sp_cmp_entry_fails(const sp_compare *c, const sp_cmp_entry *e, bool fail_on_new,
                        bool fail_undecided);

/* The entry named name (tree: the first at that name), or NULL. */
const sp_cmp_entry *sp_compare_find(const sp_compare *c, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SP_COMPARE_H */
