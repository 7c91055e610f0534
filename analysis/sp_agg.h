/* SPDX-License-Identifier: MIT */
/*
 * sp_agg.h - a run's aggregates from one streaming pass over its events
 * (internal API of analysis; see DESIGN.md, "Reading is aggregate-first").
 *
 * The pass reads every block of every (selected) rank once, in bounded
 * slices, replays each thread's begin/end events through a stack of open
 * calls and keeps, never a call, but per rank:
 * - per region: calls, total time (recursion counted once: a call inside a
 *   call of the same region adds nothing to the total), own time, the sum
 *   over every call, min, max, sum of squares, and log-bucket histograms of
 *   the calls' durations and own times (sp_hist.h: percentiles within
 *   0.8 %);
 * - per region and thread, and per call path and thread: calls, inclusive
 *   and own time (what the rank rule of sp_figures.h needs);
 * - a rank-local call tree (paths), merged into the run's tree at the end;
 * - optionally (flags) per-path histograms, per region a duration-over-time
 *   series, and calls handed to observers (the timeline index, exports).
 * Memory depends on regions, paths, threads and ranks, never on calls.
 * Exact: counts, totals, own, min, max, mean; std from an exact sum of
 * durations and a long double sum of squares.
 *
 * Ranks are independent: the pass runs them on several threads, and
 * aggregates of different ranks (or processes) merge.
 */
#ifndef SP_AGG_H
#define SP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_events.h"
#include "sp_hist.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of equal segments a rank's time is cut into (SP_AGG_SEGMENTS). */
#define SP_AGG_NSEGS 10

/* What the comparison needs besides histograms (SP_AGG_SEGMENTS), of a
 * region or a call path on one rank; [0] of call durations, [1] of own
 * times. The rank's time, from its first call's start to its last call's
 * end, is cut into SP_AGG_NSEGS equal segments; a call counts in the
 * segment it started in. A call's wait is its time x its thread's measured
 * wait share for a CPU at its start (sp_sched.h; 0 without samples). */
typedef struct sp_agg_segs {
    double time_ns[2][SP_AGG_NSEGS];
    double wait_ns[2];
} sp_agg_segs;

/* A sum of squared durations, exact: integer adds merge the same in any
 * order (ranks, MPI shares, the isolation pipe). It saturates at 2^128 - 1,
 * which only durations near 2^63 ns could reach (a damaged trusted source:
 * checked sources cap all durations at 2^62 ns in all, whose squares sum to
 * less than 2^124). 128-bit integer adds cost far less per call than the
 * x87 long double they replace (a quarter of the pass's time was its
 * load-add-store chain). */
__extension__ typedef unsigned __int128 sp_agg_sumsq;

static inline void sp_agg_sumsq_add(sp_agg_sumsq *s, sp_agg_sumsq v)
{
    if (__builtin_add_overflow(*s, v, s))
        *s = ~(sp_agg_sumsq)0;
}

/* One region on one rank (all its threads). */
typedef struct sp_agg_region {
    int32_t region;       /* run region id */
    uint32_t nthreads;    /* threads of the rank that ran it */
    uint64_t calls;       /* every call, nested ones included */
    uint64_t nested;      /* calls inside an open call of the same region */
    int64_t total_ns;     /* outermost calls' durations: recursion counted once */
    int64_t all_ns;       /* every call's duration (nested counted again) */
    int64_t own_ns;       /* exclusive time */
    int64_t min_ns, max_ns;
    sp_agg_sumsq sumsq;   /* of durations, ns^2, exact (sp_agg_add_sq) */
    sp_hist hist;         /* call durations */
    sp_hist own_hist;     /* each call's own time */
    sp_agg_segs segs;     /* SP_AGG_SEGMENTS, else zero */
} sp_agg_region;

/* One key (region id or rank-local path node) on one thread of a rank. */
typedef struct sp_agg_cell {
    int32_t key;
    int32_t thread;
    uint64_t calls;
    int64_t incl_ns;      /* regions: outermost calls only */
    int64_t own_ns;
} sp_agg_cell;

/* A node of a rank's own call tree (paths of that rank only). */
typedef struct sp_agg_node {
    int32_t region;       /* run region id; -1 for the root (node 0) */
    int32_t parent;       /* local node, -1 for the root */
} sp_agg_node;

/* Per-path histograms (SP_AGG_NODE_HIST): one entry per local node with calls. */
typedef struct sp_agg_node_hist {
    int32_t node;         /* local node */
    sp_hist hist, own_hist;
    sp_agg_segs segs;     /* SP_AGG_SEGMENTS, else zero */
} sp_agg_node_hist;

/* Duration over time of one region (SP_AGG_SERIES): calls binned by start
 * time (clocks aligned to rank 0) over [origin, origin + nbins * width). */
typedef struct sp_agg_bin {
    uint64_t calls;
    int64_t sum_ns, min_ns, max_ns;
} sp_agg_bin;

typedef struct sp_agg_series {
    int64_t origin_ns, width_ns;
    size_t nbins;
    sp_agg_bin *bins;     /* NULL when the region has no call */
} sp_agg_series;

/* A call whose begin and end lie in different blocks (SP_AGG_LANES): kept
 * so that a window of calls can start at any block with the calls already
 * open there (sp_window.h). */
typedef struct sp_agg_span {
    int64_t start_ns, end_ns;     /* aligned to rank 0 */
    int32_t region;
    uint32_t depth;               /* 0 = top level */
    uint32_t begin_block, end_block; /* in the rank's block table */
} sp_agg_span;

struct sp_lod;

/* One thread of a rank as the timeline draws it (SP_AGG_LANES). */
typedef struct sp_agg_lane {
    int32_t thread;
    uint64_t calls;
    bool has_span;
    int64_t first_ns, last_ns;    /* aligned to rank 0 */
    uint32_t max_depth;           /* deepest nesting (1 = top level only) */
    size_t nspans;
    sp_agg_span *spans;           /* by begin_block, then depth */
    struct sp_lod *lod;           /* level-of-detail index (SP_AGG_LOD) or NULL */
} sp_agg_lane;

typedef struct sp_agg_rank {
    bool read;            /* selected and read (false: excluded, all zero) */
    size_t nregions;
    sp_agg_region *regions;         /* sorted by region id */
    size_t nregion_cells;
    sp_agg_cell *region_cells;      /* key = region id; by thread, then region */
    size_t nnodes;
    sp_agg_node *nodes;             /* the rank's own tree; parents before children */
    int32_t *global_node;           /* local node -> run tree node (after the merge) */
    size_t nnode_cells;
    sp_agg_cell *node_cells;        /* key = local node */
    size_t nnode_hists;
    sp_agg_node_hist *node_hists;   /* SP_AGG_NODE_HIST */
    uint64_t calls;                 /* every call of the rank */
    uint64_t open_calls;            /* cut at their thread's last event (killed run) */
    uint64_t torn_blocks;           /* damaged blocks of an unfinished file, left out */
    uint64_t blocks_read;           /* blocks replayed (a refresh continues from here) */
    bool has_span;
    int64_t first_ns, last_ns;      /* first start, last end; aligned to rank 0 */
    uint32_t max_depth;             /* deepest nesting seen (1 = top-level only) */
    size_t nlanes;
    sp_agg_lane *lanes;             /* SP_AGG_LANES: threads with calls, by thread */
} sp_agg_rank;

struct sp_agg {
    unsigned flags;
    size_t nranks;
    sp_agg_rank *ranks;
    size_t nregions;                /* run regions when the pass ran */
    sp_agg_series *series;          /* SP_AGG_SERIES: nregions entries, else NULL */
    bool has_span;
    int64_t first_ns, last_ns;      /* over every read rank */
};
typedef struct sp_agg sp_agg;

/* What the pass computes besides the statistics. */
#define SP_AGG_NODE_HIST 1u  /* per call path and rank histograms (diff --tree) */
#define SP_AGG_SERIES 2u     /* per region duration over time */
#define SP_AGG_LANES 4u      /* per thread: calls spanning blocks (windows of calls) */
#define SP_AGG_LOD 8u        /* per thread: the timeline's level-of-detail index (implies LANES) */
#define SP_AGG_SEGMENTS 16u  /* per region (and with NODE_HIST per path) and rank: time by
                                segment of the rank's span and waits for a CPU (sp_agg_segs;
                                the comparisons). Costs a look-up of the thread's wait
                                share per call and a read of each thread's last block
                                first; ignored by sp_agg_follow_* */
/* Not for the pass but for the reader (sp_run_read, sp_run_source_open_ex):
 * the header without each rank's metadata and thread names (a schema v2
 * file, SP_H5_STREAM_LEAN), for verbs that print neither (summary, ranks). */
#define SP_AGG_LEAN_HEADER 32u

/* A call as the pass hands it to observers, when it ends (calls still open
 * at the end of the stream when the stream ends, cut there). */
typedef struct sp_pass_call {
    size_t rank;
    int32_t thread;
    int32_t region;
    int32_t node;         /* rank-local node (sp_agg_rank.nodes) */
    uint32_t depth;       /* 0 = top level */
    bool nested;          /* inside an open call of the same region */
    bool cut;             /* never ended: cut at the thread's last event */
    int64_t start_ns, end_ns;  /* aligned to rank 0 */
    int64_t own_ns;
    size_t begin_block, end_block; /* blocks of its begin and end events */
} sp_pass_call;

/* Observers see the calls of a rank in the order they end, from one
 * thread; ranks may be processed concurrently, so an observer keeps per-rank
 * state. A non-zero return stops the pass with that status. */
typedef struct sp_pass_observer {
    void *ud;
    int (*call)(void *ud, const sp_pass_call *c);
    int (*rank_done)(void *ud, size_t rank); /* may be NULL */
} sp_pass_observer;

typedef struct sp_agg_opts {
    unsigned flags;                 /* SP_AGG_* */
    const bool *ranks;              /* NULL: every rank; else ranks[r] selects rank r */
    size_t nranks_sel;              /* entries of ranks; 0: one per rank of the run.
                                       Ranks past them are not read (a selection
                                       made before the rank count is known) */
    unsigned threads;               /* worker threads; 0: one per core (at most 8) */
    const sp_pass_observer *observer; /* NULL: none */
    /* Called now and then with events replayed so far and in all (from the
     * pass's threads, serialised); NULL: none. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
    int64_t series_bins;            /* SP_AGG_SERIES bins; 0: 256. Fewer per region
                                       when regions x bins would pass 2^21
                                       (64 MB), and no series when fewer than 8
                                       remain (10^6 regions) */
    /* nparts > 1: read only share `part` (0 .. nparts-1) of the selected
     * ranks: nparts runs of consecutive ranks holding about equal events
     * each (from the block table, so every process of an MPI job computes
     * the same split); a share may be empty (fewer ranks than parts). The
     * shares' aggregates merge (sp_agg_merge_ranks) into the whole's. */
    unsigned part, nparts;
} sp_agg_opts;

/*
 * One pass over src (every selected rank, every block known to it) into a
 * new aggregate. The run's tree (src->run->tree) is built from the ranks'
 * trees (run->tree is replaced). A rank whose events are damaged fails the
 * pass with SP_EFORMAT, unless the source is not complete (a recording or
 * killed run): then the blocks from the damaged one on are left out and
 * counted in torn_blocks. Returns 0 and *out, or SP_ENOMEM / SP_EFORMAT /
 * SP_EIO / an observer's status (nothing in *out).
 */
int sp_agg_run(sp_event_source *src, const sp_agg_opts *opts, sp_agg **out);

void sp_agg_free(sp_agg *a);

/*
 * A pass that stays open on a run that is being recorded (viewer --follow,
 * summary --follow): sp_agg_follow_update() replays only the blocks added
 * since its last call (refresh the source first: sp_event_source_refresh),
 * every thread's open calls carried over, and hands back a new aggregate of
 * everything so far, its open calls cut at their thread's last event (as a
 * killed run's are). An update costs the new blocks plus a copy of the
 * aggregates, never the calls read before. No level-of-detail index is
 * built (SP_AGG_LOD is ignored): windows serve the timeline. src must
 * outlive the follower.
 */
typedef struct sp_agg_follow sp_agg_follow;
int sp_agg_follow_new(sp_event_source *src, const sp_agg_opts *opts, sp_agg_follow **out);
int sp_agg_follow_update(sp_agg_follow *f, sp_agg **out);
void sp_agg_follow_free(sp_agg_follow *f);

/* Move the ranks that src read into dst (aggregates of one run whose
 * ranks were read apart: the shares of sp_agg_opts.nparts, MPI processes)
 * and add src's duration series bins to dst's (the pass sets one time axis
 * from the whole block table, whatever it reads). src keeps what was not
 * moved (free it). Attach dst again (sp_run_attach_read) to see the result
 * in the run. 0, or SP_EINVAL (different runs, a rank read by both, series
 * on different axes) with both unchanged. */
int sp_agg_merge_ranks(sp_agg *dst, sp_agg *src);

/* Forget the ranks r with keep[r] false (their aggregates are freed and
 * they count as not read), and recompute the span. */
void sp_agg_drop_ranks(sp_agg *a, const bool *keep);

/*
 * The aggregates as if only the regions with keep[g] had been recorded
 * (keep has nkeep entries; regions past it are left out): each rank's tree
 * loses the other regions' nodes, their kept descendants move under the
 * nearest kept ancestor (equal paths merge) and the time of a region left
 * out becomes its kept caller's own time; the regions left out lose every
 * aggregate. Calls, totals and per-call durations of kept regions are
 * unchanged (they do not depend on other regions); own-time histograms stay
 * as measured; lanes and spans are unchanged (windows read every call).
 * Attach again (sp_agg_attach) to see it in the run. 0, or SP_ENOMEM with
 * the aggregates unusable (free them).
 */
int sp_agg_keep_regions(sp_agg *a, const bool *keep, size_t nkeep);

/* The durations of region's calls (own = false) or their own times (true)
 * as one histogram: on rank `rank`, or merged over every rank read (rank
 * < 0). *out is initialised by the call (free with sp_hist_free). 0 or
 * SP_ENOMEM. */
int sp_agg_region_hist(const sp_agg *a, int32_t region, long rank, bool own, sp_hist *out);

/* The lane of (rank, thread), or NULL (no calls, or no SP_AGG_LANES). */
const sp_agg_lane *sp_agg_find_lane(const sp_agg *a, size_t rank, int32_t thread);

/* The rank's sp_agg_region of region id, or NULL. */
const sp_agg_region *sp_agg_rank_region(const sp_agg_rank *rk, int32_t region);

/* Fill the run's derived summaries from the aggregate: run->regions
 * (statistics: all ranks and per rank; percentiles from the histograms) and
 * the tree's calls, inclusive and own times; run->analyzed = 1. The run
 * keeps a reference to agg (run->agg: owned by the run from then on, freed
 * with it). 0 or SP_ENOMEM. */
int sp_agg_attach(sp_run *run, sp_agg *agg);

#ifdef __cplusplus
}
#endif

#endif /* SP_AGG_H */
