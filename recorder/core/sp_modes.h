/* SPDX-License-Identifier: MIT */
/*
 * sp_modes.h - the recording modes beyond time-only (internal, not installed):
 *
 *   recursive tracing   sp_instrument.c   -finstrument-functions hooks, traced
 *                                          calls become regions keyed by address
 *   line sampling       sp_linesample.c   perf_event cpu-clock or POSIX timer
 *                                          samples of the IP, per region
 *   LIKWID markers      sp_likwid*.c      dlopen'ed liblikwid, marker file parse
 *   perf counters       sp_perf.c         a perf_event group read per region call
 *   stack sampling      sp_stacksample.c  `scope-profiler run` without
 *                                          instrumentation: sampled call stacks
 *
 * sp_mode_table.c composes them: when a session asks for any of them, the
 * recording table is a wrapper that calls the time-only table plus the hooks
 * of the active modes (a flag word read once per call), so the default
 * time-only path is untouched. Symbol resolution (sp_symbolize.c, libdw via
 * dlopen) and stack unwinding (sp_unwind.c, libunwind via dlopen) are optional
 * at run time: the core library links neither.
 *
 * Per-thread mode state lives in sp__mthread, reached through its own
 * initial-exec TLS pointer (NULL until the thread's first use of a mode).
 */
#ifndef SP_MODES_H
#define SP_MODES_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sp_recorder.h"

#pragma GCC visibility push(hidden)

/* ---- session configuration of the modes ---- */

enum {
    SP__MODE_REC_ALL = 1u << 0, /* recursive_profile: every region traces callees */
    SP__MODE_LINES = 1u << 1,   /* line sampling while a region is open */
    SP__MODE_LIKWID = 1u << 2,  /* LIKWID marker regions */
    SP__MODE_PERF = 1u << 3,    /* perf_event counter group per call */
};

#define SP__DEFAULT_MAX_DEPTH 128u
#define SP__DEFAULT_LINE_HZ 1000u
#define SP__MAX_LINE_HZ 100000u
#define SP__THROTTLE_CALLS 100000u /* a traced function called this often ... */
#define SP__THROTTLE_NS 1000u      /* ... for less than this mean is no longer traced */
#define SP__MAX_PERF_EVENTS 8

/* sp_options.c hooks (sp_mode_config.c): apply the modes' SCOPE_PROFILER_*
 * variables to o, then validate and copy the mode options into cfg.
 * 0 or SP_EINVAL (the message names the option or variable). */
int sp__modes_env(sp_options *o);
int sp__modes_fill(const sp_options *o, sp__config *cfg);

/* What sp__modes_prepare() decided; activated by sp__modes_activate(). */
typedef struct sp__mode_plan {
    unsigned flags;          /* SP__MODE_* */
    unsigned max_depth;      /* traced call nesting recorded */
    uint64_t throttle_calls; /* see SP__THROTTLE_* */
    uint64_t throttle_ns;
    unsigned line_hz;
    int line_backend; /* SP__LINES_PERF / SP__LINES_TIMER */
    int nperf;        /* perf events kept */
    uint32_t perf_type[SP__MAX_PERF_EVENTS];
    uint64_t perf_config[SP__MAX_PERF_EVENTS];
    char perf_name[SP__MAX_PERF_EVENTS][32];
    bool perf_user_only[SP__MAX_PERF_EVENTS]; /* kernel part not allowed */
    char perf_dropped[256];                   /* events this machine cannot count, and why */
    char warnings[1024];                      /* for finalize(verbose): fallbacks, dropped events */
    char likwid_fallback[512];                /* non-empty: LIKWID asked for, time-only recorded */
} sp__mode_plan;

/* Probe what the configuration asks for (load LIKWID, open a perf group on
 * the calling thread, ...) without changing the running session. May change
 * cfg->kind (LIKWID fallback). 0, SP_ENOTSUP (message says why), SP_EINVAL. */
int sp__modes_prepare(sp__config *cfg, sp__mode_plan *plan);

/* Under sp__lock, after the old session ended: make plan the session's modes
 * and return the table to record with (base when no mode is on). */
const sp__ops_t *sp__modes_activate(const sp__mode_plan *plan, const sp__ops_t *base);

/* Under sp__lock at finalize, before the run is built: stop the samplers,
 * close LIKWID (which writes its marker file) and parse its results. */
void sp__modes_stop(void);

/* Under sp__lock at finalize, after the run is built: attach line samples,
 * counters, sampled stacks, region flags and metadata; give traced regions
 * their resolved names. 0 or SP_ENOMEM. */
int sp__modes_collect(sp_run *run);

/* Print the session's mode warnings (throttled functions, fallbacks, lost
 * samples) as "scope-profiler: warning: ..." lines. */
void sp__modes_print_warnings(FILE *out);

/* Under sp__lock when a session ends or a new one starts: free every
 * thread's mode data, forget the session's modes. */
void sp__modes_reset(void);

/* ---- per-thread state ---- */

typedef struct sp__trace_hent sp__trace_hent;
typedef struct sp__lines_thread sp__lines_thread;
typedef struct sp__perf_thread sp__perf_thread;
typedef struct sp__stack_thread sp__stack_thread;

typedef struct sp__trace_frame {
    uintptr_t fn;         /* the function entered */
    sp_region *region;    /* its region, NULL when not recorded (throttled) */
    sp__trace_hent *hent; /* its address-table entry (call statistics) */
    int64_t t0;           /* tick of its begin event (0: not recorded) */
} sp__trace_frame;

#define SP__REC_NEST 64 /* nested recursive regions whose depth is remembered */

typedef struct sp__mthread {
    unsigned gen; /* session generation the state belongs to */

    /* recursive tracing (sp_instrument.c) */
    uint32_t depth, cap; /* open traced calls; frames allocated */
    uint32_t skipped;    /* open calls beyond max_depth (not recorded) */
    sp__trace_frame *frames;
    uint32_t nrec;                    /* open recursive regions */
    uint32_t rec_saved[SP__REC_NEST]; /* depth when each of them began */
    sp__trace_hent *hash;             /* address -> region, open addressing */
    uint32_t hmask, hcount;
    uint64_t depth_skipped; /* calls not recorded because of max_depth */

    sp__lines_thread *lines; /* sp_linesample.c */
    sp__perf_thread *perf;   /* sp_perf.c */
    sp__stack_thread *stack; /* sp_stacksample.c */

    int64_t os_tid;
    int exited; /* atomic: the thread has exited */
    struct sp__mthread *next;
} sp__mthread;

/* The thread's mode state, NULL before its first use of a mode. */
extern __thread sp__mthread *sp__mtls __attribute__((tls_model("initial-exec")));

/* Nonzero while this thread is inside a region that traces its callees. */
extern __thread int sp__trace_on __attribute__((tls_model("initial-exec")));

/* The calling thread's state for the current session (created or reset on
 * first use; slow path, takes sp__lock). NULL on ENOMEM. */
sp__mthread *sp__mthread_get(void);

/* First thread state (sp__lock held); follow ->next. */
sp__mthread *sp__mthreads_first(void);

/* The session generation (bumped by every activation and reset). */
extern unsigned sp__mode_gen;

/* The active plan (valid between activate and reset). */
extern sp__mode_plan sp__mode_cur;

/* The time-only table of the session, which every mode wraps. */
extern sp__ops_t sp__mode_base;

/* The table traced calls record through: the session's table without the
 * recursive part (a traced call does not start tracing again). */
extern sp__ops_t sp__mode_traced;

/* ---- recursive tracing (sp_instrument.c) ---- */

/* Whole-program tracing (`scope-profiler run` on an instrumented binary):
 * every thread traces, no region needed. */
extern int sp__trace_all;

/* End the calling thread's open traced calls (whole-program tracing at
 * exit: main() and its callees never return). */
void sp__trace_close_thread(void);

/* A region that traces its callees opens / closes on this thread (closing
 * first ends the traced calls still open above it). */
void sp__trace_region_begin(void);
void sp__trace_region_end(void);

/* The registry name of the pseudo region of a traced address, and back. */
#define SP__TRACE_PREFIX "sp:trace:0x"
bool sp__trace_parse_name(const char *name, uintptr_t *addr);

/* Resolve traced regions' names, flag them (traced, throttled) and note the
 * guard rails in metadata and warnings. */
int sp__trace_collect(sp_run *run, char *warn, size_t wsize);
/* Free m's tracing data; m == NULL: forget the session's throttling. */
void sp__trace_reset(sp__mthread *m);

/* ---- line sampling (sp_linesample.c) ---- */

enum { SP__LINES_PERF = 1, SP__LINES_TIMER = 2 };

/* Choose the backend: SCOPE_PROFILER_LINE_SAMPLER=perf|timer, else perf
 * where perf_event_open works for this thread, else timer. */
int sp__lines_prepare(sp__mode_plan *plan);
void sp__lines_begin(sp_region *r);
void sp__lines_end(sp_region *r);
void sp__lines_stop_all(void);
void sp__lines_thread_exit(sp__mthread *m);
int sp__lines_collect(sp_run *run, char *warn, size_t wsize);
void sp__lines_reset(sp__mthread *m);

/* ---- perf_event counters (sp_perf.c) ---- */

/* Parse SCOPE_PROFILER_PERF_EVENTS / sp_options.perf_events, open a test
 * group on the calling thread and keep the events that open. */
int sp__perf_prepare(const char *list, sp__mode_plan *plan);
void sp__perf_begin(sp_region *r);
void sp__perf_end(sp_region *r);
void sp__perf_stop_all(void);
int sp__perf_collect(sp_run *run);
void sp__perf_reset(sp__mthread *m);

/* ---- LIKWID (sp_likwid.c) ---- */

int sp__likwid_prepare(sp__mode_plan *plan, char *why, size_t size);
void sp__likwid_begin(sp_region *r);
void sp__likwid_end(sp_region *r);
void sp__likwid_stop(void);
int sp__likwid_collect(sp_run *run, char *warn, size_t wsize);
void sp__likwid_reset(void);

/* ---- stack sampling (sp_stacksample.c; used by the preload library) ---- */

/* Start sampling every thread's call stack at hz (wall clock). Threads must
 * call sp__stacks_thread_start() (the preload library wraps pthread_create).
 * keep_system: keep frames of libc, the loader and system libraries. */
int sp__stacks_start(unsigned hz, bool keep_system);
void sp__stacks_thread_start(void);
void sp__stacks_thread_stop(void);
bool sp__stacks_active(void);
void sp__stacks_stop_all(void);
int sp__stacks_collect(sp_run *run, char *warn, size_t wsize);
void sp__stacks_reset(sp__mthread *m);

/* ---- the profiling signal (sp_linesample.c) ---- */

/* SIGPROF drives both samplers; the handler is installed once and stays
 * (a late signal must never meet the default action, which kills). */
#define SP__PROF_SIGNAL SIGPROF
int sp__prof_signal_install(void);
void sp__stacks_on_signal(sp__mthread *m, void *ucontext);

/* ---- run-model helpers (sp_mode_table.c) ---- */

/* Set a flag on a run region (allocating run->region_flags). 0 or SP_ENOMEM. */
int sp__run_flag_region(sp_run *run, int32_t region, int32_t flag);

/* The run region id of every registry id (-1: not in the run), malloc'ed
 * (sp__registry_count() entries, at least 1). NULL on ENOMEM. */
int32_t *sp__run_ids_by_registry(const sp_run *run);

/* Append a counter row to rank 0 (strings copied). 0 or SP_ENOMEM. */
int sp__rank_add_counter(sp_rank_data *rk, int32_t region, int32_t thread, int32_t cpu,
                         int32_t source, const char *name, double value, uint64_t calls);

/* Append a line row to rank 0 (strings copied; every row of rk->line_*
 * goes through here, the columns grow by doubling). 0 or SP_ENOMEM. */
int sp__rank_add_line(sp_rank_data *rk, int32_t region, const char *file, int32_t lineno,
                      const char *function, uint64_t samples, int64_t time_ns);

/* sp_lines_add()'s rows (sp_lines_extern.c): appended to rank 0 at
 * finalize (0 or SP_ENOMEM), dropped with the session. */
int sp__lines_extern_collect(sp_run *run);
void sp__lines_extern_reset(void);

/* Add a metadata key of the modes to run->meta. 0 or SP_ENOMEM. */
int sp__mode_meta(sp_run *run, const char *key, const char *value);

/* Index of the thread with os_tid in rank 0's thread table, added if new
 * (name may be NULL). -1 on ENOMEM. */
int32_t sp__run_thread_index(sp_run *run, int64_t os_tid, const char *name);

#pragma GCC visibility pop

#endif
