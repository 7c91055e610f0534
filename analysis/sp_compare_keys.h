/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_keys.h - what the comparison model reads from each run (internal
 * to sp_compare*.c): a key per region name or call path shared by all runs
 * of a comparison, and per run and key the figures per rank.
 */
#ifndef SP_COMPARE_KEYS_H
#define SP_COMPARE_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_agg.h"
#include "sp_events.h"
#include "sp_hist.h"
#include "sp_model.h"
#include "sp_sched.h"
#include "sp_strpool.h"

/* Separator of the regions of a call path in a key (never in names that
 * sp__label_copy would display: a control character). */
#define SP__CMP_PATH_SEP '\x1f'

typedef struct sp__cmp_key {
    char *path;     /* region name, or call path joined by SP__CMP_PATH_SEP */
    const char *name; /* the last region of path (points into path) */
    int32_t depth;  /* tree: 1 = top level; regions: 0 */
    int32_t parent; /* tree: key of the path without its last region, or -1 */
    uint64_t hash;  /* of path */
} sp__cmp_key;

/* A slot of the key table: the key's index + 1 (0 = empty) and the low
 * bits of its path's hash, so that a probe compares paths only when the
 * hashes match and growing the table reads no path. */
typedef struct sp__cmp_slot {
    int32_t key1;
    uint32_t hash;
} sp__cmp_slot;

/* Keys shared by every run of a comparison (open addressing on the path). */
typedef struct sp__cmp_keys {
    size_t n, cap;
    sp__cmp_key *keys;
    size_t nslots;
    sp__cmp_slot *slots;
    sp_strpool names; /* the paths, one after another (10^6 regions were as many
                         mallocs and frees); owned; see sp__cmp_keys_take_names */
} sp__cmp_keys;

/* The key of path (added when new). -1 on ENOMEM. */
int32_t sp__cmp_keys_intern(sp__cmp_keys *k, const char *path, int32_t depth, int32_t parent);
/* Room for `more` keys beyond those held, so that interning them neither
 * grows the table nor moves the keys. 0 or SP_ENOMEM (nothing changed). */
int sp__cmp_keys_reserve(sp__cmp_keys *k, size_t more);
/* The pool holding every key's path, handed to the caller (free it with
 * sp_strpool_free, after the keys: their paths point there); k's is empty. */
sp_strpool sp__cmp_keys_take_names(sp__cmp_keys *k);
void sp__cmp_keys_free(sp__cmp_keys *k);

/* A run's time is cut into this many equal segments (per rank, from its
 * first call's start to its last call's end) for the within-run variation
 * of a region's total (the aggregate pass's, sp_agg_segs). */
#define SP__CMP_SEGMENTS SP_AGG_NSEGS

/* What a run says about one key. Per rank figures are per thread that ran
 * the key, averaged over the ranks that ran it. */
typedef struct sp__cmp_fig {
    uint64_t calls;          /* all calls in the run */
    double calls_per_rank;   /* mean over ranks that ran it of calls / threads */
    double time_mean_s;      /* mean over those ranks of time / threads */
    double time_max_s;       /* max over ranks */
    uint32_t ranks;          /* ranks that ran it */
    double wait_s;           /* of time_mean_s, the estimated wait for a CPU:
                                each call's time x its thread's measured wait
                                share at the call's start (0: not measured) */
    double seg_s[SP__CMP_SEGMENTS]; /* time_mean_s by the segment the calls
                                started in */
} sp__cmp_fig;

/* A run read for the comparison: its aggregates (the run's own when they
 * hold what is needed, else computed from its calls in memory), the key of
 * each region (or each rank's call path), per-key figures. */
typedef struct sp__cmp_run {
    const sp_run *run;
    const sp_agg *agg;  /* run->agg or own_agg */
    sp_agg *own_agg;    /* the pass over the run's calls, when needed */
    sp_event_source *own_src; /* its source */
    bool tree;
    int32_t *region_key;  /* regions: run region id -> key, -1 = none */
    bool unique_keys;     /* regions: no two regions of the run share a key */
    int32_t **node_key;   /* tree: per rank, local node -> key */
    sp__cmp_fig *fig;   /* keys->n entries once sp__cmp_run_figures ran */
    double span_s;      /* wall time of the run */
    size_t threads_max; /* threads with calls on the busiest rank */
    sp_sched_summary sched; /* how much the run waited for a CPU */
    size_t nkeys, nranks;
    const sp_hist **hist; /* per key and rank (k * nranks + rank): the call
                           durations (ns, own or inclusive as compared),
                           pointing into the aggregates; NULL: no calls */
} sp__cmp_run;

/* An empty histogram (what a key without calls on a rank has). */
extern const sp_hist sp__cmp_no_hist;

/* Key k's histogram on rank r. */
static inline const sp_hist *sp__cmp_hist(const sp__cmp_run *r, int32_t k, size_t rank)
{
    const sp_hist *h = r->hist[(size_t)k * r->nranks + rank];
    return h ? h : &sp__cmp_no_hist;
}

/* Register every region (or, with tree, every call path) of run that has
 * calls. The run's aggregates serve when they have the flags `need`
 * (SP_AGG_*: SP_AGG_SEGMENTS for the waits and segments; with tree,
 * SP_AGG_NODE_HIST is added); else a run with calls in memory goes through
 * the aggregate pass here. 0, SP_EINVAL (a run read without those
 * aggregates and without calls) or SP_ENOMEM. */
int sp__cmp_run_keys(sp__cmp_run *r, const sp_run *run, bool tree, unsigned need,
                     sp__cmp_keys *keys);

/* Per-key figures of the run over nkeys keys (after every run's keys are
 * registered), and the histograms of its call durations per key and rank,
 * from its aggregates: own time or inclusive. 0 or SP_ENOMEM. */
int sp__cmp_run_figures(sp__cmp_run *r, size_t nkeys, bool own);

void sp__cmp_run_free(sp__cmp_run *r);

#endif
