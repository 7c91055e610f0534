/* SPDX-License-Identifier: MIT */
/* call_stream.c - a rank's calls from its events, a block at a time (see
 * call_stream.h). */
#include "call_stream.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

/* An open call on a thread's stack. */
typedef struct frame {
    int64_t start;
    int32_t region;
    int32_t buf;        /* index in the block's calls while that block is read, else -1 */
    int64_t eff_row;    /* row of this call if handed out, else of its nearest such caller */
    uint32_t eff_depth; /* calls handed out among this one and its callers */
} frame;

typedef struct tstate {
    frame *st;
    size_t depth, cap;
    bool started;       /* the thread's first block (of the window) was met */
} tstate;

/* A call that began in the block being read. */
typedef struct bcall {
    int64_t start, end;
    int32_t region;
    uint32_t depth;     /* on the thread's whole stack (spans are keyed by it) */
    int32_t parent_buf; /* its caller in this block, or -1: */
    int64_t parent_row; /* ... the caller's eff_row / eff_depth, known already */
    uint32_t parent_depth;
    int64_t eff_row;
    uint32_t eff_depth;
} bcall;

typedef struct stream {
    sp_event_source *src;
    const sp_agg *agg;
    size_t rank;
    const sp__call_sel *sel;
    sp__call_fn fn;
    void *ud;
    int64_t offset;     /* rank clock -> rank 0 */
    tstate *th;
    size_t nth;
    size_t *k0;         /* window: each thread's first block; SIZE_MAX: none */
    bcall *buf;
    size_t nbuf, cap;
    int64_t next_row;
} stream;

void sp__call_sel_all(sp__call_sel *sel)
{
    memset(sel, 0, sizeof *sel);
    sel->thread = -1;
}

static bool region_kept(const sp__call_sel *sel, int32_t g)
{
    return !sel->regions || (g >= 0 && (size_t)g < sel->nregions && sel->regions[g]);
}

static int push(tstate *t, frame f)
{
    if (t->depth == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 32;
        frame *s = realloc(t->st, c * sizeof *s);
        if (!s)
            return SP_ENOMEM;
        t->st = s;
        t->cap = c;
    }
    t->st[t->depth++] = f;
    return 0;
}

static int add_bcall(stream *s, bcall c)
{
    if (s->nbuf == s->cap) {
        size_t n = s->cap ? 2 * s->cap : 4096;
        bcall *b = realloc(s->buf, n * sizeof *b);
        if (!b)
            return SP_ENOMEM;
        s->buf = b;
        s->cap = n;
    }
    s->buf[s->nbuf++] = c;
    return 0;
}

/* Decide and hand out one call whose caller's row and depth are known. */
static int hand_out(stream *s, int32_t thread, int32_t region, int64_t start, int64_t end,
                    int64_t prow, uint32_t pdepth, int64_t *eff_row, uint32_t *eff_depth)
{
    const sp__call_sel *sel = s->sel;
    bool keep = region_kept(sel, region) &&
                (!sel->window || (start + s->offset <= sel->t1_ns && end + s->offset >= sel->t0_ns));
    if (!keep) {
        *eff_row = prow;
        *eff_depth = pdepth;
        return 0;
    }
    sp__call c = {.rank = s->rank, .thread = thread, .region = region, .depth = pdepth,
                  .row = s->next_row++, .parent = prow, .start_ns = start, .end_ns = end};
    *eff_row = c.row;
    *eff_depth = pdepth + 1;
    return s->fn(s->ud, &c);
}

/* The end of a call of lane `thread` that began in block k at depth d and
 * ends in a later block, from the spans; found = false if it is not one. */
static int64_t span_end(const stream *s, int32_t thread, size_t k, uint32_t d, bool *found)
{
    const sp_agg_lane *l = sp_agg_find_lane(s->agg, s->rank, thread);
    size_t lo = 0, hi = l ? l->nspans : 0;
    while (lo < hi) { /* spans are by begin block, then depth */
        size_t mid = lo + (hi - lo) / 2;
        const sp_agg_span *sp = &l->spans[mid];
        if (sp->begin_block < k || (sp->begin_block == k && sp->depth < d))
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = l && lo < l->nspans && l->spans[lo].begin_block == k && l->spans[lo].depth == d;
    return *found ? l->spans[lo].end_ns - s->offset : 0;
}

/* The window starts at block k of a thread: the calls open there (spans
 * that began earlier and end there or later) go on its stack, outermost
 * first, and are handed out first. */
static int seed(stream *s, int32_t thread, size_t k)
{
    const sp_agg_lane *l = sp_agg_find_lane(s->agg, s->rank, thread);
    tstate *t = &s->th[thread];
    for (size_t i = 0; l && i < l->nspans; i++) {
        const sp_agg_span *sp = &l->spans[i];
        if (!(sp->begin_block < k && sp->end_block >= k))
            continue;
        while (t->depth > sp->depth) /* spans of one begin block come by depth */
            t->depth--;
        int64_t prow = t->depth ? t->st[t->depth - 1].eff_row : -1;
        uint32_t pdepth = t->depth ? t->st[t->depth - 1].eff_depth : 0;
        frame f = {.start = sp->start_ns - s->offset, .region = sp->region, .buf = -1};
        int rc = hand_out(s, thread, sp->region, f.start, sp->end_ns - s->offset, prow, pdepth,
                          &f.eff_row, &f.eff_depth);
        if (rc || (rc = push(t, f)))
            return rc;
    }
    return 0;
}

static int on_block(void *ud, const sp_event_batch *b)
{
    stream *s = ud;
    if (s->sel->progress)
        sp__progress_add(s->sel->progress, b->n);
    int32_t thread = b->thread;
    if (thread < 0 || (s->sel->thread >= 0 && thread != s->sel->thread))
        return 0;
    if ((size_t)thread >= s->nth) {
        if (s->k0)
            return 0; /* a window knows every thread of its blocks */
        size_t n = (size_t)thread + 1;
        tstate *t = realloc(s->th, n * sizeof *t);
        if (!t)
            return SP_ENOMEM;
        memset(t + s->nth, 0, (n - s->nth) * sizeof *t);
        s->th = t;
        s->nth = n;
    }
    tstate *t = &s->th[thread];
    if (s->k0 && (s->k0[thread] == SIZE_MAX || b->block < s->k0[thread]))
        return 0;
    int rc = 0;
    if (!t->started) {
        t->started = true;
        if (b->block > 0 && (rc = seed(s, thread, b->block)))
            return rc;
    }
    s->nbuf = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        if (b->region[i] >= 0) {
            const frame *top = t->depth ? &t->st[t->depth - 1] : NULL;
            bcall c = {.start = b->t_ns[i], .end = b->t_ns[i], .region = b->region[i],
                       .depth = (uint32_t)t->depth,
                       .parent_buf = top ? top->buf : -1,
                       .parent_row = top ? top->eff_row : -1,
                       .parent_depth = top ? top->eff_depth : 0};
            frame f = {.start = b->t_ns[i], .region = b->region[i], .buf = (int32_t)s->nbuf};
            rc = add_bcall(s, c);
            if (rc == 0)
                rc = push(t, f);
        } else if (t->depth) { /* the pass checked the nesting; stay safe anyway */
            frame *f = &t->st[--t->depth];
            if (f->buf >= 0)
                s->buf[f->buf].end = b->t_ns[i];
        }
    }
    /* Calls of this block still open: their ends are the spans' (or, for a
     * call cut at the end of an unfinished run, this block's last event). */
    int64_t last = b->n ? b->t_ns[b->n - 1] : 0;
    for (size_t d = 0; rc == 0 && d < t->depth; d++) {
        frame *f = &t->st[d];
        if (f->buf < 0)
            continue;
        bool found;
        int64_t e = span_end(s, thread, b->block, s->buf[f->buf].depth, &found);
        s->buf[f->buf].end = found ? e : last;
    }
    for (size_t i = 0; rc == 0 && i < s->nbuf; i++) {
        bcall *c = &s->buf[i];
        int64_t prow = c->parent_buf >= 0 ? s->buf[c->parent_buf].eff_row : c->parent_row;
        uint32_t pdepth = c->parent_buf >= 0 ? s->buf[c->parent_buf].eff_depth : c->parent_depth;
        rc = hand_out(s, thread, c->region, c->start, c->end, prow, pdepth, &c->eff_row,
                      &c->eff_depth);
    }
    for (size_t d = 0; rc == 0 && d < t->depth; d++) {
        frame *f = &t->st[d];
        if (f->buf < 0)
            continue;
        f->eff_row = s->buf[f->buf].eff_row;
        f->eff_depth = s->buf[f->buf].eff_depth;
        f->buf = -1;
    }
    return rc;
}

/* Blocks to read for a window: [*b0, *b1), and each thread's first block
 * (k0[t]; SIZE_MAX: the thread has none in the window). */
static int window_blocks(stream *s, size_t nread, size_t *b0, size_t *b1)
{
    const sp_block *bl = s->src->blocks[s->rank];
    const sp__call_sel *sel = s->sel;
    size_t nth = s->src->run->ranks[s->rank].nthreads;
    for (size_t k = 0; k < nread; k++)
        if (bl[k].thread >= 0 && (size_t)bl[k].thread >= nth)
            nth = (size_t)bl[k].thread + 1;
    s->k0 = malloc((nth ? nth : 1) * sizeof *s->k0);
    size_t *first_in = malloc((nth ? nth : 1) * sizeof *first_in);
    if (!s->k0 || !first_in) {
        free(first_in);
        return SP_ENOMEM;
    }
    s->th = calloc(nth ? nth : 1, sizeof *s->th);
    if (!s->th) {
        free(first_in);
        return SP_ENOMEM;
    }
    s->nth = nth;
    for (size_t t = 0; t < nth; t++)
        s->k0[t] = first_in[t] = SIZE_MAX;
    *b0 = SIZE_MAX;
    *b1 = 0;
    for (size_t k = 0; k < nread; k++) {
        int32_t t = bl[k].thread;
        if (t < 0 || (sel->thread >= 0 && t != sel->thread))
            continue;
        int64_t at = bl[k].t0_ns + s->offset;
        if (at <= sel->t0_ns)
            s->k0[t] = k; /* the last block starting before the window lasts into it */
        else if (first_in[t] == SIZE_MAX && at <= sel->t1_ns)
            first_in[t] = k;
        if (at <= sel->t1_ns)
            *b1 = k + 1;
    }
    for (size_t t = 0; t < nth; t++) {
        if (s->k0[t] == SIZE_MAX)
            s->k0[t] = first_in[t];
        if (s->k0[t] < *b0)
            *b0 = s->k0[t];
    }
    free(first_in);
    if (*b0 == SIZE_MAX || *b0 >= *b1)
        *b0 = *b1 = 0;
    return 0;
}

int sp__stream_rank_calls(sp_event_source *src, const sp_agg *agg, size_t rank,
                          const sp__call_sel *sel, sp__call_fn fn, void *ud)
{
    if (!agg || !(agg->flags & (SP_AGG_LANES | SP_AGG_LOD)))
        return sp__error(SP_EINVAL, "reading calls needs the pass's lanes");
    if (rank >= src->nranks || rank >= agg->nranks || !agg->ranks[rank].read)
        return 0;
    stream s = {.src = src, .agg = agg, .rank = rank, .sel = sel, .fn = fn, .ud = ud,
                .offset = src->run->ranks[rank].clock_offset_ns};
    size_t nread = agg->ranks[rank].blocks_read;
    if (nread > src->nblocks[rank])
        nread = src->nblocks[rank];
    size_t b0 = 0, b1 = nread;
    int rc = 0;
    if (sel->window)
        rc = window_blocks(&s, nread, &b0, &b1);
    if (rc == 0 && b1 > b0)
        rc = sp_event_source_read(src, rank, b0, b1, on_block, &s);
    for (size_t t = 0; t < s.nth; t++)
        free(s.th[t].st);
    free(s.th);
    free(s.k0);
    free(s.buf);
    if (rc == SP_ENOMEM)
        return sp__error(SP_ENOMEM, "out of memory reading calls");
    return rc;
}

uint64_t sp__stream_estimate(const sp_event_source *src, const sp_agg *agg, size_t rank,
                             const sp__call_sel *sel)
{
    if (!agg || rank >= agg->nranks || rank >= src->nranks || !agg->ranks[rank].read)
        return 0;
    const sp_agg_rank *o = &agg->ranks[rank];
    uint64_t by_region = 0;
    for (size_t i = 0; i < o->nregions; i++)
        if (region_kept(sel, o->regions[i].region))
            by_region += o->regions[i].calls;
    if (!sel->window && sel->thread < 0)
        return by_region;
    size_t nread = o->blocks_read < src->nblocks[rank] ? o->blocks_read : src->nblocks[rank];
    int64_t off = src->run->ranks[rank].clock_offset_ns;
    uint64_t in_window = 0;
    const sp_block *bl = src->blocks[rank];
    for (size_t k = 0; k < nread; k++) {
        if (sel->thread >= 0 && bl[k].thread != sel->thread)
            continue;
        /* a block lasts until the thread's next one: count it from a little
         * before the window (the next block's start bounds it) */
        int64_t at = bl[k].t0_ns + off;
        bool after = sel->window && at > sel->t1_ns;
        bool before = false;
        if (sel->window) {
            size_t j = k + 1;
            while (j < nread && bl[j].thread != bl[k].thread)
                j++;
            before = j < nread && bl[j].t0_ns + off < sel->t0_ns;
        }
        if (!after && !before)
            in_window += bl[k].begins;
    }
    return in_window < by_region ? in_window : by_region;
}
