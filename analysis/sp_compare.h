/* SPDX-License-Identifier: MIT */
/*
 * sp_compare.h - the comparison model: one meaning of "this region got
 * slower" for every surface (`diff`, `check`, the HTML report, `plot
 * compare`, the viewer's Compare page). Pure computation: no I/O.
 *
 * Input: one or more runs per side (BASE and CANDIDATE). Per region (or,
 * with `tree`, per call path) the model gives two quantities, each with its
 * base and candidate values, change and interval, in the same unit
 * (seconds per rank) so that a row never mixes them:
 *
 *   - the TYPICAL time per rank: the typical call x calls per rank. The
 *     typical call is a low quantile of the region's call durations:
 *     timing noise on a shared machine only ever adds time (preemption,
 *     another process on the core, a slower CPU state for a while), and
 *     adds it to some calls, while a change of the code moves every call,
 *     the fastest included. The quantile is the lowest one that still has a
 *     distribution-free interval with the calls at hand (1 - (alpha/4)^(1/n)
 *     for n calls: 3 % of 150 calls, 0.7 % of 600), kept within 1-25 %
 *     (o->quantile fixes it instead); HL uses the Hodges-Lehmann location.
 *   - the TOTAL time per rank: every call's time. Its change is judged
 *     both as it is and beyond what the machine's load explains: from the
 *     scheduling samples the recorder took, the share of the region's time
 *     its threads waited for a CPU on each side (each call's time x its
 *     thread's wait share at that moment), wb and wc; unchanged code takes
 *     (1 - wb) / (1 - wc) times the base's time (runs without samples:
 *     1). It counts only when it is clear either way. Waits for messages,
 *     locks and I/O are in it: a change of the total that the typical call
 *     does not show is a TAIL change.
 *
 * Time per rank: a region's time on a rank divided by the number of that
 * rank's threads that ran it (threads working in parallel are not summed),
 * mean (and max) over the ranks that ran the region. Never a sum over
 * ranks: runs with different rank or thread counts compare per rank.
 *
 * Two modes, chosen by the number of runs:
 *   SP_CMP_MODE_CALLS (one run per side):
 *     typical: the ratio of the two quantiles of the call durations (all
 *     ranks and threads pooled; with the same ranks > 1 on both sides each
 *     call relative to the base's median call on its rank), x the ratio of
 *     calls per rank (exact), interval from the two order-statistic
 *     intervals (Bonferroni: coverage >= 1 - alpha whatever the
 *     distributions). HL: the Hodges-Lehmann shift with its Mann-Whitney
 *     interval. Then, with own time, every region's typical change is judged
 *     against the comparison's COMMON change (the median per-call change of
 *     the regions with an interval, when there are 3 or more): a machine that
 *     runs everything 20 % slower is not 20 regressions. A common change
 *     beyond the budget leaves the comparison undecided. A machine at
 *     another speed does not change every region alike, so the budget a
 *     region's relative change must exceed grows by the size of the common
 *     change (uneven_pct): measured on shared VMs, a run whose regions all
 *     ran ~10 % faster had one of them ~20 % faster.
 *     total: the difference of the totals with an interval of
 *     z = normal quantile(1 - alpha/40) (99.75 % at alpha 0.05) standard
 *     errors from two noises: the within-run variation of the region's time
 *     over SP__CMP_SEGMENTS segments of each run, and the scatter of the
 *     waits for a CPU in it (preemptions arrive at random: compound
 *     Poisson, variance 2 x mean wait of a preemption x the expected wait),
 *     around both the measured change and the change beyond the load's.
 *   SP_CMP_MODE_RUNS (two or more runs on a side): each run gives one
 *     typical time per rank and one total per rank (raw and net); ratios of geometric
 *     means with Welch's t interval on the logarithms (typical at 1 - alpha,
 *     total at 1 - alpha/20): the run-to-run variation is the noise.
 *
 * Verdict (decide()): SLOWER / FASTER when
 *   1. the typical change (relative to the common change) is clear (its
 *      interval excludes no change) and beyond the budget (min_change_pct)
 *      and its impact (change x the base's typical time per rank) is at
 *      least min_time_s and min_share_pct of the run per rank - unless the
 *      region's calls were preempted too often to have undisturbed fast
 *      calls on a side (measured preemptions per typical call > 0.5): then
 *      NOT_COMPARABLE, why INTERFERENCE; or
 *   2. (basis TOTAL) the total's change is clear, beyond the budget and its
 *      impact meets the same floors, both as measured and beyond the load's
 *      (impact: the smaller); clear as measured only: the waits for a CPU
 *      may explain it, NOT_COMPARABLE, why CPU_WAIT.
 * Everything else measured on both sides is "within noise" (why: not clear,
 * clear but small, or like the common change); "not comparable" when no
 * interval exists (too few calls, or a region missing from some of a side's
 * runs): repeat the runs. The direction is the estimate's sign.
 *
 * What the estimators need from a run (so that they run from aggregates,
 * without per-call durations in memory): per (region, rank) the count and
 * the exact sum of call durations (own or inclusive) and its values at a
 * few ranks (order statistics: a histogram's value at rank); per (region,
 * rank) the sums by segment of the net time; per rank the scheduling
 * summary (sp_sched.h). HL needs the whole distribution (weighted bucket
 * pairs of two histograms).
 *
 * Ownership: an sp_compare owns its entries and their names; it does not
 * keep pointers into the runs.
 */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_model.h"
#include "sp_sched.h"
#include "sp_strpool.h"

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
    SP_CMP_WHY_COMMON,        /* within noise: clear, but no more than the
                                 comparison's common change */
    SP_CMP_WHY_INTERFERENCE,  /* not comparable: its calls were preempted too
                                 often on a side (measured) for fast calls to
                                 be undisturbed */
    SP_CMP_WHY_CPU_WAIT,      /* not comparable: its total changed clearly,
                                 but not beyond the measured waits for a CPU
                                 in it */
} sp_cmp_why;

/* Which quantity decided a slower / faster verdict. */
typedef enum sp_cmp_basis {
    SP_CMP_BASIS_NONE = 0,
    SP_CMP_BASIS_TYPICAL, /* the typical time per rank */
    SP_CMP_BASIS_TOTAL,   /* the total: a tail change (waits, stalls) */
} sp_cmp_basis;

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
    double typical_time_s;   /* TYPICAL time per rank: typical call x calls per
                                rank (mean over runs); preempted calls barely
                                move it, unlike time_mean_s */
    double cpu_wait_s;       /* of time_mean_s, the estimated wait for a CPU
                                (measured; 0 without scheduling samples) */
    double net_time_s;       /* time_mean_s - cpu_wait_s */
    double preempt_per_call; /* measured preemptions per typical call
                                (0: not measured), the worst run's */
    uint32_t runs;           /* runs of this side in which the entry has calls */
    uint32_t ranks;          /* ranks that ran it (largest over runs) */
} sp_cmp_side;

typedef struct sp_cmp_entry {
    char *name;            /* region name (tree: the last region of the path) */
    int32_t depth;         /* tree: 1 = top level; regions: 0 */
    int32_t parent;        /* tree: index of the parent entry or -1 */
    sp_cmp_side base, cand;
    double quantile;       /* of the typical call (0 for HL) */
    /* The typical time per rank. */
    bool tested;           /* ratio_lo / ratio_hi are set */
    double ratio;          /* candidate / base typical time per rank (estimate;
                              when untested, the ratio of the typical times) */
    double ratio_lo, ratio_hi;
    double change_pct;     /* 100 (ratio - 1); +INF for new, -100 removed */
    double change_lo_pct, change_hi_pct;
    double rel_ratio;      /* ratio / the common change: what is judged */
    /* The total time per rank (time_mean_s). */
    bool total_tested;     /* total_lo_pct / total_hi_pct are set */
    double total_change_pct; /* 100 (cand / base - 1) of time_mean_s */
    double total_lo_pct, total_hi_pct; /* spans the intervals of the change
                              and of the change net of the waits for a CPU */
    double total_diff_s;   /* what is judged, s per rank: the smaller of the
                              change of time_mean_s as measured and beyond
                              what the machine's load explains (0 when they
                              disagree in sign) */
    bool total_raw_clear;  /* the change of time_mean_s is clear */
    bool total_net_clear;  /* and so is the change beyond the load's */
    double impact_s;       /* of the deciding quantity, s per rank: typical:
                              (rel_ratio - 1) x base.typical_time_s, or
                              total_diff_s when the total's change is clear the
                              same way and larger; total: total_diff_s; new:
                              the candidate's time per rank, removed: minus
                              the base's */
    double p_value;        /* of the typical test (informational): Welch's with
                              repeated runs, the Mann-Whitney p with HL; 1
                              for the quantile estimator and when untested */
    bool calls_changed;    /* calls per rank differ by more than 0.5 % */
    sp_cmp_verdict verdict;
    sp_cmp_why why;
    sp_cmp_basis basis;    /* slower / faster: which quantity decided */
} sp_cmp_entry;

typedef enum sp_cmp_estimator {
    SP_CMP_EST_QUANTILE = 0, /* the `quantile` of call durations (default) */
    SP_CMP_EST_HL,           /* Hodges-Lehmann */
} sp_cmp_estimator;

typedef struct sp_compare_options {
    sp_cmp_estimator estimator; /* SP_CMP_EST_QUANTILE */
    double quantile;       /* 0 (default): the lowest quantile with an interval,
                              1-25 %; else that quantile (0 < quantile < 1) */
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
    double common_ratio;     /* one run per side: the median per-call change
                                of the regions with an interval (1 when
                                fewer than 3); regions are judged against it */
    size_t common_n;         /* regions it is the median of */
    double uneven_pct;       /* |the common change| in %: a machine that ran
                                at another speed does not slow every region
                                alike (frequency, caches, memory and SMT
                                neighbours act on some code more), so a
                                region's change relative to the common one
                                counts only beyond the budget + this */
    bool undecided;          /* the common change is beyond the budget: one
                                run per side cannot tell the machine from
                                the code (check: exit 3, retry) */
    sp_sched_summary base_sched, cand_sched; /* waits for a CPU, each side's
                                runs added up (measured: all of them have
                                scheduling samples) */
    size_t n;
    sp_cmp_entry *entries;   /* regions: by |impact| descending, then name;
                                tree: depth first, siblings so ordered */
    size_t n_filtered;       /* regions left out by the filter */
    sp_strpool names_;       /* private: the entries' names (freed by
                                sp_compare_free) */
} sp_compare;

/* The aggregates (SP_AGG_* flags, sp_agg.h) a run read aggregate-first
 * needs for sp_compare_runs: segments and waits for a CPU, and with tree
 * the per-path histograms. */
#define SP_COMPARE_AGG_FLAGS(tree) (SP_AGG_SEGMENTS | ((tree) ? SP_AGG_NODE_HIST : 0u))

/*
 * Compare runs: base[0..nb), cand[0..nc), nb, nc >= 1. Each run is read
 * from its aggregates (run->agg) when they hold SP_COMPARE_AGG_FLAGS(tree);
 * a run with calls in memory (built by hand, v1 files) goes through the
 * aggregate pass here, so it need not be analyzed. o may be NULL
 * (defaults). NULL with sp_last_error() on SP_EINVAL (no runs, bad option,
 * a run read without those aggregates) or SP_ENOMEM. The per (key, rank)
 * figures, segments and duration histograms (sp_hist.h: memory per
 * distinct bucket, never per call) come from the aggregates; the order
 * statistics are read from the histograms (within SP_HIST_REL_ERROR), HL
 * from their weighted buckets.
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

/* The total's change: "+24.8 % [+21.0, +28.9]", "+12.0 %" (untested),
 * "new", "removed". Returns buf. */
char *sp_cmp_total_text(const sp_cmp_entry *e, char *buf, size_t n);

/* For a slower / faster verdict the total decided (a tail change): what
 * that means, for a note; NULL otherwise. */
const char *sp_cmp_basis_text(const sp_cmp_entry *e);

/* The common change in a sentence for headers: "+3.1 %: the median
 * typical-call change of 17 regions; each region is judged against it".
 * Returns buf. */
char *sp_compare_common_text(const sp_compare *c, char *buf, size_t n);

/* Both sides' waits for a CPU: "base waited 4 % of its run for a CPU (12
 * preemptions); candidate waited 31 % ..." or "... not measured".
 * Returns buf. */
char *sp_compare_sched_text(const sp_compare *c, char *buf, size_t n);

/* One of an entry's two quantities, for a surface with room for one (a
 * chart's row): its name, both sides, its change and interval. */
typedef struct sp_cmp_quantity {
    const char *name;      /* "typical" or "total" */
    double base_s, cand_s; /* time per rank on each side */
    double change_pct, lo_pct, hi_pct;
    bool tested;           /* lo_pct / hi_pct are set */
} sp_cmp_quantity;

/* The quantity e's verdict rests on: the total for a tail change and for
 * a change the waits for a CPU may explain, else the typical time. */
void sp_cmp_entry_quantity(const sp_cmp_entry *e, sp_cmp_quantity *q);

/* "calls 38 -> 76 per rank" when calls_changed, else "". Returns buf. */
char *sp_cmp_calls_text(const sp_cmp_entry *e, char *buf, size_t n);

/* Does e fail the `check` gate? SLOWER always (the model already applied
 * the budget); NEW with fail_on_new; NOT_COMPARABLE with fail_undecided
 * when its rough change (ratio of the observed typical times) is above
 * min_change_pct and the floors. */
bool sp_cmp_entry_fails(const sp_compare *c, const sp_cmp_entry *e, bool fail_on_new,
                        bool fail_undecided);

/* Is e undecided because of measured interference (NOT_COMPARABLE, why
 * INTERFERENCE or CPU_WAIT) with a rough change over the budget and floors? */
bool sp_cmp_entry_undecided(const sp_compare *c, const sp_cmp_entry *e);

/* The outcome of the `check` gate: FAIL when an entry fails; else
 * UNDECIDED when the comparison is undecided (c->undecided) or an entry is
 * (sp_cmp_entry_undecided): the runs were disturbed, repeat them (with
 * fail_undecided: FAIL); else PASS. */
typedef enum sp_cmp_gate {
    SP_CMP_GATE_PASS = 0,
    SP_CMP_GATE_FAIL,
    SP_CMP_GATE_UNDECIDED,
} sp_cmp_gate;
sp_cmp_gate sp_compare_gate(const sp_compare *c, bool fail_on_new, bool fail_undecided);

/* The entry named name (tree: the first at that name), or NULL. */
const sp_cmp_entry *sp_compare_find(const sp_compare *c, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SP_COMPARE_H */
