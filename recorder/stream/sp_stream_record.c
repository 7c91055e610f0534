/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_record.c - the hot path: one event per begin and per end into
 * the thread's current chunk.
 *
 *   begin: room check, store the region's code, read the clock last, store
 *          the tick, publish the count (a release store: a plain store on
 *          x86-64, it only keeps the compiler from reordering);
 *   end:   read the clock first, then the same.
 *
 * No nesting check, no lookup: the writer repairs misuse (sp_stream_
 * consume.c). Everything unusual (first event of a thread or session, full
 * chunk, dropping) goes to the cold sp__stream_room().
 */
#include "sp_stream.h"

#define SP__LIKELY(x) __builtin_expect(!!(x), 1)

/* ---- the slow path ---- */

/* The thread's state for the running session (registering the thread on
 * its first event); NULL when it cannot record: no session records (none
 * was set up, or finalize is collecting it), or out of memory. */
static sp__tstate *session_state(void)
{
    unsigned gen = __atomic_load_n(&sp__session_gen, __ATOMIC_SEQ_CST);
    if (!(gen & 1))
        return NULL;
    sp__tstate *ts = sp__tls;
    if (ts == &sp__dummy_tstate && !(ts = sp__thread_register()))
        return NULL;
    if (__atomic_load_n(&ts->gen, __ATOMIC_RELAXED) != gen) {
        /* A state of an earlier session: the chunk it still holds is its
         * own (sp__threads_reset leaves it), back to the pool; then the
         * writer may read the state again (it skips other generations). */
        if (ts->chunk)
            sp__pool_put(ts->chunk);
        ts->chunk = NULL;
        __atomic_store_n(&ts->first, NULL, __ATOMIC_RELEASE);
        __atomic_store_n(&ts->cap, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&ts->n, 0, __ATOMIC_RELEASE);
        ts->dropping = false;
        ts->drop_depth = 0;
        ts->lost_ends = 0;
        __atomic_store_n(&ts->gen, gen, __ATOMIC_RELEASE);
    }
    return ts;
}

/* Make c the thread's current chunk, linking it after the full one. */
static void switch_chunk(sp__tstate *ts, sp__chunk *c)
{
    sp__chunk *old = ts->chunk;
    if (old) {
        old->final_n = ts->n;
        old->next = c;
        __atomic_store_n(&old->full, 1, __ATOMIC_RELEASE);
    }
    ts->t = c->t;
    ts->code = c->code;
    ts->chunk = c;
    __atomic_store_n(&ts->n, 0, __ATOMIC_RELEASE);
    if (!old) /* the writer starts reading the thread here */
        __atomic_store_n(&ts->first, c, __ATOMIC_RELEASE);
    ts->dropping = false;
    __atomic_store_n(&ts->cap, SP__CHUNK_EVENTS - SP__CHUNK_RESERVE, __ATOMIC_SEQ_CST);
    /* Finalize may have closed the session since session_state() (it
     * makes the generation even, then sets every cap to 0): if so, the
     * next event must come back here and start over (both sides seq_cst:
     * either its cap = 0 lands after ours, or we see its generation). */
    if (__atomic_load_n(&sp__session_gen, __ATOMIC_SEQ_CST) !=
        __atomic_load_n(&ts->gen, __ATOMIC_RELAXED))
        __atomic_store_n(&ts->cap, 0, __ATOMIC_RELAXED);
}

static sp__tstate *slot(sp__tstate *ts, int32_t code, uint32_t *k)
{
    uint32_t n = ts->n;
    ts->code[n] = code;
    *k = n;
    return ts;
}

static void count_drop(sp_region *r) { __atomic_fetch_add(&r->dropped, 1, __ATOMIC_RELAXED); }

/* No chunk to be had: new calls are dropped (counted), and ends of calls
 * recorded before go into the chunk's reserve, so what was recorded keeps
 * its nesting. */
static sp__tstate *drop_path(sp__tstate *ts, sp_region *r, bool end, uint32_t *k)
{
    if (!end) {
        /* Try again now and then: the writer may have caught up. */
        if (ts->drop_depth == 0 && ts->chunk && (__atomic_load_n(&r->dropped, __ATOMIC_RELAXED) & 63) == 0) {
            sp__chunk *c = sp__pool_get(false);
            if (c) {
                switch_chunk(ts, c);
                return slot(ts, r->code, k);
            }
        }
        ts->dropping = true;
        __atomic_store_n(&ts->cap, 0, __ATOMIC_RELAXED);
        ts->drop_depth++;
        count_drop(r);
        return NULL;
    }
    if (ts->drop_depth > 0) { /* the end of a dropped call */
        ts->drop_depth--;
        return NULL;
    }
    if (ts->chunk && ts->n < SP__CHUNK_EVENTS)
        return slot(ts, -r->code, k);
    ts->lost_ends++; /* deeper than the reserve: the call stays open */
    return NULL;
}

sp__tstate *sp__stream_room(sp_region *r, bool end, uint32_t *k)
{
    if (r->code <= 0)
        return NULL; /* the handle that records nothing */
    sp__tstate *ts = session_state();
    if (!ts) {
        if (!end)
            count_drop(r);
        return NULL;
    }
    if (ts->dropping)
        return drop_path(ts, r, end, k);
    if (ts->chunk && ts->n < __atomic_load_n(&ts->cap, __ATOMIC_RELAXED)) /* reset elsewhere */
        return slot(ts, end ? -r->code : r->code, k);
    /* The chunk is full (or there is none yet): a fresh one, waiting for
     * the writer when the policy says so. */
    sp__chunk *c = sp__pool_get(true);
    if (!c)
        return drop_path(ts, r, end, k);
    switch_chunk(ts, c);
    return slot(ts, end ? -r->code : r->code, k);
}

/* ---- records (MPI messages and collectives: recorder/mpi) ---- */

/* Room for a record of k slots in the calling thread's chunk, in one piece
 * (the writer reads a record whole): the thread's state with *n the first
 * slot, or NULL when it cannot be recorded. */
static sp__tstate *record_room(uint32_t k, uint32_t *n)
{
    sp__tstate *ts = session_state();
    if (!ts || ts->dropping)
        return NULL;
    if (ts->chunk && ts->n + k <= __atomic_load_n(&ts->cap, __ATOMIC_RELAXED)) {
        *n = ts->n;
        return ts;
    }
    sp__chunk *c = sp__pool_get(true);
    if (!c)
        return NULL;
    switch_chunk(ts, c);
    *n = 0;
    return ts;
}

bool sp__stream_put_record(const int32_t *code, const int64_t *t, uint32_t k)
{
    sp__tstate *ts = sp__tls;
    uint32_t n = ts->n;
    if (!SP__LIKELY(n + k <= __atomic_load_n(&ts->cap, __ATOMIC_RELAXED)) &&
        !(ts = record_room(k, &n)))
        return false;
    for (uint32_t i = 0; i < k; i++) {
        ts->code[n + i] = code[i];
        ts->t[n + i] = t[i];
    }
    __atomic_store_n(&ts->n, n + k, __ATOMIC_RELEASE);
    return true;
}

/* ---- the recording tables ---- */

#define SP__DEFINE_STREAM(suffix, NOW)                                         \
    static void begin_##suffix(sp_region *r)                                   \
    {                                                                          \
        sp__tstate *ts = sp__tls;                                              \
        uint32_t n = ts->n;                                                    \
        if (SP__LIKELY(n < __atomic_load_n(&ts->cap, __ATOMIC_RELAXED))) {                                         \
            ts->code[n] = r->code;                                             \
            ts->t[n] = NOW();                                                  \
            __atomic_store_n(&ts->n, n + 1, __ATOMIC_RELEASE);                 \
            return;                                                            \
        }                                                                      \
        uint32_t k;                                                            \
        if ((ts = sp__stream_room(r, false, &k))) {                            \
            ts->t[k] = NOW();                                                  \
            __atomic_store_n(&ts->n, k + 1, __ATOMIC_RELEASE);                 \
        }                                                                      \
    }                                                                          \
    static void end_##suffix(sp_region *r)                                     \
    {                                                                          \
        int64_t t = NOW();                                                     \
        sp__tstate *ts = sp__tls;                                              \
        uint32_t n = ts->n;                                                    \
        if (SP__LIKELY(n < __atomic_load_n(&ts->cap, __ATOMIC_RELAXED))) {                                         \
            ts->code[n] = -r->code;                                            \
            ts->t[n] = t;                                                      \
            __atomic_store_n(&ts->n, n + 1, __ATOMIC_RELEASE);                 \
            return;                                                            \
        }                                                                      \
        uint32_t k;                                                            \
        if ((ts = sp__stream_room(r, true, &k))) {                             \
            ts->t[k] = t;                                                      \
            __atomic_store_n(&ts->n, k + 1, __ATOMIC_RELEASE);                 \
        }                                                                      \
    }

SP__DEFINE_STREAM(tsc, sp__tsc_ticks)
SP__DEFINE_STREAM(mono, sp__mono_ns)

const sp__ops_t sp__stream_ops_tsc = {begin_tsc, end_tsc};
const sp__ops_t sp__stream_ops_mono = {begin_mono, end_mono};
