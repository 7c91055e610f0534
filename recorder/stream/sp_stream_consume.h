/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_consume.h - the consumer's state, shared by the files of
 * recorder/stream that read or write it (consume, writer, query, finish).
 * Everything in it is guarded by sp__cons.lock; lock order: sp__cons.lock
 * before sp__lock, never the other way round.
 */
#ifndef SP_STREAM_CONSUME_H
#define SP_STREAM_CONSUME_H

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
    bool main_created;         /* this process wrote the main file */
    int err;                   /* first write error (0: none) */
    char errmsg[512];
    uint64_t lost_calls;       /* calls not written after a write error */

    sp_v2_compress compress;   /* of the event tables */
    size_t buffer_limit;       /* the session's, for the seed's capacity */
    sp__balance bal;           /* misuse seen while consuming */
    sp__clock_source clock;
} sp__consumer;

extern sp__consumer sp__cons;

/* Events of a batch worth appending without waiting for a flush: four
 * HDF5 chunks of the event columns (2 MiB of each column). */
#define SP__BATCH_EVENTS ((size_t)1 << 18)

/* Consume every thread's published events; partial: also those of chunks
 * still being filled (else full chunks only). Lock held. */
void sp__cons_consume_all(bool partial);

/* Update the rows' drop counts from the regions' counters (takes
 * sp__lock). Lock held. */
void sp__cons_collect_drops(void);

/* Close the calls still open on every thread at close_ticks. Lock held. */
void sp__cons_close_open(int64_t close_ticks);

/* Append what is new (rows, drops, events) to the part; flush with a
 * calibration point when flush is set. Keeps everything in memory for a
 * memory-only session. Lock held. */
void sp__cons_write(bool flush, int64_t ticks, int64_t ns);

/* Forget every session state (lock held). */
void sp__cons_reset(void);

/* The threads' CPU scheduling samples (sp_stream_sched.c), lock held:
 * sample the calling thread (the one starting the session); sample the
 * threads recording in the session seen for the first time, or with all
 * every one of them; append the samples taken to the part. Without a part
 * (memory-only sessions) nothing is sampled. */
void sp__sched_reset(void);
void sp__sched_sample_self(void);
void sp__sched_poll(bool all);
void sp__sched_write(void);

#pragma GCC visibility pop

#endif
