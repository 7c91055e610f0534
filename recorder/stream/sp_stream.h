/* SPDX-License-Identifier: MIT */
/*
 * sp_stream.h - streaming recording (internal): fixed-size chunks of
 * events from a per-process pool, and the writer thread that empties them
 * into the run's file.
 *
 *   recording thread                          writer thread ("sp-writer")
 *   ----------------                          ---------------------------
 *   begin/end: one 12-byte event (tick,       every poll (SP__POLL_MS), and
 *   region code) into the thread's current    when a thread asks: consume the
 *   chunk, published with a release store     full chunks of every thread:
 *   of the event count. No lock, no           repair the nesting, encode the
 *   allocation, no system call.               events (sp_h5_v2.h), give the
 *                                             chunks back to the pool.
 *   chunk full (every ~5400 events): link a   every flush interval / 2: also
 *   fresh chunk from the pool (a mutex, no    the events of chunks still being
 *   system call unless contended); none       filled, append everything to the
 *   free: wait for the writer (block), or     rank's part file, add a clock
 *   count the calls as dropped (drop).        calibration point, flush (SWMR).
 *
 * A chunk is 64 KiB: a header, SP__CHUNK_EVENTS ticks (int64) and as many
 * codes (int32: region id + 1 for a begin, its negation for an end, 0 for
 * the handle that records nothing). Memory: the pool holds at most
 * memory_limit / 64 KiB chunks in use; the writer's buffers add a few MiB.
 *
 * Locks: sp__lock (registry, threads, session) is never held while the
 * writer does I/O; the consumer lock (sp__cons.lock) orders the writer,
 * queries (sp_region_num_calls, ...) and finalize, which all consume.
 */
#ifndef SP_STREAM_H
#define SP_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sp_h5_v2.h"
#include "sp_recorder.h"

#pragma GCC visibility push(hidden)

/* ---------------------------------------------------------------- chunks */

#define SP__CHUNK_BYTES ((size_t)64 << 10)
#define SP__CHUNK_HEADER 64
#define SP__CHUNK_EVENTS ((uint32_t)((SP__CHUNK_BYTES - SP__CHUNK_HEADER) / 12))
/* Slots at the end of a chunk kept for ends of recorded calls while the
 * thread drops (drop policy, no chunk free): so dropping never breaks the
 * nesting of what was recorded. */
#define SP__CHUNK_RESERVE 64u

typedef struct sp__chunk {
    struct sp__chunk *next; /* the owner's next chunk, set before `full` */
    uint32_t final_n;       /* events in the chunk, valid once `full` */
    int full;               /* atomic (release/acquire): no more events */
    int64_t *t;             /* SP__CHUNK_EVENTS ticks */
    int32_t *code;          /* SP__CHUNK_EVENTS codes */
    struct sp__chunk *pool_next; /* free list link */
    unsigned epoch;         /* the pool's epoch when handed out (pool lock) */
} sp__chunk;
_Static_assert(sizeof(sp__chunk) <= SP__CHUNK_HEADER, "chunk header fits");

/* The pool: chunks carved from 2 MiB mappings that are never unmapped (a
 * thread that races the end of a session writes into mapped memory). */
typedef enum sp__full_policy { SP__FULL_BLOCK, SP__FULL_DROP } sp__full_policy;

/* Session settings of the pool: chunks in use at most (0: no limit), and
 * whether a thread may wait for the writer. A new epoch: chunks handed out
 * before (still held by live threads of an earlier session, which give
 * them back on their next event) no longer count as in use. */
void sp__pool_configure(size_t max_chunks, bool may_block);

/* The writer's own limit on chunks in use (0: none), below the session's:
 * about what it can write in a quarter of the flush interval, so what
 * waits for it never delays a flush by more (sp_stream_writer.c). Under
 * SP_FULL_BLOCK a thread past it waits for the writer to give a chunk
 * back, 20 ms at most per chunk (never for good: all chunks in use may be
 * threads' current ones); under SP_FULL_DROP it does not apply. */
void sp__pool_soft_limit(size_t n);

/* A chunk for the calling thread, or NULL: the limit is reached and the
 * policy is drop (or nobody could free a chunk), or memory ran out.
 * Blocking waits for sp__pool_put() (the writer), signalling the writer. */
sp__chunk *sp__pool_get(bool block);

/* Give a chunk back (the writer, after consuming it). */
void sp__pool_put(sp__chunk *c);

/* Chunks in use / ever created (memory held), for the benchmarks. */
size_t sp__pool_in_use(void);
size_t sp__pool_created(void);

/* Wake the writer early (a thread waits for a chunk, or the pool runs
 * low); a no-op without a writer. Set by the writer. */
extern void (*sp__pool_wake)(void);

/* ---------------------------------------------------------------- recording */

/* The timestamp of the calling thread's last recorded event (tracing
 * statistics); 0 when it has none. */
static inline int64_t sp__stream_last_tick(void)
{
    const sp__tstate *ts = sp__tls;
    return ts->n ? ts->t[ts->n - 1] : 0;
}

/* Slow half of recording one event of r (a begin, or an end): register
 * the thread, switch to a fresh chunk, or drop. Returns the thread state
 * with slot *k reserved and its code stored (the caller stores the tick and
 * publishes n = k + 1), or NULL when the event is not recorded. */
sp__tstate *sp__stream_room(sp_region *r, bool end, uint32_t *k);

/* Records: MPI messages and collectives (recorder/mpi), stored in the same
 * chunks as the events, between the begin and end of the MPI call's
 * region, so the writer knows the call path they were made on. A record
 * is a header slot, code SP__REC_BASE + type (region codes stay below
 * 2^30), then payload slots; the writer decodes it whole
 * (sp_stream_mpi.c). */
#define SP__REC_BASE ((int32_t)1 << 30)
#define SP__REC_P2P 1  /* slots: see sp_stream_mpi.c */
#define SP__REC_COLL 2
#define SP__REC_SLOTS_P2P 5u
#define SP__REC_SLOTS_COLL 4u

/* Append a record of k slots (codes and ticks) to the calling thread's
 * chunk, in one piece. No lock, no allocation, no system call but the
 * chunk switch every ~5400 slots (as an event's). false when it is not
 * recorded (no session, no chunk free under the drop policy). */
bool sp__stream_put_record(const int32_t *code, const int64_t *t, uint32_t k);

/* The time-only recording tables, one per clock. */
extern const sp__ops_t sp__stream_ops_tsc, sp__stream_ops_mono;

/* Reset the calling-thread-independent recording state of every thread
 * for a new session (sp__lock held): chunks back to the pool. */
void sp__stream_threads_reset(void);

/* ---------------------------------------------------------------- the consumer */

/* What the writer knows about a thread (owned by the consumer). */
typedef struct sp__cthread {
    int32_t row;          /* thread row in the file, -1 until its first event */
    sp__chunk *rchunk;    /* chunk being read */
    uint32_t rpos;        /* next event in it */
    int64_t last;         /* tick of the last event consumed */
    uint32_t depth, cap;  /* open calls (region rows), innermost last */
    int32_t *open;
    uint64_t *calls;      /* begins per region row (capacity) */
    uint32_t ncalls_cap;
    bool retired;         /* exited and emptied: nothing more to read */
} sp__cthread;

/* What a session's writer needs to know. */
typedef struct sp__writer_setup {
    const char *path;            /* the run's file; NULL: keep everything in memory */
    int32_t rank;                /* this process's rank (0 without MPI) */
    size_t nranks;
    sp_kvlist *main_meta;        /* not NULL: write the main file (rank 0) */
    const sp_kvlist *rank_meta;  /* per-rank facts for the part */
    int64_t clock_offset_ns, clock_offset_err_ns;
    sp__clock_source clock;
    sp__clock_point p0;          /* the session's first calibration point */
    int64_t flush_interval_ns;
    sp_v2_compress compress;
    size_t buffer_limit;         /* for the seed's capacity (sp_region_capacity) */
    /* Set by sp__writer_start when path was in use by another live run:
     * the file this run writes instead (malloc'ed; the caller frees it),
     * and why (the metadata key path_in_use; finalize's warning). */
    char *path_used;
    char path_note[1024];
    bool mpi_messages;           /* the part gets mpi/ tables for MPI records */
} sp__writer_setup;

/* Start the writer for a new session (sp__lock not held): resets the
 * consumer, creates the files (this rank's part, claimed; the main file on
 * rank 0; another name when the path is in use: s->path_used) unless
 * s->path is NULL, and starts the thread. Under MPI set up at sp_setup it
 * is collective (rank 0's path is shared). A file that cannot be created
 * is not fatal: the session keeps its events in memory and sp_finalize
 * tries again (and reports). 0, SP_ENOMEM, SP_EIO (no thread). */
int sp__writer_start(sp__writer_setup *s);

/* Stop the writer at the end of a session: consume every event, close
 * calls still open at close_ticks, append and flush with the calibration's
 * end point, close the part. Joins the thread; *bal receives the misuse
 * seen. Safe when no writer runs. */
void sp__writer_stop(int64_t close_ticks, const sp__clock_calib *calib, sp__balance *bal);

/* Drop a session's writer state and files (sp_setup over an unfinalized
 * session): the part and the main file it wrote are removed. */
void sp__writer_discard(void);

/* Consume every published event now (queries; the caller holds nothing). */
void sp__stream_drain(void);

/* Count again the calls dropped so far (those begun while finalize was
 * collecting) into the session's rows and bal (consumer lock held, after
 * sp__writer_stop). */
void sp__stream_recount_drops(sp__balance *bal);

/* The consumer lock, for finalize reading what the stopped writer left. */
void sp__stream_lock(void);
void sp__stream_unlock(void);

/* fork(): the parent keeps the writer out of HDF5 while it forks; the
 * child forgets the writer (no thread, files that belong to the parent)
 * without closing anything. */
void sp__stream_fork_prepare(void);
void sp__stream_fork_parent(void);
void sp__stream_fork_child(void);

/* Per registry region: calls recorded (all threads) and the capacity the
 * seed's doubling buffers (starting at buffer_limit) would have for them,
 * summed over threads; consumes every published event first. */
void sp__stream_region_counts(uint32_t id, size_t buffer_limit, uint64_t *calls,
                              size_t *capacity);

/* Durations (ns, through calib) of completed calls of region id still held
 * in memory (every call of a memory-only session), thread by thread in
 * start order. Returns how many were copied. */
size_t sp__stream_durations(uint32_t id, const sp__clock_calib *calib, int64_t *out,
                            size_t max);

/* ---- what finalize takes from the consumer (after sp__writer_stop) ---- */

/* The session's rows: regions (names, in row order) and threads. */
typedef struct sp__stream_tables {
    uint32_t nregions;
    char **region_names;      /* borrowed */
    uint32_t *region_ids;     /* registry id of each row */
    uint64_t *region_dropped; /* per row */
    uint32_t nthreads;
    sp__tstate **threads;     /* per row */
} sp__stream_tables;

void sp__stream_tables_get(sp__stream_tables *t);

/* The file being streamed: its part path (NULL: none, the events are in
 * memory), the in-memory events (memory-only or fallback sessions), the
 * first calibration point, and the write error (0 or SP_E*, message). */
const char *sp__stream_part_path(void);
sp_v2_events *sp__stream_memory_events(void);
int sp__stream_error(char *msg, size_t size);

/* MPI records the writer could not keep (out of memory, a write that
 * failed); read after sp__writer_stop. */
uint64_t sp__stream_mpi_lost(void);

/* Forget the session's consumer state (after finalize built the file). */
void sp__stream_release(void);

/* ---- the end of a session (sp_stream_finish.c; after sp__writer_stop,
 * sp__cons.lock held) ---- */

/* The session as a run without calls: one rank, the region rows (names in
 * row order), the thread rows, dropped calls per row. */
int sp__stream_skeleton(sp_run **out);

/* The tick <-> ns map of the session's calibration (p0, p1). */
int sp__stream_clock_map(const sp__clock_calib *calib, sp_v2_clock_map *m);

/* Calls the modes added to skel's rank 0 (sampled stacks) become events in
 * `into` (ticks through m); skel keeps no calls. 0, SP_EINVAL, SP_ENOMEM. */
int sp__stream_move_calls(sp_run *skel, const sp_v2_clock_map *m, sp_v2_events *into);

/* Replay ev into skel's rank 0 calls (region and thread rows as ids). */
int sp__stream_replay_into(sp_run *skel, const sp_v2_clock_map *m, const sp_v2_events *ev);

/* The finished file of a one-process session: the part's events (NULL:
 * none) then extra, skel's tables, calibration p0 and p1; atomic; the
 * part is removed once its events are in the file. */
int sp__stream_write_file(const sp_run *skel, const char *path, const char *part_path,
                          const sp_v2_events *extra, const sp__clock_calib *calib);

/* The compression of the session's event tables. */
sp_v2_compress sp__stream_compress(void);

#pragma GCC visibility pop

#endif /* SP_STREAM_H */
