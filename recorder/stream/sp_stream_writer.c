/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_writer.c - the writer thread and the run's files while it
 * records.
 *
 * The thread sleeps until its next poll (SP__POLL_MS) or until a recording
 * thread wakes it (the pool is past half its limit, or a thread waits for
 * a chunk): recording threads never make a system call to wake it on the
 * hot path, only in the rare slow path. Each poll consumes the full chunks
 * (and gives them back); every half flush interval it also consumes the
 * chunks still being filled and flushes the part, so a call that ended one
 * flush interval before a kill is on disk.
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
    if ((rc = sp_v2_part_append(c->part, &rows, &c->batch)) != 0)
        goto done;
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

static void *writer_main(void *arg)
{
    (void)arg;
#ifdef __GLIBC__
    pthread_setname_np(pthread_self(), "sp-writer");
#endif
    int64_t next_flush = mono_ns() + flush_every_ns;
    for (;;) {
        pthread_mutex_lock(&wake_lock);
        if (!wake_req && !stop_req) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += SP__POLL_MS * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&wake_cond, &wake_lock, &ts);
        }
        bool stop = stop_req;
        wake_req = false;
        pthread_mutex_unlock(&wake_lock);
        if (stop)
            break;
        int64_t now = mono_ns();
        bool flush = now >= next_flush;
        pthread_mutex_lock(&sp__cons.lock);
        sp__cons_consume_all(flush);
        sp__sched_poll(flush); /* new threads; every thread at a flush */
        if (flush) {
            sp__cons_collect_drops();
            sp__sched_write();
            sp__clock_point p = sp__clock_sample(sp__cons.clock);
            sp__cons_write(true, p.ticks, p.ns);
            next_flush = mono_ns() + flush_every_ns;
        } else if (sp__cons.batch.n >= SP__BATCH_EVENTS) {
            sp__cons_write(false, 0, 0);
        }
        pthread_mutex_unlock(&sp__cons.lock);
    }
    return NULL;
}

/* ---------------------------------------------------------------- the session */

int sp__writer_start(const sp__writer_setup *s)
{
    pthread_mutex_lock(&sp__cons.lock);
    sp__cons_reset();
    sp__cons.active = true;
    sp__cons.gen = __atomic_load_n(&sp__session_gen, __ATOMIC_ACQUIRE);
    sp__cons.clock = s->clock;
    sp__cons.memory = !s->path;
    sp__cons.compress = sp_v2_compress_resolve(s->compress);
    sp__cons.buffer_limit = s->buffer_limit;
    int rc = 0;
    if (s->path) {
        sp__cons.path = strdup(s->path);
        sp__cons.part_path = sp_v2_part_path(s->path, s->rank);
        if (!sp__cons.path || !sp__cons.part_path) {
            rc = SP_ENOMEM;
            goto done;
        }
        /* The main file (rank 0), then this rank's part. A failure is not
         * fatal: the events stay in memory and finalize tries again. */
        int frc = s->main_meta ? sp_v2_main_create(s->path, s->nranks, s->main_meta) : 0;
        sp__cons.main_created = s->main_meta && frc == 0;
        sp_v2_part_setup ps = {.rank = s->rank, .clock_offset_ns = s->clock_offset_ns,
                               .clock_offset_err_ns = s->clock_offset_err_ns,
                               .rank_meta = s->rank_meta, .p0_ticks = s->p0.ticks,
                               .p0_ns = s->p0.ns, .compress = sp__cons.compress};
        if (frc == 0)
            frc = sp_v2_part_create(sp__cons.part_path, &ps, &sp__cons.part);
        if (frc != 0) {
            if (sp__cons.main_created) { /* it would link to a part that is not there */
                unlink(sp__cons.path);
                sp__cons.main_created = false;
            }
            sp__cons.memory = true;
            snprintf(sp__cons.errmsg, sizeof sp__cons.errmsg, "%s", sp_last_error());
            sp__cons.err = frc; /* reported by finalize if it fails again */
        }
    }
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
        sp__cons_consume_all(true);
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
    if (sp__cons.part_path)
        unlink(sp__cons.part_path);
    if (sp__cons.path && sp__cons.main_created)
        unlink(sp__cons.path); /* the main file linking to that part */
    sp__cons_reset();
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
    free(sp__cons.part_path);
    sp__cons.part_path = NULL;
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
        sp__cons_consume_all(true);
    pthread_mutex_unlock(&sp__cons.lock);
}
