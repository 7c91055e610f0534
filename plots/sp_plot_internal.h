/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_internal.h - helpers shared by every chart of plots/: the drawing
 * canvas (theme, DPI scale, one reusable Pango layout), text measuring and
 * ellipsizing, number and time formatting, 1-2-5 ticks and axes, titles and
 * legends. Charts never hard-code sizes: they use c->s (scale) and c->fs
 * (base font size in user units) from here.
 */
#ifndef SP_PLOT_INTERNAL_H
#define SP_PLOT_INTERNAL_H

#include <pango/pangocairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "sp_hist.h"
#include "sp_plots.h"

/* ---- theme (sp_plot_color.c) ---- */

typedef struct sp__theme {
    sp_rgba bg;      /* chart background */
    sp_rgba fg;      /* titles, labels */
    sp_rgba muted;   /* tick labels, secondary text */
    sp_rgba grid;    /* grid lines */
    sp_rgba axis;    /* axis lines and tick marks */
    sp_rgba band;    /* alternating lane / row background */
    sp_rgba select;  /* selection outline */
    sp_rgba good;    /* "faster" */
    sp_rgba bad;     /* "slower" */
    sp_rgba neutral; /* merged boxes, "no change" */
} sp__theme;

void sp__theme_get(bool dark, sp__theme *th);
void sp__set_color(cairo_t *cr, sp_rgba c);
/* Linear mix: t = 0 gives a, t = 1 gives b. */
sp_rgba sp__mix(sp_rgba a, sp_rgba b, double t);
/* Palette index (0 .. SP__PALETTE_N-1) of a region name. */
int sp__palette_index(const char *name);
/* Palette colour by index for a theme. */
sp_rgba sp__palette_color(int index, bool dark);
#define SP__PALETTE_N SP_PALETTE_SIZE

/* ---- canvas (sp_plot_canvas.c) ---- */

typedef enum sp__font {
    SP__FONT_BODY = 0, /* labels */
    SP__FONT_SMALL,    /* ticks, secondary */
    SP__FONT_BOLD,     /* lane names, emphasised labels */
    SP__FONT_TITLE,    /* chart title */
    SP__FONT_NFONTS
} sp__font;

typedef struct sp__canvas {
    cairo_t *cr;
    double w, h;          /* chart size in user units */
    double s;             /* DPI scale (style.scale) */
    double fs;            /* base font size in user units (font_size * scale) */
    sp_plot_style style;  /* a copy with defaults filled in */
    sp__theme th;
    PangoLayout *layout;  /* one layout reused for every text */
    PangoFontDescription *fonts[SP__FONT_NFONTS];
    double line_h[SP__FONT_NFONTS]; /* logical line height of each font */
    int cur_font;
    sp_color_map *own_colors; /* built for the run drawn when style.colors is NULL */
    bool colors_failed;       /* building it failed: hash colours */
} sp__canvas;

/* The colour of region `name` of run in this chart: style.colors, else a
 * map built (once per canvas) for run. (sp_plot_color.c) */
sp_rgba sp__region_color(sp__canvas *c, const sp_run *run, const char *name);

/* Save cr, clip to (0, 0, w, h), paint the background unless
 * st->no_background, and prepare fonts. st may be NULL (defaults).
 * Returns 0 or SP_ENOMEM (then nothing needs ending). */
int sp__canvas_begin(sp__canvas *c, cairo_t *cr, double w, double h,
                     const sp_plot_style *st);
/* Restore cr and free the text objects. */
void sp__canvas_end(sp__canvas *c);

/* ---- text (sp_plot_text.c) ---- */

/* Size of text in font f (logical extents), in user units. */
void sp__text_size(sp__canvas *c, sp__font f, const char *text, double *w,
                   double *h);
double sp__text_width(sp__canvas *c, sp__font f, const char *text);

/*
 * Draw text with its anchor at (x, y): ax = 0 left, 0.5 centre, 1 right of
 * the text at x; ay likewise vertically (0 top, 0.5 middle, 1 bottom). When
 * max_w > 0 and the text is wider, it is ellipsized at the end; when not even
 * two characters and an ellipsis fit, nothing is drawn. Returns the width
 * drawn (0 when nothing was drawn).
 */
double sp__text_draw(sp__canvas *c, sp__font f, const char *text, double x,
                     double y, double ax, double ay, double max_w, sp_rgba col);

/* Same, rotated 90 degrees counter-clockwise (reading bottom to top); the
 * anchor refers to the rotated text box as seen on the page. */
void sp__text_draw_vertical(sp__canvas *c, sp__font f, const char *text,
                            double x, double y, double ax, double ay,
                            double max_h, sp_rgba col);

/* The same for a region name: one too wide loses its middle, not its end
 * ("Domain::kern…CalcForces"), so names that share a prefix stay apart. */
double sp__name_draw(sp__canvas *c, sp__font f, const char *name, double x, double y,
                     double ax, double ay, double max_w, sp_rgba col);
void sp__name_draw_vertical(sp__canvas *c, sp__font f, const char *name, double x,
                            double y, double ax, double ay, double max_h, sp_rgba col);

/* ---- formatting (sp_plot_format.c) ---- */

/* Unit for time values up to max_abs_s: "ns", "µs", "ms" or "s" and its size
 * in seconds. */
void sp__time_unit(double max_abs_s, double *unit_s, const char **name);
/* A time tick value v (seconds) in unit (from sp__time_unit) with the
 * decimals the step needs. */
void sp__format_time_tick(double v_s, double step_s, double unit_s,
                          const char *unit_name, char *buf, size_t n);
/* A plain number with SI suffix for large values ("1.5k", "2M") and the
 * decimals the step needs (step <= 0: 3 significant digits). */
void sp__format_number(double v, double step, char *buf, size_t n);
/* A percentage change "+12.3%" / "-4.0%" / "0.0%"; from +900 % (10 times
 * as long) a ratio, "×10.0" / "×2716", which stays short ("+27157211%"
 * ran off the compare chart). */
#define SP__PERCENT_AS_RATIO 900.0
void sp__format_percent(double pct, char *buf, size_t n);

/* ---- ticks and axes (sp_plot_axes.c) ---- */

#define SP__MAX_TICKS 64

typedef enum sp__axis_kind {
    SP__AXIS_TIME = 0, /* values are seconds */
    SP__AXIS_NUMBER    /* plain numbers (counts, ratios) */
} sp__axis_kind;

typedef struct sp__axis {
    double lo, hi;      /* data range shown (log: both > 0) */
    bool log;           /* logarithmic (base 10) */
    sp__axis_kind kind;
    bool integer;       /* counts: no ticks between whole numbers */
    double p0, p1;      /* pixel positions of lo and hi */
} sp__axis;

typedef struct sp__ticks {
    int n;
    double v[SP__MAX_TICKS];
    bool major[SP__MAX_TICKS]; /* labelled (log axes have unlabelled minors) */
    char label[SP__MAX_TICKS][40];
} sp__ticks;

/* The 1-2-5 step closest to span / target_count. */
double sp__nice_step(double span, double target_count);
/* Extend [*lo, *hi] outward to multiples of a nice step (linear). */
void sp__nice_range(double *lo, double *hi, double target_count);
/* Ticks for an axis with about `target` labels. */
void sp__axis_ticks(const sp__axis *a, double target, sp__ticks *t);
/* Ticks for a horizontal axis of length len whose labels do not collide. */
void sp__axis_ticks_fit(sp__canvas *c, const sp__axis *a, double len, sp__ticks *t);
/* Pixel position of v on the axis (log axes clamp v to > 0). */
double sp__axis_map(const sp__axis *a, double v);
/* Inverse of sp__axis_map. */
double sp__axis_unmap(const sp__axis *a, double p);

/* A plot rectangle. */
typedef struct sp__rect {
    double x, y, w, h;
} sp__rect;

/* Draw a horizontal axis under r (tick marks, labels, optional vertical grid
 * lines across r, optional caption below). Returns the ticks used. */
void sp__axis_draw_x(sp__canvas *c, const sp__axis *a, sp__rect r, bool grid,
                     const char *caption, sp__ticks *out);
/* Draw a vertical axis left of r (labels right-aligned), grid across r. */
void sp__axis_draw_y(sp__canvas *c, const sp__axis *a, sp__rect r, bool grid,
                     const char *caption, sp__ticks *out);
/* Width the labels of a y axis need (for the left margin). */
double sp__axis_y_label_width(sp__canvas *c, const sp__axis *a);

/* Height a horizontal axis (ticks + labels + optional caption) takes. */
double sp__axis_x_height(sp__canvas *c, bool caption);

/* Draw the chart title (style.title overrides def) and an optional muted
 * subtitle at the top; returns the y where the content may start. */
double sp__draw_title(sp__canvas *c, const char *def_title, const char *subtitle);

/* One legend entry: a swatch (filled box, or a dashed line when dashed). */
typedef struct sp__legend_item {
    const char *label;
    sp_rgba color;
    bool dashed;
} sp__legend_item;

/* Lay a legend out in rows right-aligned at (x_right, y), never wider than
 * max_w; draws it when draw is true. Returns its height. */
double sp__legend(sp__canvas *c, const sp__legend_item *items, size_t n,
                  double x_right, double y, double max_w, bool draw);

/* The legend of the regions of run with shown[g] (nregions flags): left-
 * aligned rows from (x, y), at most w wide and max_rows rows, ordered by
 * map m (the most time first), coloured as the chart (sp__region_color);
 * entries that do not fit become a final "+ N more". Returns the entries
 * drawn. (sp_plot_region_legend.c) */
size_t sp__region_legend(sp__canvas *c, const sp_run *run, const bool *shown,
                         const sp_color_map *m, double x, double y, double w, int max_rows);
/* Height of max_rows legend rows. */
double sp__region_legend_height(const sp__canvas *c, int max_rows);

/* Pixel-snap: round to the nearest whole user unit (crisp 1-unit lines sit
 * at .5 offsets; boxes at whole units). */
double sp__snap(double v);

/* Empty-state message drawn on an open canvas. */
void sp__draw_empty_msg(sp__canvas *c, const char *message);

/* Rank numbers under n bars filling r (a base line at y = bottom): as many
 * as fit, `highlight` always and in bold (SIZE_MAX: none), the caption
 * below. (sp_plot_rank_bars.c) */
void sp__rank_labels(sp__canvas *c, sp__rect r, double bottom, size_t n, size_t highlight,
                     const char *caption);

/* ---- region series (sp_region_series.c) ---- */

/* A call of a series: start in run time (s) and duration (s). float is
 * plenty for pixel positions and halves the memory of doubles. */
typedef struct sp__pt {
    float x, y;
} sp__pt;

#define SP__SERIES_BLOCK 64

/* A bin of duration over time from the aggregates: calls that started in
 * [x0, x1) (run time, s), their shortest, longest and mean duration (s). */
typedef struct sp__bin {
    float x0, x1;
    float ymin, ymax, ymean;
    uint64_t calls;
} sp__bin;

struct sp_region_series {
    int refs;              /* guarded by the cache mutex */
    int32_t region, rank;  /* rank -1 = all ranks */
    char *name;            /* region name (copied: drawing never reads the run) */
    int color_slot;        /* its palette slot in the run's colour map */
    size_t run_nranks;
    int64_t span_ns;       /* run duration over every call (run time axis) */
    size_t n;
    int64_t *dur;          /* n durations (ns), ascending */
    double sum_ns;         /* sum of dur */
    sp__pt *pt;            /* n points grouped by rank, each group by start */
    size_t ngroups;
    int32_t *group_rank;   /* rank of each group (ascending) */
    size_t *group_off;     /* ngroups + 1 offsets into pt */
    size_t nblocks;        /* blocks of <= SP__SERIES_BLOCK points within a group */
    size_t *block_off;     /* nblocks + 1 offsets into pt */
    float *block_ymin, *block_ymax;
    size_t bytes;          /* memory held (for the cache bound) */
    /* A run read aggregate-first holds no calls: its series comes from the
     * pass (sp_agg.h), dur and pt are NULL and instead: */
    bool from_agg;
    sp_hist hist;          /* the call durations (n = hist.count) */
    size_t nbins;          /* duration over time, per bin of start time */
    sp__bin *bins;         /* (SP_AGG_SERIES; nbins 0 without it) */
    bool bins_all_ranks;   /* the bins cover more ranks than the series' one */
};

/* The region colour of a series' chart: style.colors, else the slot the
 * run's own map gave it when the series was built. (sp_region_series.c) */
sp_rgba sp__series_color(const sp__canvas *c, const sp_region_series *s);

/* A series of (run, region, rank) from the cache, building and caching it on
 * a miss; release with sp_region_series_free(). NULL with err on failure. */
sp_region_series *sp__series_get(const sp_run *run, int32_t region, int32_t rank);

/* ---- charts of one region's series (sp_plot_series_chart.c) ---- */

typedef int (*sp__series_chart_fn)(cairo_t *cr, double w, double h, const sp_region_series *s,
                                   const sp_plot_style *st);

/* Draw chart for (run, region, rank) through the series cache: arguments
 * checked in the name of fn ("sp_plot_histogram"), a region out of range
 * drawn as an empty state. */
int sp__plot_series_chart(cairo_t *cr, double w, double h, const sp_run *run, int32_t region,
                          int32_t rank, const sp_plot_style *st, const char *fn,
                          sp__series_chart_fn chart);

/* Check the arguments of a series chart (in the name of fn) and open its
 * canvas c; 0 or SP_E* (nothing to close then). */
int sp__series_canvas_begin(sp__canvas *c, cairo_t *cr, double w, double h,
                            const sp_region_series *s, const sp_plot_style *st, const char *fn);

/* When s has no calls, draw the "No calls recorded ..." empty state on c
 * and return true. */
bool sp__series_draw_if_empty(sp__canvas *c, const sp_region_series *s);

/* Where s's calls come from, for subtitles: "on rank 3", "on 1 rank" or
 * "on all ranks", into buf; returns buf. */
const char *sp__series_where(const sp_region_series *s, char *buf, size_t size);

/* ---- internal counters for tests (sp_plot_stats.c) ---- */

typedef struct sp__plot_stats {
    size_t legend_items;      /* legend entries laid out and drawn */
    size_t legend_rows;       /* legend rows drawn */
    size_t legend_ellipsized; /* legend labels shortened with an ellipsis */
    size_t series_built;      /* region series built (cache misses) */
    size_t series_reused;     /* region series taken from the cache */
    double heatmap_below;     /* heat map colour scale: -below .. +above vs. the mean */
    double heatmap_above;
    size_t heatmap_values_shown;  /* cell values drawn (whole: never cut) */
    size_t heatmap_values_hidden; /* cell values left out: not even "332ms" fitted */
    size_t text_ellipsized;       /* any text drawn cut with an ellipsis */
} sp__plot_stats;

/* While set, draws on the calling thread add to *st (NULL stops). */
void sp__plot_stats_capture(sp__plot_stats *st);
/* The calling thread's counters, or NULL. */
sp__plot_stats *sp__plot_stats_active(void);

/* Per-rank metrics (sp_plot_rank_bars.c): the value of a statistic, its
 * label ("total time"), and its formatting (durations or counts). */
double sp__rank_metric_value(const sp_stats *s, sp_rank_metric m);
const char *sp__rank_metric_label(sp_rank_metric m);
void sp__format_metric(double v, sp_rank_metric m, char *buf, size_t n);
/* 0, or SP_EINVAL naming `what` when run is NULL or not analysed. */
int sp__check_analyzed(const sp_run *run, const char *what);

/* Region name or "?" for an id out of range. */
const char *sp__region_name(const sp_run *run, int32_t region);

#endif /* SP_PLOT_INTERNAL_H */
