/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_pass.c - the aggregate pass: every block of every selected rank
 * replayed once through per-thread stacks of open calls, each call folded
 * into its rank's aggregates when it ends (see sp_agg.h for what is kept).
 *
 * Cost per call: a child lookup at its begin (cached in the parent frame:
 * loops call the same child again and again, so the hash maps are rarely
 * touched), two histogram increments and a few sums at its end. Recursion is
 * recognised without walking the stack: a per-region count of the calls
 * open on the current thread (the worker swaps counts when the stream moves
 * to another thread's block, at a cost of the two stacks' depths).
 *
 * Ranks go to worker threads; a rank is replayed by one worker from its
 * first block to its last, so observers see a rank's calls in end order.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_agg_internal.h"
#include "sp_error.h"
#include "sp_lod.h"

#define PROGRESS_EVERY ((uint64_t)1 << 22) /* events between progress reports */

typedef struct rank_job {
    sp__pass *p;
    sp__rank_state *rs;
    sp__worker *w;
    size_t rank;
    int64_t offset;        /* clock offset: rank clock + offset = rank 0 clock */
    uint64_t unreported;   /* events since the last progress report */
    bool check;            /* the source is not trusted: times and nesting checked */
    bool hard;             /* a check failed that no torn write explains */
    uint64_t total;        /* durations of the rank's calls (capped at 2^62) */
    char ctx[512];
} rank_job;

#define TIME_LIMIT ((int64_t)1 << 61) /* 73 years: what any time may be */

/* A file whose times cannot be (not a torn write: refused even unfinished). */
static int damaged(rank_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int damaged(rank_job *j, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    j->hard = true;
    return sp__error(SP_EFORMAT, "%s: %s: the file is damaged", j->ctx, msg);
}

static int push_frame(sp__thread *th)
{
    if (th->depth < th->cap)
        return 0;
    size_t c = th->cap ? 2 * th->cap : 32;
    sp__frame *s = realloc(th->stack, c * sizeof *s);
    if (!s)
        return SP_ENOMEM;
    th->stack = s;
    th->cap = c;
    return 0;
}

/* The worker's open counts follow the thread whose block is replayed. */
static void switch_thread(sp__worker *w, sp__rank_state *rs, int32_t thread)
{
    if (w->cur_thread == thread)
        return;
    if (w->cur_thread >= 0) {
        sp__thread *old = &rs->threads[w->cur_thread];
        for (size_t i = 0; i < old->depth; i++)
            w->open_cnt[old->stack[i].region]--;
    }
    sp__thread *th = &rs->threads[thread];
    for (size_t i = 0; i < th->depth; i++)
        w->open_cnt[th->stack[i].region]++;
    w->cur_thread = thread;
}

static int oom(const rank_job *j)
{
    return sp__error(SP_ENOMEM, "%s: out of memory aggregating calls", j->ctx);
}

static int begin_call(rank_job *j, sp__thread *th, int32_t g, int64_t t, size_t block)
{
    sp__rank_state *rs = j->rs;
    sp__worker *w = j->w;
    sp__frame *parent = th->depth ? &th->stack[th->depth - 1] : &th->root;
    int32_t node, rcell, ncell;
    if (parent->c_region == g && parent->c_node >= 0) {
        node = parent->c_node;
        rcell = parent->c_rcell;
        ncell = parent->c_ncell;
    } else {
        int32_t pnode = th->depth ? parent->node : 0;
        node = sp__agg_child(rs, pnode, g);
        rcell = sp__agg_cell(&rs->out.region_cells, &rs->out.nregion_cells, &rs->cap_rcells,
                             &rs->rcell_map, g, w->cur_thread);
        ncell = node < 0 ? -1
                         : sp__agg_cell(&rs->out.node_cells, &rs->out.nnode_cells,
                                        &rs->cap_ncells, &rs->ncell_map, node, w->cur_thread);
        if (node < 0 || rcell < 0 || ncell < 0)
            return oom(j);
        parent->c_region = g;
        parent->c_node = node;
        parent->c_rcell = rcell;
        parent->c_ncell = ncell;
    }
    int32_t slot = w->slot[g] >= 0 ? w->slot[g] : sp__agg_region_slot(rs, w, g);
    if (slot < 0 || push_frame(th))
        return oom(j);
    sp__frame *f = &th->stack[th->depth++];
    f->start = t;
    f->child_ns = 0;
    f->region = g;
    f->node = node;
    f->rslot = slot;
    f->rcell = rcell;
    f->ncell = ncell;
    f->c_region = -1;
    f->c_node = -1;
    f->begin_block = (uint32_t)(block > UINT32_MAX ? UINT32_MAX : block);
    f->nested = w->open_cnt[g] > 0;
    w->open_cnt[g]++;
    if (th->depth > rs->out.max_depth)
        rs->out.max_depth = (uint32_t)th->depth;
    return 0;
}

static void add_series(const sp__pass *p, sp__worker *w, int32_t g, int64_t start, int64_t dur);

/* The lane of the current thread: counts, span, the calls that span
 * blocks, and the level-of-detail index. */
static int lane_call(rank_job *j, const sp__frame *f, size_t depth, int64_t start, int64_t end,
                     size_t block)
{
    sp__rank_state *rs = j->rs;
    int32_t t = j->w->cur_thread;
    sp_agg_lane *l = &rs->lanes[t];
    l->calls++;
    if (!l->has_span || start < l->first_ns)
        l->first_ns = start;
    if (!l->has_span || end > l->last_ns)
        l->last_ns = end;
    l->has_span = true;
    if (depth + 1 > l->max_depth)
        l->max_depth = (uint32_t)(depth + 1);
    if (f->begin_block != block) {
        if (l->nspans == rs->cap_spans[t]) {
            size_t c = rs->cap_spans[t] ? 2 * rs->cap_spans[t] : 16;
            sp_agg_span *sp = realloc(l->spans, c * sizeof *sp);
            if (!sp)
                return oom(j);
            l->spans = sp;
            rs->cap_spans[t] = c;
        }
        l->spans[l->nspans++] = (sp_agg_span){start, end, f->region, (uint32_t)depth,
                                              f->begin_block,
                                              (uint32_t)(block > UINT32_MAX ? UINT32_MAX : block)};
    }
    if (l->lod && sp_lod_add_call(l->lod, start, end, f->region, (uint32_t)depth))
        return oom(j);
    return 0;
}

/* Level-of-detail indexes for the threads with many calls, sized from the
 * blocks still to read (SP_AGG_LOD). */
static int make_lods(rank_job *j)
{
    sp__rank_state *rs = j->rs;
    const sp_event_source *src = j->p->src;
    size_t r = j->rank;
    uint64_t *calls = calloc(rs->nthreads ? rs->nthreads : 1, sizeof *calls);
    int64_t *lo = malloc((rs->nthreads ? rs->nthreads : 1) * sizeof *lo);
    int64_t *hi = malloc((rs->nthreads ? rs->nthreads : 1) * sizeof *hi);
    int rc = calls && lo && hi ? 0 : oom(j);
    for (size_t b = rs->next_block; rc == 0 && b < src->nblocks[r]; b++) {
        const sp_block *blk = &src->blocks[r][b];
        size_t t = (size_t)blk->thread;
        if (t >= rs->nthreads)
            continue;
        int64_t at = sp__sat_add(blk->t0_ns, j->offset);
        if (!calls[t] || at < lo[t])
            lo[t] = at;
        if (!calls[t] || at > hi[t])
            hi[t] = at;
        calls[t] += blk->begins ? blk->begins : 1;
    }
    for (size_t t = 0; rc == 0 && t < rs->nthreads; t++)
        if (!rs->lanes[t].lod && calls[t] >= SP_LOD_MIN_CALLS &&
            !(rs->lanes[t].lod = sp_lod_new(lo[t], hi[t], calls[t])))
            rc = oom(j);
    free(calls);
    free(lo);
    free(hi);
    return rc;
}

/* A call into its region's (or path's) segments and waits (SP_AGG_SEGMENTS):
 * into segment k (of its start in the rank's span, segs_slot), its time x
 * its thread's wait share for a CPU at its start. */
static void segs_add(sp_agg_segs *s, size_t k, double share, int64_t dur, int64_t own)
{
    s->time_ns[0][k] += (double)dur;
    s->time_ns[1][k] += (double)own;
    s->wait_ns[0] += (double)dur * share;
    s->wait_ns[1] += (double)own * share;
}

/* The segment of a call starting at `start`. */
static size_t segs_slot(const sp__rank_state *rs, int64_t start)
{
    /* In doubles: hostile clocks span more than int64 (INT64_MIN..MAX). */
    double at = start > rs->seg_t0 ? ((double)start - (double)rs->seg_t0) * rs->seg_per_ns : 0;
    return at < SP_AGG_NSEGS ? (size_t)at : SP_AGG_NSEGS - 1;
}

/* The innermost open call of th ends at t (cut: the stream ended first). */
static int end_call(rank_job *j, sp__thread *th, int64_t t, size_t block, bool cut)
{
    sp__rank_state *rs = j->rs;
    sp_agg_rank *o = &rs->out;
    sp__frame *f = &th->stack[--th->depth];
    j->w->open_cnt[f->region]--;
    if (j->check) {
        if (t < f->start)
            return damaged(j, "a call of region %" PRId32 " ends before it starts ([%" PRId64
                           ", %" PRId64 "] ns)", f->region, f->start, t);
        if (f->child_ns > t - f->start)
            return damaged(j, "a call of region %" PRId32 " lasts %" PRId64 " ns but its calls "
                           "inside last %" PRId64 " ns (own time would be negative)",
                           f->region, t - f->start, f->child_ns);
        if ((uint64_t)(t - f->start) > ((uint64_t)1 << 62) - j->total)
            return damaged(j, "the calls' durations add up to more than 2^62 ns (146 years)");
        j->total += (uint64_t)(t - f->start);
    }
    int64_t dur = t > f->start ? t - f->start : 0;
    int64_t own = dur - f->child_ns;
    if (own < 0) /* children longer than their parent (a trusted source's damage) */
        own = 0;
    if (th->depth)
        th->stack[th->depth - 1].child_ns = sp__sat_add(th->stack[th->depth - 1].child_ns, dur);

    sp_agg_region *r = &o->regions[f->rslot];
    if (r->calls == 0 || dur < r->min_ns)
        r->min_ns = dur;
    if (r->calls == 0 || dur > r->max_ns)
        r->max_ns = dur;
    r->calls++;
    r->all_ns = sp__sat_add(r->all_ns, dur);
    if (f->nested)
        r->nested++;
    else
        r->total_ns = sp__sat_add(r->total_ns, dur);
    r->own_ns = sp__sat_add(r->own_ns, own);
    sp_agg_sumsq_add(&r->sumsq, (sp_agg_sumsq)(uint64_t)dur * (uint64_t)dur);
    if (sp_hist_add(&r->hist, dur) || sp_hist_add(&r->own_hist, own))
        return oom(j);

    sp_agg_cell *rc = &o->region_cells[f->rcell];
    rc->calls++;
    if (!f->nested)
        rc->incl_ns = sp__sat_add(rc->incl_ns, dur);
    rc->own_ns = sp__sat_add(rc->own_ns, own);
    sp_agg_cell *nc = &o->node_cells[f->ncell];
    nc->calls++;
    nc->incl_ns = sp__sat_add(nc->incl_ns, dur);
    nc->own_ns = sp__sat_add(nc->own_ns, own);
    o->calls++;

    sp__pass *p = j->p;
    sp_agg_node_hist *h = NULL;
    if (p->opts.flags & SP_AGG_NODE_HIST) {
        h = sp__agg_node_hist(rs, f->node);
        if (!h || sp_hist_add(&h->hist, dur) || sp_hist_add(&h->own_hist, own))
            return oom(j);
    }
    if (p->opts.flags & SP_AGG_SEGMENTS) {
        /* Slot and wait share once for the region and its path. */
        size_t k = segs_slot(rs, f->start);
        double share = sp_sched_share_at(&rs->sched, j->w->cur_thread, f->start);
        segs_add(&r->segs, k, share, dur, own);
        if (h)
            segs_add(&h->segs, k, share, dur, own);
    }
    int64_t start = sp__sat_add(f->start, j->offset), end = sp__sat_add(t, j->offset);
    if (!o->has_span || start < o->first_ns)
        o->first_ns = start;
    if (!o->has_span || end > o->last_ns)
        o->last_ns = end;
    o->has_span = true;
    if (p->series)
        add_series(p, j->w, f->region, start, dur);
    if (p->opts.flags & (SP_AGG_LANES | SP_AGG_LOD)) {
        int rcl = lane_call(j, f, th->depth, start, end, block);
        if (rcl)
            return rcl;
    }
    if (p->opts.observer) {
        sp_pass_call c = {.rank = j->rank,
                          .thread = j->w->cur_thread,
                          .region = f->region,
                          .node = f->node,
                          .depth = (uint32_t)th->depth,
                          .nested = f->nested,
                          .cut = cut,
                          .start_ns = start,
                          .end_ns = end,
                          .own_ns = own,
                          .begin_block = f->begin_block,
                          .end_block = block};
        int rc2 = p->opts.observer->call(p->opts.observer->ud, &c);
        if (rc2)
            return rc2;
    }
    return 0;
}

/* Nesting of a block checked before any of it is applied, so a damaged
 * block of an unfinished file leaves the aggregates as they were. */
static int check_block(const rank_job *j, const sp_event_batch *b, size_t depth)
{
    size_t nreg = j->w->nregions;
    for (size_t i = 0; i < b->n; i++) {
        int32_t g = b->region[i];
        if (g >= 0) {
            if ((size_t)g >= nreg)
                return sp__error(SP_EFORMAT, "%s, block %zu, event %zu: region %" PRId32
                                 " (the run has %zu)", j->ctx, b->block, i, g, nreg);
            depth++;
        } else if (g == -1) {
            if (depth == 0)
                return sp__error(SP_EFORMAT, "%s, block %zu, event %zu: an end with no open "
                                 "call on thread %" PRId32, j->ctx, b->block, i, b->thread);
            depth--;
        } else {
            return sp__error(SP_EFORMAT, "%s, block %zu, event %zu: region %" PRId32
                             " (an end is -1)", j->ctx, b->block, i, g);
        }
    }
    return 0;
}

/* Add n events replayed; report when enough have gathered (or at the end
 * of the rank: flush). */
static void report_progress(rank_job *j, uint64_t n, bool flush)
{
    sp__pass *p = j->p;
    j->unreported += n;
    if (!p->opts.progress || (j->unreported < PROGRESS_EVERY && !flush))
        return;
    pthread_mutex_lock(&p->progress_lock);
    p->done_events += j->unreported;
    p->opts.progress(p->opts.progress_ud, p->done_events, p->total_events);
    pthread_mutex_unlock(&p->progress_lock);
    j->unreported = 0;
}

/* The per-thread state covers every thread the header knows. */
static int cover_threads(sp__rank_state *rs, size_t n)
{
    if (n <= rs->nthreads)
        return 0;
    sp__thread *t = realloc(rs->threads, n * sizeof *t);
    if (!t)
        return SP_ENOMEM;
    rs->threads = t;
    sp_agg_lane *l = realloc(rs->lanes, n * sizeof *l);
    if (!l)
        return SP_ENOMEM;
    rs->lanes = l;
    size_t *c = realloc(rs->cap_spans, n * sizeof *c);
    if (!c)
        return SP_ENOMEM;
    rs->cap_spans = c;
    memset(t + rs->nthreads, 0, (n - rs->nthreads) * sizeof *t);
    memset(l + rs->nthreads, 0, (n - rs->nthreads) * sizeof *l);
    memset(c + rs->nthreads, 0, (n - rs->nthreads) * sizeof *c);
    for (size_t i = rs->nthreads; i < n; i++) {
        t[i].root.c_region = t[i].root.c_node = -1;
        l[i].thread = (int32_t)i;
    }
    rs->nthreads = n;
    return 0;
}

static int on_block(void *ud, const sp_event_batch *b)
{
    rank_job *j = ud;
    sp__rank_state *rs = j->rs;
    if (b->thread < 0)
        return sp__error(SP_EFORMAT, "%s, block %zu: thread %" PRId32, j->ctx, b->block,
                         b->thread);
    /* Sources check threads against their table; calls built by hand may
     * name threads the rank's table lacks. */
    if ((size_t)b->thread >= rs->nthreads && cover_threads(rs, (size_t)b->thread + 1))
        return oom(j);
    switch_thread(j->w, rs, b->thread);
    sp__thread *th = &rs->threads[b->thread];
    int rc = check_block(j, b, th->depth);
    if (rc)
        return rc;
    for (size_t i = 0; j->check && i < b->n; i++)
        if (b->t_ns[i] < -TIME_LIMIT || b->t_ns[i] > TIME_LIMIT)
            return damaged(j, "block %zu, event %zu: time %" PRId64 " ns is impossible (times "
                           "lie within +-2^61 ns, 73 years)", b->block, i, b->t_ns[i]);
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        int32_t g = b->region[i];
        rc = g >= 0 ? begin_call(j, th, g, b->t_ns[i], b->block)
                    : end_call(j, th, b->t_ns[i], b->block, false);
    }
    if (b->n) {
        th->last_t = b->t_ns[b->n - 1];
        th->seen = true;
    }
    rs->next_block = b->block + 1;
    report_progress(j, b->n, false);
    return rc;
}

static int last_time(void *ud, const sp_event_batch *b)
{
    int64_t *t1 = ud;
    if (b->n && b->t_ns[b->n - 1] > *t1)
        *t1 = b->t_ns[b->n - 1];
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Blocks closer than this are read as one range: the blocks between them
 * are other threads' earlier blocks, whose last times cannot exceed their
 * own thread's last block's, so the maximum is the same. */
#define LAST_BLOCK_GAP 64

/* The latest event time of the threads' last blocks (last[t]: block + 1,
 * 0: none) into *t1. One read per range of nearby last blocks, not one per
 * thread: a run of 2^18 threads would otherwise decompress a chunk 2^18
 * times. A range that cannot be read is read again block by block, so a
 * torn block loses only itself, as it did when each was read alone.
 * Sorts last[] in place. */
static void read_last_blocks(sp_event_source *src, size_t r, size_t *last, size_t nt,
                             int64_t *t1)
{
    size_t n = 0;
    for (size_t t = 0; t < nt; t++)
        if (last[t])
            last[n++] = last[t] - 1;
    qsort(last, n, sizeof *last, cmp_size);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && last[j] - last[j - 1] <= LAST_BLOCK_GAP)
            j++;
        if (sp_event_source_read(src, r, last[i], last[j - 1] + 1, last_time, t1)) {
            sp__error_clear();
            for (size_t k = i; k < j; k++)
                if (sp_event_source_read(src, r, last[k], last[k] + 1, last_time, t1))
                    sp__error_clear();
        }
        i = j;
    }
}

/* The rank's span for SP_AGG_SEGMENTS before its calls are replayed: from
 * its first event (the blocks' first times) to its last, the last event of
 * each thread's last block (read ahead: one block per thread; a thread's
 * calls still open there are cut at that event). A last block that cannot
 * be read (a torn write) leaves the blocks' last first time as the end:
 * later calls count in the last segment. And the rank's wait shares. */
static int segs_prepare(rank_job *j)
{
    sp__rank_state *rs = j->rs;
    sp_event_source *src = j->p->src;
    size_t r = j->rank, nb = src->nblocks[r];
    if (rs->segs_ready)
        return 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t nt = src->run->ranks[r].nthreads;
    size_t *last = calloc(nt ? nt : 1, sizeof *last); /* block + 1; 0: none */
    if (!last)
        return oom(j);
    for (size_t b = 0; b < nb; b++) {
        const sp_block *blk = &src->blocks[r][b];
        t0 = blk->t0_ns < t0 ? blk->t0_ns : t0;
        t1 = blk->t0_ns > t1 ? blk->t0_ns : t1;
        if (blk->thread >= 0 && (size_t)blk->thread < nt)
            last[blk->thread] = b + 1;
    }
    read_last_blocks(src, r, last, nt, &t1);
    free(last);
    rs->seg_t0 = t0;
    rs->seg_per_ns = t1 > t0 ? SP_AGG_NSEGS / ((double)t1 - (double)t0) : 0;
    if (sp_sched_index_build(&src->run->ranks[r], &rs->sched))
        return oom(j);
    rs->segs_ready = true;
    return 0;
}

/* Replay the rank's blocks not yet replayed. */
static int replay_rank(sp__pass *p, sp__worker *w, size_t r)
{
    sp__rank_state *rs = &p->ranks[r];
    sp_event_source *src = p->src;
    const sp_run *run = src->run;
    rank_job j = {.p = p, .rs = rs, .w = w, .rank = r,
                  .offset = run->ranks[r].clock_offset_ns, .check = !src->trusted};
    snprintf(j.ctx, sizeof j.ctx, "%s: rank %zu", run->source_path ? run->source_path : "run",
             r);
    if (rs->stopped || rs->next_block >= src->nblocks[r])
        return 0;
    if (cover_threads(rs, run->ranks[r].nthreads) ||
        sp__agg_worker_load(w, rs, run->nregions))
        return oom(&j);
    if ((p->opts.flags & SP_AGG_LOD) && make_lods(&j))
        return SP_ENOMEM;
    if ((p->opts.flags & SP_AGG_SEGMENTS) && segs_prepare(&j))
        return SP_ENOMEM;
    int rc = sp_event_source_read(src, r, rs->next_block, src->nblocks[r], on_block, &j);
    if (rc == SP_EFORMAT && !src->complete && !j.hard) {
        /* A torn write of an unfinished file: keep what came before. */
        rs->out.torn_blocks += src->nblocks[r] - rs->next_block;
        rs->stopped = true;
        rc = 0;
    }
    if (rc == 0)
        report_progress(&j, 0, true);
    rs->out.blocks_read = rs->next_block;
    return rc;
}

/* ---- duration over time (SP_AGG_SERIES) ---- */

static void bin_add(sp_agg_bin *x, int64_t dur, uint64_t calls, int64_t sum, int64_t max)
{
    if (x->calls == 0 || dur < x->min_ns)
        x->min_ns = dur;
    if (x->calls == 0 || max > x->max_ns)
        x->max_ns = max;
    x->calls += calls;
    x->sum_ns = sp__sat_add(x->sum_ns, sum);
}

/* Into the worker's own bins (no lock per call); merged when it ends. */
static void add_series(const sp__pass *p, sp__worker *w, int32_t g, int64_t start, int64_t dur)
{
    if ((size_t)g >= p->nseries)
        return;
    if (!w->series) {
        if (!(w->series = calloc(p->nseries, sizeof *w->series)))
            return; /* the chart shows fewer points; the statistics are whole */
        w->nseries = p->nseries;
    }
    sp_agg_series *s = &w->series[g];
    const sp_agg_series *axis = &p->series[g];
    if (!s->bins) {
        *s = *axis;
        if (!(s->bins = calloc(axis->nbins, sizeof *s->bins)))
            return;
    }
    int64_t at = sp__sat_sub(start, s->origin_ns); /* hostile clocks span int64 */
    size_t b;
    if (at >= w->series_lo && at < w->series_hi) {
        b = w->series_bin; /* calls start in time order: nearly always the last one's */
    } else {
        /* The bin by multiplication (a 64-bit division per call costs as
         * much as the rest of the series), corrected where rounding misses. */
        double f = at <= 0 ? 0 : (double)at * p->series_inv;
        b = f < (double)s->nbins ? (size_t)f : s->nbins;
        if (b < s->nbins && (int64_t)b * s->width_ns > at)
            b--;
        else if (b + 1 < s->nbins && (int64_t)(b + 1) * s->width_ns <= at)
            b++;
        if (b >= s->nbins)
            b = s->nbins - 1;
        if (at >= 0) { /* (a start before the axis lands in the last bin: not kept) */
            w->series_lo = (int64_t)b * s->width_ns;
            w->series_hi = b + 1 == s->nbins ? INT64_MAX : (int64_t)(b + 1) * s->width_ns;
            w->series_bin = b;
        }
    }
    bin_add(&s->bins[b], dur, 1, dur, dur);
}

void sp__agg_series_add(sp_agg_series *to, sp_agg_series *from, size_t n)
{
    for (size_t g = 0; g < n; g++) {
        sp_agg_series *f = &from[g], *t = &to[g];
        if (!f->bins)
            continue;
        if (!t->bins) {
            t->bins = f->bins;
            f->bins = NULL;
            continue;
        }
        for (size_t b = 0; b < t->nbins; b++)
            if (f->bins[b].calls)
                bin_add(&t->bins[b], f->bins[b].min_ns, f->bins[b].calls, f->bins[b].sum_ns,
                        f->bins[b].max_ns);
    }
}

static void merge_series(sp__pass *p, sp__worker *w)
{
    if (!w->series)
        return;
    pthread_mutex_lock(&p->series_lock);
    sp__agg_series_add(p->series, w->series, w->nseries);
    pthread_mutex_unlock(&p->series_lock);
    for (size_t g = 0; g < w->nseries; g++)
        free(w->series[g].bins);
    free(w->series);
    w->series = NULL;
    w->nseries = 0;
}

#define SERIES_MAX_BINS ((size_t)1 << 21) /* 64 MB of bins at most */

/* The series' time axis: the blocks' first times and a margin for what
 * their last events add. */
static int init_series(sp__pass *p)
{
    sp_event_source *src = p->src;
    const sp_run *run = src->run;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t r = 0; r < src->nranks; r++)
        for (size_t b = 0; b < src->nblocks[r]; b++) {
            int64_t t = sp__sat_add(src->blocks[r][b].t0_ns, run->ranks[r].clock_offset_ns);
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
    /* The last scheduling sample is taken at finalize, after the last call
     * ended: a bound where the blocks give none (a short run is one block,
     * whose start alone would make the axis 1 ns wide). */
    for (size_t r = 0; r < src->nranks && r < run->nranks; r++)
        for (size_t i = 0; i < run->ranks[r].nsched; i++) {
            int64_t t = sp__sat_add(run->ranks[r].sched[i].t_ns, run->ranks[r].clock_offset_ns);
            hi = t > hi ? t : hi;
        }
    size_t nbins = p->opts.series_bins > 0 ? (size_t)p->opts.series_bins : 256;
    /* Bins for every region with calls: a run of 10^6 regions would need
     * gigabytes at 256 each, so fewer bins per region past SERIES_MAX_BINS
     * in all, and no series when fewer than 8 remain (the chart says so). */
    if (run->nregions && nbins > SERIES_MAX_BINS / run->nregions)
        nbins = SERIES_MAX_BINS / run->nregions;
    if (nbins < 8)
        return 0;
    if (lo > hi)
        lo = hi = 0;
    /* Blocks start where their first event is; a run's last calls end up
     * to one block later: an eighth of the span more covers it (anything
     * beyond lands in the last bin). */
    /* In unsigned arithmetic: hostile clocks put blocks at both ends of
     * int64 (the difference would overflow). */
    uint64_t d = (uint64_t)hi - (uint64_t)lo;
    int64_t span = d > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)(d + d / 8 + 1);
    int64_t width = span / (int64_t)nbins + 1;
    p->nseries = run->nregions;
    p->series = calloc(p->nseries ? p->nseries : 1, sizeof *p->series);
    if (!p->series)
        return SP_ENOMEM;
    for (size_t g = 0; g < p->nseries; g++)
        p->series[g] = (sp_agg_series){.origin_ns = lo, .width_ns = width, .nbins = nbins};
    p->series_inv = 1.0 / (double)width;
    return 0;
}

/* ---- workers ---- */

/* The ranks of share opts.part of opts.nparts: consecutive selected ranks
 * of about equal events. A rank goes to the share whose slice of all the
 * events holds its middle event (one more event each, so that ranks
 * without events are spread too). The same in every process: it depends on
 * the block table alone. */
static int make_share(sp__pass *p)
{
    const sp_event_source *src = p->src;
    size_t n = p->nranks;
    p->share = calloc(n ? n : 1, sizeof *p->share);
    uint64_t *ev = calloc(n ? n : 1, sizeof *ev);
    if (!p->share || !ev) {
        free(ev);
        return SP_ENOMEM;
    }
    uint64_t total = 0;
    for (size_t r = 0; r < n; r++) {
        if (!sp__pass_selects(p, r))
            continue;
        ev[r] = 1;
        for (size_t b = 0; b < src->nblocks[r]; b++)
            ev[r] += src->blocks[r][b].events;
        total += ev[r];
    }
    uint64_t before = 0;
    for (size_t r = 0; r < n; r++) {
        if (!ev[r])
            continue;
        uint64_t mid = before + ev[r] / 2;
        unsigned owner = (unsigned)((unsigned __int128)mid * p->opts.nparts / total);
        p->share[r] = owner == p->opts.part;
        before += ev[r];
    }
    free(ev);
    p->opts.ranks = p->share;
    p->opts.nranks_sel = n;
    return 0;
}

bool sp__pass_selects(const sp__pass *p, size_t r)
{
    if (!p->opts.ranks)
        return true;
    return (p->opts.nranks_sel == 0 || r < p->opts.nranks_sel) && p->opts.ranks[r];
}

static void *worker_main(void *arg)
{
    sp__pass *p = arg;
    sp__worker w;
    memset(&w, 0, sizeof w);
    for (;;) {
        pthread_mutex_lock(&p->next_lock);
        size_t r = p->next_rank++;
        int failed = p->status;
        pthread_mutex_unlock(&p->next_lock);
        if (r >= p->nranks || failed)
            break;
        if (!sp__pass_selects(p, r))
            continue;
        int rc = replay_rank(p, &w, r);
        if (rc == 0 && p->opts.observer && p->opts.observer->rank_done)
            rc = p->opts.observer->rank_done(p->opts.observer->ud, r);
        if (rc) {
            pthread_mutex_lock(&p->next_lock);
            if (!p->status) {
                p->status = rc;
                snprintf(p->message, sizeof p->message, "%s", sp_last_error());
            }
            pthread_mutex_unlock(&p->next_lock);
        }
    }
    merge_series(p, &w);
    sp__agg_worker_free(&w);
    return NULL;
}

static unsigned worker_count(const sp__pass *p)
{
    unsigned n = p->opts.threads;
    if (n == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c < 1 ? 1 : (c > 8 ? 8 : (unsigned)c);
    }
    size_t ranks = 0;
    for (size_t r = 0; r < p->nranks; r++)
        ranks += sp__pass_selects(p, r);
    return ranks < n ? (ranks ? (unsigned)ranks : 1u) : n;
}

/* Replay every rank's new blocks (the first pass, or a refresh). */
int sp__pass_run(sp__pass *p)
{
    sp_event_source *src = p->src;
    p->total_events = p->done_events = 0;
    for (size_t r = 0; r < src->nranks; r++) {
        if (!sp__pass_selects(p, r))
            continue;
        for (size_t b = p->ranks[r].next_block; b < src->nblocks[r]; b++)
            p->total_events += src->blocks[r][b].events;
    }
    p->next_rank = 0;
    p->status = 0;
    p->message[0] = '\0';
    unsigned n = worker_count(p);
    pthread_t tid[8];
    unsigned started = 0;
    for (unsigned i = 1; i < n; i++)
        if (pthread_create(&tid[started], NULL, worker_main, p) == 0)
            started++;
    worker_main(p); /* this thread works too */
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    /* The failure's message, on the caller's thread whichever worker met it. */
    if (p->status && p->message[0])
        sp__error(p->status, "%s", p->message);
    return p->status;
}

int sp__pass_new(sp_event_source *src, const sp_agg_opts *opts, sp__pass **out)
{
    *out = NULL;
    if (opts && opts->nparts > 1 && opts->part >= opts->nparts)
        return sp__error(SP_EINVAL, "share %u of %u ranks' shares", opts->part, opts->nparts);
    sp__pass *p = calloc(1, sizeof *p);
    if (!p)
        return sp__error(SP_ENOMEM, "out of memory");
    if (opts)
        p->opts = *opts;
    p->src = src;
    p->nranks = src->nranks;
    pthread_mutex_init(&p->series_lock, NULL);
    pthread_mutex_init(&p->progress_lock, NULL);
    pthread_mutex_init(&p->next_lock, NULL);
    p->ranks = calloc(p->nranks ? p->nranks : 1, sizeof *p->ranks);
    int rc = p->ranks ? 0 : SP_ENOMEM;
    if (rc == 0 && p->opts.nparts > 1)
        rc = make_share(p);
    for (size_t r = 0; rc == 0 && r < p->nranks; r++) {
        rc = sp__agg_rank_init(&p->ranks[r]);
        p->ranks[r].out.read = sp__pass_selects(p, r);
    }
    if (rc == 0 && (p->opts.flags & SP_AGG_SERIES))
        rc = init_series(p);
    if (rc) {
        sp__pass_free(p);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    *out = p;
    return 0;
}

void sp__pass_free(sp__pass *p)
{
    if (!p)
        return;
    for (size_t r = 0; p->ranks && r < p->nranks; r++) {
        sp__agg_rank_free_state(&p->ranks[r]);
        sp__agg_rank_out_free(&p->ranks[r].out);
    }
    free(p->ranks);
    free(p->share);
    if (p->series)
        for (size_t g = 0; g < p->nseries; g++)
            free(p->series[g].bins);
    free(p->series);
    pthread_mutex_destroy(&p->series_lock);
    pthread_mutex_destroy(&p->progress_lock);
    pthread_mutex_destroy(&p->next_lock);
    free(p);
}

/* Calls still open at the end of the stream end at their thread's last
 * event (as a killed run's calls are shown), in rank state rs. */
int sp__pass_cut_open(sp__pass *p, size_t r)
{
    sp__rank_state *rs = &p->ranks[r];
    sp__worker w;
    memset(&w, 0, sizeof w);
    rank_job j = {.p = p, .rs = rs, .w = &w, .rank = r,
                  .offset = p->src->run->ranks[r].clock_offset_ns};
    snprintf(j.ctx, sizeof j.ctx, "rank %zu", r);
    int rc = sp__agg_worker_load(&w, rs, p->src->run->nregions) ? oom(&j) : 0;
    for (size_t t = 0; rc == 0 && t < rs->nthreads; t++) {
        sp__thread *th = &rs->threads[t];
        if (!th->depth)
            continue;
        switch_thread(&w, rs, (int32_t)t);
        while (th->depth && rc == 0) {
            rs->out.open_calls++;
            rc = end_call(&j, th, th->last_t, rs->next_block ? rs->next_block - 1 : 0, true);
        }
    }
    merge_series(p, &w);
    sp__agg_worker_free(&w);
    return rc;
}
