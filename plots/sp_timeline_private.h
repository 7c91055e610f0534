/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_private.h - the prepared timeline index shared by its prepare,
 * draw and hit-test files.
 *
 * Per lane (rank, thread) and depth, a row lists the lane's calls at that
 * depth sorted by start (calls of one row never overlap). On top of the raw
 * row sit merge levels: at level L (bucket 2^L ns), a "run" is a maximal
 * chain of consecutive calls all shorter than 2^L and starting in the same
 * 2^L bucket. Drawing at p ns per pixel uses the level with 2^L <= p, so
 * each bucket (<= 1 px) contributes at most one run plus its long calls, and
 * a frame touches O(pixels) entries per row, never O(calls). Only runs are
 * stored (calls outside every run are read from the raw row), a level
 * identical to the one below shares its array, and only every other level
 * is kept (drawing uses the kept level at most 4x finer than a pixel), so
 * memory stays ~O(calls).
 */
#ifndef SP_TIMELINE_PRIVATE_H
#define SP_TIMELINE_PRIVATE_H

#include "sp_plot_internal.h"

/* A merged run of calls first .. first + count - 1 of a row. Its span is
 * stored too, so drawing reads runs sequentially instead of chasing two
 * call indices into the rank's columns (a cache miss each). */
typedef struct sp__tl_run {
    int64_t t0;         /* run-time start of the first call */
    float dur_ns;       /* end of the last call - t0 (< 2 buckets) */
    uint32_t first, count;
    int32_t region;     /* the region covering most of the run's time */
    float dom_ns;       /* time covered by that region */
    float cov_ns;       /* time covered by all calls of the run */
} sp__tl_run;

typedef struct sp__tl_level {
    size_t nruns;
    sp__tl_run *runs;   /* sorted by first */
    bool shared;        /* runs belongs to the level below (not freed here) */
} sp__tl_level;

typedef struct sp__tl_row {
    size_t n;
    uint32_t *calls;    /* call indices in the rank, by start (points into
                           the lane's block) */
    int lmin;           /* levels[k] is level lmin + k (bucket 2^(lmin+k)) */
    int nlevels;
    sp__tl_level *levels;
} sp__tl_row;

typedef struct sp__tl_lane {
    int32_t rank, thread;
    int32_t depths;
    size_t ncalls;
    int64_t offset;     /* add to a raw timestamp to get run time */
    const int64_t *start, *end; /* the rank's columns */
    const int32_t *region;
    sp__tl_row *rows;   /* depths rows */
    uint32_t *block;    /* storage of every row's call indices */
    size_t depth_before; /* sum of depths of the lanes above */
} sp__tl_lane;

/* Growable float buffer kept between draws (a fresh malloc of a large
 * buffer every frame costs page faults that dominate a zoomed-out frame). */
typedef struct sp__tl_buf {
    size_t n, cap;
    float *v;
} sp__tl_buf;

#define SP__TL_NSLOTS (2 * (SP__PALETTE_N + 1))

/* A label to draw inside a call's box. */
typedef struct sp__tl_label {
    float x0, x1, y;
    int32_t region;
    int slot;
} sp__tl_label;

struct sp_timeline {
    const sp_run *run;
    int64_t origin, duration;
    size_t nlanes;
    sp__tl_lane *lanes;
    size_t total_depths;
    /* Per-draw scratch, reused: rectangles per colour slot, labels. Drawing
     * is documented as one thread at a time per timeline. */
    sp__tl_buf slots[SP__TL_NSLOTS];
    sp__tl_label *labels;
    size_t caplabels;
    /* Colours: the run's own map (NULL: hash colours), and per draw each
     * region's palette slot under the map in use (recomputed only when the
     * map changes) and whether a box of it was drawn (the legend). */
    sp_color_map *colors;
    const sp_color_map *slot_map;
    bool slot_map_set;
    int *slot_of;
    bool *shown;
};

/* Run-time start and end of a row's k-th call. */
static inline int64_t sp__tl_start(const sp__tl_lane *ln, const sp__tl_row *row, size_t k)
{
    return ln->start[row->calls[k]] + ln->offset;
}
static inline int64_t sp__tl_end(const sp__tl_lane *ln, const sp__tl_row *row, size_t k)
{
    return ln->end[row->calls[k]] + ln->offset;
}

/* The first row position whose call ends after t (n if none). */
size_t sp__tl_row_first_after(const sp__tl_lane *ln, const sp__tl_row *row, int64_t t);

/* Layout of one draw: everything derived from size, view and style. */
typedef struct sp__tl_layout {
    double title_h;
    double axis_y, axis_h;      /* time axis band */
    double data_x, data_y, data_w, data_h;
    double row_h, lane_pad, lane_gap;
    double content_h;
    double note_y, note_h;      /* "lanes not shown" line (0 high: none) */
    double legend_y, legend_h;  /* legend band under the lanes (0: none) */
    double scroll_y;            /* clamped */
    double t0, t1;              /* visible window, ns (run time) */
} sp__tl_layout;

/* Compute the layout; c may be NULL (then a temporary canvas-free estimate of
 * font metrics is used, identical to the one the draw uses). */
void sp__tl_layout_get(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                       const sp_plot_style *st, sp__tl_layout *lay);

/* Top y (content coordinates, before scrolling) and height of a lane. */
double sp__tl_lane_top(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane);
double sp__tl_lane_height(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane);
/* The lane at content y (clamped into range), or nlanes when no lanes. */
size_t sp__tl_lane_at(const sp_timeline *tl, const sp__tl_layout *lay, double cy);

#endif /* SP_TIMELINE_PRIVATE_H */
