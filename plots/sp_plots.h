/* SPDX-License-Identifier: MIT */
/*
 * sp_plots.h - Cairo + Pango charts of a run (internal API shared by the CLI's
 * `scope-profiler plot` and the GTK 4 viewer).
 *
 * Every chart is one function that draws into a caller's cairo_t within the
 * rectangle (0, 0, w, h) in user units, so the same code draws a PNG, an SVG,
 * a PDF page or a widget snapshot (gtk_snapshot_append_cairo). Nothing here
 * knows GTK. The caller's cairo state (matrix, clip, source) is saved and
 * restored around each call.
 *
 * Conventions
 * - Functions return 0 or a negative SP_E* code (SP_EINVAL for NULL or bad
 *   arguments, SP_ENOMEM, SP_EIO for export) with sp_last_error() set.
 * - A chart without data draws a centred empty-state message (e.g. "No calls
 *   recorded for region 'solve'") and returns 0; it never crashes.
 * - Charts using statistics or the call tree (rank bars, heat map, call tree)
 *   need an analysed run (sp_run_analyze()); given a run that is not analysed
 *   they return SP_EINVAL. The timeline, histogram and duration-over-time
 *   draw from the run's aggregates (run->agg: sp_run_read() with
 *   SP_AGG_LANES | SP_AGG_LOD for the timeline, SP_AGG_SERIES for duration
 *   over time) and never need the calls; a run with calls and no
 *   aggregates (built in memory, read whole) works too.
 * - Times in views are int64 ns relative to the run's first call after clock
 *   offsets ("run time"); labels print them with ns / µs / ms / s units.
 * - Region colours come from a colour map (analysis/sp_colors.h): regions
 *   ranked by time get a palette designed to keep them apart. A chart uses
 *   sp_plot_style.colors when set (the viewer and a comparison pass one map
 *   for everything shown together, so a region has one colour in every
 *   chart and in both runs), else a map built for the run it draws.
 * - Objects (sp_timeline) keep a pointer to the run: the run must outlive
 *   them and must not change meanwhile. Drawing functions are reentrant; one
 *   sp_timeline may be drawn from one thread at a time.
 */
#ifndef SP_PLOTS_H
#define SP_PLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "sp_colors.h"
#include "sp_figures.h"
#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_agg;
struct sp_window;

/* ------------------------------------------------------------------ */
/* Style and colours                                                   */
/* ------------------------------------------------------------------ */

/* How charts look. Initialise with sp_plot_style_init() then change fields. */
typedef struct sp_plot_style {
    double scale;            /* DPI factor: 1 = 96-dpi screen / 1 px per unit;
                                2 = HiDPI or print. Multiplies font sizes, line
                                widths, paddings and row heights. Default 1. */
    const char *font_family; /* Pango family list, NULL = "Sans". */
    double font_size;        /* base font size in user units at scale 1
                                (titles are larger, ticks smaller). Default 12. */
    bool dark;               /* dark theme (light text on a dark background). */
    bool no_background;      /* do not paint the background (a widget that
                                paints its own); default false = paint it. */
    const char *title;       /* title above the chart: NULL = the chart's
                                default title (the timeline has none), "" =
                                no title. Charts with a one-line summary
                                under the title (imbalance, counts) keep it
                                with ""; the call tree then drops both. */
    const sp_color_map *colors; /* region colours (borrowed; must outlive the
                                   draw): NULL = a map built for the run drawn
                                   (sp_color_map_for_run), so one run's charts
                                   agree; pass one map for several runs shown
                                   together (sp_color_map_new). */
} sp_plot_style;

/* Fill *st with the defaults listed above (light theme, scale 1). */
void sp_plot_style_init(sp_plot_style *st);

/* An RGBA colour, components 0..1 (cairo_set_source_rgba order). */
typedef struct sp_rgba {
    double r, g, b, a;
} sp_rgba;

/*
 * The colour of a region in map m (sp_colors.h: by rank of time, palette
 * designed for distinctness, stable hash fallback), with a variant for light
 * and dark themes. m NULL: the hash fallback alone. Text drawn on it should
 * use sp_plot_text_color_on() for contrast. name NULL gives a neutral grey.
 */
sp_rgba sp_plot_color_in(const sp_color_map *m, const char *name, bool dark);

/* The hash fallback alone (sp_plot_color_in(NULL, name, dark)): the same
 * name gives the same colour everywhere, but two names may share one. Charts
 * use the map of what they show instead. */
sp_rgba sp_plot_region_color(const char *name, bool dark);

/* Black or white (slightly softened), whichever reads better on bg. */
sp_rgba sp_plot_text_color_on(sp_rgba bg);

/* The neutral colour used for merged level-of-detail boxes and "no change". */
sp_rgba sp_plot_neutral_color(bool dark);

/* Format a duration given in seconds with 3 significant digits and a unit
 * (ns, µs, ms, s; minutes as "1m 05s" above 100 s) into buf. Returns buf. */
char *sp_plot_format_duration(double seconds, char *buf, size_t n);

/* Draw a centred empty-state message (a muted glyph-less text, wrapped to
 * the width) on the background. Charts call it when they have no data; the
 * viewer may use it for pages without a run. 0 or SP_EINVAL. */
int sp_plot_draw_empty(cairo_t *cr, double w, double h, const sp_plot_style *st,
                       const char *message);

/* ------------------------------------------------------------------ */
/* Timeline (Gantt / flame chart) of a run read aggregate-first         */
/* ------------------------------------------------------------------ */

/*
 * One lane per (rank, thread) that has calls, ordered by rank then thread
 * index; within a lane, calls are stacked by nesting depth (depth 0 on top).
 * Under the lanes a legend lists the regions drawn (the most time first).
 *
 * A timeline holds no calls of its own (a run may have billions). It
 * draws each lane from what the caller gave it:
 *  - the lane's calls in a window (sp_timeline_calls, made from an
 *    sp_window the caller loaded with analysis/sp_window.h) when the window
 *    covers the visible time range: exact, every call at least a pixel wide
 *    is its own box (labelled when its name fits), narrower ones merge per
 *    pixel column into one box coloured by the region that covers most of
 *    it (the neutral colour when none covers half); the window's index
 *    makes a frame O(rows x pixels) whatever its calls (about 24 bytes per
 *    call on top of the window);
 *  - else the lane's level-of-detail index (run->agg read with SP_AGG_LOD,
 *    analysis/sp_lod.h): per pixel column and depth the region of the
 *    longest call there (lanes of fewer than SP_LOD_MIN_CALLS calls have no
 *    index: give them a window of the whole lane, it is small);
 *  - else a faint band over the lane's time span (data still loading).
 * The caller decides which windows to load (sp_window_estimate first:
 * the viewer loads the visible range with a margin in a worker thread and
 * draws the index until it arrives; `plot timeline` can load the whole
 * lane for small runs and draw big ones from the index alone).
 *
 * Lanes: detail (a row per depth, lanes scroll) or, with more lanes than
 * fit on the height at one row each, an overview with one thin row per
 * lane (one pixel row per several lanes when they outnumber the pixel
 * rows: the first lane of each pixel row is drawn, as HPCToolkit samples
 * ranks), each pixel coloured by the innermost region that covers at least
 * half of it (HPCToolkit and Vampir colour their trace overviews the same
 * way). sp_timeline_view.lanes chooses.
 *
 * The run (and its aggregates) must outlive the timeline and stay
 * unchanged. A run with calls but without aggregates (built in memory,
 * read whole) is aggregated here and every lane gets a window of all its
 * calls (memory proportional to the calls: for runs that are in memory
 * anyway).
 */
typedef struct sp_timeline sp_timeline;

/* Prepare a timeline of run: lanes from run->agg (the pass run with
 * SP_AGG_LANES, and SP_AGG_LOD for big lanes), else from the run's calls
 * (see above). NULL with sp_last_error() on NULL run (SP_EINVAL) or out of
 * memory. A run without calls gives a valid timeline with zero lanes (it
 * draws the empty state). */
sp_timeline *sp_timeline_new(const sp_run *run);

void sp_timeline_free(sp_timeline *tl);

/* The run the timeline was built from. */
const sp_run *sp_timeline_run(const sp_timeline *tl);

/* The aggregates it draws from (run->agg, or its own for a run with calls). */
const struct sp_agg *sp_timeline_agg(const sp_timeline *tl);

/* Duration of the run in ns (last end - first start, after clock offsets);
 * 0 when there are no calls. Views use 0..duration as "the whole run". */
int64_t sp_timeline_duration_ns(const sp_timeline *tl);

/* Absolute (clock-offset-aligned) timestamp of run time 0, in ns: add it to
 * a run time to get the times of windows and of the index. */
int64_t sp_timeline_origin_ns(const sp_timeline *tl);

size_t sp_timeline_lane_count(const sp_timeline *tl);

/* Facts about a lane. */
typedef struct sp_timeline_lane_info {
    int32_t rank;            /* rank number (index into run->ranks) */
    int32_t thread;          /* thread index within the rank */
    const char *thread_name; /* run's thread name, or NULL */
    int32_t depths;          /* number of depth rows (max depth + 1) */
    uint64_t ncalls;         /* calls in this lane */
    int64_t first_ns, last_ns; /* its first start and last end, run time */
    bool has_index;          /* a level-of-detail index exists */
    int64_t index_bin_ns;    /* its finest bins' width (0: no index): a view
                                of at least as many bins as pixels draws
                                from the index as exactly as from calls */
} sp_timeline_lane_info;

/* Fill *out for lane index lane. 0 or SP_EINVAL (out of range). */
int sp_timeline_lane_info_get(const sp_timeline *tl, size_t lane,
                              sp_timeline_lane_info *out);

/* The lane of (rank, thread), or -1. O(log lanes). */
int64_t sp_timeline_find_lane(const sp_timeline *tl, int32_t rank, int32_t thread);

/* ---- windows of calls ---- */

/* A window of one lane's calls prepared for drawing (rows per depth and
 * their merge levels). */
typedef struct sp_timeline_calls sp_timeline_calls;

/*
 * Prepare window w (loaded by the caller for one of tl's lanes; taken: it
 * is freed with the result, also on failure) for drawing in tl. Reads only
 * tl's immutable fields, so it may run in a worker thread while tl is
 * drawn. NULL with sp_last_error() on SP_ENOMEM or SP_EINVAL (no such lane
 * in tl).
 */
sp_timeline_calls *sp_timeline_calls_new(const sp_timeline *tl, struct sp_window *w);
void sp_timeline_calls_free(sp_timeline_calls *c);
/* Memory the prepared window holds, window included (bytes). */
size_t sp_timeline_calls_bytes(const sp_timeline_calls *c);
/* The window it was made from. */
const struct sp_window *sp_timeline_calls_window(const sp_timeline_calls *c);

/* Give lane `lane` its calls (taken; the lane's previous window is freed;
 * NULL only frees it). Not while tl is drawn. 0 or SP_EINVAL (c belongs to
 * another lane: freed). */
int sp_timeline_set_calls(sp_timeline *tl, size_t lane, sp_timeline_calls *c);

/* The window a lane draws from, or NULL. */
const struct sp_window *sp_timeline_lane_window(const sp_timeline *tl, size_t lane);

/* Whether the lane's window holds every call of the lane overlapping
 * [t0_ns, t1_ns] (run time; clipped to the lane's span first). */
bool sp_timeline_lane_covered(const sp_timeline *tl, size_t lane, int64_t t0_ns, int64_t t1_ns);

/* ---- views ---- */

/* How lanes are laid out. */
typedef enum sp_timeline_lanes {
    SP_TIMELINE_LANES_AUTO = 0, /* detail when every lane fits the height at
                                   one row, else the overview */
    SP_TIMELINE_LANES_DETAIL,   /* a row per depth; lanes scroll */
    SP_TIMELINE_LANES_OVERVIEW  /* one thin row per lane, all on one screen */
} sp_timeline_lanes;

/* A line drawn over the lanes between two points, e.g. an MPI message
 * from its send to its receive: from (rank, thread) at from_ns to (rank,
 * thread) at to_ns, run time, each at the middle of its lane's top row.
 * Lanes not drawn (scrolled away) clip it. The caller passes the lines of
 * the visible range (view.arrows). */
typedef struct sp_timeline_arrow {
    int32_t from_rank, from_thread;
    int64_t from_ns;
    int32_t to_rank, to_thread;
    int64_t to_ns;
    sp_rgba color;            /* a = 0: the theme's foreground */
} sp_timeline_arrow;

/* A call named independently of any window (a window reloaded after a
 * pan gives the same call another index): its lane, depth and bounds. */
typedef struct sp_timeline_call_ref {
    int32_t rank, thread;
    int32_t depth;            /* < 0: none */
    int64_t start_ns, end_ns; /* run time */
} sp_timeline_call_ref;

/* What part of the timeline to draw and how. Initialise with
 * sp_timeline_view_init(). */
typedef struct sp_timeline_view {
    int64_t t0_ns, t1_ns;     /* visible window in run time (ns); t1 <= t0
                                 means the whole run. Values outside the run
                                 are allowed (pan past the ends). */
    double scroll_y;          /* lanes scrolled up by this many user units
                                 (0 = first lane at the top); the time axis
                                 stays fixed. Clamped when drawing. Detail
                                 only. */
    sp_timeline_lanes lanes;  /* detail, overview or automatic (default) */
    int32_t highlight_region; /* region id drawn normally while every other
                                 region is faded; -1 = none. */
    sp_timeline_call_ref selected; /* drawn with a strong outline (whether
                                 its lane draws from a window or the
                                 index); depth -1 = none */
    bool show_lane_labels;    /* left column "rank 0 / main" (default true) */
    bool show_axis;           /* time axis with grid at the top (default true) */
    bool show_legend;         /* legend of the regions drawn, under the lanes
                                 (default true) */
    bool note_hidden_lanes;   /* in detail, when lanes do not fit the
                                 height, say which ranks are not shown and
                                 how to see them (default true; a scrolling
                                 view turns it off) */
    const sp_timeline_arrow *arrows; /* lines over the lanes (borrowed) */
    size_t narrows;
} sp_timeline_view;

/* Defaults: whole run, no scroll, automatic lanes, nothing highlighted or
 * selected, labels, axis, legend and the hidden-lanes note shown, no
 * arrows. tl may be NULL. */
void sp_timeline_view_init(sp_timeline_view *view, const sp_timeline *tl);

/* Counters from one draw (for tests and the benchmark). */
typedef struct sp_timeline_stats {
    size_t boxes;        /* rectangles filled (calls + merged boxes) */
    size_t merged_boxes; /* of which level-of-detail merges of several calls */
    size_t labels;       /* region names drawn inside boxes */
    size_t lanes_drawn;  /* lanes at least partly visible */
    size_t rows_drawn;   /* (lane, depth) rows visible (overview: lane rows) */
    size_t entries;      /* index entries visited (calls, merged runs, bins) */
    size_t window_rows;  /* of the rows, drawn from a window of calls */
    size_t index_rows;   /* drawn from the level-of-detail index */
    size_t pending_rows; /* drawn as a band: neither was there */
    bool overview;       /* the lanes were drawn as the overview */
} sp_timeline_stats;

/* Draw the view in (0, 0, w, h). 0 or SP_EINVAL. */
int sp_timeline_draw(cairo_t *cr, double w, double h, const sp_timeline *tl,
                     const sp_timeline_view *view, const sp_plot_style *st);

/* Same, filling *stats (may be NULL). */
int sp_timeline_draw_ex(cairo_t *cr, double w, double h, const sp_timeline *tl,
                        const sp_timeline_view *view, const sp_plot_style *st,
                        sp_timeline_stats *stats);

/* Geometry of a drawn timeline, for the viewer's zoom, pan and scrollbars. */
typedef struct sp_timeline_geometry {
    double data_x, data_y, data_w, data_h; /* area where calls are drawn */
    double content_h;   /* height of all lanes (scroll range = content_h -
                           data_h when positive; data_h in the overview) */
    double row_h;       /* height of one depth row (overview: of a lane) */
    bool overview;      /* the lanes are laid out as the overview */
} sp_timeline_geometry;

/* Fill *g for a draw of size w x h. 0 or SP_EINVAL. */
int sp_timeline_get_geometry(const sp_timeline *tl, double w, double h,
                             const sp_timeline_view *view,
                             const sp_plot_style *st, sp_timeline_geometry *g);

/* Lanes drawn whole in a draw of size w x h with this view and style (the
 * others are scrolled away or do not fit: the draw names them when
 * view->note_hidden_lanes). The overview draws every lane (sampled). */
size_t sp_timeline_lanes_shown(const sp_timeline *tl, double w, double h,
                               const sp_timeline_view *view, const sp_plot_style *st);

/* The lanes a draw of this size, view and style shows (at least partly),
 * in order, into lanes[0 .. max); returns how many there are (may exceed
 * max). What a caller loads windows for. */
size_t sp_timeline_visible_lanes(const sp_timeline *tl, double w, double h,
                                 const sp_timeline_view *view, const sp_plot_style *st,
                                 size_t *lanes, size_t max);

/* Run time (ns) at x, and x of a run time, for a draw of width w (uses the
 * same geometry as sp_timeline_draw; x outside the data area extrapolates). */
double sp_timeline_x_to_ns(const sp_timeline *tl, double w, double h,
                           const sp_timeline_view *view,
                           const sp_plot_style *st, double x);
double sp_timeline_ns_to_x(const sp_timeline *tl, double w, double h,
                           const sp_timeline_view *view,
                           const sp_plot_style *st, double t_ns);

/* Content y (before scrolling) of a lane's top in the detail layout: to
 * scroll a lane into view. */
double sp_timeline_lane_y(const sp_timeline *tl, double w, double h,
                          const sp_timeline_view *view, const sp_plot_style *st,
                          size_t lane);

typedef enum sp_timeline_hit_kind {
    SP_TIMELINE_HIT_NONE = 0, /* outside everything */
    SP_TIMELINE_HIT_AXIS,     /* on the time axis (t_ns is set) */
    SP_TIMELINE_HIT_LANE,     /* in a lane (label column, empty space, or
                                 the overview: rank, thread and lane set) */
    SP_TIMELINE_HIT_CALL,     /* on a call of the lane's window, or on a
                                 merged box of it: the call nearest to x
                                 within half a pixel */
    SP_TIMELINE_HIT_INDEX     /* on a box of the level-of-detail index: its
                                 region is known, not the call (load a
                                 window there to find it) */
} sp_timeline_hit_kind;

typedef struct sp_timeline_hit_info {
    sp_timeline_hit_kind kind;
    size_t lane;          /* lane index (LANE, CALL, INDEX) */
    int32_t rank;         /* rank and thread index of the lane */
    int32_t thread;
    int32_t depth;        /* depth row under y (CALL, INDEX; LANE: -1) */
    int64_t call;         /* index in the lane's window (CALL), or -1 */
    int32_t region;       /* region id of the call or box, or -1 */
    int64_t start_ns, end_ns; /* the call's bounds, run time (CALL) */
    int64_t t_ns;         /* run time at x (AXIS, LANE, CALL, INDEX) */
} sp_timeline_hit_info;

/* What is under (x, y) in a draw of size w x h with this view and style.
 * Returns the kind (also stored in out->kind); out may not be NULL. A call is
 * hit when it covers x within half a pixel, so a call thinner than a pixel
 * can still be picked. Costs O(log lanes + log calls). */
sp_timeline_hit_kind sp_timeline_hit(const sp_timeline *tl, double w, double h,
                                     const sp_timeline_view *view,
                                     const sp_plot_style *st, double x, double y,
                                     sp_timeline_hit_info *out);

/* ------------------------------------------------------------------ */
/* Per-rank bars and the rank x region heat map                        */
/* ------------------------------------------------------------------ */

/* Which per-rank statistic (from run->regions[i].per_rank) to show. */
typedef enum sp_rank_metric {
    SP_RANK_TOTAL = 0, /* total inclusive time per rank (default) */
    SP_RANK_MEAN,      /* mean time per call */
    SP_RANK_OWN,       /* own (exclusive) time */
    SP_RANK_CALLS      /* number of calls */
} sp_rank_metric;

/* Parse "total", "mean", "own", "calls". 0 or SP_EINVAL. */
int sp_rank_metric_parse(const char *s, sp_rank_metric *out);

/*
 * One bar per rank for region (a region id) in the region's colour, with a
 * dashed line at the mean over ranks, the slowest rank marked, and the
 * imbalance (max / mean) in the subtitle. Needs an analysed run. A region
 * with no calls on any rank draws the empty state.
 */
int sp_plot_rank_bars(cairo_t *cr, double w, double h, const sp_run *run,
                      int32_t region, sp_rank_metric metric,
                      const sp_plot_style *st);

/* Waiting in MPI per rank (the rank that waited), stacked by pattern, with
 * the largest wait and its cause as subtitle (analysis/sp_waits.h). waits
 * NULL: an empty chart saying the run recorded no MPI messages.
 * 0 or SP_EINVAL / SP_ENOMEM. */
struct sp_waits;
int sp_plot_waits(cairo_t *cr, double w, double h, const struct sp_waits *waits,
                  const sp_plot_style *st);

/*
 * A heat map with one row per rank and one column per region: each cell is
 * coloured by how far the rank's value lies from that region's mean over
 * ranks, on a diverging scale (red above the mean, blue below, neutral
 * within 2%; the scale spans the largest deviation shown, at least 10%), so
 * every column shows its own imbalance; cells carry the value when it fits.
 * regions: the region ids to show, in order; NULL shows every region with
 * calls, sorted by total time descending, as many as fit the width (at least
 * ~40 units per column at scale 1). Needs an analysed run.
 */
int sp_plot_rank_heatmap(cairo_t *cr, double w, double h, const sp_run *run,
                         sp_rank_metric metric, const int32_t *regions,
                         size_t nregions, const sp_plot_style *st);

/* ------------------------------------------------------------------ */
/* Call tree as an icicle graph                                        */
/* ------------------------------------------------------------------ */

/* What part of the merged call tree (run->tree) to draw. */
typedef struct sp_calltree_view {
    int32_t root_node;        /* node drawn full width (zoom); 0 = the root */
    int32_t highlight_region; /* region id drawn normally, others faded; -1 */
    int32_t selected_node;    /* node outlined; -1 = none */
    double scroll_y;          /* rows scrolled up (user units) */
    bool flame;               /* true: root at the bottom (flame graph);
                                 false (default): root at the top (icicle) */
    bool show_legend;         /* legend of the regions drawn (default true) */
    const struct sp_figures *figures; /* per-rank figures of the run for the
                                 labels (sp_figures.h; borrowed): NULL =
                                 computed for each draw */
} sp_calltree_view;

void sp_calltree_view_init(sp_calltree_view *view);

/*
 * Icicle of inclusive time: each node is a box whose width is its share of
 * the zoom root's inclusive time, children left to right by time (the tree's
 * order) under their parent, labelled "name  1.23 s · 45.6%" when it fits;
 * with several ranks (or threads running a region) the time is per rank
 * under the rank rule, "name  154 ms/rank · 45.6%". A legend of the regions
 * drawn sits under the boxes.
 * The ancestors of a zoomed root are drawn as thin full-width bars above it
 * (click them to zoom out). Boxes under a pixel are not drawn. Needs an
 * analysed run.
 */
int sp_plot_calltree(cairo_t *cr, double w, double h, const sp_run *run,
                     const sp_calltree_view *view, const sp_plot_style *st);

/* The tree node under (x, y) for the same w, h, view and style, or -1.
 * Ancestor bars of a zoomed root return the ancestor's node. */
int32_t sp_plot_calltree_hit(const sp_run *run, double w, double h,
                             const sp_calltree_view *view,
                             const sp_plot_style *st, double x, double y);

/* ------------------------------------------------------------------ */
/* Durations of one region                                             */
/* ------------------------------------------------------------------ */

/*
 * Histogram of the call durations of region on rank (-1 = all ranks, after
 * nothing more than taking end - start). The x axis is logarithmic when the
 * durations span more than two decades (max / min > 100), linear otherwise;
 * markers show the median and p95. Empty state when the region has no calls.
 */
int sp_plot_histogram(cairo_t *cr, double w, double h, const sp_run *run,
                      int32_t region, int32_t rank, const sp_plot_style *st);

/*
 * Duration over time: one point per call at (start in run time, duration),
 * for rank (-1 = all ranks; then points are coloured per rank with a legend,
 * otherwise in the region's colour). The y axis is logarithmic when the
 * durations span more than two decades. Many calls are reduced per pixel
 * column (min / max / mean), so millions of calls draw quickly.
 */
int sp_plot_duration_time(cairo_t *cr, double w, double h, const sp_run *run,
                          int32_t region, int32_t rank, const sp_plot_style *st);

/*
 * The two charts above read every call of the run; a prepared series does
 * that once. sp_region_series_new() collects region's calls on rank (-1 =
 * all ranks) with their durations sorted (for the histogram's bins and
 * percentiles) and their (start, duration) points per rank sorted by start
 * with a min/max summary per block of points (for the duration-over-time
 * envelope), so a redraw costs O(bins * log n) and O(n / 64 + pixels * 64)
 * instead of O(calls in the run). About 16 bytes per call of the region.
 * NULL with sp_last_error() on NULL run, region out of range (SP_EINVAL) or
 * out of memory. A rank without calls gives a valid empty series.
 *
 * sp_plot_histogram() and sp_plot_duration_time() use an internal cache of
 * series (the 4 most recently used, at most ~512 MB) keyed by the run pointer,
 * region, rank and a fingerprint of the run's call columns, guarded by a
 * mutex, so redraws (resize, theme) of a big region are fast from any thread.
 * Call sp_plot_cache_forget(run) before freeing a run that was drawn, to
 * release its memory at once (it is otherwise evicted later, and the
 * fingerprint keeps a new run at the same address from hitting it).
 */
typedef struct sp_region_series sp_region_series;

sp_region_series *sp_region_series_new(const sp_run *run, int32_t region,
                                       int32_t rank);
/* Release a series (NULL allowed). Thread-safe: a series is reference
 * counted, shared by the cache and the draws using it. */
void sp_region_series_free(sp_region_series *s);
/* Calls in the series. */
size_t sp_region_series_count(const sp_region_series *s);

/* The charts above drawn from a prepared series (same output). A series may
 * be drawn from several threads at once. 0 or SP_EINVAL / SP_ENOMEM. */
int sp_plot_histogram_series(cairo_t *cr, double w, double h,
                             const sp_region_series *s, const sp_plot_style *st);
int sp_plot_duration_time_series(cairo_t *cr, double w, double h,
                                 const sp_region_series *s,
                                 const sp_plot_style *st);

/* Drop the cached series of run (NULL = every cached series). Series still
 * being drawn are freed when their draw ends. */
void sp_plot_cache_forget(const sp_run *run);

/* ------------------------------------------------------------------ */
/* Comparison of two runs                                              */
/* ------------------------------------------------------------------ */

/*
 * The comparison model (analysis/sp_compare.h) as a chart: per region a row
 * with its time per rank on both sides ("12.3 ms -> 15.1 ms") and the change
 * in percent as a dot with its confidence interval against the shaded
 * +-budget band (a forest plot), coloured by verdict: slower red, faster
 * green, within noise grey, not comparable a hollow dot at the observed
 * change, new / removed an arrow at the axis end. The subtitle is the
 * model's tally of every entry (sp_compare_tally_text) and its mode, so it
 * reads as `diff`, `check`, the report and the viewer do, whatever rows are
 * drawn. rows[0..nrows) are the entries to draw, in that order (NULL: every
 * entry in model order); rows that do not fit become "+ N more". Labels
 * NULL: "base" / "candidate". 0 or SP_EINVAL / SP_ENOMEM.
 */
typedef struct sp_compare sp_compare;
int sp_plot_comparison(cairo_t *cr, double w, double h, const sp_compare *cmp,
                       const size_t *rows, size_t nrows, const char *base_label,
                       const char *cand_label, const sp_plot_style *st);

/*
 * A scaling study (analysis/sp_scaling.h): speedup (left) and parallel
 * efficiency (right) against the rank or thread count on a log2 axis, with
 * the ideal lines (dashed), the efficiency floor, the whole run in bold and
 * the max_regions largest regions in their colours; the subtitle names the
 * regions that stop scaling. 0 or SP_EINVAL / SP_ENOMEM.
 */
typedef struct sp_scaling sp_scaling;
int sp_plot_scaling(cairo_t *cr, double w, double h, const sp_scaling *s,
                    size_t max_regions, const sp_plot_style *st);

/* ------------------------------------------------------------------ */
/* Export                                                              */
/* ------------------------------------------------------------------ */

typedef enum sp_plot_format {
    SP_PLOT_PNG = 0,
    SP_PLOT_SVG,
    SP_PLOT_PDF
} sp_plot_format;

/* Parse "png", "svg", "pdf" (case-insensitive). 0 or SP_EINVAL. */
int sp_plot_format_parse(const char *s, sp_plot_format *out);

/* The format from a path's extension (.png .svg .pdf, case-insensitive).
 * 0 or SP_EINVAL ("cannot tell the format of 'x.jpg' ..."). */
int sp_plot_format_from_path(const char *path, sp_plot_format *out);

/* "png", "svg", "pdf". */
const char *sp_plot_format_name(sp_plot_format fmt);

/* A drawing callback: draw into (0, 0, w, h); return 0 or a negative SP_E*
 * code (which aborts the export). */
typedef int (*sp_plot_draw_fn)(cairo_t *cr, double w, double h, void *data);

/*
 * Draw one chart into a file: PNG of ceil(w) x ceil(h) pixels (use
 * sp_plot_style.scale for a higher resolution), or an SVG / PDF page of
 * w x h points. Written to a temporary file in the same directory and
 * renamed into place, so path is either the old file or the complete new
 * one. Returns 0, the callback's error, SP_EINVAL (bad arguments), or SP_EIO
 * with sp_last_error() naming the path and cairo's reason.
 */
int sp_plot_export(const char *path, sp_plot_format fmt, double w, double h,
                   sp_plot_draw_fn draw, void *data);

#ifdef __cplusplus
}
#endif

#endif /* SP_PLOTS_H */
