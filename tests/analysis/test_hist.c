/* SPDX-License-Identifier: MIT */
/* The log-bucket histogram: bucket bounds, the stated error bound of every
 * order statistic against the exact sorted values, exact counts, min and
 * max, merging, and the wire form. */
#include <stdlib.h>

#include "sp_hist.h"
#include "sp_test.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* xorshift: reproducible values without libc's rand() state. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Log-uniform over [1, 2^40): every octave is hit. */
static int64_t log_uniform(void)
{
    int e = (int)(next_u64() % 40);
    return (int64_t)((1ull << e) + next_u64() % (1ull << e));
}

static void test_bounds_cover_every_value(void)
{
    int64_t prev_end = 0;
    for (uint32_t i = 0; i < SP_HIST_NBUCKETS; i++) {
        int64_t lo, w;
        sp_hist_bounds(i, &lo, &w);
        ASSERT_EQ_I(lo, prev_end); /* buckets tile 0 .. INT64_MAX */
        ASSERT(w >= 1);
        ASSERT(i < 128 ? w == 1 : w * 64 <= lo);
        ASSERT_EQ_U(sp_hist_index(lo), i);
        ASSERT_EQ_U(sp_hist_index(lo + (w - 1)), i);
        if (i == SP_HIST_NBUCKETS - 1)
            ASSERT_EQ_I(lo + (w - 1), INT64_MAX);
        else
            prev_end = lo + w; /* the last bucket ends at INT64_MAX: lo + w overflows */
    }
    ASSERT_EQ_U(sp_hist_index(-5), 0);
}

static void test_small_values_exact(void)
{
    sp_hist h;
    sp_hist_init(&h);
    int64_t v[] = {5, 1, 4, 2, 3};
    for (int i = 0; i < 5; i++)
        ASSERT_EQ_I(sp_hist_add(&h, v[i]), 0);
    ASSERT_EQ_U(h.count, 5);
    ASSERT_EQ_I(h.min, 1);
    ASSERT_EQ_I(h.max, 5);
    for (uint64_t k = 0; k < 5; k++)
        ASSERT_EQ_I(sp_hist_value_at_rank(&h, k), (int64_t)k + 1);
    ASSERT_NEAR(sp_hist_quantile(&h, 0.5), 3.0, 0);
    ASSERT_NEAR(sp_hist_quantile(&h, 0.95), 4.8, 1e-12); /* numpy: 4 + 0.8 */
    ASSERT_EQ_U(sp_hist_count_le(&h, 3), 3);
    sp_hist_free(&h);
    ASSERT_EQ_U(h.count, 0);
    ASSERT_EQ_I(sp_hist_value_at_rank(&h, 0), 0);
}

/* Every order statistic within the stated bound, min and max exact, for
 * sizes across the sparse -> dense switch. */
static void check_against_sorted(size_t n)
{
    int64_t *v = malloc(n * sizeof *v);
    sp_hist h;
    sp_hist_init(&h);
    for (size_t i = 0; i < n; i++) {
        v[i] = log_uniform();
        ASSERT_EQ_I(sp_hist_add(&h, v[i]), 0);
    }
    qsort(v, n, sizeof *v, cmp_i64);
    ASSERT_EQ_U(h.count, n);
    ASSERT_EQ_I(sp_hist_value_at_rank(&h, 0), v[0]);
    ASSERT_EQ_I(sp_hist_value_at_rank(&h, n - 1), v[n - 1]);
    for (size_t k = 0; k < n; k++) {
        double got = (double)sp_hist_value_at_rank(&h, k), want = (double)v[k];
        ASSERT_MSG(fabs(got - want) <= SP_HIST_REL_ERROR * want,
                   "n %zu rank %zu: %.0f vs exact %.0f", n, k, got, want);
    }
    for (double q = 0; q <= 1.0; q += 0.01) {
        double pos = q * (double)(n - 1);
        size_t k = (size_t)pos;
        double exact = (double)v[k] + (pos - (double)k) * (double)(v[k + (k + 1 < n)] - v[k]);
        ASSERT_MSG(fabs(sp_hist_quantile(&h, q) - exact) <= SP_HIST_REL_ERROR * exact + 1e-9,
                   "n %zu q %.2f", n, q);
    }
    free(v);
    sp_hist_free(&h);
}

static void test_error_bound(void)
{
    check_against_sorted(1);
    check_against_sorted(7);
    check_against_sorted(SP_HIST_SPARSE_MAX);
    check_against_sorted(SP_HIST_SPARSE_MAX + 1);
    check_against_sorted(1000);
    check_against_sorted(200000);
}

static void test_merge_equals_one_histogram(void)
{
    sp_hist a, b, all;
    sp_hist_init(&a);
    sp_hist_init(&b);
    sp_hist_init(&all);
    for (int i = 0; i < 5000; i++) {
        int64_t x = log_uniform();
        ASSERT_EQ_I(sp_hist_add(i % 3 ? &a : &b, x), 0);
        ASSERT_EQ_I(sp_hist_add(&all, x), 0);
    }
    sp_hist small; /* sparse into dense and dense into sparse */
    sp_hist_init(&small);
    ASSERT_EQ_I(sp_hist_add_n(&small, 3, 4), 0);
    ASSERT_EQ_I(sp_hist_add(&all, 3), 0);
    ASSERT_EQ_I(sp_hist_add_n(&all, 3, 3), 0);
    ASSERT_EQ_I(sp_hist_merge(&a, &b), 0);
    ASSERT_EQ_I(sp_hist_merge(&small, &a), 0);
    ASSERT_EQ_U(small.count, all.count);
    ASSERT_EQ_I(small.min, all.min);
    ASSERT_EQ_I(small.max, all.max);
    size_t i1 = 0, i2 = 0;
    uint32_t x1, x2;
    uint64_t c1, c2;
    while (sp_hist_next(&all, &i1, &x1, &c1)) {
        ASSERT(sp_hist_next(&small, &i2, &x2, &c2));
        ASSERT_EQ_U(x1, x2);
        ASSERT_EQ_U(c1, c2);
    }
    ASSERT(!sp_hist_next(&small, &i2, &x2, &c2));
    sp_hist_free(&a);
    sp_hist_free(&b);
    sp_hist_free(&all);
    sp_hist_free(&small);
}

static void test_wire_round_trip_and_damage(void)
{
    sp_hist h, back;
    sp_hist_init(&h);
    for (int i = 0; i < 3000; i++)
        ASSERT_EQ_I(sp_hist_add(&h, log_uniform()), 0);
    size_t room = sp_hist_encoded_size(&h);
    uint8_t *buf = malloc(room);
    size_t n = sp_hist_encode(&h, buf);
    ASSERT(n > 0 && n <= room);
    size_t pos = 0;
    ASSERT_EQ_I(sp_hist_decode(&back, buf, n, &pos), 0);
    ASSERT_EQ_U(pos, n);
    ASSERT_EQ_U(back.count, h.count);
    for (uint64_t k = 0; k < h.count; k += 97)
        ASSERT_EQ_I(sp_hist_value_at_rank(&back, k), sp_hist_value_at_rank(&h, k));
    sp_hist_free(&back);
    for (size_t cut = 0; cut < n; cut += 7) { /* every truncation refused */
        pos = 0;
        ASSERT(sp_hist_decode(&back, buf, cut, &pos) != 0);
        ASSERT_EQ_U(back.count, 0);
    }
    buf[0] ^= 1; /* counts no longer add up */
    pos = 0;
    ASSERT(sp_hist_decode(&back, buf, n, &pos) != 0);
    free(buf);
    sp_hist_free(&h);
}

int main(void)
{
    RUN(test_bounds_cover_every_value);
    RUN(test_small_values_exact);
    RUN(test_error_bound);
    RUN(test_merge_equals_one_histogram);
    RUN(test_wire_round_trip_and_damage);
    return sp_test_summary();
}
