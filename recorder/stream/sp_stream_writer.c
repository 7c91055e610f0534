/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_writer.c - the writer thread and the run's files while it
 * records.
 *
 * The thread sleeps until its next poll (SP__POLL_MS), its next flush, or
 * until a recording thread wakes it (the pool is past half its limit, or a
 * thread waits for a chunk): recording threads never make a system call to
 * wake it on the hot path, only in the rare slow path. Each pass consumes
 * full chunks (and gives them back), at most SP__PASS_CHUNKS per thread
 * and never past the time of the next flush; passes follow each other
 * without sleeping while work is left. Every half flush interval it
 * consumes everything published before that instant (chunks still being
 * filled too, but nothing newer: a thread recording flat out cannot keep
 * it from finishing) and flushes the part, so a call that ended one flush
 * interval before a kill is on disk. Finalize drains what is left with
 * the same cadence. What waits for the writer is kept to what it writes
 * in a quarter of the flush interval (the pool's soft limit, from its
 * measured pace), so a flush never has more to catch up on than that.
 *
 * The thread blocks every signal: the program's handlers (and the
 * samplers' SIGPROF) run on the program's threads, never on this one.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_stream_consume.h"

#define SP__POLL_MS 10 /* between two looks at the threads' chunks */
/* Full chunks a pass reads of one thread (~43,000 events, well under a
 * millisecond) before it looks at the others and at the clock. */
#define SP__PASS_CHUNKS 8

static pthread_t writer;
static bool running;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond;
static bool wake_req, stop_req;
static int64_t flush_every_ns; /* half the flush interval */

static int64_t mono_ns(void) { return sp__mono_ns(); }

/* The condition lives as long as the process: a recording thread may
 * still call wake() (loaded from sp__pool_wake) after the writer stopped. */
static pthread_once_t wake_cond_once = PTHREAD_ONCE_INIT;
static bool wake_cond_ready;
static void init_wake_cond(void)
{
    wake_cond_ready = true;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake_cond, &ca);
    pthread_condattr_destroy(&ca);
}

static void wake(void)
{
    pthread_mutex_lock(&wake_lock);
    wake_req = true;
    pthread_cond_signal(&wake_cond);
    pthread_mutex_unlock(&wake_lock);
}

/* ---------------------------------------------------------------- writing */

void sp__cons_write(bool flush, int64_t ticks, int64_t ns)
{
    sp__consumer *c = &sp__cons;
    if (c->memory)
        return; /* memory-only: the events stay in the batch */
    if (!c->part || c->err) { /* the file failed: keep the pool moving */
        c->lost_calls += c->batch.n / 2;
        sp_v2_events_clear(&c->batch);
        sp__cons_mpi_drop();
        return;
    }
    uint32_t nd = 0;
    int32_t *drow = malloc((c->nrows ? c->nrows : 1) * sizeof *drow);
    uint64_t *dcalls = malloc((c->nrows ? c->nrows : 1) * sizeof *dcalls);
    int64_t *tids = malloc((c->nthreads ? c->nthreads : 1) * sizeof *tids);
    const char **tnames = malloc((c->nthreads ? c->nthreads : 1) * sizeof *tnames);
    int rc = 0;
    if (!drow || !dcalls || !tids || !tnames) {
        rc = sp__error(SP_ENOMEM, "out of memory writing '%s'", c->part_path);
        goto done;
    }
    for (uint32_t r = 0; r < c->nrows; r++)
        if (c->row_dropped[r] > c->row_dropped_written[r]) {
            drow[nd] = (int32_t)r;
            dcalls[nd++] = c->row_dropped[r] - c->row_dropped_written[r];
        }
    for (uint32_t t = c->threads_written; t < c->nthreads; t++) {
        tids[t - c->threads_written] = c->thread_row[t]->os_tid;
        tnames[t - c->threads_written] = c->thread_row[t]->name;
    }
    sp_v2_batch_rows rows = {
        .nregions = c->nrows - c->rows_written,
        .region_names = (const char *const *)c->row_name + c->rows_written,
        .nthreads = c->nthreads - c->threads_written,
        .thread_tids = tids,
        .thread_names = tnames,
        .ndropped = nd,
        .dropped_region = drow,
        .dropped_calls = dcalls,
    };
    sp_v2_mpi_batch mpi;
    sp__cons_mpi_batch(&mpi);
    rows.mpi = &mpi;
    if ((rc = sp_v2_part_append(c->part, &rows, &c->batch)) != 0) {
        sp__cons_mpi_drop();
        goto done;
    }
    sp__cons_mpi_written(&mpi);
    c->rows_written = c->nrows;
    c->threads_written = c->nthreads;
    for (uint32_t i = 0; i < nd; i++)
        c->row_dropped_written[drow[i]] += dcalls[i];
    sp_v2_events_clear(&c->batch);
    if (flush)
        rc = sp_v2_part_flush(c->part, ticks, ns);
done:
    if (rc && !c->err) {
        c->err = rc;
        snprintf(c->errmsg, sizeof c->errmsg, "%s", sp_last_error());
    }
    free(drow);
    free(dcalls);
    free(tids);
    free(tnames);
}

/* ---------------------------------------------------------------- the thread */

/* Flush the part with clock point `at`, after consuming everything
 * published before now (catch_up) or only what was consumed already (lock
 * held). Catching up is bounded by what was published when it began (the
 * pool's chunks at most), however fast threads record. */
static void flush_now(sp__clock_point at, bool catch_up)
{
    if (catch_up)
        sp__cons_catch_up();
    sp__cons_collect_drops();
    sp__sched_poll(true); /* every thread at a flush */
    sp__sched_write();
    sp__cons_write(true, at.ticks, at.ns);
}

/* The writer's pace: chunks consumed per second of its busy time (the
 * passes that found work, their I/O included: a writer starved of CPU or
 * slowed by the disk reads slower). From it, after every 25 ms of such
 * work, the pool's soft limit: what the writer gets through in half a
 * flush period (a quarter of flush_interval), so that what waits for it
 * never holds a flush back longer (issue 22: with a pool full of 64 MiB of
 * events, a writer slowed by load needed over a second to reach its
 * flush). The soft limit stays above one chunk per thread seen plus 8, so
 * threads that fill chunks slower than the writer reads never wait for
 * it; it binds only under SP_FULL_BLOCK, one wait per chunk at most
 * (sp_chunk_pool.c). */
static struct {
    int64_t busy_ns;
    uint64_t chunks;
} pace;

/* Measured over at least this much busy time, and at least 8 chunks. */
#define SP__PACE_WINDOW_NS 25000000

static void pace_apply(void)
{
    if (pace.chunks < 8 || pace.busy_ns < SP__PACE_WINDOW_NS)
        return; /* too little seen yet: measure on */
    double per_s = (double)pace.chunks * 1e9 / (double)pace.busy_ns;
    double n = per_s * (double)flush_every_ns / 2e9;
    size_t floor = (size_t)sp__cons.nthreads + 8;
    sp__pool_soft_limit(n > (double)floor ? (n < 1e12 ? (size_t)n : 0) : floor);
    pace.busy_ns = 0;
    pace.chunks = 0;
}

/* After a pass that began at t0 when chunks0 chunks had been read. */
static void pace_note(int64_t t0, uint64_t chunks0)
{
    uint64_t n = sp__cons.chunks_read - chunks0;
    if (n) {
        pace.busy_ns += mono_ns() - t0;
        pace.chunks += n;
        pace_apply();
    }
}

/* The next flush after one due at `due` that began at `now`: on the
 * cadence, or at once when the writer is that far behind. */
static int64_t next_flush_after(int64_t due, int64_t now)
{
    int64_t next = due + flush_every_ns;
    return next > now ? next : now;
}

static void *writer_main(void *arg)
{
    (void)arg;
#ifdef __GLIBC__
    pthread_setname_np(pthread_self(), "sp-writer");
#endif
    int64_t next_flush = mono_ns() + flush_every_ns;
    bool more = false; /* the last pass stopped at a limit: go on at once */
    pace.busy_ns = 0;
    pace.chunks = 0;
    for (;;) {
        pthread_mutex_lock(&wake_lock);
        if (!wake_req && !stop_req && !more) {
            int64_t until = mono_ns() + SP__POLL_MS * 1000000L;
            if (until > next_flush)
                until = next_flush;
            struct timespec ts = {until / 1000000000, until % 1000000000};
            pthread_cond_timedwait(&wake_cond, &wake_lock, &ts);
        }
        bool stop = stop_req;
        wake_req = false;
        pthread_mutex_unlock(&wake_lock);
        if (stop)
            break;
        int64_t now = mono_ns();
        pthread_mutex_lock(&sp__cons.lock);
        uint64_t chunks0 = sp__cons.chunks_read;
        if (now >= next_flush) {
            flush_now(sp__clock_sample(sp__cons.clock), true);
            pace_note(now, chunks0);
            next_flush = next_flush_after(next_flush, now);
            more = true; /* what was published during the flush */
        } else {
            /* Full chunks only, a few per thread, and never past the
             * flush's time: the flush comes first. */
            sp__cons_pass p = {.max_chunks = SP__PASS_CHUNKS, .deadline_ns = next_flush};
            more = sp__cons_consume(&p);
            sp__sched_poll(false); /* threads seen for the first time */
            if (sp__cons.batch.n >= SP__BATCH_EVENTS)
                sp__cons_write(false, 0, 0);
            pace_note(now, chunks0);
        }
        pthread_mutex_unlock(&sp__cons.lock);
    }
    return NULL;
}

/* ---------------------------------------------------------------- the session */

int sp__writer_start(sp__writer_setup *s)
{
    pthread_mutex_lock(&sp__cons.lock);
    sp__cons_reset();
    sp__cons.active = true;
    sp__cons.gen = __atomic_load_n(&sp__session_gen, __ATOMIC_ACQUIRE);
    sp__cons.clock = s->clock;
    sp__cons.memory = !s->path;
    sp__cons.compress = sp_v2_compress_resolve(s->compress);
    sp__cons.buffer_limit = s->buffer_limit;
    int rc = s->path ? sp__cons_open_files(s) : 0;
    if (rc)
        goto done;
    sp__sched_reset();
    sp__sched_sample_self(); /* the baseline of the thread starting the session */
    flush_every_ns = s->flush_interval_ns / 2 > 0 ? s->flush_interval_ns / 2 : 1;
    pthread_once(&wake_cond_once, init_wake_cond);
    pthread_mutex_lock(&wake_lock);
    wake_req = stop_req = false;
    pthread_mutex_unlock(&wake_lock);
    /* Block every signal in the new thread (it inherits this mask). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&writer, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        rc = sp__error(SP_EIO, "sp_setup: cannot start the writer thread: %s", strerror(e));
        goto done;
    }
    running = true;
    __atomic_store_n(&sp__pool_wake, wake, __ATOMIC_RELEASE);
done:
    pthread_mutex_unlock(&sp__cons.lock);
    if (rc == SP_ENOMEM)
        rc = sp__error(rc, "sp_setup: out of memory");
    return rc;
}

static void join_writer(void)
{
    if (!running)
        return;
    __atomic_store_n(&sp__pool_wake, NULL, __ATOMIC_RELEASE);
    pthread_mutex_lock(&wake_lock);
    stop_req = true;
    pthread_cond_signal(&wake_cond);
    pthread_mutex_unlock(&wake_lock);
    pthread_join(writer, NULL);
    running = false;
}

void sp__writer_stop(int64_t close_ticks, const sp__clock_calib *calib, sp__balance *bal)
{
    join_writer();
    pthread_mutex_lock(&sp__cons.lock);
    if (sp__cons.active) {
        /* What the writer had not taken yet (the pool's chunks at most),
         * flushed on the same cadence as while recording: a kill during
         * finalize keeps its promise too. Calibration point: the end of
         * recording (p1), the last of the file. */
        int64_t next_flush = mono_ns() + flush_every_ns;
        for (;;) {
            sp__cons_pass p = {.partial = true, .deadline_ns = next_flush};
            if (!sp__cons_consume(&p))
                break;
            int64_t now = mono_ns();
            flush_now(calib->p1, false);
            next_flush = next_flush_after(next_flush, now);
        }
        sp__cons_close_open(close_ticks);
        sp__cons_collect_drops();
        sp__sched_poll(true);
        sp__sched_write();
        sp__cons_write(true, calib->p1.ticks, calib->p1.ns);
        int rc = sp_v2_part_close(sp__cons.part);
        sp__cons.part = NULL;
        if (rc && !sp__cons.err) {
            sp__cons.err = rc;
            snprintf(sp__cons.errmsg, sizeof sp__cons.errmsg, "%s", sp_last_error());
        }
        sp__cons.active = false;
    }
    if (bal)
        *bal = sp__cons.bal;
    pthread_mutex_unlock(&sp__cons.lock);
}

void sp__writer_discard(void)
{
    join_writer();
    pthread_mutex_lock(&sp__cons.lock);
    sp_v2_part_close(sp__cons.part);
    sp__cons.part = NULL;
    if (sp__cons.part_owned) /* never a part another run holds */
        unlink(sp__cons.part_path);
    if (sp__cons.path && sp__cons.main_created)
        unlink(sp__cons.path); /* the main file linking to that part */
    sp__cons_reset(); /* the claim goes last */
    pthread_mutex_unlock(&sp__cons.lock);
}

void sp__stream_recount_drops(sp__balance *bal)
{
    sp__cons_collect_drops();
    bal->dropped = sp__cons.bal.dropped;
    memcpy(bal->dropped_names, sp__cons.bal.dropped_names, sizeof bal->dropped_names);
}

void sp__stream_lock(void) { pthread_mutex_lock(&sp__cons.lock); }
void sp__stream_unlock(void) { pthread_mutex_unlock(&sp__cons.lock); }

/* Both locks are held across fork() by the forking thread (the order the
 * rest of this file nests them in), so the child gets them in a known
 * state and unlocks them: it is that thread. */
void sp__stream_fork_prepare(void)
{
    pthread_mutex_lock(&sp__cons.lock);
    pthread_mutex_lock(&wake_lock);
}

void sp__stream_fork_parent(void)
{
    pthread_mutex_unlock(&wake_lock);
    pthread_mutex_unlock(&sp__cons.lock);
}

void sp__stream_fork_child(void)
{
    /* The writer thread does not exist here; the part and the main file
     * are the parent's: never close, flush or remove them from the child.
     * Their HDF5 handles are leaked on purpose. */
    running = false;
    __atomic_store_n(&sp__pool_wake, NULL, __ATOMIC_RELEASE);
    sp__cons.part = NULL;
    sp__cons.active = false;
    sp__cons.main_created = false;
    sp__cons.part_owned = false;
    free(sp__cons.part_path);
    sp__cons.part_path = NULL;
    /* The parent's lock on its part stays the parent's: the child's copy
     * of the descriptor goes (the lock lives on while the parent's does). */
    if (sp__cons.claimed)
        close(sp__cons.claim_fd);
    sp__cons.claimed = false;
    pthread_mutex_unlock(&wake_lock);
    pthread_mutex_unlock(&sp__cons.lock);
    /* The parent's writer may have been waiting on the condition: a waiter
     * that does not exist here. A fresh one for the child's own writer. */
    if (wake_cond_ready)
        init_wake_cond();
}

void sp__stream_drain(void)
{
    pthread_mutex_lock(&sp__cons.lock);
    if (sp__cons.active)
        sp__cons_catch_up();
    pthread_mutex_unlock(&sp__cons.lock);
}
