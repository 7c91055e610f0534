/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_consume.c - the consumer: reads the events every thread has
 * published, repairs the nesting where the program misused the API (an end
 * with no begin is dropped, an end of an outer call closes the calls still
 * open inside it), gives region and thread rows in first-use order, encodes
 * the events (sp_v2_events) and gives full chunks back to the pool.
 *
 * Run by the writer thread, by queries and by finalize, always under
 * sp__cons.lock. The per-event loop touches the chunk being read, the
 * thread's small stack of open calls and the output columns, nothing else.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_stream_consume.h"

sp__consumer sp__cons = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---------------------------------------------------------------- rows */

static void note_error(int rc, const char *what)
{
    if (sp__cons.err)
        return;
    sp__cons.err = rc;
    snprintf(sp__cons.errmsg, sizeof sp__cons.errmsg, "%s", what);
}

static bool grow_rows(void)
{
    uint32_t c = sp__cons.rows_cap ? 2 * sp__cons.rows_cap : 64;
    char **nm = realloc(sp__cons.row_name, c * sizeof *nm);
    if (nm)
        sp__cons.row_name = nm;
    uint32_t *id = realloc(sp__cons.row_id, c * sizeof *id);
    if (id)
        sp__cons.row_id = id;
    uint64_t *calls = realloc(sp__cons.row_calls, c * sizeof *calls);
    if (calls)
        sp__cons.row_calls = calls;
    uint64_t *d = realloc(sp__cons.row_dropped, c * sizeof *d);
    if (d)
        sp__cons.row_dropped = d;
    uint64_t *dw = realloc(sp__cons.row_dropped_written, c * sizeof *dw);
    if (dw)
        sp__cons.row_dropped_written = dw;
    if (!nm || !id || !calls || !d || !dw)
        return false;
    sp__cons.rows_cap = c;
    return true;
}

/* The row of registry id, made on its first use (-1: out of memory). */
static int32_t row_for(uint32_t id)
{
    if (id < sp__cons.row_of_cap && sp__cons.row_of_id[id])
        return sp__cons.row_of_id[id] - 1;
    if (id >= sp__cons.row_of_cap) {
        uint32_t c = sp__cons.row_of_cap ? sp__cons.row_of_cap : 256;
        while (c <= id)
            c *= 2;
        int32_t *p = realloc(sp__cons.row_of_id, c * sizeof *p);
        if (!p)
            return -1;
        memset(p + sp__cons.row_of_cap, 0, (c - sp__cons.row_of_cap) * sizeof *p);
        sp__cons.row_of_id = p;
        sp__cons.row_of_cap = c;
    }
    if (sp__cons.nrows == sp__cons.rows_cap && !grow_rows())
        return -1;
    pthread_mutex_lock(&sp__lock);
    struct sp_region *r = sp__registry_at(id);
    char *name = strdup(r ? r->name : "?");
    pthread_mutex_unlock(&sp__lock);
    if (!name)
        return -1;
    uint32_t row = sp__cons.nrows++;
    sp__cons.row_name[row] = name;
    sp__cons.row_id[row] = id;
    sp__cons.row_calls[row] = 0;
    sp__cons.row_dropped[row] = 0;
    sp__cons.row_dropped_written[row] = 0;
    sp__cons.row_of_id[id] = (int32_t)row + 1;
    return (int32_t)row;
}

/* The region name of registry id for a message. */
static const char *name_of(uint32_t id)
{
    if (id < sp__cons.row_of_cap && sp__cons.row_of_id[id])
        return sp__cons.row_name[sp__cons.row_of_id[id] - 1];
    int32_t row = row_for(id);
    return row >= 0 ? sp__cons.row_name[row] : "?";
}

static sp__cthread *cthread(sp__tstate *ts)
{
    if (!ts->cons) {
        ts->cons = calloc(1, sizeof *ts->cons);
        if (ts->cons)
            ts->cons->row = -1;
    }
    return ts->cons;
}

static int32_t thread_row(sp__tstate *ts, sp__cthread *ct)
{
    if (ct->row >= 0)
        return ct->row;
    if (sp__cons.nthreads == sp__cons.threads_cap) {
        uint32_t c = sp__cons.threads_cap ? 2 * sp__cons.threads_cap : 16;
        sp__tstate **p = realloc(sp__cons.thread_row, c * sizeof *p);
        if (!p)
            return -1;
        sp__cons.thread_row = p;
        sp__cons.threads_cap = c;
    }
    sp__cons.thread_row[sp__cons.nthreads] = ts;
    return ct->row = (int32_t)sp__cons.nthreads++;
}

/* ---------------------------------------------------------------- events */

static inline void emit(int32_t trow, int64_t t, int32_t row)
{
    sp_v2_events *e = &sp__cons.batch;
    size_t b = e->nblocks;
    if (__builtin_expect(e->open && e->n < e->cap && e->bthread[b - 1] == trow &&
                             (uint64_t)t - (uint64_t)e->last <= UINT32_MAX &&
                             e->bevents[b - 1] < SP_V2_BLOCK_MAX,
                         1)) {
        e->dt[e->n] = (uint32_t)((uint64_t)t - (uint64_t)e->last);
        e->region[e->n++] = row;
        e->bevents[b - 1]++;
        e->bbegins[b - 1] += row >= 0;
        e->last = t;
        return;
    }
    if (sp_v2_events_add(e, trow, t, row) != 0) {
        sp__cons.lost_calls++;
        note_error(SP_ENOMEM, "out of memory encoding events");
    }
}

static bool push_open(sp__cthread *ct, int32_t row)
{
    if (ct->depth == ct->cap) {
        uint32_t c = ct->cap ? 2 * ct->cap : 32;
        int32_t *p = realloc(ct->open, c * sizeof *p);
        if (!p)
            return false;
        ct->open = p;
        ct->cap = c;
    }
    ct->open[ct->depth++] = row;
    return true;
}

static void count_call(sp__cthread *ct, int32_t row)
{
    if ((uint32_t)row >= ct->ncalls_cap) {
        uint32_t c = ct->ncalls_cap ? ct->ncalls_cap : 16;
        while (c <= (uint32_t)row)
            c *= 2;
        uint64_t *p = realloc(ct->calls, c * sizeof *p);
        if (!p)
            return;
        memset(p + ct->ncalls_cap, 0, (c - ct->ncalls_cap) * sizeof *p);
        ct->calls = p;
        ct->ncalls_cap = c;
    }
    ct->calls[row]++;
}

/* An end whose region is not the innermost open call. */
static void end_misuse(sp__cthread *ct, int32_t trow, int64_t t, uint32_t id)
{
    int32_t row = id < sp__cons.row_of_cap ? sp__cons.row_of_id[id] - 1 : -1;
    uint32_t p = ct->depth;
    while (row >= 0 && p > 0 && ct->open[p - 1] != row)
        p--;
    sp__balance *bal = &sp__cons.bal;
    if (row < 0 || p == 0) { /* not open at all: ignored */
        bal->unmatched_ends++;
        sp__note_name(bal->unmatched_names, sizeof bal->unmatched_names, name_of(id));
        return;
    }
    while (ct->depth > p) { /* calls left open inside it end with it */
        int32_t inner = ct->open[--ct->depth];
        bal->mismatched++;
        char pair[160];
        snprintf(pair, sizeof pair, "'%.60s' ended while '%.60s' was open",
                 sp__cons.row_name[row], sp__cons.row_name[inner]);
        sp__note_name(bal->mismatch_names, sizeof bal->mismatch_names, pair);
        emit(trow, t, -1);
    }
    ct->depth--;
    emit(trow, t, -1);
}

/* Events from..to-1 of chunk c of thread ts. */
static void process(sp__tstate *ts, sp__cthread *ct, const sp__chunk *c, uint32_t from,
                    uint32_t to)
{
    int32_t trow = thread_row(ts, ct);
    if (trow < 0 || sp_v2_events_reserve(&sp__cons.batch, to - from) != 0) {
        sp__cons.lost_calls += (to - from) / 2;
        note_error(SP_ENOMEM, "out of memory encoding events");
        return;
    }
    int64_t last = ct->last;
    for (uint32_t k = from; k < to; k++) {
        int32_t code = c->code[k];
        if (__builtin_expect(code >= SP__REC_BASE, 0)) { /* an MPI record */
            k += sp__cons_record(ct, trow, c, k, to) - 1;
            continue;
        }
        int64_t t = c->t[k];
        if (t < last) /* a core switch with a TSC slightly behind: keep order */
            t = last;
        last = t;
        if (code > 0) {
            uint32_t id = (uint32_t)code - 1;
            int32_t row = id < sp__cons.row_of_cap && sp__cons.row_of_id[id]
                              ? sp__cons.row_of_id[id] - 1
                              : row_for(id);
            if (row < 0 || !push_open(ct, row)) {
                sp__cons.lost_calls++;
                note_error(SP_ENOMEM, "out of memory consuming events");
                continue;
            }
            sp__cons.row_calls[row]++;
            count_call(ct, row);
            emit(trow, t, row);
        } else if (code < 0) {
            uint32_t id = (uint32_t)(-(int64_t)code) - 1;
            if (ct->depth && id < sp__cons.row_of_cap &&
                ct->open[ct->depth - 1] == sp__cons.row_of_id[id] - 1) {
                ct->depth--;
                emit(trow, t, -1);
            } else {
                end_misuse(ct, trow, t, id);
            }
        }
    }
    ct->last = last;
}

/* Read thread ts as far as it published (partial) or as its full chunks
 * go, within the pass's limits. Returns true when a limit (chunks per
 * thread, the deadline) stopped it with full chunks left to read. */
static bool consume_thread(sp__tstate *ts, const sp__cons_pass *p)
{
    sp__cthread *ct = cthread(ts);
    if (!ct) {
        note_error(SP_ENOMEM, "out of memory consuming events");
        return false;
    }
    uint32_t chunks = 0;
    while (!ct->retired) {
        sp__chunk *c = ct->rchunk;
        if (!c) {
            /* A state its owner has not yet started over for this session
             * (its chunk holds an earlier session's events): nothing yet. */
            if (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != sp__cons.gen)
                return false;
            if (!(c = __atomic_load_n(&ts->first, __ATOMIC_ACQUIRE)))
                return false;
            ct->rchunk = c;
            ct->rpos = 0;
        }
        uint32_t end;
        bool full = __atomic_load_n(&c->full, __ATOMIC_ACQUIRE), done = full;
        if (full) {
            end = c->final_n;
        } else {
            bool exited = __atomic_load_n(&ts->exited, __ATOMIC_ACQUIRE);
            if (!p->partial && !exited)
                return false;
            end = __atomic_load_n(&ts->n, __ATOMIC_ACQUIRE);
            /* The count may already be the next chunk's: then c is full. */
            if (__atomic_load_n(&c->full, __ATOMIC_ACQUIRE)) {
                full = done = true;
                end = c->final_n;
            } else if (exited) {
                done = true; /* its owner is gone: nothing more comes */
            }
        }
        if (end > SP__CHUNK_EVENTS)
            end = SP__CHUNK_EVENTS;
        if (end > ct->rpos)
            process(ts, ct, c, ct->rpos, end);
        ct->rpos = end > ct->rpos ? end : ct->rpos;
        if (!done)
            return false;
        /* Recorded at or after the pass's instant: the rest of the thread
         * is newer still (a flush takes what came before it, no more). */
        bool newer = p->until_ticks && full && end > 0 && c->t[end - 1] >= p->until_ticks;
        sp__chunk *next = full ? c->next : NULL;
        if (!full) { /* an exited thread's last chunk */
            ct->retired = true;
            ts->chunk = NULL;
        }
        sp__pool_put(c);
        sp__cons.chunks_read++;
        ct->rchunk = next;
        ct->rpos = 0;
        /* Write as it goes: the batch stays a few MiB however far behind
         * the writer is (a memory-only session keeps everything). */
        if (!sp__cons.memory && (sp__cons.batch.n >= SP__BATCH_EVENTS ||
                                 sp__cons_mpi_pending() >= SP__BATCH_RECORDS))
            sp__cons_write(false, 0, 0);
        if (!next || newer)
            return false;
        /* Bounded work: one busy thread never keeps the writer from the
         * other threads or from its next flush (issue 22). */
        if ((p->max_chunks && ++chunks >= p->max_chunks) ||
            (p->deadline_ns && sp__mono_ns() >= p->deadline_ns))
            return true;
    }
    return false;
}

bool sp__cons_consume(const sp__cons_pass *p)
{
    bool more = false;
    for (sp__tstate *ts = sp__threads_first(); ts;
         ts = __atomic_load_n(&ts->next, __ATOMIC_ACQUIRE)) {
        more |= consume_thread(ts, p);
        if (more && p->deadline_ns && sp__mono_ns() >= p->deadline_ns)
            return true;
    }
    return more;
}

void sp__cons_catch_up(void)
{
    sp__cons_pass p = {.partial = true, .until_ticks = sp__clock_ticks(sp__cons.clock)};
    sp__cons_consume(&p);
}

void sp__cons_collect_drops(void)
{
    uint64_t any = 0;
    pthread_mutex_lock(&sp__lock);
    uint32_t n = sp__registry_count();
    pthread_mutex_unlock(&sp__lock);
    for (uint32_t id = 0; id < n; id++) {
        pthread_mutex_lock(&sp__lock);
        struct sp_region *r = sp__registry_at(id);
        uint64_t d = r ? __atomic_load_n(&r->dropped, __ATOMIC_RELAXED) : 0;
        pthread_mutex_unlock(&sp__lock);
        if (!d)
            continue;
        int32_t row = row_for(id);
        if (row < 0) {
            note_error(SP_ENOMEM, "out of memory counting dropped calls");
            continue;
        }
        sp__cons.row_dropped[row] = d;
        any += d;
    }
    sp__balance *bal = &sp__cons.bal;
    bal->dropped = any;
    bal->dropped_names[0] = '\0';
    for (uint32_t row = 0; any && row < sp__cons.nrows; row++)
        if (sp__cons.row_dropped[row])
            sp__note_name(bal->dropped_names, sizeof bal->dropped_names,
                          sp__cons.row_name[row]);
}

void sp__cons_close_open(int64_t close_ticks)
{
    sp__balance *bal = &sp__cons.bal;
    for (uint32_t i = 0; i < sp__cons.nthreads; i++) {
        sp__tstate *ts = sp__cons.thread_row[i];
        sp__cthread *ct = ts->cons;
        if (!ct)
            continue;
        int64_t t = close_ticks > ct->last ? close_ticks : ct->last;
        for (uint32_t d = 0; d < ct->depth; d++) /* outermost first */
            sp__note_name(bal->open_names, sizeof bal->open_names,
                          sp__cons.row_name[ct->open[d]]);
        bal->open_calls += ct->depth;
        while (ct->depth) {
            ct->depth--;
            emit(ct->row, t, -1);
        }
        ct->last = t;
        sp_v2_events_close_block(&sp__cons.batch);
    }
}

static void free_cthread(sp__tstate *ts)
{
    if (!ts->cons)
        return;
    free(ts->cons->open);
    free(ts->cons->calls);
    free(ts->cons);
    ts->cons = NULL;
}

void sp__cons_reset(void)
{
    for (sp__tstate *ts = sp__threads_first(); ts; ts = __atomic_load_n(&ts->next, __ATOMIC_ACQUIRE))
        free_cthread(ts);
    for (uint32_t i = 0; i < sp__cons.nrows; i++)
        free(sp__cons.row_name[i]);
    free(sp__cons.row_name);
    free(sp__cons.row_id);
    free(sp__cons.row_calls);
    free(sp__cons.row_dropped);
    free(sp__cons.row_dropped_written);
    free(sp__cons.row_of_id);
    free(sp__cons.thread_row);
    sp_v2_events_free(&sp__cons.batch);
    sp__cons_mpi_free();
    free(sp__cons.path);
    free(sp__cons.part_path);
    if (sp__cons.claimed)
        close(sp__cons.claim_fd); /* the part is gone, or the run over: stale now */
    pthread_mutex_t lock = sp__cons.lock;
    memset(&sp__cons, 0, sizeof sp__cons);
    sp__cons.lock = lock;
}
