/* SPDX-License-Identifier: MIT */
/*
 * plot_charts.h - the chart kinds of `scope-profiler plot` (and the charts
 * the HTML report embeds): names, descriptions, and one draw entry point
 * over plots/sp_plots.h.
 */
#ifndef PLOT_CHARTS_H
#define PLOT_CHARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sp_model.h"
#include "sp_scaling.h"

typedef enum sp__chart_kind {
    SP__CHART_TIMELINE = 0,
    SP__CHART_FLAME,
    SP__CHART_RANKS,
    SP__CHART_HEATMAP,
    SP__CHART_HISTOGRAM,
    SP__CHART_TIMESERIES,
    SP__CHART_COMPARE,
    SP__CHART_SCALING,
    SP__CHART_WAITS,
    SP__CHART_COUNT
} sp__chart_kind;

/* "timeline", "flame", ... (also the output file's base name). */
const char *sp__chart_name(sp__chart_kind k);
/* One line for `plot list`. */
const char *sp__chart_description(sp__chart_kind k);
/* Does the chart draw one region (--region)? */
bool sp__chart_uses_region(sp__chart_kind k);

/* What a chart draws. */
typedef struct sp__chart_job {
    const sp_run *run;                   /* analyzed (the base for compare) */
    const sp_run *cand;                  /* compare: the candidate (analyzed) */
    const char *base_label, *cand_label; /* compare legend (NULL: base / candidate) */
    int32_t region;                      /* region charts: region id in run, -1 = none */
    long top_n;        /* heatmap / compare: at most this many regions (0 = auto) */
    bool dark;         /* dark theme */
    const char *title; /* NULL: the chart's default title */
    const struct sp_compare *cmp; /* compare: the model to draw (NULL: compare
                                     run and cand with the defaults) */
    const sp_run *const *runs;    /* scaling: the study's runs */
    size_t nruns;
    sp_scaling_kind scaling_kind; /* scaling: strong, weak or detected (0) */
    /* Region colours (borrowed). NULL: one run's charts colour by that run;
     * compare and scaling charts make one map over the runs they show, so a
     * region has the same colour in every chart of a document. */
    const struct sp_color_map *colors;
    /* timeline: the run whose calls it draws (a run read aggregate-first
     * holds none: timeline_calls.h reads them), NULL = run; and what part
     * of the run that is ("the first 1.2 s of 30 s ...", NULL = all). */
    const sp_run *timeline_run;
    const char *timeline_note;
    int64_t timeline_t1_ns;  /* with a note: the part's end in run time */
    /* timeline: its lanes, built once by sp__chart_job_keep_timeline (the
     * fit, the hidden lanes and the drawing each built them: a pass over
     * every call, three times per chart); NULL: each use builds its own. */
    struct sp_timeline *timeline;
} sp__chart_job;

/* Build job's timeline once for every later use (NULL on failure: each use
 * builds its own then), and free it. */
void sp__chart_job_keep_timeline(sp__chart_job *job);
void sp__chart_job_drop_timeline(sp__chart_job *job);

#ifdef SP_HAVE_PLOTS
#include <cairo.h>
/* Draw chart k of job into (0, 0, w, h). 0 or a negative SP_E* code. */
int sp__chart_draw(cairo_t *cr, double w, double h, sp__chart_kind k, const sp__chart_job *job);
#endif

/* Lanes of job's timeline (of *nlanes) that a w x h chart leaves out (the
 * chart says which ranks and how to see them). */
size_t sp__chart_timeline_hidden(const sp__chart_job *job, double w, double h, size_t *nlanes);

/* A height for chart k of width w that fits its rows (timeline lanes, tree
 * levels, ranks, compared regions), at most max_h; other charts get max_h. */
double sp__chart_fit_height(sp__chart_kind k, const sp__chart_job *job, double w, double max_h);

#endif
