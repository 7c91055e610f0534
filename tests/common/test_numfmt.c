/* SPDX-License-Identifier: MIT */
/*
 * test_numfmt.c - "%.Nf" and "%.Ng" without printf (common/sp_numfmt.c)
 * print every value exactly as glibc's printf does: ties (which round to
 * even), values just either side of a power of ten, carries into a new
 * digit, subnormals, huge values, zeros, NaN and infinities, and millions
 * of values of every magnitude.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sp_numfmt.h"
#include "sp_test.h"

static int failures;

static void check(double v, int prec)
{
    char got[SP_NUMFMT_BUF], want[SP_NUMFMT_BUF];
    size_t n = sp_numfmt_fixed(v, prec, got);
    snprintf(want, sizeof want, "%.*f", prec, v);
    if ((strcmp(got, want) != 0 || n != strlen(want)) && failures++ < 10)
        fprintf(stderr, "%%.%df of %.17g: got %s, printf %s\n", prec, v, got, want);
    if (prec < 1)
        return;
    n = sp_numfmt_general(v, prec, got);
    snprintf(want, sizeof want, "%.*g", prec, v);
    if ((strcmp(got, want) != 0 || n != strlen(want)) && failures++ < 10)
        fprintf(stderr, "%%.%dg of %.17g: got %s, printf %s\n", prec, v, got, want);
}

static void check_all_precisions(double v)
{
    for (int p = 0; p <= 17; p++) {
        check(v, p);
        check(-v, p);
    }
}

static void test_special_values(void)
{
    const double special[] = {0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 1e-5, 1e-4, 9.9999999999995e-5,
                              0.0001, 0.00099999999999949996, 999999999999.5, 99999999999.95,
                              1e11, 1e12, 1e15, 9007199254740991.0, 9007199254740992.0, 1e16,
                              1e17, 1e22, 1e300, 2.2250738585072014e-308, 4.9406564584124654e-324,
                              2.2250738585072009e-308, 1.0000005, 0.1, 0.7, 123456.7890125,
                              5e-7, 1.5e-6, 2.5e-6, 1e-9, 1e-10, 1e-11, 1e-12, 1e-23, 1e-24,
                              NAN, INFINITY, 3.0517578125e-05, 6.103515625e-05, 0.000244140625};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        check_all_precisions(special[i]);
    ASSERT_EQ_I(failures, 0);
}

/* Exact ties: k / 2^s prints a 5 as its last digit at some precision. */
static void test_ties(void)
{
    for (int s = 1; s <= 30; s++)
        for (uint64_t k = 1; k < 2000; k += 2)
            check_all_precisions(ldexp((double)k, -s));
    for (uint64_t k = 1; k < 100000; k++) /* halves of integers */
        check((double)k + 0.5, 0), check((double)k * 0.5, 1), check((double)k, 12);
    ASSERT_EQ_I(failures, 0);
}

/* Powers of ten and their neighbours: the exponent the digits decide. */
static void test_powers_of_ten(void)
{
    for (int e = -30; e <= 25; e++) {
        double v = pow(10, e);
        check_all_precisions(v);
        check_all_precisions(nextafter(v, 0));
        check_all_precisions(nextafter(v, INFINITY));
        for (int p = 1; p <= 17; p++) { /* 9.99..95 x 10^e: rounds into a new digit */
            double w = v * (10 - 5 * pow(10, 1 - p));
            check_all_precisions(w);
            check_all_precisions(nextafter(w, 0));
            check_all_precisions(nextafter(w, INFINITY));
        }
    }
    ASSERT_EQ_I(failures, 0);
}

/* Values of every magnitude: seconds of ns counts (what the exports print),
 * means, ratios, and raw bit patterns. */
static void test_many(void)
{
    uint64_t x = 88172645463325252ull; /* xorshift: the same values every run */
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t ns = (int64_t)(x % 4000000000000ull) >> (x % 40);
        check((double)ns * 1e-9, 9);
        check((double)ns * 1e-9, 12);
        check((double)ns / (double)(x % 977 + 1), 12);
        check((double)ns * 1e-9, (int)(x % 18));
        double raw;
        uint64_t bits = x;
        memcpy(&raw, &bits, sizeof raw);
        check(raw, (int)((x >> 7) % 18));
    }
    ASSERT_EQ_I(failures, 0);
}

int main(void)
{
    RUN(test_special_values);
    RUN(test_ties);
    RUN(test_powers_of_ten);
    RUN(test_many);
    return sp_test_summary();
}
