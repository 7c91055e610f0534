/* SPDX-License-Identifier: MIT */
/*
 * sp_model.h - the in-memory run model (internal, shared by every layer).
 *
 * One struct sp_run holds what a file holds: run metadata, the region name
 * table, and per rank the threads and every call as columns. The recorder
 * builds it at sp_finalize(), the h5schema writer writes it, the reader fills
 * it, and analysis (sp_analysis.h) derives statistics and the call tree from
 * it. Times are int64 nanoseconds here; the analysis API speaks seconds.
 *
 * Ownership: a run owns every pointer reachable from it; sp_run_free() frees
 * all. All arrays are malloc'ed (never shared between runs).
 */
#ifndef SP_MODEL_H
#define SP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "scope_profiler.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_kv {
    char *key;
    char *value;
} sp_kv;

/* An ordered key -> value list (insertion order kept, keys unique). */
typedef struct sp_kvlist {
    size_t n, cap;
    sp_kv *items;
} sp_kvlist;

typedef struct sp_thread_info {
    int64_t os_tid;  /* gettid(), or -1 when unknown (Python files) */
    char *name;      /* "main", pthread name, or NULL */
} sp_thread_info;

/* One sample of a thread's CPU scheduling, taken by the recorder's writer
 * while the program ran (SCHEMA.md "CPU scheduling of the threads"). The
 * counts are cumulative since the thread started: differences of two
 * samples of a thread give what happened between them. */
typedef struct sp_sched_sample {
    int32_t thread;  /* index into the rank's threads */
    int64_t t_ns;    /* when sampled, on the clock of the rank's calls */
    int64_t cpu_ns;  /* time on a CPU so far; -1 unknown */
    int64_t wait_ns; /* time runnable but waiting for a CPU so far; -1 unknown */
    int64_t nivcsw;  /* involuntary context switches so far; -1 unknown */
} sp_sched_sample;

/*
 * One rank's calls, as columns of length ncalls. Calls are ordered by thread,
 * then start time, then longer first (so a parent precedes its children).
 */
typedef struct sp_rank_data {
    int32_t rank;
    int64_t clock_offset_ns;     /* add to this rank's times to align with rank 0 */
    int64_t clock_offset_err_ns; /* uncertainty of that offset; 0 on one rank */
    sp_kvlist meta;              /* per-rank facts (hostname, pid, ...) */

    size_t nthreads;
    sp_thread_info *threads;     /* index = value of thread[] below */

    size_t ncalls;
    int64_t *start_ns;           /* start timestamp, ns */
    int64_t *end_ns;             /* end timestamp, ns (>= start) */
    int32_t *region;             /* index into sp_run.region_names */
    int32_t *thread;             /* index into threads */
    int64_t *parent;             /* index of the enclosing call in this rank, -1 = none */

    uint64_t *dropped;           /* per region (nregions entries) or NULL: calls lost */
    size_t nsched;               /* CPU scheduling samples (0: not measured, as in
                                    files before they existed), each thread's in
                                    time order */
    sp_sched_sample *sched;
    int excluded;                /* left out by a rank selection (--ranks): no calls,
                                    not counted in per-rank figures (sp_figures.h) */

    /* Derived by sp_run_analyze() (NULL before): */
    int32_t *depth;              /* nesting depth of each call, 0 = top level */
    int32_t *tree_node;          /* node of sp_run.tree each call belongs to */

    /* Recording modes (recorder/core/sp_mode_*.c, SCHEMA.md "Recording
     * modes"); 0 / NULL when the run has none. Not derived: written, read. */

    /* Line samples (use_line_profiler): one row per (region, file, line,
     * function) with the samples that hit it while the region was the
     * innermost open call of a thread of this rank. */
    size_t nlines;
    int32_t *line_region;        /* index into sp_run.region_names */
    char **line_file;            /* source file path, "" when unknown */
    int32_t *line_lineno;        /* 1-based line number, 0 when unknown */
    char **line_function;        /* function the line belongs to */
    uint64_t *line_samples;      /* samples ("hits") */
    int64_t *line_time_ns;       /* estimated time: samples x sampling period */

    /* Counter values (perf_events, LIKWID): one row per (region, thread or
     * hardware thread, counter), summed over that region's calls. */
    size_t ncounters;
    int32_t *counter_region;     /* index into sp_run.region_names */
    int32_t *counter_thread;     /* index into threads, -1 when by cpu (LIKWID) */
    int32_t *counter_cpu;        /* hardware thread LIKWID measured on, else -1 */
    int32_t *counter_source;     /* SP_COUNTER_* */
    char **counter_name;         /* event or metric name */
    double *counter_value;       /* sum over the calls (metrics: as LIKWID derives) */
    uint64_t *counter_calls;     /* calls the value covers */
} sp_rank_data;

/* sp_rank_data.counter_source values. */
#define SP_COUNTER_PERF 0          /* perf_event delta (task-clock ns, faults, ...) */
#define SP_COUNTER_LIKWID_EVENT 1  /* raw LIKWID event count */
#define SP_COUNTER_LIKWID_METRIC 2 /* LIKWID derived metric */

/* sp_run.region_flags bits. */
#define SP_REGION_FLAG_TRACED 1    /* a traced function (-finstrument-functions) */
#define SP_REGION_FLAG_SAMPLED 2   /* times synthesized from call-stack samples */
#define SP_REGION_FLAG_THROTTLED 4 /* tracing stopped: very many very short calls */

/* One region's statistics over a set of calls; seconds. */
typedef struct sp_stats {
    uint64_t calls;
    double total_s, own_s, mean_s, min_s, max_s, std_s, p50_s, p95_s, p99_s;
} sp_stats;

/* One region of a run with its statistics (all ranks, and per rank). */
struct sp_run_region {
    int32_t id;              /* index into sp_run.regions */
    const char *name;        /* points into sp_run.region_names */
    sp_stats all;            /* every call on every rank and thread */
    sp_stats *per_rank;      /* nranks entries (calls == 0 where absent) */
    uint64_t dropped;        /* calls lost, all ranks */
};

/* A node of the merged call tree (all ranks, all threads, merged by path). */
typedef struct sp_tree_node {
    int32_t region;          /* region id; -1 for the root */
    int32_t parent;          /* node index; -1 for the root */
    int32_t first_child;     /* node index or -1; children sorted by incl_s desc */
    int32_t next_sibling;    /* node index or -1 */
    int32_t depth;           /* root 0, top-level regions 1 */
    uint64_t calls;
    double incl_s;           /* inclusive time of the calls at this path */
    double own_s;            /* incl_s minus the children's inclusive time */
} sp_tree_node;

typedef struct sp_tree {
    size_t nnodes;
    sp_tree_node *nodes;     /* nodes[0] is the root */
} sp_tree;

struct sp_run {
    char *source_path;       /* file read from or written to; NULL if none */
    int schema_version;      /* of the file read; SP_SCHEMA_VERSION when new */
    char *layout;            /* "scope-profiler", "python-per-region", "python-columnar" */
    sp_kvlist meta;          /* run metadata (see h5schema/SCHEMA.md) */

    size_t nregions;
    char **region_names;     /* UTF-8, unique */
    /* Name -> id hash index over region_names (sp_model.c), kept by
     * sp_run_intern_region and sp_run_rename_region, built by the first
     * sp_run_region_id after names were set directly. NULL until then. */
    struct sp_run_names *region_index;

    size_t nranks;
    sp_rank_data *ranks;     /* ranks[i].rank == i */

    /* Derived by sp_run_analyze(): */
    int analyzed;
    sp_run_region *regions;  /* nregions entries, same order as region_names */
    sp_tree tree;

    /* Aggregates of the streaming pass (analysis/sp_agg.h), owned by the
     * run and freed through agg_free (set by whoever attaches them). */
    struct sp_agg *agg;
    void (*agg_free)(struct sp_agg *agg);

    /* Recording modes: per region flags (SP_REGION_FLAG_*), entries for
     * region ids below nregion_flags; NULL when no region has a flag. */
    size_t nregion_flags;
    int32_t *region_flags;

    /* MPI messages and collectives of every rank (sp_mpi_data.h), read from
     * the ranks' mpi/ tables; NULL when the file has none. Owned. */
    struct sp_mpi_data *mpi;
};

/* ---- construction helpers (sp_model.c) ---- */

/* A new empty run (no ranks, no regions). NULL on out of memory. */
sp_run *sp_run_new(void);

/*
 * Region names by hash (O(1) per name, whatever the number of regions).
 * Code that fills or edits run->region_names itself (a reader decoding a
 * table, a merge) either calls sp_run_regions_changed() afterwards, or
 * appends only (then the index picks up the new entries by itself);
 * renaming in place goes through sp_run_rename_region().
 * Not thread-safe on one run while its index is being (re)built: a reader
 * that hands a run to other threads calls sp_run_index_regions() first.
 */

/* Intern a region name: returns its id, adding it (copied) if new; -1 on
 * ENOMEM (the error is set). */
int32_t sp_run_intern_region(sp_run *run, const char *name);

/* Room for `more` regions beyond run->nregions, in region_names and the
 * index, so that interning a table of known size grows nothing. 0 or
 * SP_ENOMEM (the error is set). */
int sp_run_reserve_regions(sp_run *run, size_t more);

/* Region id of name, or -1. Builds or extends the run's index when the
 * names changed since (so the first call after a read costs O(regions));
 * out of memory for the index, it scans. */
int32_t sp_run_region_id(const sp_run *run, const char *name);

/* Replace region id's name by a copy of name, keeping the index. 0,
 * SP_EINVAL (id out of range, or name held by another region) or SP_ENOMEM. */
int sp_run_rename_region(sp_run *run, int32_t id, const char *name);

/* (Re)build the run's index from region_names now. *dup (may be NULL)
 * receives -1, or the first region id whose name repeats an earlier one
 * (that name then finds the earlier id). 0 or SP_ENOMEM. */
int sp_run_index_regions(sp_run *run, int32_t *dup);

/* Forget the index after region_names was replaced or edited in place
 * (the next lookup rebuilds it). */
void sp_run_regions_changed(sp_run *run);

/* Make room for nranks ranks (zeroed, rank numbers set). 0 or SP_ENOMEM. */
int sp_run_set_ranks(sp_run *run, size_t nranks);

/* Allocate the call columns of a rank for n calls (parent set to -1).
 * 0 or SP_ENOMEM. */
int sp_rank_alloc_calls(sp_rank_data *rk, size_t n);

/* Free the call columns of a rank (NULL afterwards, ncalls 0). */
void sp_rank_free_calls(sp_rank_data *rk);

/* Sort a rank's calls into model order (thread, start, longer first),
 * remapping parent indices. 0 or SP_ENOMEM. */
int sp_rank_sort_calls(sp_rank_data *rk);

/* For files that carry no nesting (Python layouts): set parent[] of every call
 * to the innermost call of the same thread that contains it in time.
 * Calls must be in model order. */
void sp_rank_infer_parents(sp_rank_data *rk);

/* The number of nodes in each node's subtree (itself included), nnodes
 * entries, malloc'ed (the caller frees); NULL on out of memory. One pass, no
 * recursion: the tree builder creates every node after its parent. */
size_t *sp_tree_subtree_sizes(const sp_tree *tree);

/* Key/value list: set (copying both; replaces an existing key), get (NULL if
 * absent), free. */
int sp_kvlist_set(sp_kvlist *l, const char *key, const char *value);
/* A copy of src (unique keys, order kept) into dst (overwritten, not
 * freed first); the caller frees it with sp_kvlist_free. 0, or SP_ENOMEM
 * with dst empty. */
int sp_kvlist_copy(sp_kvlist *dst, const sp_kvlist *src);
const char *sp_kvlist_get(const sp_kvlist *l, const char *key);
void sp_kvlist_free(sp_kvlist *l);

/* A deep copy of run's header (sp_model_copy.c): metadata, regions and
 * their flags, ranks with threads, metadata, clock offsets, dropped calls,
 * line samples and counters; no calls, nothing derived (statistics, tree,
 * aggregates). For readers that keep a growing source and hand out a run
 * per state (following a recording run). NULL with sp_last_error() on
 * SP_ENOMEM. */
sp_run *sp_run_copy_header(const sp_run *run);

#ifdef __cplusplus
}
#endif

#endif /* SP_MODEL_H */
