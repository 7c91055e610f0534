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

/*
 * The blocks of each lane, for readers that load many windows (the viewer's
 * timeline): per (rank, thread) the lane's blocks in time order with the
 * running count of their calls, so a window finds its blocks and an
 * estimate its bound by binary search (O(log blocks) instead of a scan of
 * the rank's whole table, which with 2^18 threads is 2^18 blocks), and a
 * window reads only its lane's blocks, never the other threads' blocks in
 * between. 12 bytes per block. The functions without an index build one
 * for the rank each time.
 */
typedef struct sp_block_index sp_block_index;

/* An index of every block src knows now. NULL with sp_last_error() on
 * SP_ENOMEM. */
sp_block_index *sp_block_index_new(const sp_event_source *src);

/* Take in the blocks src gained since the index was built or last
 * updated (after sp_event_source_refresh). 0 or SP_ENOMEM (the index
 * stays as it was). */
int sp_block_index_update(sp_block_index *ix, const sp_event_source *src);

void sp_block_index_free(sp_block_index *ix);

/* sp_window_load and sp_window_estimate through an index of src. */
int sp_window_load_ix(sp_event_source *src, const sp_block_index *ix, const sp_agg *agg,
                      size_t rank, int32_t thread, int64_t t0_ns, int64_t t1_ns,
                      size_t max_calls, sp_window **out);
uint64_t sp_window_estimate_ix(const sp_event_source *src, const sp_block_index *ix,
                               size_t rank, int32_t thread, int64_t t0_ns, int64_t t1_ns);

#ifdef __cplusplus
}
#endif

#endif /* SP_WINDOW_H */
