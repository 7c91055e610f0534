/* SPDX-License-Identifier: MIT */
/*
 * sp_scaling.h - a scaling study: N runs of one program at different rank
 * (or thread) counts, per region the time per rank, speedup and parallel
 * efficiency, and the regions that stop scaling. Used unchanged by
 * `scope-profiler scaling`, `plot scaling`, the report and the viewer's
 * Scaling view. Pure computation: no I/O.
 *
 * Per run and region the time per rank is the compare model's
 * (sp_compare.h): a region's time on a rank divided by the rank's threads
 * that ran it, mean and max over the ranks that ran it. Speedup and
 * efficiency use the max (the slowest rank bounds the wall time):
 *   strong: speedup S(p) = T(p_ref) / T(p), efficiency E = S p_ref / p;
 *   weak (problem size grown with p): E = T(p_ref) / T(p), and the scaled
 *   speedup S = E p / p_ref,
 * where p_ref is the smallest count. Weak or strong is asked, or detected
 * from problem-size metadata (sp_scaling_detect_weak). A region "stops scaling" at the first
 * count where E falls below min_efficiency, provided it takes at least
 * min_share_pct of the reference run (smaller regions are noise here).
 *
 * Ownership: an sp_scaling owns everything in it (no pointers into runs).
 */
#ifndef SP_SCALING_H
#define SP_SCALING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_analysis.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_scaling_axis {
    SP_SCALING_RANKS = 0, /* p = ranks of the run */
    SP_SCALING_THREADS,   /* p = threads per rank (the busiest rank's) */
} sp_scaling_axis;

/* Strong or weak scaling: asked, or detected from the runs' metadata. */
typedef enum sp_scaling_kind {
    SP_SCALING_AUTO = 0, /* weak when problem-size metadata says so (see
                            sp_scaling_detect_weak), else strong */
    SP_SCALING_STRONG,
    SP_SCALING_WEAK,
} sp_scaling_kind;

typedef struct sp_scaling_options {
    sp_scaling_axis axis;  /* SP_SCALING_RANKS */
    sp_scaling_kind kind;  /* SP_SCALING_AUTO */
    bool own;              /* own (exclusive) time instead of inclusive */
    double min_efficiency; /* 0.6 */
    double min_share_pct;  /* 1 */
    const sp_region_filter *filter; /* NULL = every region */
} sp_scaling_options;

void sp_scaling_options_init(sp_scaling_options *o);

typedef struct sp_scaling_point {
    bool present;       /* the region has calls in this run */
    uint64_t calls;
    double time_mean_s; /* time per rank, mean over ranks that ran it */
    double time_max_s;  /* and max */
    double speedup, efficiency; /* NAN when absent here or in the reference */
} sp_scaling_point;

typedef struct sp_scaling_region {
    char *name;
    sp_scaling_point *pt;  /* one per run, in study order (p ascending) */
    double share_pct;      /* of the reference run's wall time */
    bool stops;            /* stops scaling (see above) */
    size_t stop_at;        /* index of the first run where it does */
} sp_scaling_region;

typedef struct sp_scaling {
    sp_scaling_options opts; /* filter cleared */
    bool weak;               /* weak scaling (asked or detected) */
    char kind_why[256];      /* how: "asked", "metadata 'elements' grows with
                                the ranks (..)", "no problem-size metadata
                                grows with the ranks" */
    size_t nruns;
    double *p;               /* counts, ascending */
    size_t *input_index;     /* position of each run in the caller's array */
    size_t *ranks, *threads; /* of each run */
    sp_scaling_point *whole; /* the whole run (wall time span) per run */
    size_t nregions;
    sp_scaling_region *regions; /* by the reference run's time, descending */
} sp_scaling;

/*
 * Study runs[0..n), n >= 2, in any order (sorted by count here). NULL with
 * sp_last_error() on SP_EINVAL (fewer than 2 runs, two runs with the same
 * count, a run without calls) or SP_ENOMEM.
 */
sp_scaling *sp_scaling_study(const sp_run *const *runs, size_t n, const sp_scaling_options *o);
void sp_scaling_free(sp_scaling *s);

/*
 * Weak scaling, from the runs' metadata (run->meta, set by the program with
 * sp_metadata_set): a numeric key that names a problem size (its name holds
 * "size", "problem", "elem", "cell", "zone", "grid", "mesh", "dof",
 * "points" or "nx"/"ny"/"nz"; "AxBxC" counts as the product) and, over
 * runs[0..n) at counts p[0..n) (ascending), either grows in proportion to
 * p (within 25 %) while it is not a per-rank key, or stays the same while
 * it is a per-rank key ("per_rank", "local"). true with the reason in why
 * ("metadata 'elements' grows with the ranks: 4096 at 1, 32768 at 8");
 * false with why saying what was seen. Keys the recorder writes are never
 * taken.
 */
bool sp_scaling_detect_weak(const sp_run *const *runs, const double *p, size_t n,
                            sp_scaling_axis axis, char *why, size_t nwhy);

/* "ranks" or "threads". */
const char *sp_scaling_axis_name(sp_scaling_axis a);

/* Parse "ranks" / "threads": 0 or SP_EINVAL. */
int sp_scaling_axis_parse(const char *s, sp_scaling_axis *out);

/* Names of the regions that stop scaling for a summary line, e.g.
 * "reduce (at 2 ranks: 0.50), io (at 4 ranks: 0.31)"; "" when none.
 * Returns buf. */
char *sp_scaling_stops_text(const sp_scaling *s, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
