/* SPDX-License-Identifier: MIT */
/*
 * sp_hist.c - the log-bucket histogram (see sp_hist.h for the layout and
 * the error bound).
 */
#include "sp_hist.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_varint.h"

#define SUB_BITS 6
#define SUB 64u        /* buckets per power of two */
#define DENSE_STEP 64u /* dense arrays grow by whole octaves */

uint32_t sp_hist_index(int64_t v)
{
    if (v < (int64_t)(2 * SUB))
        return v < 0 ? 0u : (uint32_t)v;
    int e = 63 - __builtin_clzll((uint64_t)v); /* 7 .. 62 */
    uint32_t m = (uint32_t)((uint64_t)v >> (e - SUB_BITS)) & (SUB - 1);
    return (uint32_t)(e - 5) * SUB + m;
}

void sp_hist_bounds(uint32_t index, int64_t *lo, int64_t *width)
{
    if (index >= SP_HIST_NBUCKETS)
        index = SP_HIST_NBUCKETS - 1;
    if (index < 2 * SUB) {
        *lo = index;
        *width = 1;
        return;
    }
    int e = (int)(index / SUB) + 5;
    uint64_t m = index % SUB;
    *lo = (int64_t)((SUB + m) << (e - SUB_BITS));
    *width = (int64_t)1 << (e - SUB_BITS);
}

void sp_hist_init(sp_hist *h)
{
    memset(h, 0, sizeof *h);
}

void sp_hist_free(sp_hist *h)
{
    free(h->data);
    sp_hist_init(h);
}

static sp_hist_pair *pairs(const sp_hist *h) { return (sp_hist_pair *)h->data; }
static uint64_t *counts(const sp_hist *h) { return (uint64_t *)h->data; }

/* Make the dense array cover [lo, hi] (bucket indexes). */
static int dense_cover(sp_hist *h, uint32_t lo, uint32_t hi)
{
    uint32_t cur_lo = h->lo, cur_hi = h->lo + h->len - 1u;
    if (h->len && lo >= cur_lo && hi <= cur_hi)
        return 0;
    if (h->len) {
        lo = lo < cur_lo ? lo : cur_lo;
        hi = hi > cur_hi ? hi : cur_hi;
    }
    /* Whole octaves, so that a slowly widening range reallocates rarely. */
    uint32_t nlo = lo - lo % DENSE_STEP;
    uint32_t nhi = hi - hi % DENSE_STEP + DENSE_STEP - 1u;
    if (nhi >= SP_HIST_NBUCKETS)
        nhi = SP_HIST_NBUCKETS - 1;
    uint32_t nlen = nhi - nlo + 1u;
    uint64_t *c = calloc(nlen, sizeof *c);
    if (!c)
        return SP_ENOMEM;
    if (h->len)
        memcpy(c + (h->lo - nlo), h->data, h->len * sizeof *c);
    free(h->data);
    h->data = c;
    h->lo = (uint16_t)nlo;
    h->len = (uint16_t)nlen;
    return 0;
}

/* Sparse list to dense array. */
static int to_dense(sp_hist *h, uint32_t extra_lo, uint32_t extra_hi)
{
    sp_hist_pair tmp[SP_HIST_SPARSE_MAX];
    size_t n = h->len;
    if (n) /* an empty list may have no storage (memcpy from NULL is undefined) */
        memcpy(tmp, h->data, n * sizeof *tmp);
    uint32_t lo = extra_lo, hi = extra_hi;
    for (size_t i = 0; i < n; i++) {
        lo = tmp[i].index < lo ? tmp[i].index : lo;
        hi = tmp[i].index > hi ? tmp[i].index : hi;
    }
    void *old = h->data;
    h->data = NULL;
    h->len = 0;
    h->dense = true;
    if (dense_cover(h, lo, hi) != 0) {
        h->data = old;
        h->len = (uint16_t)n;
        h->dense = false;
        return SP_ENOMEM;
    }
    free(old);
    for (size_t i = 0; i < n; i++)
        counts(h)[tmp[i].index - h->lo] += tmp[i].count;
    return 0;
}

/* Pairs a sparse list of len pairs has room for: it grows 1, 4, 16, so a
 * region called once (10^6 regions of one call each: two histograms per
 * region, kept by the pass, the wire and every copy) costs one pair, not 16. */
static size_t sparse_cap(size_t len)
{
    return len == 0 ? 0 : len <= 1 ? 1 : len <= 4 ? 4 : SP_HIST_SPARSE_MAX;
}

static int add_index(sp_hist *h, uint32_t idx, uint64_t n)
{
    if (h->dense) {
        if (idx < h->lo || idx >= (uint32_t)h->lo + h->len) {
            if (dense_cover(h, idx, idx) != 0)
                return SP_ENOMEM;
        }
        counts(h)[idx - h->lo] += n;
        return 0;
    }
    sp_hist_pair *p = pairs(h);
    size_t i = 0;
    while (i < h->len && p[i].index < idx)
        i++;
    if (i < h->len && p[i].index == idx) {
        p[i].count += n;
        return 0;
    }
    if (h->len == SP_HIST_SPARSE_MAX) {
        if (to_dense(h, idx, idx) != 0)
            return SP_ENOMEM;
        counts(h)[idx - h->lo] += n;
        return 0;
    }
    if (!p || h->len == sparse_cap(h->len)) { /* full: the next size */
        p = realloc(p, sparse_cap(h->len + 1u) * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        h->data = p;
    }
    memmove(p + i + 1, p + i, (h->len - i) * sizeof *p);
    p[i].index = idx;
    p[i].count = n;
    h->len++;
    return 0;
}

int sp_hist_add_n(sp_hist *h, int64_t v, uint64_t n)
{
    if (v < 0)
        v = 0;
    if (add_index(h, sp_hist_index(v), n) != 0)
        return SP_ENOMEM;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    h->count += n;
    return 0;
}

bool sp_hist_next(const sp_hist *h, size_t *it, uint32_t *index, uint64_t *count)
{
    if (!h->dense) {
        if (*it >= h->len)
            return false;
        *index = pairs(h)[*it].index;
        *count = pairs(h)[*it].count;
        ++*it;
        return true;
    }
    while (*it < h->len && counts(h)[*it] == 0)
        ++*it;
    if (*it >= h->len)
        return false;
    *index = h->lo + (uint32_t)*it;
    *count = counts(h)[*it];
    ++*it;
    return true;
}

int sp_hist_merge(sp_hist *dst, const sp_hist *src)
{
    if (src->count == 0)
        return 0;
    sp_hist save;
    if (sp_hist_copy(&save, dst) != 0)
        return SP_ENOMEM;
    if (src->dense && !dst->dense) {
        uint32_t hi = src->lo + src->len - 1u;
        if (to_dense(dst, src->lo, hi) != 0) {
            sp_hist_free(&save);
            return SP_ENOMEM;
        }
    }
    size_t it = 0;
    uint32_t idx;
    uint64_t n;
    while (sp_hist_next(src, &it, &idx, &n)) {
        if (add_index(dst, idx, n) != 0) {
            sp_hist_free(dst);
            *dst = save;
            return SP_ENOMEM;
        }
    }
    sp_hist_free(&save);
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    return 0;
}

int sp_hist_copy(sp_hist *dst, const sp_hist *src)
{
    *dst = *src;
    dst->data = NULL;
    size_t bytes = src->dense ? src->len * sizeof(uint64_t)
                              : sparse_cap(src->len) * sizeof(sp_hist_pair);
    if (!src->data || bytes == 0)
        return 0;
    if (!(dst->data = malloc(bytes))) {
        sp_hist_init(dst);
        return SP_ENOMEM;
    }
    memcpy(dst->data, src->data, bytes);
    return 0;
}

int64_t sp_hist_bucket_value(const sp_hist *h, uint32_t index)
{
    int64_t lo, w;
    sp_hist_bounds(index, &lo, &w);
    int64_t v = lo + (w - 1) / 2;
    if (h->count) {
        v = v < h->min ? h->min : v;
        v = v > h->max ? h->max : v;
    }
    return v;
}

int64_t sp_hist_value_at_rank(const sp_hist *h, uint64_t k)
{
    if (h->count == 0)
        return 0;
    if (k == 0)
        return h->min;
    if (k >= h->count - 1)
        return h->max;
    uint64_t seen = 0;
    size_t it = 0;
    uint32_t idx;
    uint64_t n;
    while (sp_hist_next(h, &it, &idx, &n)) {
        seen += n;
        if (k < seen)
            return sp_hist_bucket_value(h, idx);
    }
    return h->max;
}

double sp_hist_quantile(const sp_hist *h, double q)
{
    if (h->count == 0)
        return 0.0;
    q = q < 0 ? 0 : (q > 1 ? 1 : q);
    double pos = q * (double)(h->count - 1);
    uint64_t k = (uint64_t)pos;
    double frac = pos - (double)k;
    double a = (double)sp_hist_value_at_rank(h, k);
    if (frac == 0.0)
        return a;
    double b = (double)sp_hist_value_at_rank(h, k + 1);
    return a + frac * (b - a);
}

uint64_t sp_hist_count_le(const sp_hist *h, int64_t v)
{
    if (h->count == 0 || v < h->min)
        return 0;
    if (v >= h->max)
        return h->count;
    uint32_t top = sp_hist_index(v);
    uint64_t c = 0;
    size_t it = 0;
    uint32_t idx;
    uint64_t n;
    while (sp_hist_next(h, &it, &idx, &n) && idx <= top)
        c += n;
    return c;
}

/* ---- wire form: count, min, max, npairs, then (index, count) per pair,
 * each an unsigned LEB128 integer (sp_varint.h) ---- */

static size_t nonempty(const sp_hist *h)
{
    size_t it = 0, n = 0;
    uint32_t idx;
    uint64_t c;
    while (sp_hist_next(h, &it, &idx, &c))
        n++;
    return n;
}

size_t sp_hist_encoded_size(const sp_hist *h)
{
    return (4 + 2 * nonempty(h)) * SP_VARINT_MAX;
}

size_t sp_hist_encode(const sp_hist *h, uint8_t *out)
{
    uint8_t *o = out;
    o += sp_varint_put(o, h->count);
    o += sp_varint_put(o, (uint64_t)h->min);
    o += sp_varint_put(o, (uint64_t)h->max);
    o += sp_varint_put(o, nonempty(h));
    size_t it = 0;
    uint32_t idx;
    uint64_t c;
    while (sp_hist_next(h, &it, &idx, &c)) {
        o += sp_varint_put(o, idx);
        o += sp_varint_put(o, c);
    }
    return (size_t)(o - out);
}

int sp_hist_decode(sp_hist *h, const uint8_t *buf, size_t len, size_t *pos)
{
    sp_hist_init(h);
    size_t at = *pos;
    uint64_t count, umin, umax, n;
    if (!sp_varint_next(buf, len, &at, &count) || !sp_varint_next(buf, len, &at, &umin) ||
        !sp_varint_next(buf, len, &at, &umax) || !sp_varint_next(buf, len, &at, &n))
        return SP_EFORMAT;
    int64_t min = (int64_t)umin, max = (int64_t)umax;
    /* each pair takes at least two bytes */
    if (n > SP_HIST_NBUCKETS || (len - at) / 2 < n || min < 0 || max < min)
        return SP_EFORMAT;
    uint64_t sum = 0;
    int64_t prev = -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t idx, c;
        if (!sp_varint_next(buf, len, &at, &idx) || !sp_varint_next(buf, len, &at, &c) ||
            idx >= SP_HIST_NBUCKETS || (int64_t)idx <= prev || c == 0 || c > count - sum) {
            sp_hist_free(h);
            return SP_EFORMAT;
        }
        prev = (int64_t)idx;
        sum += c;
        if (add_index(h, (uint32_t)idx, c) != 0) {
            sp_hist_free(h);
            return SP_ENOMEM;
        }
    }
    if (sum != count) {
        sp_hist_free(h);
        return SP_EFORMAT;
    }
    h->count = count;
    h->min = count ? min : 0;
    h->max = count ? max : 0;
    *pos = at;
    return 0;
}
