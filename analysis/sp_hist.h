/* SPDX-License-Identifier: MIT */
/*
 * sp_hist.h - a mergeable log-bucket histogram of non-negative integers
 * (durations in ns), the source of every percentile and of the comparison
 * statistics, so that reading a run never needs memory per call.
 *
 * Buckets (HdrHistogram's layout, 6 sub-bucket bits): values 0..127 each
 * have their own bucket (exact); above that every power of two is cut into
 * 64 equal buckets, so a bucket [lo, lo + w) has w <= lo / 64. A value read
 * back from a bucket is its midpoint, within SP_HIST_REL_ERROR (1/128 =
 * 0.78 %) of every value the bucket holds. min and max are kept exactly,
 * and estimates are clamped to them, so the smallest and the largest value
 * are always exact. Counts are exact.
 *
 * Memory: a histogram with few distinct buckets keeps them as a short sorted
 * list, grown 1, 4, 16 entries (a region called once costs one entry); past
 * SP_HIST_SPARSE_MAX distinct buckets it switches to a dense array over the
 * buckets between the smallest and the largest value (at most 3,712 counts:
 * one octave is 64). Adding never allocates per value, only when the range
 * grows. Histograms of different runs, ranks or threads merge exactly
 * (counts add), so aggregates of ranks processed apart combine.
 */
#ifndef SP_HIST_H
#define SP_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest relative error of a value read back from a histogram. */
#define SP_HIST_REL_ERROR (1.0 / 128.0)
/* The same as text, for tables and footnotes. */
#define SP_HIST_REL_ERROR_TEXT "0.8 %"

#define SP_HIST_SPARSE_MAX 16 /* distinct buckets kept as a list */
#define SP_HIST_NBUCKETS 3712 /* bucket indexes 0 .. 3711 cover 0 .. INT64_MAX */

typedef struct sp_hist {
    uint64_t count;   /* values added */
    int64_t min, max; /* exact; 0 when empty */
    uint16_t lo;      /* dense: bucket index of data[0] */
    uint16_t len;     /* dense: counts held; sparse: pairs held */
    bool dense;
    void *data;       /* sparse: sp_hist_pair[SP_HIST_SPARSE_MAX]; dense: uint64_t[len] */
} sp_hist;

typedef struct sp_hist_pair {
    uint32_t index;
    uint64_t count;
} sp_hist_pair;

/* An empty histogram (no allocation). */
void sp_hist_init(sp_hist *h);
/* Free what h holds; h is empty afterwards (reusable). */
void sp_hist_free(sp_hist *h);

/* The bucket of value v (negative counts as 0), and a bucket's bounds:
 * values v with *lo <= v < *lo + *width. */
uint32_t sp_hist_index(int64_t v);
void sp_hist_bounds(uint32_t index, int64_t *lo, int64_t *width);

/* Add n values equal to v (n >= 1; negative v counts as 0). 0 or SP_ENOMEM
 * (h unchanged). */
int sp_hist_add_n(sp_hist *h, int64_t v, uint64_t n);

/* Add one value: inline for a dense histogram whose range holds it (every
 * call of a busy region, in the aggregate pass), else sp_hist_add_n. */
static inline int sp_hist_add(sp_hist *h, int64_t v)
{
    if (h->dense && v >= 0) {
        uint32_t idx = (uint32_t)v;
        if (v >= 128) {
            int e = 63 - __builtin_clzll((uint64_t)v);
            idx = (uint32_t)(e - 5) * 64u + ((uint32_t)((uint64_t)v >> (e - 6)) & 63u);
        }
        uint32_t off = idx - h->lo;
        if (off < h->len) {
            ((uint64_t *)h->data)[off]++;
            if (v < h->min)
                h->min = v;
            if (v > h->max)
                h->max = v;
            h->count++;
            return 0;
        }
    }
    return sp_hist_add_n(h, v, 1);
}

/* dst += src (exact). 0 or SP_ENOMEM (dst unchanged). */
int sp_hist_merge(sp_hist *dst, const sp_hist *src);

/* A deep copy into *dst (initialised by this call). 0 or SP_ENOMEM. */
int sp_hist_copy(sp_hist *dst, const sp_hist *src);

/* The k-th smallest value (0-based, k < count): its bucket's midpoint,
 * clamped to [min, max]; exact for k = 0 and k = count - 1 and below 128.
 * 0 for an empty histogram; k >= count gives max. */
int64_t sp_hist_value_at_rank(const sp_hist *h, uint64_t k);

/* The q-quantile (0 <= q <= 1) with numpy's default interpolation
 * (position q * (count - 1) between the neighbouring order statistics),
 * from value_at_rank: within SP_HIST_REL_ERROR of the exact answer. 0 for
 * an empty histogram. */
double sp_hist_quantile(const sp_hist *h, double q);

/* How many values are <= v (exact when v is a bucket's upper edge or
 * below 128; else the whole bucket of v counts). */
uint64_t sp_hist_count_le(const sp_hist *h, int64_t v);

/* Non-empty buckets in ascending order: call with *it = 0, then as long as
 * it returns true; each gives the bucket's index and count. */
bool sp_hist_next(const sp_hist *h, size_t *it, uint32_t *index, uint64_t *count);

/* The midpoint of bucket `index`, clamped to h's [min, max]. */
int64_t sp_hist_bucket_value(const sp_hist *h, uint32_t index);

/* Serialise: at most how many bytes sp_hist_encode writes, then the bytes
 * (LEB128 integers, self-delimiting; sp_hist_encode returns how many). sp_hist_decode reads one histogram at
 * *pos of buf (len bytes) into *h (initialised by the call), advancing
 * *pos; 0, SP_EFORMAT on damaged input (h left empty), SP_ENOMEM. */
size_t sp_hist_encoded_size(const sp_hist *h);
size_t sp_hist_encode(const sp_hist *h, uint8_t *out);
int sp_hist_decode(sp_hist *h, const uint8_t *buf, size_t len, size_t *pos);

#ifdef __cplusplus
}
#endif

#endif /* SP_HIST_H */
