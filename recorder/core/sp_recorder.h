/* SPDX-License-Identifier: MIT */
/*
 * sp_recorder.h - the recorder's internal data structures (not installed).
 *
 * Memory layout of a session:
 *
 *   region registry (global, lives forever)     thread states (global list)
 *   id -> struct sp_region {id, name}           sp__tstate per thread that
 *                                               recorded, reached through
 *                                               initial-exec TLS on the hot path
 *   sp__tstate.bufs[region id] = sp__rbuf: a growable array of 24-byte events
 *   {start, end, parent}, in raw clock ticks, that starts at buffer_limit
 *   entries and doubles.
 *
 * Open calls form a stack per thread without a separate array: the thread's
 * `cur` names the innermost open call, and each event's `parent` names the
 * call that was innermost when it began, so ending a call pops by following
 * its parent link. Calls are named by a packed int64 (see SP__PACK):
 *
 *   bit  63      0 (packed calls are never negative; -1 = none, -2 = broken)
 *   bit  62      drop flag: a call that could not be recorded (out of memory)
 *   bits 61..40  region id (22 bits: up to 4,194,303 regions)
 *   bits 39..0   index into that thread's buffer for the region (40 bits)
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

/* ---- packed call references ---- */

#define SP__IDX_BITS 40
#define SP__IDX_MASK ((INT64_C(1) << SP__IDX_BITS) - 1)
#define SP__ID_BITS 22
#define SP__MAX_REGIONS ((UINT32_C(1) << SP__ID_BITS) - 1) /* ids 0 .. MAX-1 */
#define SP__DROP_FLAG (INT64_C(1) << 62)
#define SP__NONE INT64_C(-1)   /* no open call */
#define SP__BROKEN INT64_C(-2) /* nesting lost after running out of memory */
#define SP__PACK(id, idx) (((int64_t)(id) << SP__IDX_BITS) | (int64_t)(idx))
#define SP__PACKED_ID(p) ((uint32_t)((uint64_t)(p) >> SP__IDX_BITS)) /* incl. drop flag */
#define SP__PACKED_IDX(p) ((uint64_t)(p)&SP__IDX_MASK)
#define SP__IS_DROP(p) ((p) >= 0 && ((p)&SP__DROP_FLAG))
#define SP__DROP_ID(p) ((uint32_t)(((uint64_t)(p) & ~(uint64_t)SP__DROP_FLAG) >> SP__IDX_BITS))
/* The id of the shared handle that records nothing: never below any bound. */
#define SP__DUMMY_ID UINT32_MAX

/* ---- regions ---- */

struct sp_region {
    uint32_t id;                    /* index in the registry; SP__DUMMY_ID for the dummy */
    uint64_t dropped_unbuffered;    /* atomic: drops before a thread had a buffer slot */
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

typedef struct sp__event {
    int64_t start;  /* raw ticks */
    int64_t end;    /* raw ticks; 0 while the call is open */
    int64_t parent; /* packed call that enclosed it, SP__NONE at top level */
} sp__event;
_Static_assert(sizeof(sp__event) == 24, "an event is 24 bytes per call");

typedef struct sp__rbuf {
    sp__event *ev;
    uint64_t n;       /* events used (calls recorded) */
    uint64_t cap;     /* events allocated; 0 until the first call */
    uint64_t dropped; /* calls lost because the buffer could not grow */
} sp__rbuf;

#define SP__DROP_DEPTH 64 /* nested dropped calls remembered before giving up */
#define SP__NOTE_MAX 8    /* distinct region names kept per kind of misuse */

typedef struct sp__tstate {
    /* Hot: read by every begin/end. */
    sp__rbuf *bufs;   /* indexed by region id */
    uint32_t nbufs;   /* ids below this take the fast path (0 when broken) */
    int64_t cur;      /* innermost open call (packed), SP__NONE, SP__BROKEN */

    /* Cold. */
    uint32_t bufs_cap; /* entries allocated in bufs */
    bool broken;       /* nesting lost: every further call is dropped */
    uint32_t ndrop;
    int64_t drop_saved[SP__DROP_DEPTH]; /* cur before each open dropped call */

    uint64_t unmatched_ends;            /* end with no open call of that region */
    uint64_t mismatched;                /* open calls closed by an outer end */
    uint32_t n_unmatched_ids, n_mismatch_pairs;
    uint32_t unmatched_ids[SP__NOTE_MAX];
    uint32_t mismatch_pairs[SP__NOTE_MAX][2]; /* {ended region, region left open} */

    int64_t os_tid;
    char name[32];
    int exited; /* atomic: set by the thread's exit destructor */
    struct sp__tstate *next;
} sp__tstate;

/* The calling thread's state; points to sp__dummy_tstate (nbufs 0) until the
 * thread's first call, so the hot path needs a single bound check. */
extern __thread sp__tstate *sp__tls __attribute__((tls_model("initial-exec")));
extern sp__tstate sp__dummy_tstate;

/* Register the calling thread (slow path; takes sp__lock). NULL on ENOMEM. */
sp__tstate *sp__thread_register(void);

/* First registered thread state (sp__lock held); follow ->next. */
sp__tstate *sp__threads_first(void);

/* Free every thread's buffers and reset its counters; free the states of
 * threads that have exited (sp__lock held, no thread inside a region). */
void sp__threads_reset(void);

/* realloc for the per-thread buffer tables, failing on demand in tests. */
void *sp__rec_realloc(void *p, size_t size);

/* Grow an event buffer from old_cap to new_cap events, keeping its contents
 * (old may be NULL with old_cap 0). NULL on failure, the old buffer intact.
 * Large buffers are mappings with transparent huge pages (sp_buffer.c). */
sp__event *sp__events_grow(sp__event *old, uint64_t old_cap, uint64_t new_cap);
void sp__events_free(sp__event *ev, uint64_t cap);

/* Tests: make the recorder's buffer allocations fail after n more successful
 * ones (n < 0: never fail, the default). */
void sp__test_fail_alloc_after(long n);

/* ---- recording paths ---- */

/* The begin/end pair of one recording mode: sp_region_begin/end jump through
 * sp__ops, chosen once by sp_setup(). Other modes (LIKWID, line sampling,
 * recursive tracing) will be other tables. */
typedef struct sp__ops {
    void (*begin)(sp_region *r);
    void (*end)(sp_region *r);
} sp__ops_t;

extern sp__ops_t sp__ops;

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
} sp__config;

/* Apply SCOPE_PROFILER_* to o (NULL: defaults) and validate. Returns 0,
 * SP_EINVAL (the message names the option or variable), SP_ENOTSUP, SP_ENOMEM.
 * On success the caller owns out->file_path. */
int sp__config_resolve(const sp_options *o, sp__config *out);

/* ---- the session (guarded by sp__lock) ---- */

typedef struct sp__session {
    bool active;         /* between sp_setup() and sp_finalize() */
    sp_region_kind kind;
    bool file_output;
    char *file_path;
    size_t buffer_limit;
    sp__clock_calib calib; /* start point set at setup, end at finalize */
    char timestamp[48];    /* ISO 8601 local time of setup */
} sp__session;

extern sp__session sp__sess;

/* Region kind of the current session (DISABLED without one). */
sp_region_kind sp__current_kind(void);

/* Freeze every region's counts (calls, capacity, dropped) from the thread
 * states into final_*, served by the sp_region_* queries after finalize. */
void sp__regions_snapshot(void);

/* Zero every region's frozen counts and unbuffered drops (new session). */
void sp__regions_reset(void);

/* ---- finalize helpers ---- */

/* What went wrong in a session, for the warnings and the status. */
typedef struct sp__balance {
    uint64_t open_calls, unmatched_ends, mismatched, dropped;
    char open_names[256], unmatched_names[256], mismatch_names[256], dropped_names[256];
} sp__balance;

/* Build the run of the session from every thread's buffers: open calls are
 * closed at close_ticks; ticks are converted through the session calibration.
 * sp__lock held. Returns 0 or SP_ENOMEM (*out NULL). */
int sp__collect_run(int64_t close_ticks, sp_run **out, sp__balance *bal);

/* Fill run->meta and ranks[0].meta with the automatic metadata, then the
 * user's keys. 0 or SP_ENOMEM. */
int sp__meta_fill(sp_run *run, size_t num_threads);

/* Keys sp_metadata_set() refuses because the recorder sets them. */
bool sp__meta_reserved(const char *key);

/* The user's metadata of the session (sp__lock held). */
extern sp_kvlist sp__user_meta;

/* Append s to a comma-separated list in buf unless already present. */
void sp__note_name(char *buf, size_t size, const char *s);

#pragma GCC visibility pop

#endif
