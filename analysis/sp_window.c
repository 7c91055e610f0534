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
    int oom;
} wbuild;

/* Room for at least `want` calls (grow: double, from 16). */
static int reserve(wbuild *b, size_t want)
{
    if (want <= b->cap)
        return 0;
    size_t c = want;
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

static int grow(wbuild *b)
{
    if (b->w->n < b->cap)
        return 0;
    return reserve(b, b->cap ? 2 * b->cap : 16);
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

/* ---- the blocks of each lane ---- */

typedef struct ix_lane {
    size_t n, cap;
    size_t *block;          /* indices in the rank's table, ascending (= in time) */
    uint64_t *calls_before; /* begins of block[0 .. k); n + 1 entries once n > 0 */
} ix_lane;

typedef struct ix_rank {
    size_t seen;            /* blocks of the rank's table indexed */
    size_t nlanes;          /* by thread id */
    ix_lane *lanes;
} ix_rank;

struct sp_block_index {
    size_t nranks;
    ix_rank *ranks;
};

static void ix_rank_free(ix_rank *x)
{
    for (size_t t = 0; t < x->nlanes; t++) {
        free(x->lanes[t].block);
        free(x->lanes[t].calls_before);
    }
    free(x->lanes);
    memset(x, 0, sizeof *x);
}

static int ix_lane_push(ix_lane *l, size_t block, uint32_t begins)
{
    if (l->n + 1 >= l->cap) {
        size_t c = l->cap ? 2 * l->cap : 4;
        size_t *b = realloc(l->block, c * sizeof *b);
        if (!b)
            return SP_ENOMEM;
        l->block = b;
        uint64_t *cb = realloc(l->calls_before, (c + 1) * sizeof *cb);
        if (!cb)
            return SP_ENOMEM;
        if (l->n == 0)
            cb[0] = 0;
        l->calls_before = cb;
        l->cap = c;
    }
    l->block[l->n] = block;
    l->calls_before[l->n + 1] = l->calls_before[l->n] + begins;
    l->n++;
    return 0;
}

/* Index the blocks of rank r that x has not seen yet. */
static int ix_rank_update(ix_rank *x, const sp_event_source *src, size_t r)
{
    const sp_block *bl = src->blocks[r];
    for (; x->seen < src->nblocks[r]; x->seen++) {
        int32_t t = bl[x->seen].thread;
        if (t < 0)
            continue;
        if ((size_t)t >= x->nlanes) {
            size_t n = x->nlanes ? x->nlanes : 4;
            while (n <= (size_t)t)
                n *= 2;
            ix_lane *l = realloc(x->lanes, n * sizeof *l);
            if (!l)
                return SP_ENOMEM;
            memset(l + x->nlanes, 0, (n - x->nlanes) * sizeof *l);
            x->lanes = l;
            x->nlanes = n;
        }
        if (ix_lane_push(&x->lanes[t], x->seen, bl[x->seen].begins))
            return SP_ENOMEM;
    }
    return 0;
}

sp_block_index *sp_block_index_new(const sp_event_source *src)
{
    sp_block_index *ix = calloc(1, sizeof *ix);
    if (!ix || sp_block_index_update(ix, src) != 0) {
        sp_block_index_free(ix);
        return sp__error_null(SP_ENOMEM, "out of memory indexing the blocks");
    }
    return ix;
}

int sp_block_index_update(sp_block_index *ix, const sp_event_source *src)
{
    if (src->nranks > ix->nranks) {
        ix_rank *r = realloc(ix->ranks, src->nranks * sizeof *r);
        if (!r)
            return sp__error(SP_ENOMEM, "out of memory indexing the blocks");
        memset(r + ix->nranks, 0, (src->nranks - ix->nranks) * sizeof *r);
        ix->ranks = r;
        ix->nranks = src->nranks;
    }
    for (size_t r = 0; r < src->nranks; r++)
        if (ix_rank_update(&ix->ranks[r], src, r))
            return sp__error(SP_ENOMEM, "out of memory indexing the blocks");
    return 0;
}

void sp_block_index_free(sp_block_index *ix)
{
    if (!ix)
        return;
    for (size_t r = 0; r < ix->nranks; r++)
        ix_rank_free(&ix->ranks[r]);
    free(ix->ranks);
    free(ix);
}

static const ix_lane *ix_find(const sp_block_index *ix, size_t r, int32_t thread)
{
    if (r >= ix->nranks || thread < 0 || (size_t)thread >= ix->ranks[r].nlanes)
        return NULL;
    const ix_lane *l = &ix->ranks[r].lanes[thread];
    return l->n ? l : NULL;
}

/* Lane blocks (positions in l) starting at or before t (aligned): how many. */
static size_t starting_by(const sp_event_source *src, size_t r, const ix_lane *l, int64_t offset,
                          int64_t t)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (src->blocks[r][l->block[mid]].t0_ns + offset <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The lane's blocks that may hold events in [t0, t1]: positions [*j0, *j1]
 * of l (false: none). A block lasts until the lane's next block, so the
 * last one starting at or before t0 reaches into the window. */
static bool lane_range(const sp_event_source *src, size_t r, const ix_lane *l, int64_t offset,
                       int64_t t0, int64_t t1, size_t *j0, size_t *j1)
{
    if (!l || t1 < t0)
        return false;
    size_t upto1 = starting_by(src, r, l, offset, t1);
    if (upto1 == 0)
        return false; /* the lane starts after the window */
    size_t upto0 = starting_by(src, r, l, offset, t0);
    *j0 = upto0 ? upto0 - 1 : 0;
    *j1 = upto1 - 1;
    return true;
}

uint64_t sp_window_estimate_ix(const sp_event_source *src, const sp_block_index *ix,
                               size_t rank, int32_t thread, int64_t t0_ns, int64_t t1_ns)
{
    if (!src || !ix || rank >= src->nranks)
        return 0;
    const ix_lane *l = ix_find(ix, rank, thread);
    size_t j0, j1;
    if (!lane_range(src, rank, l, src->run->ranks[rank].clock_offset_ns, t0_ns, t1_ns, &j0, &j1))
        return 0;
    return l->calls_before[j1 + 1] - l->calls_before[j0];
}

/* A one-rank index of src, for the calls without one. */
static int rank_index(const sp_event_source *src, size_t rank, sp_block_index *ix, ix_rank *x)
{
    memset(x, 0, sizeof *x);
    ix->nranks = 1;
    ix->ranks = x;
    return ix_rank_update(x, src, rank);
}

uint64_t sp_window_estimate(const sp_event_source *src, size_t rank, int32_t thread,
                            int64_t t0_ns, int64_t t1_ns)
{
    if (!src || rank >= src->nranks)
        return 0;
    sp_block_index ix;
    ix_rank x;
    uint64_t n = 0;
    if (rank_index(src, rank, &ix, &x) == 0) {
        const ix_lane *l = ix_find(&ix, 0, thread);
        size_t j0, j1;
        if (lane_range(src, rank, l, src->run->ranks[rank].clock_offset_ns, t0_ns, t1_ns, &j0,
                       &j1))
            n = l->calls_before[j1 + 1] - l->calls_before[j0];
    }
    ix_rank_free(&x);
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
    size_t first_out = 0; /* a window of a whole lane keeps everything: no pass */
    while (first_out < w->n && w->end_ns[first_out] >= w->t0_ns && w->start_ns[first_out] <= w->t1_ns)
        first_out++;
    if (first_out == w->n)
        return;
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

/* Load through the lane's block list l (NULL: the lane has no block). */
static int window_load(sp_event_source *src, const ix_lane *l, const sp_agg *agg, size_t rank,
                       int32_t thread, int64_t t0_ns, int64_t t1_ns, size_t max_calls,
                       sp_window **out)
{
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
    size_t j0 = 0, j1 = 0;
    bool any = lane_range(src, rank, l, b.offset, t0_ns, t1_ns, &j0, &j1);
    /* Sized once from the block table (an upper bound: the blocks' begins
     * and the spans open at the first), not by doubling: a window of
     * millions of calls would otherwise copy and fault its pages in again
     * at every doubling. */
    uint64_t bound = lane->nspans;
    for (size_t j = j0; any && j <= j1; j++)
        bound += src->blocks[rank][l->block[j]].begins;
    if (max_calls && bound > max_calls)
        bound = max_calls;
    /* Small windows exactly too: 2^18 one-call lanes at 1024 calls each
     * were gigabytes of allocator traffic. */
    int rc = reserve(&b, bound ? (size_t)bound : 16);
    /* The calls open at the first block (or, when no block of the lane
     * starts before the window's end, the calls that span it): outermost
     * first. */
    size_t at = any ? l->block[j0] : SIZE_MAX;
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
    /* Their ends are known: replaying closes them where they end. Only the
     * lane's own blocks are read, in runs of consecutive table rows. */
    for (size_t j = j0; any && rc == 0 && j <= j1 && !w->truncated;) {
        size_t k = j;
        while (k < j1 && l->block[k + 1] == l->block[k] + 1)
            k++;
        rc = sp_event_source_read(src, rank, l->block[j], l->block[k] + 1, on_block, &b);
        j = k + 1;
    }
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

int sp_window_load_ix(sp_event_source *src, const sp_block_index *ix, const sp_agg *agg,
                      size_t rank, int32_t thread, int64_t t0_ns, int64_t t1_ns,
                      size_t max_calls, sp_window **out)
{
    *out = NULL;
    if (!src || !ix || !agg || rank >= src->nranks || t1_ns < t0_ns)
        return sp__error(SP_EINVAL, "sp_window_load: bad arguments");
    return window_load(src, ix_find(ix, rank, thread), agg, rank, thread, t0_ns, t1_ns,
                       max_calls, out);
}

int sp_window_load(sp_event_source *src, const sp_agg *agg, size_t rank, int32_t thread,
                   int64_t t0_ns, int64_t t1_ns, size_t max_calls, sp_window **out)
{
    *out = NULL;
    if (!src || !agg || rank >= src->nranks || t1_ns < t0_ns)
        return sp__error(SP_EINVAL, "sp_window_load: bad arguments");
    sp_block_index ix;
    ix_rank x;
    int rc = rank_index(src, rank, &ix, &x);
    if (rc == 0)
        rc = window_load(src, ix_find(&ix, 0, thread), agg, rank, thread, t0_ns, t1_ns,
                         max_calls, out);
    else
        rc = sp__error(SP_ENOMEM, "out of memory");
    ix_rank_free(&x);
    return rc;
}
