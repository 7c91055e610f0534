/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_stats.c - distributions, the Hodges-Lehmann shift with its
 * Mann-Whitney interval, and Welch's interval (see sp_compare_stats.h).
 */
#include "sp_compare_stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

/* ---------------------------------------------------------------- normal */

double sp__normal_quantile(double p)
{
    /* P. J. Acklam's rational approximation (relative error 1.15e-9) ... */
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    if (!(p > 0))
        return -INFINITY;
    if (!(p < 1))
        return INFINITY;
    if (p > 0.5) /* 1 - p is exact here; the lower tail refines better */
        return -sp__normal_quantile(1 - p);
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        double q = sqrt(-2 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    /* ... refined by one Halley step on the exact CDF (erfc). */
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* ---------------------------------------------------------------- beta, t */

/* Continued fraction of the incomplete beta (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return h;
}

/* I_x(a, b) with y = 1 - x given separately (accurate when x is near 1). */
static double incomplete_beta2(double a, double b, double x, double y)
{
    if (!(x > 0))
        return 0;
    if (!(y > 0))
        return 1;
    double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
    /* The fraction converges fast below the mean; use symmetry above it. */
    if (x < (a + 1) / (a + b + 2))
        return bt * beta_cf(a, b, x) / a;
    return 1 - bt * beta_cf(b, a, y) / b;
}

double sp__incomplete_beta(double a, double b, double x)
{
    return incomplete_beta2(a, b, x, 1 - x);
}

double sp__student_t_cdf(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1 : 0;
    /* Both x = df / (df + t^2) and 1 - x = t^2 / (df + t^2) are formed
     * directly, so neither small nor large |t| loses digits. */
    double den = df + t * t;
    double tail = 0.5 * incomplete_beta2(df / 2, 0.5, df / den, t * t / den);
    return t > 0 ? 1 - tail : tail;
}

double sp__student_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
    if (p == 0.5)
        return 0;
    double q = p > 0.5 ? p : 1 - p; /* solve for the upper half, t > 0 */
    double lo = 0, hi = 1;
    while (sp__student_t_cdf(hi, df) < q && hi < 1e300)
        hi *= 2;
    for (int it = 0; it < 2000 && hi - lo > 1e-15 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        if (sp__student_t_cdf(mid, df) < q)
            lo = mid;
        else
            hi = mid;
    }
    double t = 0.5 * (lo + hi);
    return p > 0.5 ? t : -t;
}

/* ---------------------------------------------------------------- exact U */

static double log_choose(size_t n, size_t k)
{
    return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

bool sp__mw_exact_feasible(size_t m, size_t n)
{
    if (m == 0 || n == 0)
        return false;
    /* Counts up to C(m+n, m) must be exact doubles (2^52 leaves a margin for
     * the negative intermediate terms of the product). */
    return log_choose(m + n, m < n ? m : n) < 52 * M_LN2 && (double)m * (double)n <= 4e6;
}

int sp__mw_exact_cdf(size_t m, size_t n, size_t umax, double *cdf)
{
    if (!cdf || !sp__mw_exact_feasible(m, n))
        return sp__error(SP_EINVAL, "exact Mann-Whitney distribution not feasible for %zu x %zu",
                         m, n);
    if (m > n) { /* symmetric in m, n: fewer factors with the smaller */
        size_t t = m;
        m = n;
        n = t;
    }
    size_t deg = m * n, top = umax < deg ? umax : deg;
    double *c = calloc(top + 1, sizeof *c);
    if (!c)
        return sp__error(SP_ENOMEM, "out of memory for the exact U distribution");
    c[0] = 1;
    /* Truncating at degree `top` is exact: both steps only read lower
     * degrees. Multiply by (1 - q^(n+i)), then divide by (1 - q^i). */
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t k = top; k >= s; k--)
            c[k] -= c[k - s];
        for (size_t k = i; k <= top; k++)
            c[k] += c[k - i];
    }
    /* C(m+n, m) exactly: every partial product C(n+i, i) is an integer. */
    unsigned __int128 exact_total = 1;
    for (size_t i = 1; i <= m; i++)
        exact_total = exact_total * (n + i) / i;
    double total = (double)exact_total;
    double acc = 0;
    for (size_t u = 0; u <= umax; u++) {
        if (u <= top)
            acc += c[u];
        cdf[u] = u >= deg ? 1.0 : fmin(1.0, acc / total);
    }
    free(c);
    return 0;
}

/* ---------------------------------------------------------------- shift */

/* Up to 4 order statistics of the pairwise differences found together. */
#define NTARGETS 4

/* A sorted sample of distinct values with counts (w NULL: each value
 * once). */
typedef struct wsample {
    const double *v;
    const uint64_t *w;
    size_t len;  /* values */
    uint64_t n;  /* their total count */
} wsample;

static uint64_t wt(const wsample *s, size_t i) { return s->w ? s->w[i] : 1; }

/* For each threshold t[k]: the number of pairs with y_j - x_i <= t[k]
 * (weighted by both counts). One pass, a monotone pointer per threshold. */
static void count_pairs(const wsample *x, const wsample *y, const double *t, size_t nt,
                        uint64_t *cnt)
{
    size_t j[NTARGETS] = {0};
    uint64_t below[NTARGETS] = {0}; /* count of y before pointer j */
    for (size_t k = 0; k < nt; k++)
        cnt[k] = 0;
    for (size_t i = 0; i < x->len; i++) {
        for (size_t k = 0; k < nt; k++) {
            double lim = x->v[i] + t[k];
            size_t p = j[k];
            while (p < y->len && y->v[p] <= lim)
                below[k] += wt(y, p++);
            j[k] = p;
            cnt[k] += wt(x, i) * below[k];
        }
    }
}

/* The smallest difference y_j - x_i that is > t. */
static double next_difference(const wsample *x, const wsample *y, double t)
{
    double best = INFINITY;
    size_t j = 0;
    for (size_t i = 0; i < x->len; i++) {
        while (j < y->len && !(y->v[j] - x->v[i] > t))
            j++;
        if (j == y->len)
            break;
        double d = y->v[j] - x->v[i];
        if (d < best)
            best = d;
    }
    return best;
}

/* The k-th smallest (1-based, k[q] in 1..m n) of the differences, for each
 * q < nk, by simultaneous bisection on the value. */
static void select_differences(const wsample *x, const wsample *y, const uint64_t *k, size_t nk,
                               double *out)
{
    double dmin = y->v[0] - x->v[x->len - 1], dmax = y->v[y->len - 1] - x->v[0];
    double lo[NTARGETS], hi[NTARGETS], mid[NTARGETS];
    uint64_t cnt[NTARGETS];
    bool done[NTARGETS];
    /* count(lo) < k <= count(hi) throughout. */
    double below = dmin - fmax(1.0, fabs(dmin)) * 1e-9 - 1e-300;
    for (size_t q = 0; q < nk; q++) {
        lo[q] = below;
        hi[q] = dmax;
        done[q] = false;
    }
    double tol = 1e-12 * fmax(1.0, fmax(fabs(dmin), fabs(dmax)));
    for (int it = 0; it < 200; it++) {
        size_t active = 0;
        for (size_t q = 0; q < nk; q++) {
            mid[q] = 0.5 * (lo[q] + hi[q]);
            if (!done[q] && (hi[q] - lo[q] <= tol || mid[q] <= lo[q] || mid[q] >= hi[q]))
                done[q] = true;
            active += !done[q];
        }
        if (!active)
            break;
        count_pairs(x, y, mid, nk, cnt);
        for (size_t q = 0; q < nk; q++) {
            if (done[q])
                continue;
            if (cnt[q] >= k[q])
                hi[q] = mid[q];
            else
                lo[q] = mid[q];
        }
    }
    /* Snap to an actual difference: the smallest one above lo is in
     * (lo, hi], and the bracket is narrower than any gap we care about. */
    for (size_t q = 0; q < nk; q++) {
        double v = next_difference(x, y, lo[q]);
        out[q] = v <= hi[q] ? v : hi[q];
    }
}

/* Evenly spaced order statistics of sorted a (n > cap) into out (cap). */
static void thin(const double *a, size_t n, size_t cap, double *out)
{
    for (size_t i = 0; i < cap; i++) {
        size_t at = (size_t)(((double)i + 0.5) * (double)n / (double)cap);
        out[i] = a[at < n ? at : n - 1];
    }
}

/* U of y (pairs with y > x, ties 1/2) and the tie term sum(t^3 - t) of the
 * pooled sample, by one merge walk over the sorted samples. */
static void rank_stats(const wsample *x, const wsample *y, double *u, double *ties)
{
    double rank_sum_y = 0, pos = 0, tt = 0;
    size_t i = 0, j = 0;
    while (i < x->len || j < y->len) {
        double v = (j >= y->len || (i < x->len && x->v[i] <= y->v[j])) ? x->v[i] : y->v[j];
        double tx = 0, ty = 0;
        while (i < x->len && x->v[i] == v)
            tx += (double)wt(x, i++);
        while (j < y->len && y->v[j] == v)
            ty += (double)wt(y, j++);
        double t = tx + ty;
        rank_sum_y += ty * (pos + (t + 1) / 2);
        tt += t * t * t - t;
        pos += t;
    }
    *u = rank_sum_y - (double)y->n * ((double)y->n + 1) / 2;
    *ties = tt;
}

/* The shift of two prepared samples (see sp__hl_shift). */
static int hl_shift(const wsample *x, const wsample *y, double alpha, sp__shift_ci *out)
{
    uint64_t m = x->n, n = y->n, big_n = m * n;
    double dn = (double)big_n;
    out->m = (size_t)m;
    out->n = (size_t)n;
    /* The critical value a: largest with P(U <= a) <= alpha / 2. */
    double u, ties;
    rank_stats(x, y, &u, &ties);
    long long a = -1;
    int rc = 0;
    if (sp__mw_exact_feasible((size_t)m, (size_t)n)) {
        out->exact = true;
        size_t umax = (size_t)(big_n / 2 + 1);
        double *cdf = malloc((umax + 1) * sizeof *cdf);
        rc = cdf ? sp__mw_exact_cdf((size_t)m, (size_t)n, umax, cdf)
                 : sp__error(SP_ENOMEM, "out of memory for the exact U distribution");
        if (!rc) {
            while ((size_t)(a + 1) <= umax && cdf[a + 1] <= alpha / 2 * (1 + 1e-12))
                a++;
            /* Two-sided exact p as scipy: 2 P(U >= max(U, N - U)). */
            double umin = floor(fmin(u, dn - u));
            out->p_value = fmin(1.0, 2 * cdf[(size_t)umin]);
        }
        free(cdf);
    } else {
        double np = (double)(m + n);
        double var = dn / 12 * ((np + 1) - ties / (np * (np - 1)));
        double z = sp__normal_quantile(1 - alpha / 2);
        double sd = sqrt(var > 0 ? var : 0);
        a = (long long)floor(dn / 2 - 0.5 - z * sd);
        if (a >= (long long)(big_n / 2))
            a = -1; /* no spread at all: no interval narrower than a point */
        double dev = u - dn / 2;
        double adj = fabs(dev) <= 0.5 ? 0 : dev - copysign(0.5, dev);
        out->p_value = sd > 0 ? erfc(fabs(adj / sd) / sqrt(2.0)) : 1.0;
    }
    if (!rc) {
        uint64_t k[NTARGETS];
        size_t nk = 0;
        k[nk++] = (big_n + 1) / 2; /* lower median */
        k[nk++] = big_n / 2 + 1;   /* upper median (same when N is odd) */
        if (a >= 0) {
            k[nk++] = (uint64_t)a + 1;
            k[nk++] = big_n - (uint64_t)a;
        }
        double v[NTARGETS];
        select_differences(x, y, k, nk, v);
        out->estimate = 0.5 * (v[0] + v[1]);
        if (a >= 0) {
            out->ok = true;
            out->lo = v[2];
            out->hi = v[3];
        }
    }
    return rc;
}

int sp__hl_shift(const double *x, size_t m, const double *y, size_t n, double alpha,
                 sp__shift_ci *out)
{
    if (!out || !x || !y || m == 0 || n == 0 || !(alpha > 0 && alpha < 1))
        return sp__error(SP_EINVAL, "sp__hl_shift: empty sample or bad alpha");
    memset(out, 0, sizeof *out);
    double *tx = NULL, *ty = NULL;
    if (m > SP__HL_MAX_VALUES || n > SP__HL_MAX_VALUES) {
        out->thinned = true;
        if (m > SP__HL_MAX_VALUES) {
            tx = malloc(SP__HL_MAX_VALUES * sizeof *tx);
            if (!tx)
                return sp__error(SP_ENOMEM, "out of memory thinning %zu values", m);
            thin(x, m, SP__HL_MAX_VALUES, tx);
            x = tx;
            m = SP__HL_MAX_VALUES;
        }
        if (n > SP__HL_MAX_VALUES) {
            ty = malloc(SP__HL_MAX_VALUES * sizeof *ty);
            if (!ty) {
                free(tx);
                return sp__error(SP_ENOMEM, "out of memory thinning %zu values", n);
            }
            thin(y, n, SP__HL_MAX_VALUES, ty);
            y = ty;
            n = SP__HL_MAX_VALUES;
        }
    }
    wsample a = {x, NULL, m, m}, b = {y, NULL, n, n};
    int rc = hl_shift(&a, &b, alpha, out);
    free(tx);
    free(ty);
    return rc;
}

int sp__hl_shift_weighted(const double *x, const uint64_t *wx, size_t mx, const double *y,
                          const uint64_t *wy, size_t my, double alpha, sp__shift_ci *out)
{
    if (!out || !x || !y || !wx || !wy || mx == 0 || my == 0 || !(alpha > 0 && alpha < 1))
        return sp__error(SP_EINVAL, "sp__hl_shift_weighted: empty sample or bad alpha");
    memset(out, 0, sizeof *out);
    wsample a = {x, wx, mx, 0}, b = {y, wy, my, 0};
    for (size_t i = 0; i < mx; i++)
        a.n += wx[i];
    for (size_t i = 0; i < my; i++)
        b.n += wy[i];
    if (!a.n || !b.n || a.n > UINT64_MAX / b.n)
        return sp__error(SP_EINVAL, "sp__hl_shift_weighted: empty or too large samples");
    return hl_shift(&a, &b, alpha, out);
}

/* ---------------------------------------------------------------- quantiles */

#define BINOM_EXACT_MAX 100000

double sp__binom_cdf(long k, size_t n, double p)
{
    if (k < 0)
        return 0;
    if ((size_t)k >= n)
        return 1;
    if (p <= 0)
        return 1;
    if (p >= 1)
        return 0;
    if (n > BINOM_EXACT_MAX) {
        double mu = (double)n * p, sd = sqrt((double)n * p * (1 - p));
        return 0.5 * erfc(-((double)k + 0.5 - mu) / sd / sqrt(2.0));
    }
    /* Sum the smaller tail in log space (no underflow of (1-p)^n). */
    double lp = log(p), lq = log1p(-p), lgn = lgamma((double)n + 1);
    double mode = (double)n * p;
    bool lower = (double)k < mode;
    double acc = 0;
    long from = lower ? 0 : k + 1, to = lower ? k : (long)n;
    for (long i = from; i <= to; i++) {
        double lpmf = lgn - lgamma((double)i + 1) - lgamma((double)(n - (size_t)i) + 1) +
                      (double)i * lp + (double)(n - (size_t)i) * lq;
        acc += exp(lpmf);
    }
    return lower ? fmin(1.0, acc) : fmax(0.0, 1 - acc);
}

double sp__quantile_sorted(const double *x, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

bool sp__quantile_ci_ranks(size_t n, double q, double gamma, size_t *l, size_t *u)
{
    /* l: largest with P(B <= l-1) <= gamma/2; u: smallest with
     * P(B >= u) = 1 - P(B <= u-1) <= gamma/2, B ~ Bin(n, q). */
    double half = gamma / 2 * (1 + 1e-12);
    *l = 0;
    *u = n + 1;
    if (n == 0)
        return false;
    if (n > BINOM_EXACT_MAX) {
        /* Normal approximation with continuity correction (ranks off by at
         * most one against the exact binomial at these sizes). */
        double mu = (double)n * q, sd = sqrt((double)n * q * (1 - q));
        double z = sp__normal_quantile(1 - half);
        double lo = floor(mu + 0.5 - z * sd), hi = ceil(mu + 0.5 + z * sd);
        *l = lo >= 1 ? (size_t)lo : 0;
        *u = hi <= (double)n ? (size_t)hi : n + 1;
        return *l >= 1 && *u <= n;
    }
    /* One pass over the probability function, in log space (so (1-q)^n
     * cannot underflow the start), accumulating the CDF. */
    double lr = log(q) - log1p(-q), lpmf = (double)n * log1p(-q), cdf = 0;
    for (size_t k = 0; k <= n; k++) {
        cdf += exp(lpmf); /* cdf = P(B <= k) */
        if (cdf <= half)
            *l = k + 1; /* P(B <= (k+1) - 1) <= half */
        if (*u == n + 1 && 1 - cdf <= half)
            *u = k + 1; /* P(B >= k+1) <= half */
        if (k < n)
            lpmf += log((double)(n - k)) - log((double)(k + 1)) + lr;
    }
    if (*l > n)
        *l = n;
    return *l >= 1 && *u <= n;
}

double sp__typical_quantile(uint64_t n, double alpha)
{
    if (n == 0)
        return 0.25;
    /* (1 - q)^n <= alpha / 4, with a hair of margin for rounding. */
    double q = -expm1(log(alpha / 4) / (double)n) * (1 + 1e-9);
    return q < 0.01 ? 0.01 : q > 0.25 ? 0.25 : q;
}

/* The q-quantile of an accessed sorted sample (as sp__quantile_sorted). */
static double quantile_acc(const sp__sorted *a, double q)
{
    double h = q * (double)(a->n - 1);
    size_t lo = (size_t)floor(h);
    if (lo >= a->n - 1)
        return a->at(a->ctx, a->n - 1);
    double v = a->at(a->ctx, lo);
    return v + (h - (double)lo) * (a->at(a->ctx, lo + 1) - v);
}

void sp__quantile_shift_acc(const sp__sorted *x, const sp__sorted *y, double q, double alpha,
                            sp__shift_ci *out)
{
    memset(out, 0, sizeof *out);
    out->m = x->n;
    out->n = y->n;
    out->exact = true;
    out->p_value = 1;
    if (x->n == 0 || y->n == 0)
        return;
    out->estimate = quantile_acc(y, q) - quantile_acc(x, q);
    size_t lx, ux, ly, uy;
    bool okx = sp__quantile_ci_ranks(x->n, q, alpha / 2, &lx, &ux);
    bool oky = sp__quantile_ci_ranks(y->n, q, alpha / 2, &ly, &uy);
    if (!okx || !oky)
        return;
    out->ok = true;
    out->lo = fmin(y->at(y->ctx, ly - 1) - x->at(x->ctx, ux - 1), out->estimate);
    out->hi = fmax(y->at(y->ctx, uy - 1) - x->at(x->ctx, lx - 1), out->estimate);
}

static double array_at(const void *ctx, size_t i)
{
    return ((const double *)ctx)[i];
}

void sp__quantile_shift(const double *x, size_t m, const double *y, size_t n, double q,
                        double alpha, sp__shift_ci *out)
{
    sp__sorted a = {m, array_at, x}, b = {n, array_at, y};
    sp__quantile_shift_acc(&a, &b, q, alpha, out);
}

/* ---------------------------------------------------------------- Welch */

static void mean_var(const double *a, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    double mu = n ? s / (double)n : 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (a[i] - mu) * (a[i] - mu);
    *mean = mu;
    *var = n > 1 ? ss / (double)(n - 1) : 0;
}

void sp__welch(const double *x, size_t m, const double *y, size_t n, double alpha,
               sp__welch_ci *out)
{
    memset(out, 0, sizeof *out);
    out->p_value = 1;
    if (m == 0 || n == 0)
        return;
    double mx, vx, my, vy;
    mean_var(x, m, &mx, &vx);
    mean_var(y, n, &my, &vy);
    out->estimate = my - mx;
    double se2, df;
    if (m >= 2 && n >= 2) {
        double a = vx / (double)m, b = vy / (double)n;
        se2 = a + b;
        double den = a * a / (double)(m - 1) + b * b / (double)(n - 1);
        df = den > 0 ? se2 * se2 / den : (double)(m + n - 2);
    } else if (m >= 2 || n >= 2) {
        double v = m >= 2 ? vx : vy;
        se2 = v * (1.0 / (double)m + 1.0 / (double)n);
        df = (double)(m >= 2 ? m : n) - 1;
    } else {
        return;
    }
    out->ok = true;
    out->se = sqrt(se2);
    out->df = df;
    if (out->se > 0) {
        double t = sp__student_t_quantile(1 - alpha / 2, df);
        out->lo = out->estimate - t * out->se;
        out->hi = out->estimate + t * out->se;
        out->p_value = 2 * sp__student_t_cdf(-fabs(out->estimate) / out->se, df);
    } else {
        out->lo = out->hi = out->estimate;
        out->p_value = out->estimate == 0 ? 1 : 0;
    }
}
