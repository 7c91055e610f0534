/* SPDX-License-Identifier: MIT */
/*
 * test_compare_stats.c - the statistics of the comparison model against
 * reference values from scipy and numpy brute force
 * (compare_reference.h, written by compare_reference.py), plus properties
 * the references cannot cover: the interval inverts the test, thinning of
 * huge samples, degenerate input.
 */
#include <math.h>
#include <stdlib.h>

#include "compare_reference.h"
#include "sp_compare_stats.h"
#include "sp_test.h"

#define N_OF(a) (sizeof(a) / sizeof *(a))

static void test_normal_quantile(void)
{
    for (size_t i = 0; i < N_OF(ref_norm_p); i++)
        ASSERT_NEAR(sp__normal_quantile(ref_norm_p[i]), ref_norm_q[i], 1e-12);
    ASSERT(isinf(sp__normal_quantile(0)) && sp__normal_quantile(0) < 0);
}

static void test_student_t(void)
{
    size_t nt = N_OF(ref_t_x), nq = N_OF(ref_t_q);
    for (size_t d = 0; d < N_OF(ref_t_df); d++) {
        for (size_t i = 0; i < nt; i++)
            ASSERT_NEAR(sp__student_t_cdf(ref_t_x[i], ref_t_df[d]), ref_t_cdf[d * nt + i], 1e-12);
        for (size_t i = 0; i < nq; i++) {
            /* scipy's own ppf agrees with its cdf to ~1e-9 relative (at df
             * 30, q 0.6), so: the reference within 1e-8, and our inverse of
             * the (reference-checked) cdf to 1e-12. */
            double want = ref_t_ppf[d * nq + i];
            double got = sp__student_t_quantile(ref_t_q[i], ref_t_df[d]);
            ASSERT_NEAR(got, want, 1e-8 * fabs(want) + 1e-12);
            ASSERT_NEAR(sp__student_t_cdf(got, ref_t_df[d]), ref_t_q[i], 1e-12);
            /* and the lower tail by symmetry */
            ASSERT_NEAR(sp__student_t_quantile(1 - ref_t_q[i], ref_t_df[d]), -got,
                        1e-9 * fabs(want) + 1e-12);
        }
    }
}

static void test_mw_exact(void)
{
    for (size_t c = 0; c < N_OF(ref_mw_m); c++) {
        size_t m = ref_mw_m[c], n = ref_mw_n[c], nu = m * n + 1;
        ASSERT(sp__mw_exact_feasible(m, n));
        double *cdf = malloc(nu * sizeof *cdf);
        ASSERT(cdf);
        ASSERT_EQ_I(sp__mw_exact_cdf(m, n, nu - 1, cdf), 0);
        for (size_t u = 0; u < nu; u++)
            ASSERT_MSG(fabs(cdf[u] - ref_mw_cdf[c][u]) < 1e-14, "%zu x %zu: P(U <= %zu) %.17g vs %.17g",
                       m, n, u, cdf[u], ref_mw_cdf[c][u]);
        /* symmetric in m and n */
        ASSERT_EQ_I(sp__mw_exact_cdf(n, m, nu - 1, cdf), 0);
        for (size_t u = 0; u < nu; u++)
            ASSERT_NEAR(cdf[u], ref_mw_cdf[c][u], 1e-14);
        free(cdf);
    }
    /* 30 x 30 has C(60, 30) ~ 1.2e17 arrangements: past exact doubles. */
    ASSERT(!sp__mw_exact_feasible(30, 30));
    ASSERT(sp__mw_exact_feasible(20, 20));
}

static void test_hl_reference(void)
{
    for (size_t c = 0; c < N_OF(ref_hl_cases); c++) {
        const ref_hl *r = &ref_hl_cases[c];
        sp__shift_ci s;
        ASSERT_EQ_I(sp__hl_shift(r->x, r->m, r->y, r->n, 0.05, &s), 0);
        ASSERT_MSG(fabs(s.estimate - r->estimate) < 1e-12, "case %zu: estimate %.17g vs %.17g", c,
                   s.estimate, r->estimate);
        ASSERT_MSG(s.ok == (r->a >= 0), "case %zu: ok %d, critical value %ld", c, s.ok, r->a);
        if (r->a >= 0) {
            ASSERT_MSG(fabs(s.lo - r->lo) < 1e-12 && fabs(s.hi - r->hi) < 1e-12,
                       "case %zu: [%.17g, %.17g] vs [%.17g, %.17g]", c, s.lo, s.hi, r->lo, r->hi);
            ASSERT(s.lo <= s.estimate && s.estimate <= s.hi);
        }
        ASSERT_MSG(fabs(s.p_value - r->p) < 1e-9 * fmax(1, r->p) + 1e-15,
                   "case %zu: p %.17g vs %.17g", c, s.p_value, r->p);
        ASSERT(!s.thinned);
    }
}

/* Mann-Whitney U of y - d against x (ties 1/2), by counting pairs. */
static double u_of(const double *x, size_t m, const double *y, size_t n, double d)
{
    double u = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            u += y[j] - d > x[i] ? 1 : y[j] - d == x[i] ? 0.5 : 0;
    return u;
}

/* The interval is the set of shifts the test does not reject: just inside
 * its ends U stays within (a, N - a); just outside it leaves. */
static void test_hl_inverts_test(void)
{
    for (size_t c = 0; c < N_OF(ref_hl_cases); c++) {
        const ref_hl *r = &ref_hl_cases[c];
        if (r->a < 0)
            continue;
        sp__shift_ci s;
        ASSERT_EQ_I(sp__hl_shift(r->x, r->m, r->y, r->n, 0.05, &s), 0);
        double big_n = (double)(r->m * r->n), eps = 1e-9;
        double a = (double)r->a;
        /* Rejected (U >= N - a or U <= a) just outside, not just inside. */
        ASSERT(u_of(r->x, r->m, r->y, r->n, s.lo - eps) >= big_n - a);
        ASSERT(u_of(r->x, r->m, r->y, r->n, s.hi + eps) <= a);
        if (c != 4) { /* continuous data: no tie at the ends */
            ASSERT(u_of(r->x, r->m, r->y, r->n, s.lo + eps) < big_n - a);
            ASSERT(u_of(r->x, r->m, r->y, r->n, s.hi - eps) > a);
        }
    }
}

/* splitmix64 -> normal */
static double gauss(uint64_t *st)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        uint64_t z = (*st += UINT64_C(0x9E3779B97F4A7C15));
        z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
        z ^= z >> 31;
        u[k] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Samples past SP__HL_MAX_VALUES are thinned; the estimate still finds the
 * true shift and the interval covers it. */
static void test_hl_thinned(void)
{
    size_t m = 700000, n = 500000;
    double *x = malloc(m * sizeof *x), *y = malloc(n * sizeof *y);
    ASSERT(x && y);
    uint64_t st = 7;
    for (size_t i = 0; i < m; i++)
        x[i] = gauss(&st);
    for (size_t i = 0; i < n; i++)
        y[i] = 0.05 + gauss(&st);
    qsort(x, m, sizeof *x, cmp_double);
    qsort(y, n, sizeof *y, cmp_double);
    sp__shift_ci s;
    ASSERT_EQ_I(sp__hl_shift(x, m, y, n, 0.05, &s), 0);
    ASSERT(s.thinned && s.ok && !s.exact);
    ASSERT_EQ_U(s.m, SP__HL_MAX_VALUES);
    ASSERT_EQ_U(s.n, SP__HL_MAX_VALUES);
    ASSERT_MSG(s.lo < 0.05 && 0.05 < s.hi, "[%g, %g]", s.lo, s.hi);
    ASSERT_NEAR(s.estimate, 0.05, 0.01);
    ASSERT(s.hi - s.lo < 0.02);
    free(x);
    free(y);
}

static void test_hl_degenerate(void)
{
    double same[] = {3, 3, 3, 3, 3};
    sp__shift_ci s;
    ASSERT_EQ_I(sp__hl_shift(same, 5, same, 5, 0.05, &s), 0);
    ASSERT(s.ok);
    ASSERT_NEAR(s.estimate, 0, 0);
    ASSERT_NEAR(s.lo, 0, 0);
    ASSERT_NEAR(s.hi, 0, 0);
    double one[] = {1}, two[] = {2};
    ASSERT_EQ_I(sp__hl_shift(one, 1, two, 1, 0.05, &s), 0);
    ASSERT(!s.ok);
    ASSERT_NEAR(s.estimate, 1, 0);
    ASSERT(sp__hl_shift(one, 0, two, 1, 0.05, &s) != 0);
}

static void test_quantile_ranks(void)
{
    for (size_t c = 0; c < N_OF(ref_ranks_cases); c++) {
        const ref_ranks *r = &ref_ranks_cases[c];
        size_t l, u;
        bool ok = sp__quantile_ci_ranks(r->n, r->q, r->gamma, &l, &u);
        /* exact up to 100000 values: the same ranks as scipy's binomial */
        ASSERT_MSG(l == r->l && u == r->u, "n %zu q %g: [%zu, %zu] vs scipy [%zu, %zu]", r->n,
                   r->q, l, u, r->l, r->u);
        ASSERT(ok == (r->l >= 1 && r->u <= r->n));
    }
    /* Above that, the normal approximation: within one rank of exact. */
    size_t l, u;
    ASSERT(sp__quantile_ci_ranks(1000000, 0.25, 0.025, &l, &u));
    double sd = sqrt(1e6 * 0.25 * 0.75), z = 2.241402727604947; /* norm.ppf(1 - 0.0125) */
    ASSERT(fabs((double)l - (250000 + 0.5 - z * sd)) <= 1.5);
    ASSERT(fabs((double)u - (250000 + 0.5 + z * sd)) <= 1.5);
    ASSERT_NEAR(sp__binom_cdf(1, 4, 0.25), 0.73828125, 1e-12);
    ASSERT_NEAR(sp__binom_cdf(-1, 4, 0.25), 0, 0);
}

static void test_quantile_shift_reference(void)
{
    for (size_t c = 0; c < N_OF(ref_qshift_cases); c++) {
        const ref_qshift *r = &ref_qshift_cases[c];
        sp__shift_ci s;
        sp__quantile_shift(r->x, r->m, r->y, r->n, r->q, 0.05, &s);
        ASSERT(s.ok);
        ASSERT_NEAR(s.estimate, r->estimate, 1e-12);
        ASSERT_NEAR(s.lo, r->lo, 1e-12);
        ASSERT_NEAR(s.hi, r->hi, 1e-12);
    }
    /* 4 and 4 values: no 97.5 % interval of a quartile. */
    double a[] = {1, 2, 3, 4};
    sp__shift_ci s;
    sp__quantile_shift(a, 4, a, 4, 0.25, 0.05, &s);
    ASSERT(!s.ok);
    ASSERT_NEAR(s.estimate, 0, 0);
}

static void test_welch_reference(void)
{
    for (size_t c = 0; c < N_OF(ref_welch_cases); c++) {
        const ref_welch *r = &ref_welch_cases[c];
        sp__welch_ci w;
        sp__welch(r->x, r->m, r->y, r->n, 0.05, &w);
        ASSERT(w.ok);
        ASSERT_NEAR(w.estimate, r->estimate, 1e-12);
        ASSERT_NEAR(w.df, r->df, 1e-9);
        ASSERT_NEAR(w.lo, r->lo, 1e-9 * fmax(1, fabs(r->lo)));
        ASSERT_NEAR(w.hi, r->hi, 1e-9 * fmax(1, fabs(r->hi)));
        ASSERT_NEAR(w.p_value, r->p, 1e-9);
    }
}

static void test_welch_small(void)
{
    double a[] = {1.0}, b[] = {1.1, 1.2, 1.3};
    sp__welch_ci w;
    sp__welch(a, 1, b, 3, 0.05, &w);
    /* The 3 values' variance (0.01) stands for both sides, df 2. */
    ASSERT(w.ok);
    ASSERT_NEAR(w.df, 2, 0);
    ASSERT_NEAR(w.se, sqrt(0.01 * (1 + 1.0 / 3)), 1e-12);
    sp__welch(a, 1, a, 1, 0.05, &w);
    ASSERT(!w.ok);
    double c[] = {2, 2, 2};
    sp__welch(c, 3, c, 3, 0.05, &w);
    ASSERT(w.ok && w.lo == 0 && w.hi == 0 && w.p_value == 1);
}

int main(void)
{
    RUN(test_normal_quantile);
    RUN(test_student_t);
    RUN(test_mw_exact);
    RUN(test_hl_reference);
    RUN(test_hl_inverts_test);
    RUN(test_hl_thinned);
    RUN(test_hl_degenerate);
    RUN(test_quantile_ranks);
    RUN(test_quantile_shift_reference);
    RUN(test_welch_reference);
    RUN(test_welch_small);
    return sp_test_summary();
}
