/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_replay.c - events back into calls, in one pass.
 *
 * Each thread's calls get a contiguous range of the rank's call columns,
 * sized from the blocks table (begins per thread), so the output is in
 * model order as it is produced: a begin takes the next row of its
 * thread's range (start order), its parent is the thread's innermost open
 * call, an end closes that call. Nothing is trusted: every row, count and
 * tick is checked against the tables before it is used, and the call
 * columns are never larger than the events allow (one begin per event).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"
#include "sp_h5_v2.h"
#include "sp_mem.h"

typedef struct thread_state {
    size_t next, end;   /* next call row of this thread, end of its range */
    size_t depth, cap;  /* open calls */
    size_t *open;       /* their rows, innermost last */
    int64_t last;       /* ticks of the thread's last event */
    bool seen;
} thread_state;

struct sp_v2_replay {
    const char *ctx;
    sp_rank_data *rk;
    size_t nthreads, nregions, nblocks;
    const int32_t *region_map;
    sp_v2_clock_map map;
    int32_t *bthread;
    uint32_t *bevents, *bbegins;
    int64_t *bt0;
    uint32_t *fed_events, *fed_begins; /* per block, what the feeds brought */
    thread_state *th;
    int64_t cur_t;      /* tick of the last event fed */
    bool unsorted;      /* some thread's blocks went back in time */
    size_t failed_block; /* SIZE_MAX, or the block a check failed in */
};

static int bad(const sp_v2_replay *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const sp_v2_replay *rp, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sp__error(SP_EFORMAT, "%s: %s", rp->ctx, msg);
}

/* The call columns, untouched until the replay writes them (every field
 * of every call), with huge pages asked for first: a 4 KiB page fault costs
 * microseconds on a VM, and the columns are 32 bytes per call. */
static void *alloc_column(size_t n, size_t elem) { return sp_alloc_big(n * elem); }

static int alloc_calls(sp_rank_data *rk, size_t n)
{
    rk->start_ns = alloc_column(n, sizeof *rk->start_ns);
    rk->end_ns = alloc_column(n, sizeof *rk->end_ns);
    rk->region = alloc_column(n, sizeof *rk->region);
    rk->thread = alloc_column(n, sizeof *rk->thread);
    rk->parent = alloc_column(n, sizeof *rk->parent);
    if (!rk->start_ns || !rk->end_ns || !rk->region || !rk->thread || !rk->parent)
        return SP_ENOMEM; /* the run frees what was allocated */
    rk->ncalls = n;
    return 0;
}

size_t sp_v2_replay_failed_block(const sp_v2_replay *rp)
{
    return rp ? rp->failed_block : SIZE_MAX;
}

void sp_v2_replay_free(sp_v2_replay *rp)
{
    if (!rp)
        return;
    for (size_t t = 0; rp->th && t < rp->nthreads; t++)
        free(rp->th[t].open);
    free(rp->th);
    free(rp->bthread);
    free(rp->bevents);
    free(rp->bbegins);
    free(rp->bt0);
    free(rp->fed_events);
    free(rp->fed_begins);
    free(rp);
}

static void *dup_array(const void *src, size_t n, size_t elem)
{
    void *d = malloc(n ? n * elem : 1);
    if (d && n)
        memcpy(d, src, n * elem);
    return d;
}

int sp_v2_replay_new(const char *ctx, sp_rank_data *rk, size_t nthreads,
                     const int32_t *region_map, size_t nregions, const sp_v2_clock_map *m,
                     const int32_t *bthread, const uint32_t *bevents, const uint32_t *bbegins,
                     const int64_t *bt0, size_t nblocks, uint64_t nevents_total,
                     sp_v2_replay **out)
{
    *out = NULL;
    sp_v2_replay *rp = calloc(1, sizeof *rp);
    if (!rp)
        return sp__error(SP_ENOMEM, "%s: out of memory", ctx);
    rp->ctx = ctx;
    rp->failed_block = SIZE_MAX;
    rp->rk = rk;
    rp->nthreads = nthreads;
    rp->nregions = nregions;
    rp->nblocks = nblocks;
    rp->region_map = region_map;
    rp->map = *m;
    rp->bthread = dup_array(bthread, nblocks, sizeof *bthread);
    rp->bevents = dup_array(bevents, nblocks, sizeof *bevents);
    rp->bbegins = dup_array(bbegins, nblocks, sizeof *bbegins);
    rp->bt0 = dup_array(bt0, nblocks, sizeof *bt0);
    rp->fed_events = calloc(nblocks ? nblocks : 1, sizeof *rp->fed_events);
    rp->fed_begins = calloc(nblocks ? nblocks : 1, sizeof *rp->fed_begins);
    rp->th = calloc(nthreads ? nthreads : 1, sizeof *rp->th);
    int rc = 0;
    if (!rp->bthread || !rp->bevents || !rp->bbegins || !rp->bt0 || !rp->fed_events ||
        !rp->fed_begins || !rp->th) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", ctx);
        goto done;
    }
    /* Calls per thread from the blocks; every count checked first. */
    uint64_t events = 0, calls = 0;
    for (size_t b = 0; b < nblocks; b++) {
        if (bthread[b] < 0 || (size_t)bthread[b] >= nthreads) {
            rc = bad(rp, "block %zu names thread %" PRId32 " (the thread table has %zu rows)",
                     b, bthread[b], nthreads);
            goto done;
        }
        if (bbegins[b] > bevents[b]) {
            rc = bad(rp, "block %zu has %" PRIu32 " begins among %" PRIu32 " events", b,
                     bbegins[b], bevents[b]);
            goto done;
        }
        events += bevents[b];
        calls += bbegins[b];
        rp->th[bthread[b]].end += bbegins[b];
    }
    if (events != nevents_total) {
        rc = bad(rp, "the blocks hold %" PRIu64 " events, the event columns %" PRIu64, events,
                 nevents_total);
        goto done;
    }
    /* The call columns (32 bytes a call) and the open-call stacks, charged
     * to the read budget before they are allocated: events that inflate
     * from a few kilobytes are refused with the limit named. */
    if ((rc = sp__read_charge_n("its calls", calls, 40)) != 0)
        goto done;
    if (calls > SIZE_MAX / 64 || alloc_calls(rk, (size_t)calls) != 0) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory for %" PRIu64 " calls", ctx, calls);
        goto done;
    }
    size_t pos = 0;
    for (size_t t = 0; t < nthreads; t++) {
        size_t n = rp->th[t].end;
        rp->th[t].next = pos;
        rp->th[t].end = pos += n;
    }
done:
    if (rc) {
        sp_v2_replay_free(rp);
        return rc;
    }
    *out = rp;
    return 0;
}

static int open_push(thread_state *s, size_t row)
{
    if (s->depth == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 32;
        size_t *p = realloc(s->open, c * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        s->open = p;
        s->cap = c;
    }
    s->open[s->depth++] = row;
    return 0;
}

int sp_v2_replay_feed(sp_v2_replay *rp, size_t block, size_t offset, const uint32_t *dt,
                      const int32_t *region, size_t n)
{
    if (block >= rp->nblocks || offset != rp->fed_events[block] ||
        n > (size_t)rp->bevents[block] - offset)
        return bad(rp, "events fed out of order (block %zu, event %zu)", block, offset);
    rp->failed_block = block; /* until the block's events check out */
    int32_t tid = rp->bthread[block];
    thread_state *s = &rp->th[tid];
    sp_rank_data *rk = rp->rk;
    int64_t t = offset ? rp->cur_t : rp->bt0[block];
    if (offset == 0) {
        if (s->seen && t < s->last)
            rp->unsorted = true; /* resolved by a sort in finish */
        s->seen = true;
    }
    uint32_t begins = rp->fed_begins[block];
    for (size_t i = 0; i < n; i++) {
        if (offset + i > 0) {
            if (t > INT64_MAX - (int64_t)dt[i])
                return bad(rp, "block %zu: the ticks overflow at event %zu", block, offset + i);
            t += dt[i];
        }
        int32_t code = region[i];
        if (code >= 0) {
            if ((size_t)code >= rp->nregions)
                return bad(rp, "block %zu, event %zu: region row %" PRId32 " (the region "
                           "table has %zu rows)", block, offset + i, code, rp->nregions);
            if (s->next >= s->end || ++begins > rp->bbegins[block])
                return bad(rp, "block %zu has more begin events than it announces", block);
            size_t row = s->next++;
            rk->start_ns[row] = sp_v2_clock_to_ns(&rp->map, t);
            rk->end_ns[row] = rk->start_ns[row];
            rk->region[row] = rp->region_map[code];
            rk->thread[row] = tid;
            rk->parent[row] = s->depth ? (int64_t)s->open[s->depth - 1] : -1;
            if (open_push(s, row) != 0)
                return sp__error(SP_ENOMEM, "%s: out of memory", rp->ctx);
        } else if (code == -1) {
            if (s->depth == 0)
                return bad(rp, "block %zu, event %zu: an end with no open call on thread "
                           "%" PRId32, block, offset + i, tid);
            rk->end_ns[s->open[--s->depth]] = sp_v2_clock_to_ns(&rp->map, t);
        } else {
            return bad(rp, "block %zu, event %zu: region %" PRId32 " (an end is -1)", block,
                       offset + i, code);
        }
    }
    rp->failed_block = SIZE_MAX;
    rp->fed_begins[block] = begins;
    rp->fed_events[block] += (uint32_t)n;
    rp->cur_t = t;
    s->last = t;
    return 0;
}

int sp_v2_replay_finish(sp_v2_replay *rp, uint64_t *open_calls)
{
    uint64_t open = 0;
    for (size_t b = 0; b < rp->nblocks; b++)
        if (rp->fed_events[b] != rp->bevents[b] || rp->fed_begins[b] != rp->bbegins[b]) {
            rp->failed_block = b;
            return bad(rp, "block %zu: %" PRIu32 " of %" PRIu32 " events read, %" PRIu32
                       " begins of %" PRIu32, b, rp->fed_events[b], rp->bevents[b],
                       rp->fed_begins[b], rp->bbegins[b]);
        }
    for (size_t t = 0; t < rp->nthreads; t++) {
        thread_state *s = &rp->th[t];
        if (s->next != s->end)
            return bad(rp, "thread %zu: %zu calls missing", t, s->end - s->next);
        /* Calls still open (a killed run, or left open): they end at the
         * thread's last event, the last moment known of them. */
        int64_t last = sp_v2_clock_to_ns(&rp->map, s->last);
        for (size_t d = 0; d < s->depth; d++)
            rp->rk->end_ns[s->open[d]] = last;
        open += s->depth;
        s->depth = 0;
    }
    if (open_calls)
        *open_calls = open;
    if (rp->unsorted && sp_rank_sort_calls(rp->rk) != 0)
        return sp__error(SP_ENOMEM, "%s: out of memory sorting calls", rp->ctx);
    return 0;
}

int sp_v2_replay_all(const char *ctx, sp_rank_data *rk, size_t nthreads,
                     const int32_t *region_map, size_t nregions, const sp_v2_clock_map *m,
                     const sp_v2_events *ev, uint64_t *open_calls)
{
    sp_v2_replay *rp;
    int rc = sp_v2_replay_new(ctx, rk, nthreads, region_map, nregions, m, ev->bthread,
                              ev->bevents, ev->bbegins, ev->bt0, ev->nblocks, ev->n, &rp);
    size_t pos = 0;
    for (size_t b = 0; rc == 0 && b < ev->nblocks; b++) {
        rc = sp_v2_replay_feed(rp, b, 0, ev->dt + pos, ev->region + pos, ev->bevents[b]);
        pos += ev->bevents[b];
    }
    if (rc == 0)
        rc = sp_v2_replay_finish(rp, open_calls);
    sp_v2_replay_free(rp);
    return rc;
}
