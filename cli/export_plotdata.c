/* SPDX-License-Identifier: MIT */
/*
 * export_plotdata.c - `export plot-data`: the numbers behind each chart of
 * `scope-profiler plot`, one CSV per chart plus summary.json, in a directory:
 *   timeline.csv    rank, thread, depth, region, start_s, end_s: every box of
 *                   the timeline / flame chart (run time: seconds since the
 *                   run's first call, after clock offsets); every call, or
 *                   those of --from/--to, streamed from the file
 *   flame.csv       the merged call tree: node, parent (-1: top level),
 *                   depth (0: top level), region, path ("a;b;c"), estimated,
 *                   calls, inclusive_s and own_s per rank (the mean over the
 *                   ranks), inclusive_max_rank_s (icicle / flame graph)
 *   ranks.csv       region, rank, calls, total_s, mean_s, own_s (rank bars)
 *   heatmap.csv     one row per rank, one column per region (largest total
 *                   first): total seconds (rank x region heat map)
 *   histogram.csv   region, bin, lo_s, hi_s, count: call-duration histograms,
 *                   log-spaced bins when the durations span more than two
 *                   decades (as the chart), Freedman-Diaconis bin count;
 *                   from the pass's histograms (a duration's bin within
 *                   0.8 %), every call counted
 *   timeseries.csv  region, rank, start_s, duration_s (duration over time)
 *   summary.json    the run (ranks, wall-clock span, the rank rule, sampling
 *                   period) and per region, the most time first: its colour
 *                   in every chart ("color": "#rrggbb", sp_colors.h), whether
 *                   its figures are estimates, calls, total and own per
 *                   rank (mean, and the slowest rank's total), the sum over
 *                   the ranks, per-call mean / p50 / p95 (null for
 *                   estimates) and the imbalance; and the list of files
 * Depth is 0 for a top-level call in every file.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_analysis_internal.h"
#include "sp_colors.h"
#include "sp_diff.h"
#include "sp_error.h"
#include "sp_figures.h"

typedef struct rows_out {
    FILE *f;
    const sp__export *x;
} rows_out;

/* What every file's body gets: the export, and the run's figures (built
 * once for flame.csv and summary.json: a second build was seconds on 10^6
 * regions). */
typedef struct plot_ctx {
    const sp__export *x;
    const sp_figures *fg;
} plot_ctx;

static int timeline_row(void *ud, const sp__call *c)
{
    const rows_out *o = ud;
    const sp_run *run = o->x->run;
    int64_t s = c->start_ns + run->ranks[c->rank].clock_offset_ns - o->x->t0_ns;
    fprintf(o->f, "%zu,%d,%u,", c->rank, (int)c->thread, c->depth);
    sp__csv_str(o->f, run->region_names[c->region]);
    sp__csv_fixed(o->f, (double)s * 1e-9, 9);
    sp__csv_fixed(o->f, (double)(s + c->end_ns - c->start_ns) * 1e-9, 9);
    fputc('\n', o->f);
    return 0;
}

static int timeline_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    fputs("rank,thread,depth,region,start_s,end_s\n", f);
    const plot_ctx *pc = ctx;
    rows_out o = {f, pc->x};
    return sp__export_each_call(pc->x, timeline_row, &o);
}

static int flame_body(const sp_run *run, FILE *f, const void *ctx)
{
    const sp_figures *fg = ((const plot_ctx *)ctx)->fg;
    fputs("node,parent,depth,region,path,estimated,calls,inclusive_s,own_s,inclusive_max_rank_s\n",
          f);
    size_t cap = 256;
    char *path = malloc(cap);
    int32_t *chain = malloc(SP__EXPORT_PATH_FRAMES * sizeof *chain);
    if (!path || !chain) {
        free(path);
        free(chain);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    for (size_t k = 1; k < run->tree.nnodes; k++) {
        const sp_tree_node *t = &run->tree.nodes[k];
        size_t n = 0, len = 0;
        int32_t j = (int32_t)k;
        /* The innermost frames only (as the collapsed export): paths of a
         * deep recursion would make the file quadratic in its depth. */
        for (; j > 0 && n < SP__EXPORT_PATH_FRAMES; j = run->tree.nodes[j].parent)
            chain[n++] = j;
        path[0] = '\0';
        if (j > 0)
            len = (size_t)sprintf(path, "\xe2\x80\xa6;");
        while (n--) {
            const char *nm = run->region_names[run->tree.nodes[chain[n]].region];
            size_t l = strlen(nm), need = len + l + 2;
            if (need > cap) {
                cap = 2 * need;
                char *p = realloc(path, cap);
                if (!p) {
                    free(path);
                    free(chain);
                    return sp__error(SP_ENOMEM, "out of memory");
                }
                path = p;
            }
            memcpy(path + len, nm, l);
            len += l;
            if (n)
                path[len++] = ';';
            path[len] = '\0';
        }
        fprintf(f, "%zu,%d,%d,", k, t->parent > 0 ? (int)t->parent : -1, (int)t->depth - 1);
        sp__csv_str(f, run->region_names[t->region]);
        fputc(',', f);
        sp__csv_str(f, path);
        fprintf(f, ",%d,%" PRIu64, sp_region_fig_kind(run, t->region) == SP_FIG_ESTIMATE,
                t->calls);
        sp__csv_fixed(f, fg->node_incl[k].mean_s, 9);
        sp__csv_fixed(f, fg->node_own[k].mean_s, 9);
        sp__csv_fixed(f, fg->node_incl[k].max_s, 9);
        fputc('\n', f);
    }
    free(path);
    free(chain);
    return 0;
}

static int ranks_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("region,rank,calls,total_s,mean_s,own_s\n", f);
    for (size_t g = 0; g < run->nregions; g++) {
        if (!run->regions[g].all.calls)
            continue;
        for (size_t r = 0; r < run->nranks; r++) {
            const sp_stats *st = &run->regions[g].per_rank[r];
            sp__csv_str(f, run->region_names[g]);
            fprintf(f, ",%zu,%" PRIu64, r, st->calls);
            sp__csv_fixed(f, st->total_s, 9);
            sp__csv_fixed(f, st->mean_s, 9);
            sp__csv_fixed(f, st->own_s, 9);
            fputc('\n', f);
        }
    }
    return 0;
}

static int heatmap_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(run, SP_SORT_TOTAL, NULL, &ids);
    if (n < 0)
        return sp__error(SP_ENOMEM, "out of memory");
    fputs("rank", f);
    for (long i = 0; i < n; i++) {
        if (!run->regions[ids[i]].all.calls)
            continue;
        fputc(',', f);
        sp__csv_str(f, run->region_names[ids[i]]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < run->nranks; r++) {
        fprintf(f, "%zu", r);
        for (long i = 0; i < n; i++)
            if (run->regions[ids[i]].all.calls)
                sp__csv_fixed(f, run->regions[ids[i]].per_rank[r].total_s, 9);
        fputc('\n', f);
    }
    free(ids);
    return 0;
}

/* Bins of one region's call durations, from its histogram (sp_hist.h:
 * each bucket's calls go to the bin of its value, within 0.8 %). */
static void histogram_rows(FILE *f, const char *name, const sp_hist *h)
{
    uint64_t n = h->count;
    if (!n)
        return;
    double mn = (double)h->min, mx = (double)h->max;
    double minpos = mn > 0 ? mn : 1;
    size_t it = 0;
    uint32_t idx;
    uint64_t cnt;
    while (mn <= 0 && sp_hist_next(h, &it, &idx, &cnt)) {
        int64_t v = sp_hist_bucket_value(h, idx);
        if (v > 0) {
            minpos = (double)v;
            break;
        }
    }
    bool logx = mx / minpos > 100;
    double lo = logx ? log10(minpos) : mn, hi = logx ? log10(mx) : mx;
    double q1 = (double)sp_hist_value_at_rank(h, n / 4);
    double q3 = (double)sp_hist_value_at_rank(h, (3 * n) / 4);
    double iqr = logx ? log10(fmax(q3, minpos)) - log10(fmax(q1, minpos)) : q3 - q1;
    size_t nb = 1;
    if (hi > lo) {
        double width = iqr > 0 ? 2 * iqr / cbrt((double)n) : (hi - lo) / 10;
        double b = ceil((hi - lo) / width);
        nb = b < 1 ? 1 : b > 100 ? 100 : (size_t)b;
    }
    uint64_t *count = calloc(nb, sizeof *count);
    if (!count)
        return;
    it = 0;
    while (sp_hist_next(h, &it, &idx, &cnt)) {
        double v = (double)sp_hist_bucket_value(h, idx);
        v = logx ? log10(v > 0 ? v : minpos) : v;
        double at = hi > lo ? (v - lo) / (hi - lo) * (double)nb : 0;
        size_t b = at <= 0 ? 0 : (size_t)at;
        count[b >= nb ? nb - 1 : b] += cnt;
    }
    for (size_t b = 0; b < nb; b++) {
        double b0 = lo + (hi - lo) * (double)b / (double)nb;
        double b1 = lo + (hi - lo) * (double)(b + 1) / (double)nb;
        if (logx) {
            b0 = pow(10, b0);
            b1 = pow(10, b1);
        }
        sp__csv_str(f, name);
        fprintf(f, ",%zu", b);
        sp__csv_fixed(f, b0 * 1e-9, 9);
        sp__csv_fixed(f, (hi > lo ? b1 : b0) * 1e-9, 9);
        fprintf(f, ",%" PRIu64 "\n", count[b]);
    }
    free(count);
}

static int histogram_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("region,bin,lo_s,hi_s,count\n", f);
    for (size_t k = 0; k < run->nregions; k++) {
        sp_hist h;
        if (sp_agg_region_hist(run->agg, (int32_t)k, -1, false, &h))
            return SP_ENOMEM;
        histogram_rows(f, run->region_names[k], &h);
        sp_hist_free(&h);
    }
    return 0;
}

static int timeseries_row(void *ud, const sp__call *c)
{
    const rows_out *o = ud;
    const sp_run *run = o->x->run;
    sp__csv_str(o->f, run->region_names[c->region]);
    fprintf(o->f, ",%zu", c->rank);
    sp__csv_fixed(o->f,
                  (double)(c->start_ns + run->ranks[c->rank].clock_offset_ns - o->x->t0_ns) * 1e-9,
                  9);
    sp__csv_fixed(o->f, (double)(c->end_ns - c->start_ns) * 1e-9, 9);
    fputc('\n', o->f);
    return 0;
}

static int timeseries_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    fputs("region,rank,start_s,duration_s\n", f);
    const plot_ctx *pc = ctx;
    rows_out o = {f, pc->x};
    return sp__export_each_call(pc->x, timeseries_row, &o);
}

static const struct {
    const char *name, *chart;
    sp__body_fn body;
} files[] = {
    {"timeline.csv", "timeline", timeline_body},
    {"flame.csv", "flame", flame_body},
    {"ranks.csv", "ranks", ranks_body},
    {"heatmap.csv", "heatmap", heatmap_body},
    {"histogram.csv", "histogram", histogram_body},
    {"timeseries.csv", "timeseries", timeseries_body},
};
#define NFILES (sizeof files / sizeof *files)

static void num_or_null(FILE *f, double v, bool null)
{
    if (null)
        fputs("null", f);
    else
        sp__json_num(f, v);
}

static int summary_body(const sp_run *run, FILE *f, const void *ctx)
{
    const sp_figures *fg = ((const plot_ctx *)ctx)->fg;
    sp_color_map *cm = sp_color_map_for_run(run);
    if (!cm)
        return SP_ENOMEM;
    char rule[512], hex[8];
    fputs("{\n  \"format\": \"scope-profiler-plot-data\",\n  \"version\": 2,\n  \"source\": ", f);
    sp__json_str(f, run->source_path);
    fprintf(f, ",\n  \"ranks\": %zu,\n  \"ranks_in_file\": %zu,\n  \"wall_clock_span_s\": ",
            fg->nranks, fg->nranks_file);
    sp__json_num(f, fg->span_s);
    fputs(",\n  \"rule\": ", f);
    sp__json_str(f, fg->two_columns ? sp_figures_rule_text(fg, rule, sizeof rule)
                                    : "One rank: every figure is the rank's own.");
    fputs(",\n  \"sample_period_s\": ", f);
    num_or_null(f, fg->sample_period_s, fg->sample_period_s <= 0);
    fputs(",\n  \"files\": {", f);
    for (size_t i = 0; i < NFILES; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        sp__json_str(f, files[i].chart);
        fputs(": ", f);
        sp__json_str(f, files[i].name);
    }
    fputs("\n  },\n  \"regions\": [", f);
    /* the colour map's order: the most time first */
    bool first = true;
    for (size_t i = 0; i < sp_color_map_count(cm); i++) {
        const char *name = sp_color_map_name(cm, i);
        int32_t g = sp_color_map_region_at(cm, i); /* the map is of this run alone */
        const sp_stats *st = &run->regions[g].all;
        sp_fig_kind k = sp_region_fig_kind(run, g);
        bool est = k == SP_FIG_ESTIMATE;
        /* fputs, not fprintf: 10^6 regions write this 10^6 times */
        fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
        first = false;
        sp__json_str(f, name);
        fputs(", \"color\": \"", f);
        fputs(sp_color_hex(sp_color_map_rgb_at(cm, i), hex), f);
        fputs(est ? "\", \"estimated\": true" : "\", \"estimated\": false", f);
        fputs(k == SP_FIG_LOWER_BOUND ? ", \"lower_bound\": true" : ", \"lower_bound\": false", f);
        fputs(", \"calls_per_rank\": ", f);
        sp__json_num(f, fg->region_calls[g].mean);
        fputs(", \"calls_max_rank\": ", f);
        sp__put_u64(f, fg->region_calls[g].max);
        fputs(", \"calls_sum_ranks\": ", f);
        sp__put_u64(f, st->calls);
        fputs(", \"total_s\": ", f);
        sp__json_num(f, fg->region_total[g].mean_s);
        fputs(", \"total_max_rank_s\": ", f);
        sp__json_num(f, fg->region_total[g].max_s);
        fputs(", \"total_sum_ranks_s\": ", f);
        sp__json_num(f, fg->region_total[g].sum_s);
        fputs(", \"own_s\": ", f);
        sp__json_num(f, fg->region_own[g].mean_s);
        fputs(", \"mean_s\": ", f);
        sp__json_num(f, st->mean_s);
        fputs(", \"p50_s\": ", f);
        num_or_null(f, st->p50_s, est);
        fputs(", \"p95_s\": ", f);
        num_or_null(f, st->p95_s, est);
        fputs(", \"imbalance\": ", f);
        sp__json_num(f, sp_region_imbalance(run, g));
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
    sp_color_map_free(cm);
    return 0;
}

/* summary.json, written on a second thread while this one writes the CSV
 * files: on 10^6 regions it is half of what plot-data writes (300 MB of
 * JSON) and a third of its time. Its body reads only the run in memory and
 * the figures (never the file: the CSV bodies that stream calls keep HDF5
 * on the calling thread). The file is kept (renamed into place) only when
 * every CSV file was written too, as when it was written after them. */
typedef struct summary_job {
    const sp_run *run;
    const plot_ctx *pc;
    sp__out out;
    int rc;
    char why[1024]; /* sp_last_error() of the thread (errors are per thread) */
} summary_job;

static void *summary_thread(void *p)
{
    summary_job *j = p;
    j->rc = summary_body(j->run, j->out.f, j->pc);
    if (j->rc)
        snprintf(j->why, sizeof j->why, "%s", sp_last_error());
    return NULL;
}

int sp__export_plot_data(const sp__export *x, const char *dir, sp__wrote_fn wrote)
{
    int rc = sp__mkdir_p(dir);
    plot_ctx pc = {x, NULL};
    if (!rc && !(pc.fg = sp_figures_new(x->run)))
        rc = SP_ENOMEM;
    char *summary = rc ? NULL : sp__path_join(dir, "summary.json");
    if (!rc && !summary)
        rc = sp__error(SP_ENOMEM, "out of memory");
    summary_job job = {.run = x->run, .pc = &pc};
    /* Opened first, failing last: a summary that cannot be opened fails
     * the export after the CSV files are written, as before. */
    int orc = rc ? 0 : sp__out_open(&job.out, summary);
    char owhy[1024] = "";
    if (orc)
        snprintf(owhy, sizeof owhy, "%s", sp_last_error());
    bool opened = !rc && !orc;
    pthread_t th;
    /* No second thread (EAGAIN): written here, after the CSV files. */
    bool threaded = opened && pthread_create(&th, NULL, summary_thread, &job) == 0;
    for (size_t i = 0; !rc && i < NFILES; i++)
        rc = sp__write_in_dir(dir, files[i].name, files[i].body, x->run, &pc, wrote);
    if (threaded)
        pthread_join(th, NULL);
    else if (opened && !rc)
        summary_thread(&job);
    if (!rc && orc)
        rc = sp__error(orc, "%s", owhy);
    if (opened) {
        int crc = sp__out_close(&job.out, !rc && !job.rc);
        if (!rc && job.rc)
            rc = sp__error(job.rc, "%s", job.why);
        rc = rc ? rc : crc;
        if (!rc && wrote)
            wrote(summary);
    }
    free(summary);
    sp_figures_free((sp_figures *)pc.fg);
    return rc;
}
