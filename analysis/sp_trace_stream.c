/* SPDX-License-Identifier: MIT */
/*
 * sp_trace_stream.c - a run's calls as per-thread begin/end events (see
 * sp_trace_stream.h).
 *
 * Per rank: each thread (lane) gets the range of its blocks to read (all of
 * them, or for a window the blocks that can hold events in [t0, t1], found
 * as sp_window.c finds them) and starts with the calls open at its first
 * block (the pass's spans). The rank's blocks are read once, from the
 * lowest first block to the highest last one; each lane replays its own
 * events through a stack of open calls. In a window, nothing is handed out
 * before the lane's first event at or after t0; then the calls still open
 * begin (at their real start) and the stream goes on until the lane's last
 * block; calls begun after t1 are left out. What is still open after the
 * last block ends where the spans say it ends (or, at the end of the
 * thread's events, at its last event: a call never ended).
 */
#include "sp_trace_stream.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#define NO_BLOCK SIZE_MAX

typedef struct open_call {
    int64_t start;
    int32_t region;
    uint32_t begin_block;
    bool in_window; /* its begin was (or will be) handed out, if shown */
    bool shown;     /* its region is selected */
} open_call;

typedef struct lane {
    size_t k0, k1;        /* blocks to read (k0 == NO_BLOCK: none) */
    size_t last_block;    /* the thread's last block in the rank */
    bool started;         /* reached t0 (always, without a window) */
    int64_t last_t;       /* last event seen */
    open_call *stack;
    size_t depth, cap;
} lane;

typedef struct tstate {
    sp_event_source *src;
    const sp_agg *agg;
    const sp_trace_select *sel;
    const sp_trace_sink *sink;
    size_t rank;
    int64_t offset;
    lane *lanes;
    size_t nlanes;
    sp_trace_event *out;
    size_t nout, outcap;
} tstate;

static int out_reserve(tstate *s, size_t more)
{
    if (s->nout + more <= s->outcap)
        return 0;
    size_t c = s->outcap ? s->outcap : 4096;
    while (c < s->nout + more)
        c *= 2;
    sp_trace_event *o = realloc(s->out, c * sizeof *o);
    if (!o)
        return SP_ENOMEM;
    s->out = o;
    s->outcap = c;
    return 0;
}

static void emit(tstate *s, int64_t t, int32_t region, bool begin)
{
    s->out[s->nout++] = (sp_trace_event){.t_ns = t, .region = region, .begin = begin};
}

/* Hand the events gathered for one lane to the sink. */
static int flush_out(tstate *s, int32_t thread)
{
    if (s->nout == 0)
        return 0;
    size_t n = s->nout;
    s->nout = 0;
    return s->sink->events(s->sink->ud, s->rank, thread, s->out, n);
}

static bool region_shown(const tstate *s, int32_t region)
{
    const bool *keep = s->sel->regions;
    return !keep || (region >= 0 && (size_t)region < s->src->run->nregions && keep[region]);
}

static int push(tstate *s, lane *l, int64_t start, int32_t region, uint32_t block, bool in_window)
{
    if (l->depth == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 32;
        open_call *st = realloc(l->stack, c * sizeof *st);
        if (!st)
            return SP_ENOMEM;
        l->stack = st;
        l->cap = c;
    }
    l->stack[l->depth++] = (open_call){.start = start, .region = region, .begin_block = block,
                                       .in_window = in_window, .shown = region_shown(s, region)};
    return 0;
}

/* The lane reaches the window: the calls open now begin (outermost first). */
static int enter_window(tstate *s, lane *l)
{
    l->started = true;
    if (out_reserve(s, l->depth))
        return SP_ENOMEM;
    for (size_t d = 0; d < l->depth; d++) {
        l->stack[d].in_window = true;
        if (l->stack[d].shown)
            emit(s, l->stack[d].start, l->stack[d].region, true);
    }
    return 0;
}

static int on_block(void *ud, const sp_event_batch *b)
{
    tstate *s = ud;
    if (b->thread < 0 || (size_t)b->thread >= s->nlanes)
        return 0;
    lane *l = &s->lanes[b->thread];
    if (l->k0 == NO_BLOCK || b->block < l->k0 || b->block > l->k1)
        return 0;
    const sp_trace_select *sel = s->sel;
    if (out_reserve(s, b->n))
        return SP_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        int64_t t = b->t_ns[i] + s->offset;
        if (!l->started && t >= sel->t0_ns)
            rc = enter_window(s, l);
        if (rc)
            break;
        if (b->region[i] >= 0) {
            bool in = l->started && (!sel->window || t <= sel->t1_ns);
            rc = push(s, l, t, b->region[i], (uint32_t)b->block, in);
            if (rc == 0 && in && l->stack[l->depth - 1].shown)
                emit(s, t, b->region[i], true);
        } else if (l->depth) {
            open_call *c = &l->stack[--l->depth];
            if (c->in_window && c->shown)
                emit(s, t, c->region, false);
        }
        l->last_t = t;
    }
    return rc ? rc : flush_out(s, b->thread);
}

/* The end of a call still open after the lane's last block read: the
 * span that begins in its block at its depth, or its thread's last event
 * when the lane was read to its end (a call never ended). */
static int64_t open_call_end(const tstate *s, const lane *l, int32_t thread, size_t depth)
{
    const open_call *c = &l->stack[depth];
    const sp_agg_lane *al = s->agg ? sp_agg_find_lane(s->agg, s->rank, thread) : NULL;
    if (al) {
        size_t lo = 0, hi = al->nspans;
        while (lo < hi) { /* spans are by begin block, then depth */
            size_t mid = lo + (hi - lo) / 2;
            const sp_agg_span *sp = &al->spans[mid];
            if (sp->begin_block < c->begin_block ||
                (sp->begin_block == c->begin_block && sp->depth < depth))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < al->nspans && al->spans[lo].begin_block == c->begin_block &&
            al->spans[lo].depth == depth)
            return al->spans[lo].end_ns;
    }
    if (l->k1 == l->last_block || !al)
        return l->last_t > c->start ? l->last_t : c->start;
    return al->last_ns > c->start ? al->last_ns : c->start;
}

/* After the lane's last block: close what is open. */
static int finish_lane(tstate *s, lane *l, int32_t thread)
{
    if (l->depth == 0)
        return 0;
    if (out_reserve(s, 2 * l->depth))
        return SP_ENOMEM;
    int64_t *ends = malloc(l->depth * sizeof *ends);
    if (!ends)
        return SP_ENOMEM;
    for (size_t d = 0; d < l->depth; d++)
        ends[d] = open_call_end(s, l, thread, d);
    if (!l->started) { /* the lane never reached t0: calls that last into the window */
        for (size_t d = 0; d < l->depth; d++) {
            open_call *c = &l->stack[d];
            c->in_window = ends[d] >= s->sel->t0_ns && c->start <= s->sel->t1_ns;
            if (c->in_window && c->shown)
                emit(s, c->start, c->region, true);
        }
    }
    for (size_t d = l->depth; d-- > 0;) {
        open_call *c = &l->stack[d];
        if (c->in_window && c->shown)
            emit(s, ends[d], c->region, false);
    }
    free(ends);
    l->depth = 0;
    return flush_out(s, thread);
}

/* Each lane's block range and the calls open at its first block. */
static int plan_lanes(tstate *s, size_t *kmin, size_t *kmax)
{
    const sp_trace_select *sel = s->sel;
    const sp_block *bl = s->src->blocks[s->rank];
    size_t n = s->src->nblocks[s->rank];
    size_t nl = 0;
    for (size_t k = 0; k < n; k++)
        if (bl[k].thread >= 0 && (size_t)bl[k].thread + 1 > nl)
            nl = (size_t)bl[k].thread + 1;
    s->lanes = calloc(nl ? nl : 1, sizeof *s->lanes);
    size_t *first = calloc(nl ? nl : 1, sizeof *first);
    if (!s->lanes || !first) {
        free(first);
        return SP_ENOMEM;
    }
    s->nlanes = nl;
    for (size_t t = 0; t < nl; t++) {
        s->lanes[t].k0 = s->lanes[t].k1 = s->lanes[t].last_block = NO_BLOCK;
        first[t] = NO_BLOCK;
        s->lanes[t].started = !sel->window;
    }
    /* prev: the lane's last block starting at or before t0 (it lasts into
     * the window); first: its first block starting in the window. */
    for (size_t k = 0; k < n; k++) {
        if (bl[k].thread < 0)
            continue;
        lane *l = &s->lanes[bl[k].thread];
        size_t *f = &first[bl[k].thread];
        l->last_block = k;
        if (!sel->window) {
            if (l->k0 == NO_BLOCK)
                l->k0 = k;
            l->k1 = k;
            continue;
        }
        int64_t at = bl[k].t0_ns + s->offset;
        if (at <= sel->t0_ns)
            l->k0 = k;
        else if (*f == NO_BLOCK && at <= sel->t1_ns)
            *f = k;
        if (at <= sel->t1_ns)
            l->k1 = k;
    }
    *kmin = NO_BLOCK;
    *kmax = 0;
    int rc = 0;
    for (size_t t = 0; t < nl && rc == 0; t++) {
        lane *l = &s->lanes[t];
        if (l->k0 == NO_BLOCK)
            l->k0 = first[t];
        if (l->k0 == NO_BLOCK || l->k1 == NO_BLOCK || l->k1 < l->k0) {
            l->k0 = NO_BLOCK;
            continue;
        }
        if (l->k0 < *kmin)
            *kmin = l->k0;
        if (l->k1 > *kmax)
            *kmax = l->k1;
        const sp_agg_lane *al = sel->window ? sp_agg_find_lane(s->agg, s->rank, (int32_t)t) : NULL;
        for (size_t i = 0; al && i < al->nspans && rc == 0; i++) {
            const sp_agg_span *sp = &al->spans[i];
            if (sp->begin_block < l->k0 && sp->end_block >= l->k0) {
                l->depth = sp->depth < l->depth ? sp->depth : l->depth;
                rc = push(s, l, sp->start_ns, sp->region, sp->begin_block, false);
            }
        }
    }
    free(first);
    return rc;
}

static void free_lanes(tstate *s)
{
    for (size_t t = 0; t < s->nlanes; t++)
        free(s->lanes[t].stack);
    free(s->lanes);
    s->lanes = NULL;
    s->nlanes = 0;
}

static int stream_rank(tstate *s, size_t r)
{
    s->rank = r;
    s->offset = s->src->run->ranks[r].clock_offset_ns;
    size_t kmin, kmax;
    int rc = plan_lanes(s, &kmin, &kmax);
    if (rc == 0 && s->sink->rank_begin)
        rc = s->sink->rank_begin(s->sink->ud, r);
    if (rc == 0 && kmin != NO_BLOCK)
        rc = sp_event_source_read(s->src, r, kmin, kmax + 1, on_block, s);
    for (size_t t = 0; t < s->nlanes && rc == 0; t++)
        if (s->lanes[t].k0 != NO_BLOCK)
            rc = finish_lane(s, &s->lanes[t], (int32_t)t);
    if (rc == 0 && s->sink->rank_end)
        rc = s->sink->rank_end(s->sink->ud, r);
    free_lanes(s);
    return rc;
}

int sp_trace_stream(sp_event_source *src, const sp_agg *agg, const sp_trace_select *sel,
                    const sp_trace_sink *sink)
{
    static const sp_trace_select all = {0};
    if (!src || !sink || !sink->events)
        return sp__error(SP_EINVAL, "sp_trace_stream: bad arguments");
    if (!sel)
        sel = &all;
    if (sel->window && (!agg || !(agg->flags & SP_AGG_LANES)))
        return sp__error(SP_EINVAL, "sp_trace_stream: a window needs the pass's lanes");
    tstate s = {.src = src, .agg = agg, .sel = sel, .sink = sink};
    int rc = 0;
    for (size_t r = 0; r < src->nranks && rc == 0; r++)
        if (!sel->ranks || sel->ranks[r])
            rc = stream_rank(&s, r);
    free(s.out);
    if (rc == SP_ENOMEM)
        return sp__error(SP_ENOMEM, "out of memory streaming calls");
    return rc;
}
