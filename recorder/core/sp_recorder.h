/* SPDX-License-Identifier: MIT */
/*
 * sp_recorder.h - the recorder's internal data structures (not installed).
 *
 * A session records each thread's begins and ends as events into fixed-size
 * chunks; a writer thread empties them into the run's file (recorder/stream,
 * sp_stream.h). Here: the region registry, the per-thread state the hot
 * path reads through initial-exec TLS, the session and the options.
 *
 * Everything here is hidden: one shared library, no exported internals.
 */
#ifndef SP_RECORDER_H
#define SP_RECORDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "scope_profiler.h"
#include "sp_clock.h"
#include "sp_model.h"

#pragma GCC visibility push(hidden)

/* Region ids are dense registry indices; an event stores id + 1 (begin) or
 * its negation (end) in an int32, so ids stay below 2^30. */
#define SP__MAX_REGIONS ((UINT32_C(1) << 30) - 1) /* ids 0 .. MAX-1 */
/* The largest buffer_limit (the seed's initial buffer capacity, in calls). */
#define SP__MAX_BUFFER_LIMIT ((INT64_C(1) << 40) - 1)
/* The id of the shared handle that records nothing: never below any bound. */
#define SP__DUMMY_ID UINT32_MAX

/* ---- regions ---- */

struct sp_region {
    uint32_t id;                    /* index in the registry; SP__DUMMY_ID for the dummy */
    int32_t code;                   /* id + 1: the begin event's code (0: the dummy) */
    uint64_t dropped;               /* atomic: calls not recorded (all threads) */
    /* Counts frozen at sp_finalize(), served while no session is active. */
    uint64_t final_calls, final_dropped;
    size_t final_capacity;
    char name[];
};

extern struct sp_region sp__dummy_region;

/* The registry lock also guards the thread list, the session and the user
 * metadata: everything but the hot path, which never locks. */
extern pthread_mutex_t sp__lock;

/* Number of regions and the region of an id (call with sp__lock held). */
uint32_t sp__registry_count(void);
struct sp_region *sp__registry_at(uint32_t id);

/* ---- per-thread recording state ---- */

#define SP__NOTE_MAX 8 /* distinct region names kept per kind of misuse */

struct sp__chunk;
struct sp__cthread;

typedef struct sp__tstate {
    /* Hot: read by every begin/end (sp_stream_record.c). */
    int64_t *t;       /* the current chunk's ticks */
    int32_t *code;    /* and codes */
    uint32_t n;       /* events in it (atomic: the writer reads it) */
    uint32_t cap;     /* the hot path's limit: 0 sends every event to the slow path */

    /* Cold: the owner's slow path. */
    struct sp__chunk *chunk; /* current chunk (NULL before the first event) */
    struct sp__chunk *first; /* the session's first chunk (atomic: the writer starts there) */
    unsigned gen;            /* session the state belongs to (atomic: written by
                                the owner, read by the writer) */
    bool dropping;           /* no chunk could be had: new calls are dropped */
    uint32_t drop_depth;     /* dropped calls still open */
    uint64_t lost_ends;      /* ends of recorded calls that found no room */

    /* The writer's view of the thread (recorder/stream/sp_stream_consume.c). */
    struct sp__cthread *cons;

    int64_t os_tid;
    char name[32];
    int exited; /* atomic: set by the thread's exit destructor */
    struct sp__tstate *next;
} sp__tstate;

/* The calling thread's state; points to sp__dummy_tstate (cap 0) until the
 * thread's first call, so the hot path needs a single bound check. */
extern __thread sp__tstate *sp__tls __attribute__((tls_model("initial-exec")));
extern sp__tstate sp__dummy_tstate;

/* The session generation (atomic): odd while a session records (set by
 * sp_setup), even from the moment sp_finalize (or a new sp_setup) starts
 * ending it. A thread state of an older generation starts over in its
 * owner's slow path; nobody else touches a live thread's chunk. */
extern unsigned sp__session_gen;
/* Make the generation even (recording closed; sp__lock held) / a new odd
 * one (a new session; sp__lock held, writer stopped, threads reset). */
void sp__session_close_gen(void);
void sp__session_open_gen(void);

/* Register the calling thread (slow path; takes sp__lock). NULL on ENOMEM. */
sp__tstate *sp__thread_register(void);

/* First registered thread state (sp__lock held); follow ->next. */
sp__tstate *sp__threads_first(void);

/* Give every thread's chunks back and reset its counters; free the states
 * of threads that have exited (sp__lock held, writer stopped). */
void sp__threads_reset(void);

/* Tests: make the next requests for a chunk fail after n more successful
 * ones (n < 0: never fail, the default), as if memory ran out. */
void sp__test_fail_alloc_after(long n);

/* Tests: hold the writer's soft limit on chunks in use (sp_stream.h) at n
 * at most (0: no cap, the default), as a very slow writer would set it. */
void sp__test_soft_limit_cap(size_t n);

/* ---- recording paths ---- */

/* The begin/end pair of one recording mode: sp_region_begin/end jump through
 * sp__ops, chosen once by sp_setup(). Other modes (LIKWID, line sampling,
 * recursive tracing) will be other tables. */
typedef struct sp__ops {
    void (*begin)(sp_region *r);
    void (*end)(sp_region *r);
} sp__ops_t;

extern sp__ops_t sp__ops;
/* The table while sp_finalize() collects: begins counted as dropped. */
extern const sp__ops_t sp__ops_closing;

/* Switch the recording table (and the macros' sp__recording flag). */
void sp__set_ops(const sp__ops_t *ops);

/* The table for a kind of recording with a clock; NULL if this build cannot
 * record that kind. */
const sp__ops_t *sp__ops_for(sp_region_kind kind, sp__clock_source clock);

/* ---- options ---- */

/* The options of a session after the environment overrides, validated. */
typedef struct sp__config {
    sp_region_kind kind;
    bool file_output;
    char *file_path; /* malloc'ed copy, NULL without file output */
    size_t buffer_limit;
    sp__clock_source clock;
    /* Recording modes beyond time-only (sp_modes.h, sp_mode_table.c): */
    bool recursive;        /* recursive_profile: every region traces callees */
    bool likwid_fallback;  /* record time only when LIKWID cannot measure */
    unsigned max_depth;    /* traced call nesting recorded */
    unsigned line_hz;      /* line samples per second */
    char perf_events[256]; /* comma list of perf_event counters, "" = off */
    /* Streaming (recorder/stream): */
    size_t memory_limit;       /* bytes of chunks in use at most */
    int64_t flush_interval_ns; /* a call that ended this long before a kill is on disk */
    sp_full_policy when_full;
    int compress;              /* sp_v2_compress */
} sp__config;

#define SP__DEFAULT_MEMORY_LIMIT ((size_t)64 << 20)
#define SP__DEFAULT_FLUSH_INTERVAL 1.0

/* Apply SCOPE_PROFILER_* to o (NULL: defaults) and validate. Returns 0,
 * SP_EINVAL (the message names the option or variable), SP_ENOTSUP, SP_ENOMEM.
 * On success the caller owns out->file_path. */
int sp__config_resolve(const sp_options *o, sp__config *out);

/* ---- the session (guarded by sp__lock) ---- */

typedef struct sp__session {
    bool active;         /* between sp_setup() and sp_finalize() */
    bool forked;         /* this process is a fork() child of the session's */
    sp_region_kind kind;
    bool file_output;
    char *file_path;
    size_t buffer_limit;
    size_t memory_limit;
    int64_t flush_interval_ns;
    sp_full_policy when_full;
    int compress;
    sp__clock_calib calib; /* start point set at setup, end at finalize */
    char timestamp[48];    /* ISO 8601 local time of setup */
    char path_note[1024];  /* "" or why file_path is not the path asked for
                              (in use by another run): metadata path_in_use */
} sp__session;

extern sp__session sp__sess;

/* Region kind of the current session (DISABLED without one). */
sp_region_kind sp__current_kind(void);

/* Freeze every region's counts (calls, capacity, dropped) from the writer's
 * consumer into final_*, served by the sp_region_* queries after finalize
 * (sp__lock not held; before the consumer is released). */
void sp__regions_snapshot(size_t buffer_limit);

/* Zero every region's frozen counts and unbuffered drops (new session). */
void sp__regions_reset(void);

/* ---- finalize helpers ---- */

/* What went wrong in a session, for the warnings and the status. */
typedef struct sp__balance {
    uint64_t open_calls, unmatched_ends, mismatched, dropped;
    char open_names[256], unmatched_names[256], mismatch_names[256], dropped_names[256];
} sp__balance;

/* Fill run->meta and ranks[0].meta with the automatic metadata, then the
 * user's keys. at_setup: only the facts known when the session starts (no
 * num_threads, the clock's source and start point only), for the file
 * written at sp_setup. 0 or SP_ENOMEM. */
int sp__meta_fill(sp_run *run, size_t num_threads, bool at_setup);

/* Keys sp_metadata_set() refuses because the recorder sets them. */
bool sp__meta_reserved(const char *key);

/* The user's metadata of the session (sp__lock held). */
extern sp_kvlist sp__user_meta;

/* Append s to a comma-separated list in buf unless already present. */
void sp__note_name(char *buf, size_t size, const char *s);

#pragma GCC visibility pop

#endif
