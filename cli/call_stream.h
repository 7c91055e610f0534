/* SPDX-License-Identifier: MIT */
/*
 * call_stream.h - a rank's calls, one at a time, read from the run's events
 * (the per-call outputs of export and the timeline of small runs): never
 * more than one block of calls in memory, whatever the length of the run.
 *
 * Calls come in the order they began on their thread, threads interleaved
 * as the rank's blocks are stored, with ends already known: a call that
 * ends in a later block than it began is one of the pass's spans
 * (SP_AGG_LANES), so each block's calls are handed out when the block has
 * been read. A time window starts at the blocks that cover it, the calls
 * open there taken from the spans, and stops after its last block.
 *
 * Rows number the calls handed out per rank (0, 1, ...); a call's parent is
 * the row of its nearest enclosing call that was handed out, and its depth
 * counts those (so a region selection attaches a call to its nearest kept
 * caller, as sp_agg_keep_regions does for the aggregates).
 */
#ifndef CALL_STREAM_H
#define CALL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli_progress.h"
#include "sp_agg.h"
#include "sp_events.h"

typedef struct sp__call {
    size_t rank;
    int32_t thread;
    int32_t region;
    uint32_t depth;           /* enclosing calls handed out: 0 = top level */
    int64_t row;              /* per rank, in the order handed out */
    int64_t parent;           /* row of the nearest enclosing call handed out, -1 */
    int64_t start_ns, end_ns; /* the rank's own clock */
} sp__call;

/* Called per call; a non-zero return stops the stream and is returned. */
typedef int (*sp__call_fn)(void *ud, const sp__call *c);

typedef struct sp__call_sel {
    const bool *regions;      /* keep[g] for run region g; NULL: every region */
    size_t nregions;          /* entries of regions */
    bool window;              /* only calls overlapping [t0_ns, t1_ns] */
    int64_t t0_ns, t1_ns;     /* clocks aligned to rank 0 */
    int32_t thread;           /* -1: every thread; else this one only */
    sp__progress *progress;   /* events read are added to it; NULL: none */
} sp__call_sel;

/* A selection of everything (no window, every region and thread). */
void sp__call_sel_all(sp__call_sel *sel);

/*
 * Hand rank's calls selected by sel to fn, reading src's blocks that the
 * aggregates agg covered (agg from a pass over the same file with
 * SP_AGG_LANES). 0, fn's return, SP_EINVAL (agg without lanes), or the
 * source's errors (SP_EIO, SP_EFORMAT, SP_ENOMEM) with sp_last_error().
 */
int sp__stream_rank_calls(sp_event_source *src, const sp_agg *agg, size_t rank,
                          const sp__call_sel *sel, sp__call_fn fn, void *ud);

/* An upper bound of the calls sp__stream_rank_calls would hand out for
 * rank: the selected regions' calls, or without a region selection the
 * begins of the blocks that overlap the window (within the blocks read). */
uint64_t sp__stream_estimate(const sp_event_source *src, const sp_agg *agg, size_t rank,
                             const sp__call_sel *sel);

#endif
