/* SPDX-License-Identifier: MIT */
/*
 * sp_session.c - sp_setup() and sp_finalize(): choose the recording table
 * once, calibrate the clock at both ends, start and stop the writer
 * (recorder/stream), turn what it streamed into the finished file or the
 * in-memory run, summarise it, hand it back.
 *
 * Locks: session_lock makes sp_setup() and sp_finalize() one at a time
 * (threads may call them at once: the header promises it, issue 22 found a
 * use-after-free of the file path when two setups interleaved); sp__lock
 * guards the session's fields against the recording threads; the writer's
 * consumer lock comes before sp__lock when both are needed
 * (sp_stream_consume.h), so the writer is started, stopped and read here
 * without sp__lock held. Order: session_lock, consumer lock, sp__lock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "sp_analysis.h"
#include "sp_error.h"
#include "sp_h5.h"
#include "sp_modes.h"
#include "sp_mpi.h"
#include "sp_recorder.h"
#include "sp_stream.h"

sp__session sp__sess;

/* Held for the whole of sp_setup() and sp_finalize() (never by a
 * recording thread, never around a region call). */
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

sp_region_kind sp__current_kind(void)
{
    return __atomic_load_n(&sp__sess.active, __ATOMIC_RELAXED) ? sp__sess.kind
                                                                : SP_REGION_DISABLED;
}

/* ISO 8601 local time with microseconds, as Python's datetime.isoformat(). */
static void iso_now(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, size - n, ".%06ld", ts.tv_nsec / 1000);
}


/* A fork() child inherits the session but not the writer thread: its
 * recording stops, and it never touches the parent's files (sp_finalize
 * in the child says so). The writer is kept out of HDF5 during fork(). */
static void before_fork(void) { sp__stream_fork_prepare(); }
static void after_fork_parent(void) { sp__stream_fork_parent(); }
static void after_fork_child(void)
{
    /* Another thread of the parent may have held it across fork(): that
     * thread does not exist here. */
    pthread_mutex_init(&session_lock, NULL);
    sp__stream_fork_child();
    if (sp__sess.active) {
        sp__sess.forked = true;
        sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    }
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Stop recording and drop every thread's data (sp__lock held, writer
 * stopped and released). */
static void end_session_locked(void)
{
    sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    sp__threads_reset();
    sp__modes_reset(); /* recording modes' per-thread data (sp_mode_table.c) */
    sp_kvlist_free(&sp__user_meta);
    free(sp__sess.file_path);
    sp__sess.file_path = NULL;
    sp__sess.path_note[0] = '\0';
    sp__sess.active = false;
    sp__sess.forked = false;
}

/* The run facts known at setup, for the file written then (rank 0). */
static sp_run *setup_meta(void)
{
    sp_run *m = sp_run_new();
    if (!m || sp_run_set_ranks(m, 1) != 0 || sp__meta_fill(m, 0, true) != 0) {
        sp_run_free(m);
        return NULL;
    }
    return m;
}

static int setup_locked(const sp_options *o)
{
    sp__config cfg;
    int rc = sp__config_resolve(o, &cfg); /* nothing changes when it fails */
    if (rc != 0)
        return rc;
    /* The serial library started by an MPI launcher: one file per rank. */
    if ((rc = sp__mpi_serial_place(cfg.file_output ? &cfg.file_path : NULL)) != 0) {
        free(cfg.file_path);
        return rc;
    }
    /* MPI (sp_mpi.h; a no-op in the serial library): notice MPI, measure
     * this rank's clock offset (collective), MPI call regions. */
    if ((rc = sp__mpi_setup(o, cfg.kind != SP_REGION_DISABLED, cfg.file_output, cfg.clock)) !=
        0) {
        free(cfg.file_path);
        return rc;
    }
    /* Recording modes (sp_mode_table.c): probe LIKWID, perf_event, samplers;
     * a LIKWID fallback turns the kind into time-only. */
    sp__mode_plan plan;
    if ((rc = sp__modes_prepare(&cfg, &plan)) != 0) {
        free(cfg.file_path);
        return rc;
    }
    const sp__ops_t *ops = sp__ops_for(cfg.kind, cfg.clock);
    if (!ops) {
        free(cfg.file_path);
        return sp__error(SP_ENOTSUP, "%s recording is not built in yet",
                         sp_region_kind_name(cfg.kind));
    }

    /* A new setup discards an unfinalized session: its writer and files. */
    pthread_mutex_lock(&sp__lock);
    bool was_active = sp__sess.active, forked = sp__sess.forked;
    sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    sp__session_close_gen(); /* no thread starts a chunk of the old session */
    pthread_mutex_unlock(&sp__lock);
    if (was_active && !forked)
        sp__writer_discard();
    sp__stream_release();

    pthread_mutex_lock(&sp__lock);
    if (was_active) {
        end_session_locked();
    } else {
        /* Keys set between sessions belong to the next one: keep them. */
        sp__threads_reset();
        free(sp__sess.file_path);
    }
    sp__regions_reset();
    sp__sess.kind = cfg.kind;
    sp__sess.file_output = cfg.file_output;
    sp__sess.file_path = cfg.file_path;
    sp__sess.buffer_limit = cfg.buffer_limit;
    sp__sess.memory_limit = cfg.memory_limit;
    sp__sess.flush_interval_ns = cfg.flush_interval_ns;
    sp__sess.when_full = cfg.when_full;
    sp__sess.compress = cfg.compress;
    sp__sess.path_note[0] = '\0';
    iso_now(sp__sess.timestamp, sizeof sp__sess.timestamp);
    sp__clock_calib_start(&sp__sess.calib, cfg.clock);
    sp__pool_configure(cfg.memory_limit / SP__CHUNK_BYTES, cfg.when_full == SP_FULL_BLOCK);
    sp__session_open_gen(); /* threads may start chunks (ops still off) */
    sp__writer_setup ws = {.clock = cfg.clock, .p0 = sp__sess.calib.p0,
                           .flush_interval_ns = cfg.flush_interval_ns,
                           .compress = (sp_v2_compress)cfg.compress, .nranks = 1,
                           .buffer_limit = cfg.buffer_limit,
                           .mpi_messages = sp__mpi_messages()};
    sp_run *meta = NULL;
    bool recording = cfg.kind != SP_REGION_DISABLED;
    if (recording && cfg.file_output) {
        ws.path = cfg.file_path;
        sp__mpi_place(&ws.rank, &ws.nranks, &ws.clock_offset_ns, &ws.clock_offset_err_ns);
        char n[32];
        snprintf(n, sizeof n, "%zu", ws.nranks);
        if (!(meta = setup_meta()) || sp_kvlist_set(&meta->meta, "mpi_size", n) != 0) {
            rc = sp__error(SP_ENOMEM, "sp_setup: out of memory");
        } else {
            ws.main_meta = ws.rank == 0 ? &meta->meta : NULL;
            ws.rank_meta = &meta->ranks[0].meta;
        }
    }
    pthread_mutex_unlock(&sp__lock);
    if (rc == 0 && recording)
        rc = sp__writer_start(&ws);
    sp_run_free(meta);

    pthread_mutex_lock(&sp__lock);
    if (ws.path_used) { /* the path was in use by another live run */
        free(sp__sess.file_path);
        sp__sess.file_path = ws.path_used;
        snprintf(sp__sess.path_note, sizeof sp__sess.path_note, "%s", ws.path_note);
    }
    sp__sess.active = true; /* even when the writer failed: finalize ends it */
    if (rc == 0)
        sp__set_ops(sp__modes_activate(&plan, ops)); /* ops itself without modes */
    pthread_mutex_unlock(&sp__lock);
    return rc;
}

int sp_setup(const sp_options *o)
{
    pthread_once(&fork_once, install_fork_handlers);
    pthread_mutex_lock(&session_lock);
    int rc = setup_locked(o);
    pthread_mutex_unlock(&session_lock);
    return rc;
}

void sp__note_name(char *buf, size_t size, const char *s)
{
    size_t len = strlen(buf), n = strlen(s);
    /* Already listed? Compare whole items of the ", "-separated list. */
    for (const char *p = buf; (p = strstr(p, s)) != NULL; p++)
        if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return;
    if (len && len + 2 < size)
        memcpy(buf + len, ", ", 3), len += 2;
    if (len + n + 1 < size)
        memcpy(buf + len, s, n + 1);
    else if (len + 4 < size && !strstr(buf, "..."))
        memcpy(buf + len, "...", 4);
}

/* Append to a message buffer, truncating quietly. */
static void __attribute__((format(printf, 4, 5)))
append(char *out, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *n, size - *n, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n = (size_t)w < size - *n ? *n + (size_t)w : size - 1;
}

/* "2 call(s) still open at finalize, closed there: a, b; ..." or "". */
static void balance_message(const sp__balance *b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    if (b->open_calls)
        append(out, size, &n, "%llu call(s) still open at finalize, closed there: %s",
               (unsigned long long)b->open_calls, b->open_names);
    if (b->unmatched_ends)
        append(out, size, &n, "%s%llu end(s) without a matching begin: %s", n ? "; " : "",
               (unsigned long long)b->unmatched_ends, b->unmatched_names);
    if (b->mismatched)
        append(out, size, &n, "%s%llu call(s) closed by a mismatched end: %s", n ? "; " : "",
               (unsigned long long)b->mismatched, b->mismatch_names);
}

static void print_warnings(const sp__balance *b, const char *unbalanced)
{
    if (*unbalanced)
        printf("scope-profiler: warning: unbalanced regions: %s\n", unbalanced);
    if (b->dropped)
        printf("scope-profiler: warning: %llu call(s) dropped (no event chunk free: "
               "SP_FULL_DROP, or out of memory): %s\n",
               (unsigned long long)b->dropped, b->dropped_names);
}


/* The session's run without the streamed calls (skeleton: regions,
 * threads, dropped calls, metadata, the modes' tables and sampled calls).
 * Consumer lock held, sp__lock taken here. */
static int collect_skeleton(sp_run **skel)
{
    int rc = sp__stream_skeleton(skel);
    pthread_mutex_lock(&sp__lock);
    if (rc == 0 && (rc = sp__meta_fill(*skel, (*skel)->ranks[0].nthreads, false)) == 0)
        rc = sp__modes_collect(*skel); /* line samples, counters, traced names */
    pthread_mutex_unlock(&sp__lock);
    if (rc != 0) {
        sp_run_free(*skel);
        *skel = NULL;
    }
    return rc;
}

/* Read the finished file back (the summary, the caller's run). */
static sp_run *read_back(const char *path)
{
    sp_run *run = sp_h5_read(path, NULL);
    if (run && !run->source_path)
        run->source_path = strdup(path);
    return run;
}

static int finalize_locked(bool verbose, sp_run **results)
{
    pthread_mutex_lock(&sp__lock);
    if (!sp__sess.active) {
        pthread_mutex_unlock(&sp__lock);
        return sp__error(SP_ESTATE, "sp_finalize: no profiling session (call sp_setup first)");
    }
    if (sp__sess.forked) {
        pthread_mutex_unlock(&sp__lock);
        return sp__error(SP_ESTATE, "sp_finalize: this process is a fork() child of the one "
                                    "that called sp_setup: its session and file belong to the "
                                    "parent (call sp_setup in the child for a file of its own)");
    }
    bool recording = sp__sess.kind != SP_REGION_DISABLED;
    /* Stop recording, close the clock calibration. Threads that race this
     * (see the policy at sp_finalize in scope_profiler.h): a new call is
     * counted as dropped until the counts are taken below; no thread
     * starts a chunk any more (even generation); a thread inside
     * sp_region_begin/end keeps writing into its own chunk only. */
    sp__clock_source src = sp__sess.calib.source;
    sp__set_ops(recording ? &sp__ops_closing : sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    sp__session_close_gen();
    sp__modes_stop(); /* samplers off, LIKWID closed (sp_mode_table.c) */
    int64_t close_ticks = sp__clock_ticks(src);
    sp__sess.calib.p1 = sp__clock_sample(src);
    sp__clock_calib calib = sp__sess.calib;
    bool file_output = sp__sess.file_output;
    size_t buffer_limit = sp__sess.buffer_limit;
    char *path = file_output ? sp__sess.file_path : NULL;
    sp__sess.file_path = NULL;
    char path_note[sizeof sp__sess.path_note];
    snprintf(path_note, sizeof path_note, "%s", sp__sess.path_note);
    pthread_mutex_unlock(&sp__lock);

    /* The writer consumes everything, closes open calls, flushes the part. */
    sp__balance bal;
    memset(&bal, 0, sizeof bal);
    sp__writer_stop(close_ticks, &calib, &bal);

    sp_run *run = NULL;
    int rc = 0, wrc = 0;
    char werr[600] = "";
    bool mpi = sp__mpi_session();
    sp__stream_lock();
    bool want = verbose || results;
    if (recording)
        sp__stream_recount_drops(&bal); /* calls begun while closing */
    if (recording && (rc = collect_skeleton(&run)) == 0) {
        sp_v2_clock_map m;
        sp__stream_clock_map(&calib, &m);
        /* Streamed (a part) or kept in memory (no file, or a file that
         * could not be created at setup); the modes' sampled calls go after
         * the recorded events. */
        const char *part = sp__stream_part_path();
        sp_v2_events *mem = sp__stream_memory_events(), extra;
        memset(&extra, 0, sizeof extra);
        sp_v2_events *ev = part ? &extra : mem;
        rc = sp__stream_move_calls(run, &m, ev);
        if (rc == 0 && !path) {
            rc = sp__stream_replay_into(run, &m, mem);
            if (rc == 0 && mpi)
                wrc = sp__mpi_finalize(&run, NULL, &verbose, want);
        } else if (rc == 0) {
            char serr[512];
            int stream_err = part ? sp__stream_error(serr, sizeof serr) : 0;
            if (mpi)
                wrc = sp__mpi_finalize_stream(&run, path, part, ev, &calib, &verbose, want);
            else
                wrc = sp__stream_write_file(run, path, part, ev, &calib);
            if (wrc == 0 && stream_err) /* written, but calls were lost before */
                wrc = sp__error(stream_err, "sp_finalize: writing '%s' failed while recording "
                                "(%s); the file holds the calls written before", path, serr);
            else if (wrc && stream_err) { /* the first failure is the cause (a full disk) */
                char later[512];
                snprintf(later, sizeof later, "%s", sp_last_error());
                wrc = sp__error(stream_err, "sp_finalize: writing '%s' failed while recording "
                                "(%s); the streamed file keeps what was written before; "
                                "then: %s", path, serr, later);
            }
            if (wrc) /* before reading back, which may fail and retry */
                snprintf(werr, sizeof werr, "%s", sp_last_error());
            if (want && !mpi) { /* MPI: sp__mpi_finalize_stream read it back */
                /* The finished file; after a failure the streamed one; a
                 * file never made: the calls in memory. */
                sp_run *back = wrc == 0 || part ? read_back(path) : NULL;
                if (back) {
                    sp_run_free(run);
                    run = back;
                } else if (!part) {
                    rc = sp__stream_replay_into(run, &m, mem);
                }
            }
        }
        sp_v2_events_free(&extra);
        if (wrc && !werr[0])
            snprintf(werr, sizeof werr, "%s", sp_last_error());
    }
    sp__stream_unlock();
    sp__regions_snapshot(buffer_limit);
    sp__stream_release();
    pthread_mutex_lock(&sp__lock);
    end_session_locked();
    pthread_mutex_unlock(&sp__lock);

    if (rc != 0 || !run) { /* out of memory, or profiling deactivated */
        if (rc != 0)
            sp__mpi_finalize_failed(rc); /* MPI: the other ranks must not wait */
        free(path);
        return rc;
    }

    char unbalanced[1024];
    balance_message(&bal, unbalanced, sizeof unbalanced);
    if (verbose) {
        print_warnings(&bal, unbalanced);
        sp__modes_print_warnings(stdout); /* throttling, fallbacks, lost samples */
        int mrank;
        const char *misuse = sp__mpi_misuse_note(&mrank);
        if (misuse && mrank == 0) /* announced once, by rank 0 */
            printf("scope-profiler: warning: %s\n", misuse);
        if (path_note[0])
            printf("scope-profiler: warning: %s\n", path_note);
        if (wrc)
            printf("scope-profiler: warning: %s\n", werr);
    }
    if (!run->layout)
        run->layout = strdup("scope-profiler");
    run->schema_version = SP_SCHEMA_VERSION;
    if (verbose || results) {
        int arc = run->analyzed ? 0 : sp_run_analyze(run);
        if (arc != 0 && wrc == 0)
            wrc = arc;
    }
    if (verbose && run->analyzed)
        sp_print_summary(run, run->source_path, stdout);
    free(path);
    if (results)
        *results = run;
    else
        sp_run_free(run);

    if (wrc != 0)
        return sp__error(wrc, "%s", werr);
    if (*unbalanced)
        return sp__error(SP_EUNBALANCED, "sp_finalize: %s", unbalanced);
    return 0;
}

int sp_finalize(bool verbose, sp_run **results)
{
    if (results)
        *results = NULL;
    pthread_mutex_lock(&session_lock);
    int rc = finalize_locked(verbose, results);
    pthread_mutex_unlock(&session_lock);
    return rc;
}
