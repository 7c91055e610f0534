/* SPDX-License-Identifier: MIT */
/*
 * sp_diff.h - compare two analyzed runs (internal API shared by the CLI's
 * `diff` / `check` / `report` and the viewer's Compare page). Pure
 * computation: no I/O, no printing.
 *
 * A diff matches regions by name (sp_diff_regions) or call-tree nodes by
 * their call path of region names (sp_diff_tree), takes one metric of each
 * side, and per matched pair decides whether the change is beyond the noise
 * that the per-call durations themselves show.
 *
 * The noise test (sp_noise.c): Mann-Whitney U (Wilcoxon rank-sum) on the two
 * samples of per-call durations (inclusive; own durations for the "own"
 * metric), normal approximation with tie correction and a continuity
 * correction of 0.5, two-sided p-value. Effect size: Cliff's delta
 * = P(cand > base) - P(cand < base) = 2U/(n_base n_cand) - 1, in [-1, 1],
 * positive when candidate calls tend to be longer. (For two independent
 * samples Cliff's delta equals the rank-biserial correlation, so both names
 * describe the same number.) A rank test fits profiles: durations are skewed
 * and have outliers (preemption, page faults), which would dominate a t-test.
 *
 * When the test is not done ("untested"): a side has fewer than 2 calls, the
 * metric is not a per-call duration (calls, imbalance), or the samples are
 * too small for any outcome to reach the level alpha (e.g. 3 vs 3 calls: the
 * most extreme ordering gives p = 0.08 > 0.05; see sp_noise_min_p()). Then
 * the verdict only says which way the value moved, and `check` applies the
 * budget alone.
 *
 * Ownership: an sp_diff owns its entries array; entry names point into the
 * runs, which must outlive the diff.
 */
#ifndef SP_DIFF_H
#define SP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_analysis.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What value of a region (or tree node) is compared. */
typedef enum sp_diff_metric {
    SP_METRIC_TOTAL = 0, /* total inclusive time, s (default) */
    SP_METRIC_OWN,       /* own (exclusive) time, s */
    SP_METRIC_MEAN,      /* mean per call, s */
    SP_METRIC_MIN,       /* shortest call, s */
    SP_METRIC_MAX,       /* longest call, s */
    SP_METRIC_P50,       /* median call, s */
    SP_METRIC_P95,       /* 95th percentile, s */
    SP_METRIC_P99,       /* 99th percentile, s */
    SP_METRIC_CALLS,     /* number of calls (never noise-tested) */
    SP_METRIC_IMBALANCE, /* max / mean of the per-rank totals over all ranks
                            of the run (1 = balanced; never noise-tested) */
} sp_diff_metric;
#define SP_METRIC_COUNT 10

/* Parse "total", "own", "mean", "min", "max", "p50", "p95", "p99", "calls",
 * "imbalance". 0 or SP_EINVAL (message lists the valid names). */
int sp_diff_metric_parse(const char *s, sp_diff_metric *out);

/* The name parsed above ("total", ...); "?" for an unknown value. */
const char *sp_diff_metric_name(sp_diff_metric m);

/* True for metrics in seconds (all but calls and imbalance). */
bool sp_diff_metric_is_time(sp_diff_metric m);

/* The metric of region id `region` in an analyzed run (0 for an id out of
 * range or a region without calls). */
double sp_diff_region_value(const sp_run *run, int32_t region, sp_diff_metric m);

/* The imbalance of a region: max / mean of its per-rank total times over all
 * run->nranks ranks (ranks without calls count as 0). 1 on one rank; 0 when
 * the region has no time. */
double sp_region_imbalance(const sp_run *run, int32_t region);

/* ---------------------------------------------------------------- noise */

typedef struct sp_noise_test {
    bool tested;     /* both sides had >= 2 values and the fields below are set */
    bool conclusive; /* tested and the smallest p the sample sizes allow is
                        <= alpha (else the test cannot detect anything) */
    uint64_t n_base, n_cand;
    double u;       /* U of the candidate: pairs (b, c) with c > b, ties 1/2 */
    double z;       /* standardized U (tie- and continuity-corrected); > 0
                       when candidate values tend to be larger */
    double p_value; /* two-sided; 1 when every value is equal */
    double effect;  /* Cliff's delta in [-1, 1] (= rank-biserial correlation) */
} sp_noise_test;

/*
 * Mann-Whitney U test of sample `cand` against sample `base` (any units;
 * both arrays are sorted in place). Fills *out; out->tested is false (the
 * rest zero except n_base / n_cand) when a side has fewer than 2 values.
 * conclusive uses alpha. O((nb + nc) log(nb + nc)) time; allocates a merge
 * array of nb + nc entries: 0 or SP_ENOMEM.
 */
int sp_noise_mann_whitney(int64_t *base, size_t nb, int64_t *cand, size_t nc, double alpha,
                          sp_noise_test *out);

/* The smallest two-sided p-value the normal approximation can give for
 * samples of sizes nb and nc without ties (all of one side below the other). */
double sp_noise_min_p(uint64_t nb, uint64_t nc);

/* ---------------------------------------------------------------- diffs */

typedef enum sp_diff_presence {
    SP_DIFF_IN_BOTH = 0,
    SP_DIFF_ONLY_BASE, /* region / path absent (no calls) in the candidate */
    SP_DIFF_ONLY_CAND, /* new in the candidate */
} sp_diff_presence;

typedef enum sp_diff_verdict {
    SP_DIFF_SAME = 0, /* tested and within noise (p > alpha), or no change */
    SP_DIFF_SLOWER,   /* tested, beyond noise, value went up */
    SP_DIFF_FASTER,   /* tested, beyond noise, value went down */
    SP_DIFF_UP,       /* untested (see above); value went up */
    SP_DIFF_DOWN,     /* untested; value went down */
    SP_DIFF_ADDED,    /* only in the candidate */
    SP_DIFF_REMOVED,  /* only in the base */
} sp_diff_verdict;

/* "slower", "faster", "within noise", "up (untested)", "down (untested)",
 * "new", "removed". */
const char *sp_diff_verdict_name(sp_diff_verdict v);

typedef struct sp_diff_entry {
    const char *name;         /* region name (points into base, else cand) */
    int32_t base_id, cand_id; /* region id (region diff) or tree node (tree
                                 diff) in each run; -1 where absent */
    int32_t parent;           /* tree diff: index of the parent entry, -1 at
                                 top level; region diff: -1 */
    int32_t depth;            /* tree diff: 1 = top-level region; region diff: 0 */
    sp_diff_presence presence;
    uint64_t base_calls, cand_calls;
    double base, cand;   /* the metric on each side (0 where absent) */
    double delta;        /* cand - base */
    double percent;      /* 100 * delta / base; 0 when both are 0;
                            INFINITY when only base is 0 */
    sp_noise_test noise; /* of the per-call durations (see above) */
    sp_diff_verdict verdict;
} sp_diff_entry;

typedef enum sp_diff_sort {
    SP_DIFF_SORT_DELTA = 0, /* |delta| descending (default) */
    SP_DIFF_SORT_PERCENT,   /* |percent| descending (new regions first) */
    SP_DIFF_SORT_NAME,      /* name ascending (byte order) */
} sp_diff_sort;

/* Parse "delta", "percent", "name". 0 or SP_EINVAL. */
int sp_diff_sort_parse(const char *s, sp_diff_sort *out);

typedef struct sp_diff_options {
    sp_diff_metric metric;          /* SP_METRIC_TOTAL */
    double alpha;                   /* significance level, 0.05 (0 < alpha < 1) */
    double threshold_pct;           /* keep entries in both runs whose
                                       |percent| >= this; 0 (default) = all.
                                       Only-in-one-run entries are always kept.
                                       Ignored by sp_diff_tree(). */
    sp_diff_sort sort;              /* region diff order; the tree diff sorts
                                       siblings by this key */
    const sp_region_filter *filter; /* region diff: only names matching; NULL = all */
    bool noise;                     /* run the noise test (true); false leaves
                                       every entry untested (faster) */
} sp_diff_options;

void sp_diff_options_init(sp_diff_options *o);

typedef struct sp_diff {
    sp_diff_metric metric;
    double alpha;
    size_t n;
    sp_diff_entry *entries; /* region diff: sorted; tree diff: depth-first */
    size_t n_filtered;      /* entries dropped by threshold / filter */
} sp_diff;

/*
 * Region diff: one entry per region name with calls in either run (a region
 * with zero calls counts as absent), filtered and sorted as the options say.
 * Both runs must be analyzed (sp_run_analyze()). o may be NULL (defaults).
 * NULL with sp_last_error() on SP_EINVAL (NULL run, run not analyzed, bad
 * alpha) or SP_ENOMEM. O(calls log calls) with the noise test, else
 * O(regions log regions) plus name lookups.
 */
sp_diff *sp_diff_regions(const sp_run *base, const sp_run *cand, const sp_diff_options *o);

/*
 * Tree diff: the merged call trees matched by call path (a node matches the
 * candidate's child of the matched parent with the same region name), union
 * of both trees, in depth-first order with siblings sorted by o->sort; the
 * root is not an entry. Metrics: total = inclusive time of the path, own =
 * its exclusive time, calls, mean = total / calls; other metrics are taken
 * as mean. The noise test uses the calls at that path (tree_node[]).
 */
sp_diff *sp_diff_tree(const sp_run *base, const sp_run *cand, const sp_diff_options *o);

void sp_diff_free(sp_diff *d);

/* For `check`: does entry e break the budget? True when its percent is above
 * max_regression_pct (higher is worse for every metric) and the change is
 * beyond noise: verdict SLOWER, or UP when the noise could not be assessed.
 * With fail_on_new, an ADDED entry is a violation too. REMOVED never is. */
bool sp_diff_entry_violates(const sp_diff_entry *e, double max_regression_pct, bool fail_on_new);

#ifdef __cplusplus
}
#endif

#endif /* SP_DIFF_H */
