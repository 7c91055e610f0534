/* SPDX-License-Identifier: MIT */
/*
 * sp_lod.h - the timeline's level-of-detail index of one lane (a thread of
 * a rank), built by the aggregate pass (SP_AGG_LOD) so that a view of
 * millions of calls is drawn without loading them (Perfetto draws the
 * longest slice per pixel the same way).
 *
 * The lane's time is cut into bins (a power of two of them, sized from its
 * calls); per bin and nesting depth the index keeps the region of the
 * longest call overlapping the bin and how much of the bin calls at that
 * depth cover. Coarser levels halve the bins, each keeping the longer of
 * two. A view of W pixels over [t0, t1] reads the level whose bins are at
 * most a pixel wide: O(W x depth) per frame whatever the calls. Depths below
 * SP_LOD_MAX_DEPTH are indexed; deeper calls appear in exact windows.
 * Memory: 8 bytes x bins x depths used x 2 (all levels; 16 while built).
 */
#ifndef SP_LOD_H
#define SP_LOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_LOD_MAX_DEPTH 32u
#define SP_LOD_MIN_CALLS 65536u   /* lanes with fewer calls load exactly instead */
#define SP_LOD_MAX_BINS (1u << 18)

typedef struct sp_lod_level {
    int64_t bin_ns;         /* width of a bin */
    size_t nbins;
    int32_t **region;       /* [depth][bin]: longest call's region, -1 none; NULL depth unused */
    int64_t **dur;          /* [depth][bin]: its duration (while built; NULL after) */
    float **cover;          /* [depth][bin]: fraction of the bin covered (0..1) */
} sp_lod_level;

/* While built: the finest bin the last call of a depth fell in, as offsets
 * from the origin [lo, hi) (hi INT64_MAX for the last bin; lo > hi: none).
 * Calls of a depth end in time order, so the next one is nearly always in
 * the same bin: found without computing it. */
typedef struct sp_lod_cursor {
    int64_t lo, hi;
    int32_t *region;        /* the bin's entries at the finest level */
    int64_t *dur;
    float *cover;
} sp_lod_cursor;

typedef struct sp_lod {
    int64_t origin_ns;      /* aligned to rank 0 */
    double inv_bin;         /* 1 / levels[0].bin_ns (while built: bins by multiplication) */
    sp_lod_cursor cursor[SP_LOD_MAX_DEPTH]; /* while built */
    uint32_t ndepth;        /* depths allocated (max depth seen, <= SP_LOD_MAX_DEPTH) */
    size_t nlevels;
    sp_lod_level *levels;   /* [0]: finest; [k + 1] has half the bins of [k] */
} sp_lod;

/* An index for a lane expected to hold `calls` calls over [first_ns,
 * last_ns] (aligned); calls beyond land in the last bin. NULL on ENOMEM. */
sp_lod *sp_lod_new(int64_t first_ns, int64_t last_ns, uint64_t calls);
void sp_lod_free(sp_lod *lod);

/* A call of the lane (aligned times, depth 0 = top level). 0 or SP_ENOMEM.
 * sp_lod_add() is the whole rule; the inline sp_lod_add_call() serves the
 * common call (in its depth's last bin) in place, the same way, and the
 * others through sp_lod_add(). */
int sp_lod_add(sp_lod *lod, int64_t start_ns, int64_t end_ns, int32_t region, uint32_t depth);

static inline int sp_lod_add_call(sp_lod *lod, int64_t start_ns, int64_t end_ns, int32_t region,
                                  uint32_t depth)
{
    int64_t a, e, dur;
    if (depth < SP_LOD_MAX_DEPTH && !__builtin_sub_overflow(start_ns, lod->origin_ns, &a) &&
        !__builtin_sub_overflow(end_ns, lod->origin_ns, &e) &&
        !__builtin_sub_overflow(end_ns, start_ns, &dur)) {
        sp_lod_cursor *c = &lod->cursor[depth];
        if (a >= c->lo && e >= a && e < c->hi) {
            /* The longest call (the first of equals), the covered ns. */
            if (dur > *c->dur || *c->region < 0) {
                *c->dur = dur;
                *c->region = region;
            }
            *c->cover += (float)(e - a);
            return 0;
        }
    }
    return sp_lod_add(lod, start_ns, end_ns, region, depth);
}

/* Build the coarser levels once every call was added. 0 or SP_ENOMEM. */
int sp_lod_finish(sp_lod *lod);

/* The level to draw [t0, t1] on w pixels: the coarsest whose bins are at
 * most one pixel wide (the finest when none is). */
const sp_lod_level *sp_lod_pick(const sp_lod *lod, int64_t t0, int64_t t1, double w);

/* Bytes the index holds (for benchmarks). */
size_t sp_lod_bytes(const sp_lod *lod);

#ifdef __cplusplus
}
#endif

#endif /* SP_LOD_H */
