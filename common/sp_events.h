/* SPDX-License-Identifier: MIT */
/*
 * sp_events.h - a run as a stream of events (internal, shared by h5schema
 * and analysis).
 *
 * Reading is aggregate-first: nothing that reads a run may need memory per
 * call. A source hands out a run's header (an sp_run with its metadata,
 * region table and ranks, and no calls) and, per rank, a table of blocks:
 * runs of consecutive events of one thread, each with the time of its first
 * event, as schema v2 stores them. The events of any range of blocks are
 * decoded on demand, a block at a time, so one streaming pass (analysis's
 * aggregate pass), a window of calls (the timeline, a Python slice) or an
 * export reads only what it needs, in bounded memory.
 *
 * Two sources exist: a file (h5schema/sp_h5_stream.h: the event tables of a
 * v2 file, finished, recording or killed) and calls in memory
 * (analysis/sp_source_mem.c: a run built by the recorder or by hand, and the
 * layouts that store calls rather than events: v1 and the Python package's).
 *
 * Events: every call is a begin (its region) and an end (-1: the innermost
 * open call of the thread ends). A thread's events, read from its first
 * block to its last, nest properly in a well-formed run; sources check what
 * they can see in one block (region ids, counts, times) and the reader of
 * the stream checks the nesting (an end with nothing open).
 */
#ifndef SP_EVENTS_H
#define SP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Events in one block at most (the recorder writes up to 65,536; SCHEMA.md). */
#define SP_BLOCK_MAX_EVENTS 65536u

/* One block: consecutive events of one thread. */
typedef struct sp_block {
    int32_t thread;  /* row of the rank's thread table */
    uint32_t events; /* events in the block (1 .. SP_BLOCK_MAX_EVENTS) */
    uint32_t begins; /* how many of them begin a call */
    int64_t t0_ns;   /* time of its first event, ns on the rank's own clock */
} sp_block;

/* The decoded events of one whole block. */
typedef struct sp_event_batch {
    size_t rank;
    size_t block;           /* index in the rank's block table */
    int32_t thread;         /* = the block's thread */
    size_t n;               /* = the block's events */
    const int64_t *t_ns;    /* event times, ns, the rank's own clock */
    const int32_t *region;  /* begin: run region id (>= 0); end: -1 */
} sp_event_batch;

/* Called once per block, in table order; a non-zero return stops the read
 * and is returned by it. The arrays are valid during the call only. */
typedef int (*sp_event_fn)(void *ud, const sp_event_batch *b);

typedef struct sp_event_source sp_event_source;

typedef struct sp_event_source_ops {
    /* Decode blocks [b0, b1) of `rank` (b1 <= nblocks[rank]) and hand each
     * to fn. 0, fn's non-zero return, SP_EFORMAT for a block whose events
     * fail the source's checks (src->bad_rank / bad_block name it: nothing
     * of that block was handed out), SP_EIO, SP_ENOMEM. */
    int (*read)(sp_event_source *src, size_t rank, size_t b0, size_t b1, sp_event_fn fn,
                void *ud);
    /* Take in what a recording run appended since open or the last refresh:
     * more blocks (nblocks grows, earlier blocks stay as they were), new
     * regions and threads in the header, calibration points. *grew tells
     * whether anything was added. NULL for sources that cannot grow. 0 or
     * an error (the source stays as it was). */
    int (*refresh)(sp_event_source *src, bool *grew);
    /* Free the source's own state (not the fields below: sp_event_source_free). */
    void (*close)(sp_event_source *src);
} sp_event_source_ops;

struct sp_event_source {
    const sp_event_source_ops *ops;
    sp_run *run;          /* the header; owned by the source (see sp_event_source_take_run) */
    size_t nranks;        /* = run->nranks */
    size_t *nblocks;      /* per rank */
    sp_block **blocks;    /* per rank, nblocks[r] entries */
    size_t *cap;          /* per rank: room in blocks[r] */
    bool complete;        /* the run finished: no block will be added */
    bool trusted;         /* built by our own code (calls in memory, or checked
                             whole when read): the pass need not check times */
    size_t bad_rank, bad_block; /* where a read met damaged events (SIZE_MAX: none) */
    void *impl;           /* the source's own state */
};

/* Read blocks [b0, b1) of rank (see sp_event_source_ops.read). */
int sp_event_source_read(sp_event_source *src, size_t rank, size_t b0, size_t b1,
                         sp_event_fn fn, void *ud);

/* Refresh a growing source (see sp_event_source_ops.refresh); 0 with
 * *grew = false for a source that cannot grow. */
int sp_event_source_refresh(sp_event_source *src, bool *grew);

/* The header run, handed to the caller (who frees it); the source keeps
 * working without it only for reads of events already described. */
sp_run *sp_event_source_take_run(sp_event_source *src);

/* Close the source and free everything it owns. NULL is a no-op. */
void sp_event_source_free(sp_event_source *src);

/* Helpers for implementations. */

/* A zeroed source for run (taken: freed with the source) with per-rank
 * block tables of size 0. NULL on ENOMEM (run not freed). */
sp_event_source *sp_event_source_new(const sp_event_source_ops *ops, sp_run *run);

/* Append n blocks to rank r's table. 0 or SP_ENOMEM. */
int sp_event_source_add_blocks(sp_event_source *src, size_t r, const sp_block *b, size_t n);


#ifdef __cplusplus
}
#endif

#endif /* SP_EVENTS_H */
