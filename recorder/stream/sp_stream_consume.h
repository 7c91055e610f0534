/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_consume.h - the consumer's state, shared by the files of
 * recorder/stream that read or write it (consume, writer, query, finish).
 * Everything in it is guarded by sp__cons.lock; lock order: sp__cons.lock
 * before sp__lock, never the other way round.
 */
#ifndef SP_STREAM_CONSUME_H
#define SP_STREAM_CONSUME_H

#include "sp_mpi.h"
#include "sp_mpi_data.h"
#include "sp_stream.h"

#pragma GCC visibility push(hidden)

typedef struct sp__consumer {
    pthread_mutex_t lock;
    bool active;               /* a session's events are being consumed */
    unsigned gen;              /* the session's generation: threads of others are skipped */

    /* Region rows (the file's per-rank region table), in first-use order. */
    int32_t *row_of_id;        /* registry id -> row + 1 (0: none yet) */
    uint32_t row_of_cap;
    uint32_t nrows, rows_cap, rows_written;
    char **row_name;           /* registry name of each row */
    uint32_t *row_id;          /* registry id of each row */
    uint64_t *row_calls;       /* begins consumed per row, all threads */
    uint64_t *row_dropped;     /* drops counted per row (the regions' counters) */
    uint64_t *row_dropped_written;

    /* Thread rows, in first-event order. */
    sp__tstate **thread_row;
    uint32_t nthreads, threads_cap, threads_written;

    /* Events not yet in the file (file sessions), or all of them. */
    sp_v2_events batch;
    bool memory;               /* no part: everything stays in batch */

    /* The file. */
    char *path;                /* the run's file (NULL: memory only) */
    char *part_path;
    sp_v2_part *part;
    bool part_owned;           /* part_path is this run's (created and claimed) */
    bool claimed;              /* claim_fd holds the run's lock on it, until reset */
    int claim_fd;
    bool main_created;         /* this process wrote the main file */
    int err;                   /* first write error (0: none) */
    char errmsg[512];
    uint64_t lost_calls;       /* calls not written after a write error */

    sp_v2_compress compress;   /* of the event tables */
    size_t buffer_limit;       /* the session's, for the seed's capacity */
    sp__balance bal;           /* misuse seen while consuming */
    uint64_t chunks_read;      /* chunks consumed and given back (the writer's rate) */
    sp__clock_source clock;

    /* MPI records (sp_stream_mpi.c), not yet in the file. */
    bool mpi;                  /* the part has mpi/ tables: records are kept */
    sp_mpi_p2p p2p;
    sp_mpi_coll coll;
    int32_t *path_parent, *path_region; /* call paths of MPI calls, interned */
    uint32_t npaths, paths_cap, paths_written;
    int32_t *path_hash;        /* path row + 1 per slot, 0 = empty */
    uint32_t path_hcap;
    uint32_t comms_written;    /* communicator rows in the file */
    sp__comm_rows comm_rows;   /* new ones, fetched at each append */
    uint64_t mpi_lost;         /* records not kept (out of memory, write failed) */
} sp__consumer;

extern sp__consumer sp__cons;

/* Events of a batch worth appending without waiting for a flush: one
 * HDF5 chunk of the event columns (256 KiB of each column). Encoded
 * events wait for the writer too: kept small, they never delay a flush
 * much (a larger batch saved nothing measurable). */
#define SP__BATCH_EVENTS ((size_t)1 << 16)
/* MPI records worth appending without waiting (about 5 MiB of columns). */
#define SP__BATCH_RECORDS ((size_t)1 << 16)

/* What one pass of the consumer reads. Every pass is bounded: a thread
 * recording flat out publishes chunks as fast as they are read, so "read
 * until nothing is left" might never end (issue 22: the writer never got
 * to its flush). */
typedef struct sp__cons_pass {
    bool partial;         /* also the events of chunks still being filled */
    uint32_t max_chunks;  /* full chunks per thread at most (0: no limit) */
    int64_t until_ticks;  /* a thread's chunks after the first one ending at
                             or after this tick are left (0: no limit) */
    int64_t deadline_ns;  /* CLOCK_MONOTONIC: stop once past it (0: none) */
} sp__cons_pass;

/* One pass over every thread (lock held). Returns true when a limit
 * (max_chunks, deadline) left full chunks unread. */
bool sp__cons_consume(const sp__cons_pass *p);

/* Every event published before now, chunks still being filled included,
 * and nothing newer (queries, flushes; lock held). Its work is bounded by
 * what was published: at most the pool's chunks. */
void sp__cons_catch_up(void);

/* Update the rows' drop counts from the regions' counters (takes
 * sp__lock). Lock held. */
void sp__cons_collect_drops(void);

/* Close the calls still open on every thread at close_ticks. Lock held. */
void sp__cons_close_open(int64_t close_ticks);

/* Append what is new (rows, drops, events) to the part; flush with a
 * calibration point when flush is set. Keeps everything in memory for a
 * memory-only session. Lock held. */
void sp__cons_write(bool flush, int64_t ticks, int64_t ns);

/* Forget every session state (lock held); the part's claim goes last
 * (finalize or a discard removed the part before). */
void sp__cons_reset(void);

/* ---- MPI records (sp_stream_mpi.c; lock held) ---- */

/* Decode the record whose header is slot k of chunk ch (slots before `to`
 * are published) for thread row trow, on the call path of ct's open calls.
 * Returns the slots it took. */
uint32_t sp__cons_record(const sp__cthread *ct, int32_t trow, const sp__chunk *ch, uint32_t k,
                         uint32_t to);

/* Records waiting for the next append. */
size_t sp__cons_mpi_pending(void);

/* What the next append adds (new communicator and path rows, records), and
 * that it was written (rows and records forgotten) or lost. */
void sp__cons_mpi_batch(sp_v2_mpi_batch *b);
void sp__cons_mpi_written(const sp_v2_mpi_batch *b);
void sp__cons_mpi_drop(void);
void sp__cons_mpi_free(void);

/* The threads' CPU scheduling samples (sp_stream_sched.c), lock held:
 * sample the calling thread (the one starting the session); sample the
 * threads recording in the session seen for the first time, or with all
 * every one of them; append the samples taken to the part. Without a part
 * (memory-only sessions) nothing is sampled. */
void sp__sched_reset(void);
void sp__sched_sample_self(void);
void sp__sched_poll(bool all);
void sp__sched_write(void);

/* The run's files at setup (sp_stream_files.c): this rank's part, claimed,
 * another name when the path is in use (s->path_used, s->path_note), the
 * file at the path on rank 0 (s->main_meta gains path_in_use then), stale
 * parts of dead runs removed. A file that cannot be written leaves the
 * session in memory (err set). 0 or SP_ENOMEM. Lock held. */
int sp__cons_open_files(sp__writer_setup *s);

#pragma GCC visibility pop

#endif
