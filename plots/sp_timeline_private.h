/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_private.h - the timeline's lanes and prepared windows, shared
 * by its files: sp_timeline.c (lanes from the aggregates), sp_timeline_calls.c
 * (a window's rows and merge levels), sp_timeline_walk.c (what a row shows
 * between two times, from a window or the index), sp_timeline_draw.c (detail),
 * sp_timeline_overview.c, sp_timeline_layout.c and sp_timeline_hit.c.
 *
 * A prepared window: per depth, a row lists the window's calls at that depth
 * sorted by start (calls of one row never overlap). On top of the raw row sit
 * merge levels: at level L (bucket 2^L ns), a "run" is a maximal chain of
 * consecutive calls all shorter than 2^L and starting in the same 2^L bucket.
 * Drawing at p ns per pixel uses the level with 2^L <= p, so each bucket
 * (<= 1 px) contributes at most one run plus its long calls, and a frame
 * touches O(pixels) entries per row, never O(calls). Only runs are stored
 * (calls outside every run are read from the raw row), a level identical to
 * the one below shares its array, and only every other level is kept
 * (drawing uses the kept level at most 4x finer than a pixel).
 */
#ifndef SP_TIMELINE_PRIVATE_H
#define SP_TIMELINE_PRIVATE_H

#include "sp_agg.h"
#include "sp_lod.h"
#include "sp_plot_internal.h"
#include "sp_window.h"

/* A merged run of calls first .. first + count - 1 of a row. Its span is
 * stored too, so drawing reads runs sequentially. */
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
    uint32_t *calls;    /* window indices, by start (points into the block) */
    int lmin;           /* levels[k] is level lmin + k (bucket 2^(lmin+k)) */
    int nlevels;
    sp__tl_level *levels;
} sp__tl_row;

struct sp_timeline_calls {
    sp_window *w;       /* owned */
    size_t lane;        /* the timeline lane it belongs to */
    int64_t origin;     /* the timeline's origin: window time - origin = run time */
    int32_t depths;     /* rows */
    sp__tl_row *rows;
    uint32_t *block;    /* storage of every row's indices */
    size_t bytes;
};

/* Run-time start and end of a row's k-th call. */
static inline int64_t sp__tl_start(const sp_timeline_calls *c, const sp__tl_row *row, size_t k)
{
    return c->w->start_ns[row->calls[k]] - c->origin;
}
static inline int64_t sp__tl_end(const sp_timeline_calls *c, const sp__tl_row *row, size_t k)
{
    return c->w->end_ns[row->calls[k]] - c->origin;
}

/* The first row position whose call ends after t (n if none). */
size_t sp__tl_row_first_after(const sp_timeline_calls *c, const sp__tl_row *row, int64_t t);

/* Whether c holds every call of its lane in [t0, t1] (run time). */
bool sp__tl_calls_cover(const sp_timeline_calls *c, int64_t first, int64_t last, int64_t t0,
                        int64_t t1);

typedef struct sp__tl_lane {
    int32_t rank, thread;
    int32_t depths;         /* rows in the detail layout (>= 1) */
    uint64_t ncalls;
    int64_t first, last;    /* run time */
    const sp_lod *lod;      /* the aggregates' index (borrowed), or NULL */
    sp_timeline_calls *calls; /* owned, or NULL */
    size_t depth_before;    /* sum of depths of the lanes above */
} sp__tl_lane;

/* Growable float buffer kept between draws (a fresh malloc of a large
 * buffer every frame costs page faults that dominate a zoomed-out frame). */
typedef struct sp__tl_buf {
    size_t n, cap;
    float *v;
} sp__tl_buf;

/* Colour slots: palette colours, neutral, then the same faded. */
#define SP__TL_SLOT_NEUTRAL SP__PALETTE_N
#define SP__TL_SLOTS_PER_SET (SP__PALETTE_N + 1)
#define SP__TL_NSLOTS (2 * SP__TL_SLOTS_PER_SET)
/* A lane still loading: the faded neutral. */
#define SP__TL_SLOT_PENDING (SP__TL_SLOT_NEUTRAL + SP__TL_SLOTS_PER_SET)

/* A label to draw inside a call's box. */
typedef struct sp__tl_label {
    float x0, x1, y;
    int32_t region;
    int slot;
} sp__tl_label;

struct sp_timeline {
    const sp_run *run;
    const sp_agg *agg;
    sp_agg *own_agg;    /* for a run with calls and no aggregates */
    int64_t origin, duration;
    size_t nlanes;
    sp__tl_lane *lanes;
    size_t total_depths;
    /* Per-draw scratch, reused: rectangles per colour slot, labels, the
     * overview's regions per pixel column. Drawing is documented as one
     * thread at a time per timeline. */
    sp__tl_buf slots[SP__TL_NSLOTS];
    sp__tl_label *labels;
    size_t caplabels;
    int32_t *column;
    size_t capcolumn;
    cairo_surface_t *ov_image;  /* the overview's pixels (kept between draws) */
    /* Colours: the run's own map (NULL: hash colours), and per draw each
     * region's palette slot under the map in use (recomputed only when the
     * map changes) and whether a box of it was drawn (the legend). */
    sp_color_map *colors;
    const sp_color_map *slot_map;
    bool slot_map_set;
    int *slot_of;
    bool *shown;
};

/* ---- walking a row (sp_timeline_walk.c) ---- */

/* One thing a row shows between two times: a call, a merged run of calls
 * (window) or a bin (index), in run time. */
typedef struct sp__tl_entry {
    double s, e;        /* run time */
    int32_t region;     /* -1: none dominates */
    double dom, cov;    /* ns covered by region, by anything */
    size_t calls;       /* 1: a single call (call is set) */
    uint32_t call;      /* window index of a single call */
    bool from_index;
} sp__tl_entry;

/* Called per entry in time order; returns false to stop. */
typedef bool (*sp__tl_visit)(void *ud, const sp__tl_entry *e);

/* The entries of depth row `depth` of a prepared window over [t0, t1) at p
 * ns per pixel; returns the entries visited. */
size_t sp__tl_walk_calls(const sp_timeline_calls *c, int32_t depth, double t0, double t1,
                         double p, sp__tl_visit fn, void *ud);

/* The same from a lane's index (origin: the timeline's). */
size_t sp__tl_walk_index(const sp_lod *lod, int64_t origin, int32_t depth, double t0, double t1,
                         double p, sp__tl_visit fn, void *ud);

/* What a lane draws from for [t0, t1]. */
typedef enum sp__tl_source {
    SP__TL_FROM_NONE = 0,
    SP__TL_FROM_WINDOW,   /* its window covers the range */
    SP__TL_FROM_INDEX,    /* its index */
    SP__TL_FROM_PART      /* a window that covers part of the range, no index */
} sp__tl_source;

sp__tl_source sp__tl_lane_source(const sp__tl_lane *ln, double t0, double t1);

/* ---- layout (sp_timeline_layout.c) ---- */

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
    bool overview;              /* one thin row per lane */
    double lane_h;              /* overview: height of a lane (< 1: sampled) */
} sp__tl_layout;

/* Compute the layout; the same for drawing, hit testing and geometry
 * (sizes come from the font size and scale, never from measured text). */
void sp__tl_layout_get(const sp_timeline *tl, double w, double h, const sp_timeline_view *view,
                       const sp_plot_style *st, sp__tl_layout *lay);

/* Detail: top y (content coordinates, before scrolling) and height of a
 * lane, and the lane at content y (clamped into range; nlanes when none). */
double sp__tl_lane_top(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane);
double sp__tl_lane_height(const sp_timeline *tl, const sp__tl_layout *lay, size_t lane);
size_t sp__tl_lane_at(const sp_timeline *tl, const sp__tl_layout *lay, double cy);

/* Overview: the lane drawn at data-area y (0 .. data_h), and the pixel rows
 * [*y0, *y1) of overview row k (k-th lane, or k-th pixel row when lanes
 * outnumber them); the number of rows. */
size_t sp__tl_overview_rows(const sp_timeline *tl, const sp__tl_layout *lay);
size_t sp__tl_overview_row(const sp_timeline *tl, const sp__tl_layout *lay, size_t k,
                           double *y0, double *y1);
size_t sp__tl_overview_lane_at(const sp_timeline *tl, const sp__tl_layout *lay, double y);
/* The lanes drawn in overview row k into lanes[0 .. SP__TL_OV_MERGE): one
 * when each lane has its row; when several share a pixel row, all of them
 * up to SP__TL_OV_MERGE, else that many spread evenly over them (their
 * pixels vote). Returns how many. */
#define SP__TL_OV_MERGE 4
size_t sp__tl_overview_lanes(const sp_timeline *tl, const sp__tl_layout *lay, size_t k,
                             size_t *lanes);

/* ---- drawing (sp_timeline_draw.c, sp_timeline_overview.c) ---- */

typedef sp__tl_buf sp__tl_rectbuf;

/* The state of one draw shared by the detail and overview code. */
typedef struct sp__tl_draw {
    sp__canvas *c;
    const sp_timeline *tl;
    const sp_timeline_view *view;
    sp__tl_layout lay;
    double p;             /* ns per pixel */
    int32_t highlight;
    sp__tl_rectbuf *slots; /* SP__TL_NSLOTS buffers owned by the timeline */
    bool oom;
    /* coalescing of narrow boxes within the current row */
    int last_slot;
    double last_x1;
    size_t last_idx;
    bool last_merged;
    const int *slot_of;   /* palette slot per region under the map in use */
    bool *shown;          /* regions with a box drawn (the legend) */
    sp_timeline_stats st;
} sp__tl_draw;

/* The colour slot of a region (neutral for -1), faded when another region
 * is highlighted; marks the region shown. */
int sp__tl_region_slot(sp__tl_draw *d, int32_t region);
/* Add a box [x0, x1) (pixels relative to the data area) at y, h high;
 * narrow neighbours of one slot coalesce. */
void sp__tl_emit(sp__tl_draw *d, double x0, double x1, double y, double h, int slot, bool merged);
/* Add the box of whole pixels [x0, x1) x [y, y + h) as it is (no gap,
 * no coalescing). */
void sp__tl_rect(sp__tl_draw *d, double x0, double x1, double y, double h, int slot);
/* The colour of a slot (faded slots mixed with the background). */
sp_rgba sp__tl_slot_color(const sp__tl_draw *d, int slot);
/* Fill every slot's rectangles (one cairo_fill per colour). */
void sp__tl_fill_slots(sp__tl_draw *d);

/* The overview's lanes, labels included. */
void sp__tl_draw_overview(sp__tl_draw *d);

#endif /* SP_TIMELINE_PRIVATE_H */
