/* SPDX-License-Identifier: MIT */
/*
 * sp_stats.c - sorting durations and the statistics of one set of calls.
 *
 * Percentiles use linear interpolation between closest ranks (numpy's
 * default, so numbers match the Python package's analysis): for sorted
 * values a[0..n-1] and q in [0, 1], the position is h = q * (n - 1) and
 *     p(q) = a[floor(h)] + (h - floor(h)) * (a[floor(h) + 1] - a[floor(h)]).
 * So p50 of {1, 2, 3, 4} is 2.5, and p95 of {1..100} is 95.05.
 * The standard deviation is the population one (divide by n), like numpy's
 * std() default.
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_TO_S 1e-9

/* Below this size insertion sort beats the radix passes. */
#define SMALL_SORT 48

static void insertion_sort(int64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int64_t v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Flip the sign bit so that unsigned byte order equals signed order. */
static inline uint64_t radix_key(int64_t v)
{
    return (uint64_t)v ^ (UINT64_C(1) << 63);
}

/*
 * LSD radix sort on 8-bit digits: one pass counts all eight digit
 * histograms, then each digit that is not the same in every element costs
 * one scatter pass. Durations rarely exceed 2^40 ns, so the top digits are
 * constant and skipped: typically 4-5 passes, O(n), stable.
 */
static void radix_sort(int64_t *a, size_t n, int64_t *tmp)
{
    size_t counts[8][256];
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = radix_key(a[i]);
        for (int d = 0; d < 8; d++)
            counts[d][(k >> (8 * d)) & 0xFF]++;
    }
    int64_t *src = a, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        size_t *c = counts[d];
        uint64_t first = (radix_key(a[0]) >> (8 * d)) & 0xFF;
        if (c[first] == n)
            continue; /* every element has this digit: nothing to reorder */
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t cnt = c[b];
            c[b] = pos;
            pos += cnt;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(radix_key(src[i]) >> (8 * d)) & 0xFF]++] = src[i];
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

void sp__sort_i64(int64_t *a, size_t n, int64_t *tmp)
{
    if (n < SMALL_SORT)
        insertion_sort(a, n);
    else if (tmp)
        radix_sort(a, n, tmp);
    else
        qsort(a, n, sizeof *a, cmp_i64);
}

static double percentile_ns(const int64_t *a, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t lo = (size_t)h;
    if (lo >= n - 1)
        return (double)a[n - 1];
    double frac = h - (double)lo;
    return (double)a[lo] + frac * (double)(a[lo + 1] - a[lo]);
}

void sp__stats_from_sorted(const int64_t *a, size_t n, sp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    /* An exact integer sum: int64 ns overflows only past 292 years. */
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += a[i];
    double mean = (double)sum / (double)n;
    /* Two passes (mean first) keep the variance accurate when the spread is
     * tiny compared with the durations. */
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - mean;
        ss += d * d;
    }
    out->calls = n;
    out->total_s = (double)sum * NS_TO_S;
    out->mean_s = mean * NS_TO_S;
    out->min_s = (double)a[0] * NS_TO_S;
    out->max_s = (double)a[n - 1] * NS_TO_S;
    out->std_s = sqrt(ss / (double)n) * NS_TO_S;
    out->p50_s = percentile_ns(a, n, 0.50) * NS_TO_S;
    out->p95_s = percentile_ns(a, n, 0.95) * NS_TO_S;
    out->p99_s = percentile_ns(a, n, 0.99) * NS_TO_S;
}

void sp_stats_from_durations(int64_t *durations_ns, size_t n, sp_stats *out)
{
    /* The radix buffer is optional: without memory, fall back to qsort. */
    int64_t *tmp = n >= SMALL_SORT ? malloc(n * sizeof *tmp) : NULL;
    sp__sort_i64(durations_ns, n, tmp);
    free(tmp);
    sp__stats_from_sorted(durations_ns, n, out);
}
