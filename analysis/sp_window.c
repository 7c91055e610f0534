/* SPDX-License-Identifier: MIT */
/*
 * sp_window.c - a window of one lane's calls (see sp_window.h).
 *
 * The lane's blocks that can hold events in [t0, t1] are found from the
 * block table (a block of a thread lasts until the thread's next block);
 * the calls open at the first of them are the lane's spans with an earlier
 * begin block and a later (or the same) end block, outermost first; the
 * blocks are replayed from there. A call still open after the last block
 * read is a span too, whose end the spans know (at most one call per depth
 * can be open, so (begin block, depth) finds it). Calls that do not overlap
 * the window are dropped at the end, parents remapped: a parent contains
 * its children, so it is kept whenever one of them is.
 */
#include "sp_window.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

typedef struct wbuild {
    sp_window *w;
    size_t cap;
    size_t max;                 /* 0: no limit */
    const sp_agg_lane *lane;
    int32_t thread;
    int64_t offset;             /* rank clock -> rank 0 */
    int64_t *stack;             /* open calls (window indices) */
    size_t depth, stack_cap;
    uint32_t *begin_block;      /* per window call */
    size_t b_last;              /* last block read */
    int oom;
} wbuild;

static int grow(wbuild *b)
{
    if (b->w->n < b->cap)
        return 0;
    size_t c = b->cap ? 2 * b->cap : 1024;
    sp_window *w = b->w;
    int64_t *s = realloc(w->start_ns, c * sizeof *s);
    if (s)
        w->start_ns = s;
    int64_t *e = s ? realloc(w->end_ns, c * sizeof *e) : NULL;
    if (e)
        w->end_ns = e;
    int32_t *r = e ? realloc(w->region, c * sizeof *r) : NULL;
    if (r)
        w->region = r;
    uint32_t *d = r ? realloc(w->depth, c * sizeof *d) : NULL;
    if (d)
        w->depth = d;
    int64_t *p = d ? realloc(w->parent, c * sizeof *p) : NULL;
    if (p)
        w->parent = p;
    uint32_t *bb = p ? realloc(b->begin_block, c * sizeof *bb) : NULL;
    if (!bb)
        return SP_ENOMEM;
    b->begin_block = bb;
    b->cap = c;
    return 0;
}

static int push_open(wbuild *b, int64_t idx)
{
    if (b->depth == b->stack_cap) {
        size_t c = b->stack_cap ? 2 * b->stack_cap : 64;
        int64_t *s = realloc(b->stack, c * sizeof *s);
        if (!s)
            return SP_ENOMEM;
        b->stack = s;
        b->stack_cap = c;
    }
    b->stack[b->depth++] = idx;
    return 0;
}

/* A call begins: appended (its end is filled when it ends). */
static int add_call(wbuild *b, int64_t start, int64_t end, int32_t region, uint32_t block)
{
    if (grow(b))
        return SP_ENOMEM;
    sp_window *w = b->w;
    size_t i = w->n++;
    w->start_ns[i] = start;
    w->end_ns[i] = end;
    w->region[i] = region;
    w->depth[i] = (uint32_t)b->depth;
    w->parent[i] = b->depth ? b->stack[b->depth - 1] : -1;
    b->begin_block[i] = block;
    return push_open(b, (int64_t)i);
}

static int on_block(void *ud, const sp_event_batch *bt)
{
    wbuild *b = ud;
    b->b_last = bt->block;
    if (bt->thread != b->thread || b->w->truncated)
        return 0;
    for (size_t i = 0; i < bt->n; i++) {
        int64_t t = bt->t_ns[i] + b->offset;
        if (bt->region[i] >= 0) {
            if (b->max && b->w->n >= b->max) {
                b->w->truncated = true;
                return 0;
            }
            if (add_call(b, t, t, bt->region[i], (uint32_t)bt->block))
                return SP_ENOMEM;
        } else if (b->depth) {
            b->w->end_ns[b->stack[--b->depth]] = t;
        }
    }
    return 0;
}

/* The lane's blocks that may hold events in [t0, t1]: [*k0, *k1] of the
 * rank's table (k1 < k0: none). */
static void block_range(const sp_event_source *src, size_t r, int32_t thread, int64_t offset,
                        int64_t t0, int64_t t1, size_t *k0, size_t *k1)
{
    const sp_block *bl = src->blocks[r];
    size_t n = src->nblocks[r];
    *k0 = SIZE_MAX;
    *k1 = 0;
    size_t prev = SIZE_MAX; /* the lane's last block starting at or before t0 */
    bool any = false;
    for (size_t k = 0; k < n; k++) {
        if (bl[k].thread != thread)
            continue;
        int64_t at = bl[k].t0_ns + offset;
        if (at <= t0)
            prev = k;
        else if (*k0 == SIZE_MAX && at <= t1)
            *k0 = k;
        if (at <= t1) {
            *k1 = k;
            any = true;
        }
    }
    if (prev != SIZE_MAX)
        *k0 = prev; /* it lasts into the window */
    if (!any || *k0 == SIZE_MAX) {
        *k0 = 1;
        *k1 = 0;
    }
}

uint64_t sp_window_estimate(const sp_event_source *src, size_t rank, int32_t thread,
                            int64_t t0_ns, int64_t t1_ns)
{
    if (!src || rank >= src->nranks)
        return 0;
    size_t k0, k1;
    int64_t off = src->run->ranks[rank].clock_offset_ns;
    block_range(src, rank, thread, off, t0_ns, t1_ns, &k0, &k1);
    uint64_t n = 0;
    for (size_t k = k0; k <= k1 && k1 >= k0; k++)
        if (src->blocks[rank][k].thread == thread)
            n += src->blocks[rank][k].begins;
    return n;
}

void sp_window_free(sp_window *w)
{
    if (!w)
        return;
    free(w->start_ns);
    free(w->end_ns);
    free(w->region);
    free(w->depth);
    free(w->parent);
    free(w);
}

/* The end of a call still open after the last block read, from the spans. */
static void close_from_spans(wbuild *b)
{
    const sp_agg_lane *l = b->lane;
    for (size_t d = 0; d < b->depth; d++) {
        int64_t i = b->stack[d];
        uint32_t bb = b->begin_block[i], depth = b->w->depth[i];
        int64_t end = b->w->start_ns[i];
        /* spans are by begin block, then depth */
        size_t lo = 0, hi = l ? l->nspans : 0;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const sp_agg_span *s = &l->spans[mid];
            if (s->begin_block < bb || (s->begin_block == bb && s->depth < depth))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (l && lo < l->nspans && l->spans[lo].begin_block == bb && l->spans[lo].depth == depth)
            end = l->spans[lo].end_ns;
        b->w->end_ns[i] = end;
    }
    b->depth = 0;
}

/* Keep the calls overlapping the window, parents remapped. */
static void compact(sp_window *w)
{
    size_t k = 0;
    int64_t *map = (int64_t *)malloc((w->n ? w->n : 1) * sizeof *map);
    if (!map)
        return; /* keep everything: correct, only larger */
    for (size_t i = 0; i < w->n; i++) {
        bool keep = w->end_ns[i] >= w->t0_ns && w->start_ns[i] <= w->t1_ns;
        map[i] = keep ? (int64_t)k : -1;
        if (!keep)
            continue;
        w->start_ns[k] = w->start_ns[i];
        w->end_ns[k] = w->end_ns[i];
        w->region[k] = w->region[i];
        w->depth[k] = w->depth[i];
        w->parent[k] = w->parent[i] >= 0 ? map[w->parent[i]] : -1;
        k++;
    }
    w->n = k;
    free(map);
}

int sp_window_load(sp_event_source *src, const sp_agg *agg, size_t rank, int32_t thread,
                   int64_t t0_ns, int64_t t1_ns, size_t max_calls, sp_window **out)
{
    *out = NULL;
    if (!src || !agg || rank >= src->nranks || t1_ns < t0_ns)
        return sp__error(SP_EINVAL, "sp_window_load: bad arguments");
    const sp_agg_lane *lane = sp_agg_find_lane(agg, rank, thread);
    if (!lane)
        return sp__error(SP_ENOENT, "rank %zu, thread %d: no calls", rank, (int)thread);
    sp_window *w = calloc(1, sizeof *w);
    if (!w)
        return sp__error(SP_ENOMEM, "out of memory");
    w->rank = rank;
    w->thread = thread;
    w->t0_ns = t0_ns;
    w->t1_ns = t1_ns;
    wbuild b = {.w = w, .max = max_calls, .lane = lane, .thread = thread,
                .offset = src->run->ranks[rank].clock_offset_ns};
    size_t k0, k1;
    block_range(src, rank, thread, b.offset, t0_ns, t1_ns, &k0, &k1);
    int rc = 0;
    /* The calls open at k0 (or, when no block of the lane starts before the
     * window's end, the calls that span it): outermost first. */
    size_t at = k1 >= k0 ? k0 : SIZE_MAX;
    for (size_t i = 0; rc == 0 && i < lane->nspans; i++) {
        const sp_agg_span *s = &lane->spans[i];
        bool open = at != SIZE_MAX ? (s->begin_block < at && s->end_block >= at)
                                   : (s->start_ns <= t1_ns && s->end_ns >= t0_ns);
        if (!open)
            continue;
        while (b.depth > s->depth) /* spans of one begin block come by depth */
            b.depth--;
        rc = add_call(&b, s->start_ns, s->end_ns, s->region, s->begin_block);
        if (rc == 0)
            w->depth[w->n - 1] = s->depth;
    }
    /* Their ends are known: replaying closes them where they end. */
    if (rc == 0 && at != SIZE_MAX)
        rc = sp_event_source_read(src, rank, k0, k1 + 1, on_block, &b);
    if (rc == 0)
        close_from_spans(&b);
    if (rc == 0)
        compact(w);
    free(b.stack);
    free(b.begin_block);
    if (rc) {
        sp_window_free(w);
        return rc == SP_ENOMEM ? sp__error(SP_ENOMEM, "out of memory loading calls") : rc;
    }
    *out = w;
    return 0;
}
