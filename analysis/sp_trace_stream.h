/* SPDX-License-Identifier: MIT */
/*
 * sp_trace_stream.h - a run's calls as per-thread begin/end events, streamed
 * for the trace exports (OTF2, Perfetto): every selected rank is read once,
 * block by block, and each thread's calls come out as a begin at their start
 * and an end at their end, in time order per thread, never held in memory.
 *
 * A selection keeps some ranks, hides the calls of some regions (their
 * callees stay, one level up) and/or keeps the calls overlapping a time
 * window [t0, t1] (clocks aligned to rank 0): only the blocks of each thread
 * that can hold such calls are read; the calls already open when the window
 * starts begin at their real start (before t0) and the calls still open when
 * it ends end at their real end (after t1), from the aggregate pass's spans
 * (sp_agg_lane.spans: the pass must have run with SP_AGG_LANES on the same
 * source). A call never ended (a killed run) ends at its thread's last
 * event, as the aggregate pass cuts it.
 *
 * Events of one thread are handed out in batches, in time order (a begin and
 * an end at the same time keep the order of the stream: a call that ends
 * when the next begins ends first). Batches of different threads of a rank
 * interleave (in the order of the rank's blocks); ranks come one after the
 * other, in rank order.
 */
#ifndef SP_TRACE_STREAM_H
#define SP_TRACE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_agg.h"
#include "sp_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to export. Zeroed: every rank, region and call. */
typedef struct sp_trace_select {
    const bool *ranks;    /* NULL: every rank; else ranks[r] keeps rank r */
    const bool *regions;  /* NULL: every region; else regions[id] keeps its calls
                             (nregions entries of the source's run) */
    bool window;          /* keep only calls overlapping [t0_ns, t1_ns] */
    int64_t t0_ns, t1_ns; /* aligned to rank 0 */
} sp_trace_select;

/* One event of one thread. */
typedef struct sp_trace_event {
    int64_t t_ns;   /* aligned to rank 0 */
    int32_t region; /* the call's region (for an end too) */
    bool begin;     /* true: the call begins; false: it ends */
} sp_trace_event;

/* Where the events go. Every callback returns 0 to go on, anything else to
 * stop the stream with that status. */
typedef struct sp_trace_sink {
    void *ud;
    /* A rank starts (before any of its events); may be NULL. */
    int (*rank_begin)(void *ud, size_t rank);
    /* n > 0 events of (rank, thread), in time order after the thread's
     * earlier batches. The array is valid during the call only. */
    int (*events)(void *ud, size_t rank, int32_t thread, const sp_trace_event *ev, size_t n);
    /* Every event of the rank was handed out; may be NULL. */
    int (*rank_end)(void *ud, size_t rank);
} sp_trace_sink;

/*
 * Stream the selected calls of src to sink. agg is the aggregate pass over
 * src, with SP_AGG_LANES (needed for a window; may be NULL otherwise).
 * Returns 0, a sink's non-zero status, or the source's errors (SP_EFORMAT,
 * SP_EIO), SP_ENOMEM, SP_EINVAL (a window without lanes) with
 * sp_last_error() set. Memory: a stack of open calls per thread and one
 * block of events.
 */
int sp_trace_stream(sp_event_source *src, const sp_agg *agg, const sp_trace_select *sel,
                    const sp_trace_sink *sink);

#ifdef __cplusplus
}
#endif

#endif /* SP_TRACE_STREAM_H */
