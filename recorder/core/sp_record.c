/* SPDX-License-Identifier: MIT */
/*
 * sp_record.c - the hot path: sp_region_begin/end jump through the table
 * sp_setup() chose, and each table's functions record without looking at the
 * configuration. Time-only recording (one table per clock):
 *
 *   begin: bound check (thread registered, buffer slot exists), room check,
 *          claim the next 24-byte event, link it to the open-call stack,
 *          read the clock last;
 *   end:   read the clock first, check the innermost open call is this
 *          region's, store the end and pop.
 *
 * Everything unusual (first call of a thread or region, growth, out of memory,
 * misuse) goes to noinline cold functions.
 */
#include <stdlib.h>

#include "sp_recorder.h"

#define SP__LIKELY(x) __builtin_expect(!!(x), 1)
#define SP__COLD __attribute__((noinline, cold))

/* ---- slow paths ---- */

static void note_id(uint32_t *ids, uint32_t *n, uint32_t id)
{
    for (uint32_t i = 0; i < *n; i++)
        if (ids[i] == id)
            return;
    if (*n < SP__NOTE_MAX)
        ids[(*n)++] = id;
}

static void count_drop(sp__tstate *ts, sp_region *r)
{
    if (r->id < ts->bufs_cap)
        ts->bufs[r->id].dropped++;
    else
        __atomic_fetch_add(&r->dropped_unbuffered, 1, __ATOMIC_RELAXED);
}

/* A call that cannot be recorded still joins the open-call stack as a marker,
 * so its end finds it and nesting stays right. Beyond SP__DROP_DEPTH nested
 * dropped calls the thread gives up nesting: every further call is dropped. */
static void push_drop(sp__tstate *ts, uint32_t id)
{
    if (ts->ndrop == SP__DROP_DEPTH) {
        ts->broken = true;
        ts->nbufs = 0; /* every begin now takes the slow path */
        ts->cur = SP__BROKEN;
        return;
    }
    ts->drop_saved[ts->ndrop++] = ts->cur;
    ts->cur = SP__DROP_FLAG | SP__PACK(id, 0);
}

static int grow_table(sp__tstate *ts, uint32_t id)
{
    uint32_t cap = ts->bufs_cap ? ts->bufs_cap : 16;
    while (cap <= id)
        cap *= 2;
    sp__rbuf *b = sp__rec_realloc(ts->bufs, (size_t)cap * sizeof *b);
    if (!b)
        return -1;
    for (uint32_t i = ts->bufs_cap; i < cap; i++)
        b[i] = (sp__rbuf){0};
    ts->bufs = b;
    ts->bufs_cap = ts->nbufs = cap;
    return 0;
}

/* Doubling keeps every recorded call: growth moves the events, and on
 * failure the old buffer is untouched. */
static int grow_events(sp__rbuf *b)
{
    uint64_t cap = b->cap ? 2 * b->cap : sp__sess.buffer_limit;
    if (cap > (uint64_t)SP__IDX_MASK + 1 || cap > SIZE_MAX / sizeof(sp__event)) {
        if (b->cap > (uint64_t)SP__IDX_MASK)
            return -1; /* the index field is full */
        cap = (uint64_t)SP__IDX_MASK + 1;
    }
    sp__event *ev = sp__events_grow(b->ev, b->cap, cap);
    if (!ev)
        return -1;
    b->ev = ev;
    b->cap = cap;
    return 0;
}

/* The slow half of begin: returns the claimed event, or NULL if the call is
 * not recorded (dummy handle, out of memory). */
static SP__COLD sp__event *begin_slow(sp_region *r)
{
    uint32_t id = r->id;
    if (id >= SP__MAX_REGIONS)
        return NULL; /* the dummy handle */
    sp__tstate *ts = sp__tls;
    if (ts == &sp__dummy_tstate) {
        ts = sp__thread_register();
        if (!ts) {
            __atomic_fetch_add(&r->dropped_unbuffered, 1, __ATOMIC_RELAXED);
            return NULL;
        }
    }
    if (ts->broken) {
        count_drop(ts, r);
        return NULL;
    }
    if (id >= ts->bufs_cap && grow_table(ts, id) != 0) {
        count_drop(ts, r);
        push_drop(ts, id);
        return NULL;
    }
    sp__rbuf *b = &ts->bufs[id];
    if (b->n == b->cap && grow_events(b) != 0) {
        b->dropped++;
        push_drop(ts, id);
        return NULL;
    }
    uint64_t n = b->n++;
    sp__event *ev = &b->ev[n];
    ev->parent = ts->cur;
    ev->end = 0;
    ts->cur = SP__PACK(id, n);
    return ev;
}

/* Follow one link down the open-call stack; k counts the drop markers not yet
 * passed (they pair with drop_saved from the top). */
static int64_t next_open(const sp__tstate *ts, int64_t p, uint32_t *k)
{
    if (SP__IS_DROP(p))
        return ts->drop_saved[--*k];
    return ts->bufs[SP__PACKED_ID(p)].ev[SP__PACKED_IDX(p)].parent;
}

static uint32_t open_id(int64_t p)
{
    return SP__IS_DROP(p) ? SP__DROP_ID(p) : SP__PACKED_ID(p);
}

/* The slow half of end: the innermost open call is not a recorded call of r.
 * Either it is r's dropped call (pop it), or r is open further down (close
 * everything above it at time t: a mismatched end), or r is not open at all
 * (an unmatched end, ignored). */
static SP__COLD void end_slow(sp_region *r, int64_t t)
{
    uint32_t id = r->id;
    if (id >= SP__MAX_REGIONS)
        return;
    sp__tstate *ts = sp__tls;
    if (ts == &sp__dummy_tstate && !(ts = sp__thread_register()))
        return;
    if (ts->cur == SP__BROKEN)
        return;

    uint32_t k = ts->ndrop;
    int64_t p = ts->cur;
    while (p >= 0 && open_id(p) != id)
        p = next_open(ts, p, &k);
    if (p < 0) {
        ts->unmatched_ends++;
        note_id(ts->unmatched_ids, &ts->n_unmatched_ids, id);
        return;
    }
    /* Pop down to and including p. */
    int64_t q = ts->cur;
    for (;;) {
        uint32_t qid = open_id(q);
        int64_t below = next_open(ts, q, &ts->ndrop);
        if (!SP__IS_DROP(q))
            ts->bufs[qid].ev[SP__PACKED_IDX(q)].end = t;
        if (q == p) {
            ts->cur = below;
            return;
        }
        ts->mismatched++;
        bool known = false;
        for (uint32_t i = 0; i < ts->n_mismatch_pairs; i++)
            known |= ts->mismatch_pairs[i][0] == id && ts->mismatch_pairs[i][1] == qid;
        if (!known && ts->n_mismatch_pairs < SP__NOTE_MAX) {
            ts->mismatch_pairs[ts->n_mismatch_pairs][0] = id;
            ts->mismatch_pairs[ts->n_mismatch_pairs++][1] = qid;
        }
        q = below;
    }
}

/* ---- the recording tables ---- */

static void disabled_begin(sp_region *r) { (void)r; }
static void disabled_end(sp_region *r) { (void)r; }

#define SP__DEFINE_TIME_ONLY(suffix, NOW)                                      \
    static void begin_##suffix(sp_region *r)                                   \
    {                                                                          \
        sp__tstate *ts = sp__tls;                                              \
        uint32_t id = r->id;                                                   \
        sp__event *ev;                                                         \
        if (SP__LIKELY(id < ts->nbufs)) {                                      \
            sp__rbuf *b = &ts->bufs[id];                                       \
            uint64_t n = b->n;                                                 \
            if (SP__LIKELY(n < b->cap)) {                                      \
                b->n = n + 1;                                                  \
                ev = &b->ev[n];                                                \
                ev->parent = ts->cur;                                          \
                ev->end = 0;                                                   \
                ts->cur = SP__PACK(id, n);                                     \
                ev->start = NOW();                                             \
                return;                                                        \
            }                                                                  \
        }                                                                      \
        ev = begin_slow(r);                                                    \
        if (ev)                                                                \
            ev->start = NOW();                                                 \
    }                                                                          \
    static void end_##suffix(sp_region *r)                                     \
    {                                                                          \
        int64_t t = NOW();                                                     \
        sp__tstate *ts = sp__tls;                                              \
        int64_t top = ts->cur;                                                 \
        /* -1, -2 and drop markers never match a region id here. */            \
        if (SP__LIKELY(SP__PACKED_ID(top) == r->id)) {                         \
            sp__event *ev = &ts->bufs[r->id].ev[SP__PACKED_IDX(top)];          \
            ev->end = t;                                                       \
            ts->cur = ev->parent;                                              \
            return;                                                            \
        }                                                                      \
        end_slow(r, t);                                                        \
    }

SP__DEFINE_TIME_ONLY(tsc, sp__tsc_ticks)
SP__DEFINE_TIME_ONLY(mono, sp__mono_ns)

static const sp__ops_t ops_disabled = {disabled_begin, disabled_end};
static const sp__ops_t ops_time_tsc = {begin_tsc, end_tsc};
static const sp__ops_t ops_time_mono = {begin_mono, end_mono};

sp__ops_t sp__ops = {disabled_begin, disabled_end};
int sp__recording; /* declared in scope_profiler.h for the macros */

void sp__set_ops(const sp__ops_t *ops)
{
    sp__ops = *ops;
    __atomic_store_n(&sp__recording, ops->begin != disabled_begin, __ATOMIC_RELAXED);
}

const sp__ops_t *sp__ops_for(sp_region_kind kind, sp__clock_source clock)
{
    switch (kind) {
    case SP_REGION_DISABLED:
        return &ops_disabled;
    case SP_REGION_TIME_ONLY:
    /* LIKWID markers and line sampling time their calls with this table too:
     * sp__modes_activate() wraps it (sp_mode_table.c). */
    case SP_REGION_FULL:
    case SP_REGION_LINE_PROFILER:
        return clock == SP__CLOCK_TSC ? &ops_time_tsc : &ops_time_mono;
    }
    return NULL;
}

/* The exported entry points: one indirect jump each. */
void sp_region_begin(sp_region *r) { sp__ops.begin(r); }
void sp_region_end(sp_region *r) { sp__ops.end(r); }
