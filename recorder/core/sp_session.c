/* SPDX-License-Identifier: MIT */
/*
 * sp_session.c - sp_setup() and sp_finalize(): choose the recording table
 * once, calibrate the clock at both ends, gather the buffers into a run,
 * write it, summarise it, hand it back.
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

sp__session sp__sess;

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

/* Stop recording and drop every thread's data (sp__lock held). */
static void end_session_locked(void)
{
    sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    sp__threads_reset();
    sp__modes_reset(); /* recording modes' per-thread data (sp_mode_table.c) */
    sp_kvlist_free(&sp__user_meta);
    free(sp__sess.file_path);
    sp__sess.file_path = NULL;
    sp__sess.active = false;
}

int sp_setup(const sp_options *o)
{
    sp__config cfg;
    int rc = sp__config_resolve(o, &cfg); /* nothing changes when it fails */
    if (rc != 0)
        return rc;
    /* MPI (sp_mpi.h; a no-op in the serial library): notice MPI, measure
     * this rank's clock offset (collective), MPI call regions. */
    if ((rc = sp__mpi_setup(o, cfg.kind != SP_REGION_DISABLED)) != 0) {
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

    pthread_mutex_lock(&sp__lock);
    if (sp__sess.active) {
        end_session_locked(); /* a new setup discards an unfinalized session */
    } else {
        /* Keys set between sessions belong to the next one: keep them. */
        sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
        sp__threads_reset();
        free(sp__sess.file_path);
    }
    sp__regions_reset();
    sp__sess.kind = cfg.kind;
    sp__sess.file_output = cfg.file_output;
    sp__sess.file_path = cfg.file_path;
    sp__sess.buffer_limit = cfg.buffer_limit;
    iso_now(sp__sess.timestamp, sizeof sp__sess.timestamp);
    sp__clock_calib_start(&sp__sess.calib, cfg.clock);
    sp__sess.active = true;
    sp__set_ops(sp__modes_activate(&plan, ops)); /* ops itself without modes */
    pthread_mutex_unlock(&sp__lock);
    return 0;
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
        printf("scope-profiler: warning: %llu call(s) dropped (out of memory growing "
               "buffers): %s\n",
               (unsigned long long)b->dropped, b->dropped_names);
}

/* Gather the session into a run and end it (sp__lock held). */
static int take_session_locked(sp_run **run, sp__balance *bal, char **path, bool *file_output)
{
    sp__clock_source src = sp__sess.calib.source;
    sp__set_ops(sp__ops_for(SP_REGION_DISABLED, SP__CLOCK_MONOTONIC));
    sp__modes_stop(); /* samplers off, LIKWID closed (sp_mode_table.c) */
    int64_t close_ticks = sp__clock_ticks(src);
    sp__sess.calib.p1 = sp__clock_sample(src);
    int rc = 0;
    if (sp__sess.kind != SP_REGION_DISABLED) {
        rc = sp__collect_run(close_ticks, run, bal);
        if (rc == 0 && (rc = sp__meta_fill(*run, (*run)->ranks[0].nthreads)) == 0)
            rc = sp__modes_collect(*run); /* line samples, counters, traced names */
        if (rc != 0 && *run) {
            sp_run_free(*run);
            *run = NULL;
        }
    }
    sp__regions_snapshot();
    *file_output = sp__sess.file_output;
    *path = sp__sess.file_path;
    sp__sess.file_path = NULL;
    end_session_locked();
    return rc;
}

int sp_finalize(bool verbose, sp_run **results)
{
    if (results)
        *results = NULL;
    pthread_mutex_lock(&sp__lock);
    if (!sp__sess.active) {
        pthread_mutex_unlock(&sp__lock);
        return sp__error(SP_ESTATE, "sp_finalize: no profiling session (call sp_setup first)");
    }
    sp_run *run = NULL;
    sp__balance bal;
    memset(&bal, 0, sizeof bal);
    char *path = NULL;
    bool file_output = false;
    int rc = take_session_locked(&run, &bal, &path, &file_output);
    pthread_mutex_unlock(&sp__lock);
    if (rc != 0 || !run) { /* out of memory, or profiling deactivated */
        sp__mpi_finalize_failed(rc); /* MPI: the other ranks must not wait */
        free(path);
        return rc;
    }

    char unbalanced[1024];
    balance_message(&bal, unbalanced, sizeof unbalanced);
    if (verbose) {
        print_warnings(&bal, unbalanced);
        sp__modes_print_warnings(stdout); /* throttling, fallbacks, lost samples */
    }

    run->schema_version = SP_SCHEMA_VERSION;
    run->layout = strdup("scope-profiler");
    int wrc = 0;
    if (sp__mpi_session()) {
        /* MPI (sp_mpi_session.c): every rank's run goes into one file; on
         * rank 0, run becomes the merged run; verbose only on rank 0. */
        wrc = sp__mpi_finalize(&run, file_output ? path : NULL, &verbose,
                               verbose || results);
    } else if (file_output) {
        wrc = sp_h5_write(run, path);
        if (wrc == 0)
            run->source_path = strdup(path);
        else if (verbose)
            printf("scope-profiler: warning: %s\n", sp_last_error());
    }
    if (verbose || results) {
        int arc = sp_run_analyze(run);
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
        return wrc; /* its message is already in sp_last_error() */
    if (*unbalanced)
        return sp__error(SP_EUNBALANCED, "sp_finalize: %s", unbalanced);
    return 0;
}
