/* SPDX-License-Identifier: MIT */
/* plot_charts.c - chart kinds of `plot` and the report, drawn with plots/. */
#include "plot_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_compare.h"
#include "sp_error.h"
#include "sp_scaling.h"
#include "sp_waits.h"

static const struct {
    const char *name, *desc;
    bool region;
} kinds[SP__CHART_COUNT] = {
    [SP__CHART_TIMELINE] = {"timeline",
                            "every call over time, one lane per rank and thread, "
                            "nested calls stacked",
                            false},
    [SP__CHART_FLAME] = {"flame",
                         "flame graph of the merged call tree (inclusive time, root "
                         "at the bottom)",
                         false},
    [SP__CHART_RANKS] = {"ranks",
                         "one region's total time per rank, with mean and imbalance "
                         "(--region)",
                         true},
    [SP__CHART_HEATMAP] = {"heatmap", "rank x region heat map of total time (--top-n regions)",
                           false},
    [SP__CHART_HISTOGRAM] = {"histogram",
                             "histogram of one region's call durations with median "
                             "and p95 (--region)",
                             true},
    [SP__CHART_TIMESERIES] = {"timeseries",
                              "one region's call durations over the run's time "
                              "(--region)",
                              true},
    [SP__CHART_COMPARE] = {"compare",
                           "per region the change of the time per rank with its interval "
                           "and verdict (two FILEs: base, candidate)",
                           false},
    [SP__CHART_SCALING] = {"scaling",
                           "speedup and parallel efficiency per region against the rank "
                           "count, ideal lines (two or more FILEs)",
                           false},
    [SP__CHART_WAITS] = {"waits",
                         "waiting in MPI per rank by pattern (late sender, collectives, ...), "
                         "runs with MPI messages",
                         false},
};

const char *sp__chart_name(sp__chart_kind k)
{
    return (unsigned)k < SP__CHART_COUNT ? kinds[k].name : "?";
}

const char *sp__chart_description(sp__chart_kind k)
{
    return (unsigned)k < SP__CHART_COUNT ? kinds[k].desc : "";
}

bool sp__chart_uses_region(sp__chart_kind k)
{
    return (unsigned)k < SP__CHART_COUNT && kinds[k].region;
}

#ifdef SP_HAVE_PLOTS
#include "sp_plots.h"
#endif

/* Charts with few rows would be mostly empty at a fixed height: estimate
 * the height their rows need (row sizes of plots/ at scale 1, generously;
 * the timeline measures itself) and keep it between MIN_FIT_H and max_h. */
#define MIN_FIT_H 220.0

#ifdef SP_HAVE_PLOTS
static const sp_run *timeline_run(const sp__chart_job *job)
{
    return job->timeline_run ? job->timeline_run : job->run;
}

/* The timeline has no default title; a saved image needs one to say what it
 * shows. The same style sizes the image (sp__chart_fit_height) and draws it. */
static sp_plot_style timeline_style(const sp__chart_job *job, const sp_plot_style *st, char *buf,
                                    size_t n)
{
    sp_plot_style out = *st;
    if (!st->title) {
        size_t nr = job->run->nranks, ng = job->run->nregions;
        snprintf(buf, n, "Timeline: %zu rank%s, %zu region%s%s%s", nr, nr == 1 ? "" : "s", ng,
                 ng == 1 ? "" : "s", job->timeline_note ? ": " : "",
                 job->timeline_note ? job->timeline_note : "");
        out.title = buf;
    }
    return out;
}
#endif

#ifdef SP_HAVE_PLOTS
/* The job's timeline: the one kept for it, else a new one (timeline_put
 * frees only that). */
static sp_timeline *timeline_get(const sp__chart_job *job)
{
    return job->timeline ? job->timeline : sp_timeline_new(timeline_run(job));
}

static void timeline_put(const sp__chart_job *job, sp_timeline *tl)
{
    if (tl != job->timeline)
        sp_timeline_free(tl);
}
#endif

void sp__chart_job_keep_timeline(sp__chart_job *job)
{
#ifdef SP_HAVE_PLOTS
    if (!job->timeline)
        job->timeline = sp_timeline_new(timeline_run(job));
#else
    (void)job;
#endif
}

void sp__chart_job_drop_timeline(sp__chart_job *job)
{
#ifdef SP_HAVE_PLOTS
    sp_timeline_free(job->timeline);
#endif
    job->timeline = NULL;
}

double sp__chart_fit_height(sp__chart_kind kind, const sp__chart_job *job, double w, double max_h)
{
    double need = max_h;
    const sp_run *run = job->run;
    if (kind == SP__CHART_TIMELINE) {
#ifdef SP_HAVE_PLOTS
        sp_timeline *tl = timeline_get(job);
        sp_timeline_view view;
        sp_timeline_view_init(&view, tl);
        sp_plot_style plain;
        sp_plot_style_init(&plain);
        plain.title = job->title;
        char title[400];
        sp_plot_style st = timeline_style(job, &plain, title, sizeof title);
        sp_timeline_geometry g;
        /* measured at a height where every lane fits: the bands under the
         * lanes (the legend) are then all that is below them */
        const double tall = 1e6;
        if (tl && sp_timeline_get_geometry(tl, w, tall, &view, &st, &g) == 0)
            need = g.data_y + g.content_h + (tall - g.data_y - g.data_h) + 8;
        timeline_put(job, tl);
#else
        (void)w;
#endif
        return need < 120 ? 120 : need > max_h ? max_h : need;
    }
    if (kind == SP__CHART_FLAME) {
        int32_t depth = 0;
        for (size_t k = 0; k < run->tree.nnodes; k++)
            depth = run->tree.nodes[k].depth > depth ? run->tree.nodes[k].depth : depth;
        /* The call tree's layout at the default style: a 62 px title band,
         * 19 px rows (root and depths 0..depth), 8 px bottom margin. A
         * shallow tree gets a short image rather than MIN_FIT_H of white. */
        need = 62 + 19.0 * (depth + 1) + 8 + 10 + 43 /* the legend band */;
        return need < 120 ? 120 : need > max_h ? max_h : need;
    } else if (kind == SP__CHART_HEATMAP) {
        need = 140 + 34.0 * (double)run->nranks;
    } else if (kind == SP__CHART_COMPARE && job->cand) {
        size_t n = 0;
        if (job->cmp) {
            n = job->cmp->n;
        } else {
            for (size_t g = 0; g < run->nregions; g++)
                n += run->regions[g].all.calls > 0;
            for (size_t g = 0; g < job->cand->nregions; g++)
                n += job->cand->regions[g].all.calls > 0 &&
                     sp_run_region_id(run, job->cand->region_names[g]) < 0;
        }
        if (job->top_n > 0 && (size_t)job->top_n < n)
            n = (size_t)job->top_n;
        /* title, subtitle, legend, axis with caption; rows of 1.75 x 12 px */
        need = 150 + 21.0 * (double)n;
    } else if (kind == SP__CHART_SCALING) {
        need = max_h < 560 ? max_h : 560;
    }
    return need < MIN_FIT_H ? MIN_FIT_H : need > max_h ? max_h : need;
}

#ifdef SP_HAVE_PLOTS

static int draw_timeline(cairo_t *cr, double w, double h, const sp__chart_job *job,
                         const sp_plot_style *st)
{
    sp_timeline *tl = timeline_get(job);
    if (!tl)
        return SP_ENOMEM;
    sp_timeline_view view;
    sp_timeline_view_init(&view, tl);
    if (job->timeline_note && job->timeline_t1_ns > 0) { /* a part of the run: its span */
        view.t0_ns = 0;
        view.t1_ns = job->timeline_t1_ns;
    }
    char title[400];
    sp_plot_style titled = timeline_style(job, st, title, sizeof title);
    int rc = sp_timeline_draw(cr, w, h, tl, &view, &titled);
    timeline_put(job, tl);
    return rc;
}

static int draw_heatmap(cairo_t *cr, double w, double h, const sp__chart_job *job,
                        const sp_plot_style *st)
{
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(job->run, SP_SORT_TOTAL, NULL, &ids);
    if (n < 0)
        return SP_ENOMEM;
    long kept = 0;
    for (long i = 0; i < n; i++)
        if (job->run->regions[ids[i]].all.calls)
            ids[kept++] = ids[i];
    /* Auto: let the chart fit as many as the width allows. */
    int rc;
    if (job->top_n <= 0)
        rc = sp_plot_rank_heatmap(cr, w, h, job->run, SP_RANK_TOTAL, NULL, 0, st);
    else
        rc = sp_plot_rank_heatmap(cr, w, h, job->run, SP_RANK_TOTAL, ids,
                                  (size_t)(kept < job->top_n ? kept : job->top_n), st);
    free(ids);
    return rc;
}

/* st with one colour map over runs[0..n) when st has none (compare and
 * scaling charts show several runs): *own is that map, for the caller to
 * free; NULL (n == 0, or no memory) leaves the hash colours. */
static sp_plot_style style_over_runs(const sp_plot_style *st, const sp_run *const *runs, size_t n,
                                     sp_color_map **own)
{
    sp_plot_style shared = *st;
    *own = NULL;
    if (!shared.colors && n)
        shared.colors = *own = sp_color_map_new(runs, n);
    return shared;
}

static int draw_compare(cairo_t *cr, double w, double h, const sp__chart_job *job,
                        const sp_plot_style *st)
{
    if (!job->cand && !job->cmp)
        return sp__error(SP_EINVAL, "compare needs two runs");
    sp_compare *own = NULL;
    const sp_compare *cmp = job->cmp;
    if (!cmp) {
        const sp_run *b = job->run, *c = job->cand;
        cmp = own = sp_compare_runs(&b, 1, &c, 1, NULL);
        if (!cmp)
            return SP_ENOMEM;
    }
    size_t n = cmp->n;
    if (job->top_n > 0 && (size_t)job->top_n < n)
        n = (size_t)job->top_n;
    size_t *rows = calloc(n + 1, sizeof *rows);
    const sp_run *both[2] = {job->run, job->cand};
    sp_color_map *own_colors = NULL;
    sp_plot_style shared = style_over_runs(st, both, job->cand ? 2 : 0, &own_colors);
    int rc = SP_ENOMEM;
    if (rows) {
        for (size_t i = 0; i < n; i++)
            rows[i] = i; /* model order: by impact */
        rc = sp_plot_comparison(cr, w, h, cmp, rows, n, job->base_label, job->cand_label, &shared);
    }
    sp_color_map_free(own_colors);
    free(rows);
    sp_compare_free(own);
    return rc;
}

static int draw_scaling(cairo_t *cr, double w, double h, const sp__chart_job *job,
                        const sp_plot_style *st)
{
    sp_scaling_options o;
    sp_scaling_options_init(&o);
    o.kind = job->scaling_kind;
    sp_scaling *s = sp_scaling_study(job->runs, job->nruns, &o);
    if (!s)
        return SP_EINVAL;
    sp_color_map *own_colors = NULL;
    sp_plot_style shared = style_over_runs(st, job->runs, job->nruns, &own_colors);
    int rc = sp_plot_scaling(cr, w, h, s, job->top_n > 0 ? (size_t)job->top_n : 8, &shared);
    sp_color_map_free(own_colors);
    sp_scaling_free(s);
    return rc;
}

int sp__chart_draw(cairo_t *cr, double w, double h, sp__chart_kind k, const sp__chart_job *job)
{
    sp_plot_style st;
    sp_plot_style_init(&st);
    st.dark = job->dark;
    st.title = job->title;
    st.colors = job->colors;
    if (kinds[k].region && job->region < 0)
        return sp_plot_draw_empty(cr, w, h, &st, "No regions with calls in this run");
    switch (k) {
    case SP__CHART_TIMELINE:
        return draw_timeline(cr, w, h, job, &st);
    case SP__CHART_FLAME: {
        sp_calltree_view view;
        sp_calltree_view_init(&view);
        view.flame = true;
        return sp_plot_calltree(cr, w, h, job->run, &view, &st);
    }
    case SP__CHART_RANKS:
        return sp_plot_rank_bars(cr, w, h, job->run, job->region, SP_RANK_TOTAL, &st);
    case SP__CHART_HEATMAP:
        return draw_heatmap(cr, w, h, job, &st);
    case SP__CHART_HISTOGRAM:
        return sp_plot_histogram(cr, w, h, job->run, job->region, -1, &st);
    case SP__CHART_TIMESERIES:
        return sp_plot_duration_time(cr, w, h, job->run, job->region, -1, &st);
    case SP__CHART_COMPARE:
        return draw_compare(cr, w, h, job, &st);
    case SP__CHART_SCALING:
        return draw_scaling(cr, w, h, job, &st);
    case SP__CHART_WAITS: {
        sp_waits *waits = NULL;
        if (job->run->mpi && sp_waits_compute(job->run, &waits) != 0)
            return SP_ENOMEM;
        int rc = sp_plot_waits(cr, w, h, waits, &st);
        sp_waits_free(waits);
        return rc;
    }
    case SP__CHART_COUNT:
        break;
    }
    return sp__error(SP_EINVAL, "unknown chart kind");
}
#endif

size_t sp__chart_timeline_hidden(const sp__chart_job *job, double w, double h, size_t *nlanes)
{
    *nlanes = 0;
#ifdef SP_HAVE_PLOTS
    sp_timeline *tl = timeline_get(job);
    if (!tl)
        return 0;
    sp_timeline_view view;
    sp_timeline_view_init(&view, tl);
    sp_plot_style plain;
    sp_plot_style_init(&plain);
    plain.title = job->title;
    char title[400];
    sp_plot_style st = timeline_style(job, &plain, title, sizeof title);
    *nlanes = sp_timeline_lane_count(tl);
    size_t shown = sp_timeline_lanes_shown(tl, w, h, &view, &st);
    timeline_put(job, tl);
    return *nlanes - shown;
#else
    (void)job, (void)w, (void)h;
    return 0;
#endif
}
