/* SPDX-License-Identifier: MIT */
/*
 * sp_window.h - the calls of one lane (a thread of a rank) in a time
 * window, read from the source on demand (the timeline's visible calls, a
 * slice for Python or an export): only the blocks that cover the window are
 * decoded, and the calls already open at its start come from the pass's
 * spans (sp_agg_lane.spans), so a window costs what it holds, wherever it
 * lies in the run.
 */
#ifndef SP_WINDOW_H
#define SP_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_agg.h"
#include "sp_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls overlapping [t0, t1], in begin order (parents before children). */
typedef struct sp_window {
    size_t rank;
    int32_t thread;
    int64_t t0_ns, t1_ns;     /* the window asked for (aligned to rank 0) */
    size_t n;
    int64_t *start_ns;        /* aligned to rank 0 */
    int64_t *end_ns;
    int32_t *region;          /* run region id */
    uint32_t *depth;          /* 0 = top level */
    int64_t *parent;          /* index in this window, -1 at top level */
    bool truncated;           /* max_calls reached: the window holds a prefix */
} sp_window;

/*
 * Load the calls of (rank, thread) overlapping [t0_ns, t1_ns] (clocks
 * aligned to rank 0) from src, using agg's lane of that thread (the pass
 * must have run with SP_AGG_LANES over the same blocks). At most max_calls
 * calls (0: no limit); beyond it the window is cut (truncated set): ask the
 * level-of-detail index instead. Returns 0 and a new window (free with
 * sp_window_free), SP_ENOENT for a lane without calls, or the source's
 * errors.
 */
int sp_window_load(sp_event_source *src, const sp_agg *agg, size_t rank, int32_t thread,
                   int64_t t0_ns, int64_t t1_ns, size_t max_calls, sp_window **out);

/* Calls of the lane whose blocks overlap [t0_ns, t1_ns] at most (from the
 * block table: an upper bound of what sp_window_load would return). */
uint64_t sp_window_estimate(const sp_event_source *src, size_t rank, int32_t thread,
                            int64_t t0_ns, int64_t t1_ns);

void sp_window_free(sp_window *w);

#ifdef __cplusplus
}
#endif

#endif /* SP_WINDOW_H */
