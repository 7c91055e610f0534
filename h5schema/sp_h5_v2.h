/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2.h - schema version 2 (internal API of h5schema; SCHEMA.md,
 * "Schema version 2"): the event stream of a rank, the files a recording
 * writes while it runs, the finished file, and the replay that turns events
 * back into calls.
 *
 * Files of a recording (rank N of P; one rank without MPI):
 *
 *   PATH                 the run: root attributes, /metadata, and rank<N>
 *                        as external links into the parts (written once, at
 *                        setup; never open for writing afterwards)
 *   PATH.rank<N>.part    rank N's part: /rank<N> with every table created
 *                        empty and appended to while the program runs, in
 *                        HDF5 SWMR mode (a reader may open it at any time,
 *                        also after the writer was killed)
 *
 * At the end the finished file is built under an exclusive temporary name
 * (each rank copies its part's event tables into it and adds its final
 * tables), renamed over PATH, and the parts are removed.
 *
 * Conventions: functions return 0 or a negative SP_E* code with
 * sp_last_error() naming the file; on failure nothing half-written is left
 * under a name a reader would take for a finished file.
 */
#ifndef SP_H5_V2_H
#define SP_H5_V2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#else
#include <math.h>
#endif

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- events */

/* The events/ and blocks/ tables of one rank (or a batch of them), as
 * columns. Memory is owned by the struct (sp_v2_events_free). */
typedef struct sp_v2_events {
    size_t n, cap;      /* events */
    uint32_t *dt;       /* ticks since the previous event of the block (first: 0) */
    int32_t *region;    /* begin: region row; end: -1 */
    size_t nblocks, bcap;
    int32_t *bthread;   /* thread row */
    uint32_t *bevents;  /* events in the block */
    uint32_t *bbegins;  /* begin events among them */
    int64_t *bt0;       /* ticks of the block's first event */
    bool open;          /* the last block may take more events */
    int64_t last;       /* ticks of the last event added */
} sp_v2_events;

/* Most events a block holds (so that a reader can read block by block). */
#define SP_V2_BLOCK_MAX ((uint32_t)1 << 16)

/* Append one event of thread `thread` at tick t: region >= 0 begins a call
 * of that region row, -1 ends the innermost open call. A new block starts
 * when the thread changes, after sp_v2_events_close_block(), when t is
 * before the previous event or 2^32 ticks or more after it, or when the
 * block is full. 0 or SP_ENOMEM (nothing added). */
int sp_v2_events_add(sp_v2_events *e, int32_t thread, int64_t t, int32_t region);

/* Room for `more` events without reallocating. 0 or SP_ENOMEM. */
int sp_v2_events_reserve(sp_v2_events *e, size_t more);

/* The next event starts a new block. */
void sp_v2_events_close_block(sp_v2_events *e);

/* Forget every event and block (memory kept). */
void sp_v2_events_clear(sp_v2_events *e);

void sp_v2_events_free(sp_v2_events *e);

/* A linear map between event ticks and ns: ns = ns0 + (t - t0) * ratio,
 * from the first and last calibration points (ratio 1 when they coincide). */
typedef struct sp_v2_clock_map {
    int64_t t0, ns0;
    double ratio;       /* ns per tick */
} sp_v2_clock_map;

/* The map of calibration points (np >= 1; ticks and ns arrays). Returns 0,
 * or SP_EFORMAT when the points go backwards or a single point is not the
 * identity (ticks == ns) while calls need converting. */
int sp_v2_clock_map_make(const int64_t *ticks, const int64_t *ns, size_t np,
                         sp_v2_clock_map *out);

int64_t sp_v2_clock_to_ns(const sp_v2_clock_map *m, int64_t ticks);

/* v rounded to the nearest integer, ties to even (np.rint, llrint), for
 * |v| < 9.2e18. On x86-64 one cvtsd2si instruction (its default rounding
 * is exactly that; llrint is a libm call): readers convert every event. */
static inline int64_t sp_v2_round(double v)
{
#if defined(__x86_64__) && defined(__SSE2__)
    return _mm_cvtsd_si64(_mm_set_sd(v));
#else
    return (int64_t)llrint(v);
#endif
}
int64_t sp_v2_clock_to_ticks(const sp_v2_clock_map *m, int64_t ns);

/* Append the calls of rk (model order, parents set, as checked by the v1
 * writer) from call index `first` on, as events: per thread, begins and
 * ends in time order, times converted to ticks through m. Region and
 * thread ids are used as rows unchanged. 0, SP_EINVAL (calls that overlap
 * without nesting), SP_ENOMEM. */
int sp_v2_events_from_calls(const sp_rank_data *rk, size_t first, const sp_v2_clock_map *m,
                            sp_v2_events *out);

/* ---------------------------------------------------------------- replay */

/* Turns a rank's blocks and events back into calls (model order: thread by
 * thread, each thread's calls in start order; parents from the nesting).
 * Validates as it goes: thread and region rows in range, every end with an
 * open call, per-block begin counts, tick overflow. Calls still open at the
 * end of the stream (a killed run) are closed at their thread's last event.
 * Used by the v2 reader and by the recorder for runs kept in memory. */
typedef struct sp_v2_replay sp_v2_replay;

/* Set up for the blocks table (copied) and allocate rk's call columns for
 * the calls it announces (at most nevents_total / 1 begin per event).
 * region_map[i]: the run region id of region row i (nregions rows);
 * nthreads: rows of the thread table. ctx names the rank in messages. */
int sp_v2_replay_new(const char *ctx, sp_rank_data *rk, size_t nthreads,
                     const int32_t *region_map, size_t nregions, const sp_v2_clock_map *m,
                     const int32_t *bthread, const uint32_t *bevents, const uint32_t *bbegins,
                     const int64_t *bt0, size_t nblocks, uint64_t nevents_total,
                     sp_v2_replay **out);

/* Feed n events of block `block` starting at event `offset` of the block
 * (blocks in order; a block may come in several pieces). */
int sp_v2_replay_feed(sp_v2_replay *rp, size_t block, size_t offset, const uint32_t *dt,
                      const int32_t *region, size_t n);

/* Close open calls, check every block was fed whole, sort if some thread's
 * blocks went back in time. *open_calls (may be NULL) receives the calls
 * that were still open. */
int sp_v2_replay_finish(sp_v2_replay *rp, uint64_t *open_calls);

void sp_v2_replay_free(sp_v2_replay *rp);

/* The block a failed feed or finish found damaged, or SIZE_MAX (none, or a
 * failure not tied to one block). A reader of an unfinished file replays
 * the blocks before it again (a torn write at the end: a full disk). */
size_t sp_v2_replay_failed_block(const sp_v2_replay *rp);

/* The whole replay of in-memory tables (memory-only sessions). */
int sp_v2_replay_all(const char *ctx, sp_rank_data *rk, size_t nthreads,
                     const int32_t *region_map, size_t nregions, const sp_v2_clock_map *m,
                     const sp_v2_events *ev, uint64_t *open_calls);

/* Ask for transparent huge pages on the aligned 2 MiB ranges of a large
 * buffer about to be written (one page fault per 2 MiB instead of per
 * 4 KiB: on a VM a fault costs microseconds). A hint; nothing changes
 * without it. */
void sp_v2_hint_huge(void *p, size_t bytes);

/* ---------------------------------------------------------------- names */

/* Text for a name stored as raw bytes: valid UTF-8 is kept, every other
 * byte becomes "\xNN" (lowercase hex, as Python's "backslashreplace").
 * Returns a new string or NULL (ENOMEM). */
char *sp_v2_bytes_to_text(const uint8_t *b, size_t n);

/* The same for a NUL-terminated string (metadata and line tables are
 * written as UTF-8 text this way). */
char *sp_v2_text_escape(const char *s);

/* ---------------------------------------------------------------- recording */

/* Storage of the event columns; "lz4" is the default where the HDF5 LZ4
 * filter (32004, Debian: hdf5-filter-plugin) loads, else "deflate".
 * SP_V2_COMPRESS_AUTO asks for that choice. */
typedef enum sp_v2_compress {
    SP_V2_COMPRESS_AUTO,
    SP_V2_COMPRESS_LZ4,     /* shuffle + LZ4 */
    SP_V2_COMPRESS_DEFLATE, /* shuffle + deflate level 1 */
    SP_V2_COMPRESS_NONE
} sp_v2_compress;

/* AUTO resolved for this machine (loads the LZ4 plugin once). */
sp_v2_compress sp_v2_compress_resolve(sp_v2_compress c);
const char *sp_v2_compress_name(sp_v2_compress c);

/* A rank's part file, open for appending (one writer thread). */
typedef struct sp_v2_part sp_v2_part;

/* What a part starts with. */
typedef struct sp_v2_part_setup {
    int32_t rank;
    int64_t clock_offset_ns, clock_offset_err_ns; /* known at setup (0 without MPI) */
    const sp_kvlist *rank_meta;                   /* per-rank facts known at setup */
    int64_t p0_ticks, p0_ns;                      /* first calibration point */
    sp_v2_compress compress;
} sp_v2_part_setup;

/* The part's file name for a run at path: "<path>.rank<N>.part" (malloc'ed). */
char *sp_v2_part_path(const char *path, int32_t rank);

/* Create the part (a stale one of an earlier run is removed first; the new
 * one is created exclusively, never through a symbolic link), create every
 * table empty and switch to SWMR writing. */
int sp_v2_part_create(const char *part_path, const sp_v2_part_setup *s, sp_v2_part **out);

/* What a batch adds besides events: new region and thread rows, dropped
 * calls (rows region, calls; repeated regions add up). */
typedef struct sp_v2_batch_rows {
    size_t nregions;            /* new region rows, in row order */
    const char *const *region_names;
    size_t nthreads;            /* new thread rows */
    const int64_t *thread_tids;
    const char *const *thread_names;
    size_t ndropped;
    const int32_t *dropped_region;
    const uint64_t *dropped_calls;
} sp_v2_batch_rows;

/* Append rows and events (the new region and thread rows first, so the
 * events never name a row the file does not have yet). Data is handed to
 * HDF5; sp_v2_part_flush() makes it durable for readers. */
int sp_v2_part_append(sp_v2_part *p, const sp_v2_batch_rows *rows, const sp_v2_events *ev);

/* Samples of the rank's threads' CPU scheduling (SCHEMA.md "CPU scheduling
 * of the threads"): n rows, columns in the file's order. */
#define SP_V2_SCHED_COLS 5
typedef struct sp_v2_sched_rows {
    size_t n;
    const int64_t *tid, *t_ns, *cpu_ns, *wait_ns, *nivcsw;
} sp_v2_sched_rows;

/* Append scheduling samples to the part's sched/ table (durable at the
 * next sp_v2_part_flush). 0 or SP_EIO. */
int sp_v2_part_append_sched(sp_v2_part *p, const sp_v2_sched_rows *rows);

/* Append a calibration point and flush everything to the file: a reader
 * (or the file left by a kill) sees every event appended so far. */
int sp_v2_part_flush(sp_v2_part *p, int64_t ticks, int64_t ns);

/* Events and calibration points in the part so far. */
uint64_t sp_v2_part_events(const sp_v2_part *p);

/* Close the part (complete and consistent; it stays on disk). NULL: no-op. */
int sp_v2_part_close(sp_v2_part *p);

/* Write the run's file at path while it records: root attributes
 * (complete = 0), /metadata, and rank<N> -> external link to
 * "<basename of path>.rank<N>.part":/rank<N> for N < nranks. Written under
 * an exclusive temporary name and renamed over path. */
int sp_v2_main_create(const char *path, size_t nranks, const sp_kvlist *meta);

/* ---------------------------------------------------------------- finished file */

/* Extra clock measurements of a rank under MPI (err < 0: not measured). */
typedef struct sp_v2_mpi_clock {
    int64_t setup_ns, setup_err_ns;
    int64_t finalize_ns, finalize_err_ns;
} sp_v2_mpi_clock;

/* An unpredictable temporary name next to path: "<path>.tmp.<pid>-<8 hex
 * digits of the host name's hash>.<16 random hex digits>" (malloc'ed, or
 * NULL; nothing is created). */
char *sp_v2_tmp_name(const char *path);

/* Remove the temporaries of PATH that a process on this host left when it
 * died (PATH.tmp.<pid>-<host>.<random>, that pid gone; regular files of
 * this user only, links never followed; parts never touched). Returns how
 * many were removed; errors are ignored (a cleanup, never a failure). */
int sp_v2_remove_stale_tmps(const char *path);

/* An 8-hex-digit hash of this host's name (in temporary names). */
unsigned sp_v2_host_hash(void);

/* Create the finished file at tmp, exclusively (it must not exist; never
 * through a link), with its root: attributes (complete = 1), /metadata. */
int sp_v2_final_root(const char *tmp, const char *path, size_t nranks, const sp_kvlist *meta);

/* One rank's group in tmp, opened for writing: /rank<N> with N =
 * run->ranks[r].rank, the tables of run->ranks[r] and run->region_names
 * (the rank's own region table: row = region id), events copied from
 * part_path's /rank<N> (NULL: none) followed by `extra` (NULL: none),
 * calibration points, and MPI clock attributes (NULL: none). */
typedef struct sp_v2_rank_source {
    const sp_run *run;          /* region_names, region_flags, ranks[r] */
    size_t r;
    const char *part_path;      /* streamed events, or NULL */
    const sp_v2_events *extra;  /* more events, or NULL */
    const int64_t *clock_ticks, *clock_ns; /* calibration points */
    size_t nclock;
    const sp_v2_mpi_clock *mpi_clock;
    sp_v2_compress compress;    /* of event tables made here (not copied) */
} sp_v2_rank_source;

int sp_v2_final_rank(const char *tmp, const char *path, const sp_v2_rank_source *src);

/* fsync tmp and rename it over path. On failure tmp is removed. */
int sp_v2_final_publish(const char *tmp, const char *path);

/*
 * Write an in-memory run as a finished v2 file at path (atomic, like
 * sp_h5_write): calls become events with ticks = ns. For tests, golden
 * files and tools. 0, SP_EINVAL (a run the v1 writer would refuse too),
 * SP_EIO, SP_ENOMEM.
 */
int sp_h5_write_v2(const sp_run *run, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SP_H5_V2_H */
