/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_stats.h - the statistics behind the comparison model
 * (sp_compare.h): a two-sample location shift with a distribution-free
 * confidence interval (one run per side), a Welch interval on logarithms
 * (repeated runs per side), and the distributions they need. Pure
 * computation; internal to analysis, declared here for the unit tests.
 *
 * Every interval has level 1 - alpha (two-sided). Reference values for the
 * tests come from scipy (tests/analysis/compare_reference.py).
 */
#ifndef SP_COMPARE_STATS_H
#define SP_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Standard normal quantile: x with P(Z <= x) = p, 0 < p < 1 (|error| <
 * 1e-14; Acklam's rational approximation refined by one Halley step). */
double sp__normal_quantile(double p);

/* Student t distribution with df > 0 degrees of freedom (df need not be an
 * integer, as Welch's df is not): P(T <= t), and its inverse for 0 < p < 1.
 * Through the regularized incomplete beta function; |error| < 1e-12. */
double sp__student_t_cdf(double t, double df);
double sp__student_t_quantile(double p, double df);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double sp__incomplete_beta(double a, double b, double x);

/*
 * The exact null distribution of the Mann-Whitney U statistic of samples of
 * sizes m and n without ties: cdf[u] = P(U <= u) for u = 0 .. umax. The
 * counts of U are the coefficients of the Gaussian binomial [m+n choose m]_q
 * = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), computed in doubles, so this
 * is exact only while C(m+n, m) < 2^52: sp__mw_exact_feasible() says when.
 * 0, SP_EINVAL (not feasible) or SP_ENOMEM.
 */
bool sp__mw_exact_feasible(size_t m, size_t n);
int sp__mw_exact_cdf(size_t m, size_t n, size_t umax, double *cdf);

/* At most this many values per side enter the shift estimate: a larger
 * sample is thinned to this many evenly spaced order statistics (see
 * sp__hl_shift). 2^18 keeps a 10M-call region at ~0.1 s. */
#define SP__HL_MAX_VALUES 262144

/* A shift (y - x) with its confidence interval. */
typedef struct sp__shift_ci {
    bool ok;         /* the sizes allow an interval at this alpha (else only
                        estimate is set, when both sides have a value) */
    bool exact;      /* critical value from the exact U distribution */
    bool thinned;    /* a side had more than SP__HL_MAX_VALUES values */
    size_t m, n;     /* values used per side (after thinning) */
    double estimate; /* Hodges-Lehmann: median of all y_j - x_i */
    double lo, hi;   /* interval: order statistics a+1 and N-a of the N = m n
                        differences, a = the critical value of U */
    double p_value;  /* two-sided Mann-Whitney p of shift 0 (informational):
                        exact when `exact`, else normal with tie and
                        continuity correction (scipy's "asymptotic") */
} sp__shift_ci;

/*
 * Hodges-Lehmann two-sample shift of y against x, both sorted ascending,
 * with the distribution-free interval that inverts the Mann-Whitney test
 * (Lehmann 1963; Hollander & Wolfe ch. 4): CI = [D(a+1), D(N-a)] where D(k)
 * is the k-th smallest of the N = m n pairwise differences and a the
 * largest integer with P(U <= a) <= alpha/2 (exact distribution while it is
 * feasible and m n <= 4e6, else the normal approximation with tie-corrected
 * variance and continuity correction: a = floor(N/2 - 1/2 - z sigma)).
 *
 * The N differences are never formed: D(k) is found by bisection on the
 * value with an O(m + n) count of the differences below it (both arrays are
 * sorted, so one monotone pointer suffices), then snapped to the smallest
 * actual difference above the bracket. About 40 passes, O((m + n) log)
 * overall. A side with more than SP__HL_MAX_VALUES values is first thinned
 * to that many evenly spaced order statistics (value at index
 * floor((i + 1/2) m / K)); the interval is then that of K values, which is
 * wider than the full sample's would be, i.e. conservative.
 * 0, SP_EINVAL (a side empty) or SP_ENOMEM.
 */
int sp__hl_shift(const double *x, size_t m, const double *y, size_t n, double alpha,
                 sp__shift_ci *out);

/* sp__hl_shift of samples given as distinct values with counts (x[i]
 * appears wx[i] times; both sorted ascending, counts > 0): the values of
 * histogram buckets. Never thinned; m and n of out are the total counts.
 * 0, SP_EINVAL (a side empty, m n over 2^64) or SP_ENOMEM. */
int sp__hl_shift_weighted(const double *x, const uint64_t *wx, size_t mx, const double *y,
                          const uint64_t *wy, size_t my, double alpha, sp__shift_ci *out);

/* Binomial P(X <= k) for X ~ Bin(n, p): exact (sum of the log-space
 * probability function) up to n = 100000, the normal approximation with
 * continuity correction above. */
double sp__binom_cdf(long k, size_t n, double p);

/* The q-quantile of sorted x (n >= 1) with numpy's default linear
 * interpolation: position h = q (n - 1), x[floor h] + frac (x[ceil h] -
 * x[floor h]). */
double sp__quantile_sorted(const double *x, size_t n, double q);

/*
 * Distribution-free confidence interval of the q-quantile from order
 * statistics: [x(l), x(u)] (1-based) with l the largest rank such that
 * P(Bin(n, q) <= l - 1) <= gamma/2 and u the smallest with
 * P(Bin(n, q) >= u) <= gamma/2, so P(x(l) <= xi_q <= x(u)) >= 1 - gamma.
 * false when n is too small for either end (then *l / *u are 0 / n + 1).
 */
bool sp__quantile_ci_ranks(size_t n, double q, double gamma, size_t *l, size_t *u);

/*
 * The change of the q-quantile from x to y, both sorted ascending: estimate
 * = quantile(y) - quantile(x) (on log durations: the log of the ratio of
 * the quantiles), interval [lo_y - hi_x, hi_y - lo_x] from the two order
 * statistic intervals at level 1 - alpha/2 each (Bonferroni), so its
 * coverage is at least 1 - alpha whatever the distributions. Fills the
 * estimate, lo, hi, ok, m, n of out (exact = true: no approximation but
 * the binomial's above 100000 values; p_value is not computed: 1).
 */
void sp__quantile_shift(const double *x, size_t m, const double *y, size_t n, double q,
                        double alpha, sp__shift_ci *out);

/* The typical call's quantile for samples of n values at level 1 - alpha:
 * the lowest q whose order-statistic interval (sp__quantile_shift, at
 * 1 - alpha/2 a side) has a lower end, 1 - (alpha/4)^(1/n), within
 * [0.01, 0.25] (n <= 15 at alpha 0.05 gives 0.25: no interval). */
double sp__typical_quantile(uint64_t n, double alpha);

/* A sorted sample read through an accessor: at(ctx, i) is its i-th
 * smallest value (0-based), i < n. The comparison model reads order
 * statistics of per-rank strata this way without merging them. */
typedef struct sp__sorted {
    size_t n;
    double (*at)(const void *ctx, size_t i);
    const void *ctx;
} sp__sorted;

/* sp__quantile_shift over accessed samples (the same computation: it reads
 * at most six order statistics per side). */
void sp__quantile_shift_acc(const sp__sorted *x, const sp__sorted *y, double q, double alpha,
                            sp__shift_ci *out);

/* A difference of means with Welch's interval. */
typedef struct sp__welch_ci {
    bool ok;          /* both sides together have a variance estimate */
    double estimate;  /* mean(y) - mean(x) */
    double lo, hi;    /* estimate -+ t(1 - alpha/2, df) se */
    double se, df;    /* standard error, Welch-Satterthwaite df */
    double p_value;   /* two-sided (scipy.stats.ttest_ind(equal_var=False)) */
} sp__welch_ci;

/*
 * Welch's two-sample t interval for mean(y) - mean(x). With one value on a
 * side and >= 2 on the other, the other side's variance stands for both
 * (se = s sqrt(1/m + 1/n), df = n_other - 1): the runs are assumed equally
 * noisy. ok is false when neither side has 2 values. se = 0 (identical
 * values) gives the interval [estimate, estimate].
 */
void sp__welch(const double *x, size_t m, const double *y, size_t n, double alpha,
               sp__welch_ci *out);

#ifdef __cplusplus
}
#endif

#endif
