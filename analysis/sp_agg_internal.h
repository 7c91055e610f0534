/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_internal.h - the state of the aggregate pass (sp_agg_pass.c), the
 * rank storage it fills (sp_agg_store.c) and the merge into the run
 * (sp_agg_merge.c). Not for other layers.
 */
#ifndef SP_AGG_INTERNAL_H
#define SP_AGG_INTERNAL_H

#include <pthread.h>

#include "sp_agg.h"
#include "sp_sched.h"
#include "sp_u64map.h"

/* One open call on a thread's stack. */
typedef struct sp__frame {
    int64_t start;        /* rank clock, ns */
    int64_t child_ns;     /* its direct children's durations so far */
    int32_t region;
    int32_t node;         /* local node */
    int32_t rslot;        /* rank's region slot */
    int32_t rcell, ncell; /* this thread's cells of region and node */
    /* The last child looked up under this call: loops call the same one. */
    int32_t c_region, c_node, c_rcell, c_ncell;
    uint32_t begin_block;
    bool nested;
} sp__frame;

typedef struct sp__thread {
    sp__frame *stack;
    size_t depth, cap;
    int64_t last_t;       /* time of its last event */
    sp__frame root;       /* holds the child cache of top-level calls */
    bool seen;
} sp__thread;

/* What the pass keeps of one rank while it runs (and between refreshes). */
typedef struct sp__rank_state {
    sp_agg_rank out;            /* regions, cells, nodes: grown in place */
    size_t cap_regions, cap_rcells, cap_nodes, cap_ncells, cap_nhists;
    sp_u64map rcell_map;        /* (region, thread) -> region cell */
    sp_u64map ncell_map;        /* (node, thread) -> node cell */
    sp_u64map child_map;        /* (parent node, region) -> node */
    int32_t *node_hist_slot;    /* SP_AGG_NODE_HIST: node -> node_hists index or -1 */
    size_t cap_node_hist_slot;
    sp__thread *threads;
    size_t nthreads;
    sp_agg_lane *lanes;         /* SP_AGG_LANES: by thread (nthreads entries) */
    size_t *cap_spans;          /* room in lanes[t].spans */
    size_t next_block;          /* blocks [0, next_block) replayed */
    /* SP_AGG_SEGMENTS: the rank's span (its clock) and wait shares. */
    bool segs_ready;
    int64_t seg_t0;
    double seg_per_ns;          /* SP_AGG_NSEGS / span (0: no span) */
    sp_sched_index sched;
    bool stopped;               /* met damaged blocks: nothing more is read */
} sp__rank_state;

/* Scratch of one worker: dense maps by run region id, rebuilt per rank. */
typedef struct sp__worker {
    int32_t *slot;              /* run region -> rank's region slot, or -1 */
    uint32_t *open_cnt;         /* run region -> open calls on the current thread */
    size_t nregions;            /* entries of slot and open_cnt */
    int32_t cur_thread;
    sp_agg_series *series;      /* SP_AGG_SERIES: this worker's bins, merged at its end */
    size_t nseries;
    /* The series bin of the last call's start (every region's series has
     * the same axis), as offsets [lo, hi) from the axis' origin; lo >= hi:
     * none yet. */
    int64_t series_lo, series_hi;
    size_t series_bin;
} sp__worker;

/* A pass over one source; ranks replayed by workers. */
typedef struct sp__pass {
    sp_event_source *src;
    sp_agg_opts opts;
    sp__rank_state *ranks;
    size_t nranks;
    sp_agg_series *series;      /* SP_AGG_SERIES */
    size_t nseries;
    double series_inv;          /* 1 / the bins' width (all series share their axis) */
    pthread_mutex_t series_lock;
    /* progress */
    pthread_mutex_t progress_lock;
    uint64_t done_events, total_events;
    /* workers */
    size_t next_rank;
    pthread_mutex_t next_lock;
    int status;                 /* the first failure */
    char message[1024];         /* its message (set on a worker thread: sp_last_error()
                                   is per thread) */
    bool *share;                /* opts.nparts > 1: the ranks of opts.part (opts.ranks
                                   points here) */
} sp__pass;

/* ---- sp_agg_pass.c ---- */

/* A pass over src (not owned) with opts (copied; NULL: defaults). 0 or
 * SP_ENOMEM. */
int sp__pass_new(sp_event_source *src, const sp_agg_opts *opts, sp__pass **out);
/* Replay every selected rank's blocks not yet replayed. 0 or the first
 * failure. */
int sp__pass_run(sp__pass *p);
/* End rank r's open calls at their thread's last event (counted in
 * open_calls). 0 or SP_ENOMEM / an observer's status. */
int sp__pass_cut_open(sp__pass *p, size_t r);
/* Add the bins of from (n regions) to to's on the same axis; bins from
 * holds where to has none move (from loses them). */
void sp__agg_series_add(sp_agg_series *to, sp_agg_series *from, size_t n);
/* Whether the pass reads rank r (opts.ranks and opts.nranks_sel). */
bool sp__pass_selects(const sp__pass *p, size_t r);
void sp__pass_free(sp__pass *p);

/* ---- sp_agg_store.c: the rank's storage ---- */

/* Region slot of run region id g in rank state rs (created if new); -1 on
 * ENOMEM. w->slot caches it. */
int32_t sp__agg_region_slot(sp__rank_state *rs, sp__worker *w, int32_t g);
/* Cell of (key, thread) in an array + map; -1 on ENOMEM. */
int32_t sp__agg_cell(sp_agg_cell **cells, size_t *n, size_t *cap, sp_u64map *map, int32_t key,
                     int32_t thread);
/* Child node of (parent, region); -1 on ENOMEM or too many nodes. */
int32_t sp__agg_child(sp__rank_state *rs, int32_t parent, int32_t region);
/* The node's histograms (SP_AGG_NODE_HIST); NULL on ENOMEM. */
sp_agg_node_hist *sp__agg_node_hist(sp__rank_state *rs, int32_t node);
/* Make the worker's dense maps cover nregions run regions and hold rs's
 * slots; open counts zero. 0 or SP_ENOMEM. */
int sp__agg_worker_load(sp__worker *w, const sp__rank_state *rs, size_t nregions);
void sp__agg_worker_free(sp__worker *w);
/* Initialise an empty rank state (a root node). 0 or SP_ENOMEM. */
int sp__agg_rank_init(sp__rank_state *rs);
/* Free the rank state's working parts (maps, stacks); out stays. */
void sp__agg_rank_free_state(sp__rank_state *rs);
/* Free one lane's arrays and index. */
void sp__agg_lane_free(sp_agg_lane *l);
/* Free the arrays of an sp_agg_rank. */
void sp__agg_rank_out_free(sp_agg_rank *out);
/* A deep copy of a rank state (the level-of-detail indexes are not
 * copied). 0 or SP_ENOMEM (dst freed). */
int sp__agg_rank_clone(sp__rank_state *dst, const sp__rank_state *src);
/* A deep copy of an sp_agg_rank. 0 or SP_ENOMEM (dst zeroed). */
int sp__agg_rank_out_copy(sp_agg_rank *dst, const sp_agg_rank *src);

/* Add b's segments and waits to a's (SP_AGG_SEGMENTS). */
static inline void sp__agg_segs_merge(sp_agg_segs *a, const sp_agg_segs *b)
{
    for (int w = 0; w < 2; w++) {
        for (int k = 0; k < SP_AGG_NSEGS; k++)
            a->time_ns[w][k] += b->time_ns[w][k];
        a->wait_ns[w] += b->wait_ns[w];
    }
}

/* ---- saturating arithmetic: crafted files must not overflow ---- */
static inline int64_t sp__sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t sp__sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

#endif /* SP_AGG_INTERNAL_H */
