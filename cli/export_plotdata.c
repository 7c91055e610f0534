/* SPDX-License-Identifier: MIT */
/*
 * export_plotdata.c - `export plot-data`: the numbers behind each chart of
 * `scope-profiler plot`, one CSV per chart plus summary.json, in a directory:
 *   timeline.csv    rank, thread, depth, region, start_s, end_s: every box of
 *                   the timeline / flame chart (run time: seconds since the
 *                   run's first call, after clock offsets)
 *   flame.csv       the merged call tree: node, parent, depth, region, path
 *                   ("a;b;c"), calls, inclusive_s, own_s (icicle / flame graph)
 *   ranks.csv       region, rank, calls, total_s, mean_s, own_s (rank bars)
 *   heatmap.csv     one row per rank, one column per region (largest total
 *                   first): total seconds (rank x region heat map)
 *   histogram.csv   region, bin, lo_s, hi_s, count: call-duration histograms,
 *                   log-spaced bins when the durations span more than two
 *                   decades (as the chart), Freedman-Diaconis bin count
 *   timeseries.csv  region, rank, start_s, duration_s (duration over time)
 *   summary.json    per-region statistics and the list of files
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "sp_analysis.h"
#include "sp_analysis_internal.h"
#include "sp_diff.h"
#include "sp_error.h"

static int64_t run_t0(const sp_run *run)
{
    int64_t t0 = 0, t1 = 0;
    sp_run_time_span(run, &t0, &t1);
    return t0;
}

static int timeline_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    int64_t t0 = run_t0(run);
    fputs("rank,thread,depth,region,start_s,end_s\n", f);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int64_t s = rk->start_ns[i] + rk->clock_offset_ns - t0;
            fprintf(f, "%zu,%d,%d,", r, (int)rk->thread[i], rk->depth ? (int)rk->depth[i] : 0);
            sp__csv_str(f, run->region_names[rk->region[i]]);
            fprintf(f, ",%.9f,%.9f\n", (double)s * 1e-9,
                    (double)(s + rk->end_ns[i] - rk->start_ns[i]) * 1e-9);
        }
    }
    return 0;
}

static int flame_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("node,parent,depth,region,path,calls,inclusive_s,own_s\n", f);
    size_t cap = 256;
    char *path = malloc(cap);
    int32_t *chain = malloc((run->tree.nnodes ? run->tree.nnodes : 1) * sizeof *chain);
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
        for (; j > 0 && n < SP__EXPORT_MAX_FRAMES; j = run->tree.nodes[j].parent)
            chain[n++] = j;
        path[0] = '\0';
        if (j > 0)
            len = (size_t)sprintf(path, "\xe2\x80\xa6;");
        while (n--) {
            const char *nm = run->region_names[run->tree.nodes[chain[n]].region];
            size_t need = len + strlen(nm) + 2;
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
            len += (size_t)sprintf(path + len, "%s%s", nm, n ? ";" : "");
        }
        fprintf(f, "%zu,%d,%d,", k, (int)t->parent, (int)t->depth);
        sp__csv_str(f, run->region_names[t->region]);
        fputc(',', f);
        sp__csv_str(f, path);
        fprintf(f, ",%" PRIu64 ",%.9f,%.9f\n", t->calls, t->incl_s, t->own_s);
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
            fprintf(f, ",%zu,%" PRIu64 ",%.9f,%.9f,%.9f\n", r, st->calls, st->total_s, st->mean_s,
                    st->own_s);
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
                fprintf(f, ",%.9f", run->regions[ids[i]].per_rank[r].total_s);
        fputc('\n', f);
    }
    free(ids);
    return 0;
}

/* Per-region durations (ns) grouped by region, each group sorted. */
typedef struct groups {
    size_t *off;
    int64_t *val;
} groups;

static int group_durations(const sp_run *run, groups *g)
{
    size_t total = 0;
    for (size_t r = 0; r < run->nranks; r++)
        total += run->ranks[r].ncalls;
    g->off = calloc(run->nregions + 1, sizeof *g->off);
    g->val = malloc((total ? total : 1) * sizeof *g->val);
    size_t *fill = malloc((run->nregions + 1) * sizeof *fill);
    int64_t *tmp = malloc((total ? total : 1) * sizeof *tmp);
    if (!g->off || !g->val || !fill || !tmp) {
        free(fill);
        free(tmp);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < run->nranks; r++)
        for (size_t i = 0; i < run->ranks[r].ncalls; i++)
            g->off[run->ranks[r].region[i] + 1]++;
    for (size_t k = 0; k < run->nregions; k++) {
        g->off[k + 1] += g->off[k];
        fill[k] = g->off[k];
    }
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++)
            g->val[fill[rk->region[i]]++] = rk->end_ns[i] - rk->start_ns[i];
    }
    for (size_t k = 0; k < run->nregions; k++)
        sp__sort_i64(g->val + g->off[k], g->off[k + 1] - g->off[k], tmp);
    free(fill);
    free(tmp);
    return 0;
}

/* Bins of one region's sorted durations a[0..n). */
static void histogram_rows(FILE *f, const char *name, const int64_t *a, size_t n)
{
    if (!n)
        return;
    double mn = (double)a[0], mx = (double)a[n - 1];
    double minpos = mn > 0 ? mn : 1;
    for (size_t i = 0; mn <= 0 && i < n; i++)
        if (a[i] > 0) {
            minpos = (double)a[i];
            break;
        }
    bool logx = mx / minpos > 100;
    double lo = logx ? log10(minpos) : mn, hi = logx ? log10(mx) : mx;
    double q1 = (double)a[n / 4], q3 = (double)a[(3 * n) / 4];
    double iqr = logx ? log10(fmax(q3, minpos)) - log10(fmax(q1, minpos)) : q3 - q1;
    size_t nb = 1;
    if (hi > lo) {
        double width = iqr > 0 ? 2 * iqr / cbrt((double)n) : (hi - lo) / 10;
        double b = ceil((hi - lo) / width);
        nb = b < 1 ? 1 : b > 100 ? 100 : (size_t)b;
    }
    size_t *count = calloc(nb, sizeof *count);
    if (!count)
        return;
    for (size_t i = 0; i < n; i++) {
        double v = logx ? log10((double)a[i] > 0 ? (double)a[i] : minpos) : (double)a[i];
        size_t b = hi > lo ? (size_t)((v - lo) / (hi - lo) * (double)nb) : 0;
        count[b >= nb ? nb - 1 : b]++;
    }
    for (size_t b = 0; b < nb; b++) {
        double b0 = lo + (hi - lo) * (double)b / (double)nb;
        double b1 = lo + (hi - lo) * (double)(b + 1) / (double)nb;
        if (logx) {
            b0 = pow(10, b0);
            b1 = pow(10, b1);
        }
        sp__csv_str(f, name);
        fprintf(f, ",%zu,%.9f,%.9f,%zu\n", b, b0 * 1e-9, (hi > lo ? b1 : b0) * 1e-9, count[b]);
    }
    free(count);
}

static int histogram_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    groups g = {0};
    int rc = group_durations(run, &g);
    if (!rc) {
        fputs("region,bin,lo_s,hi_s,count\n", f);
        for (size_t k = 0; k < run->nregions; k++)
            histogram_rows(f, run->region_names[k], g.val + g.off[k], g.off[k + 1] - g.off[k]);
    }
    free(g.off);
    free(g.val);
    return rc;
}

static int timeseries_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    int64_t t0 = run_t0(run);
    fputs("region,rank,start_s,duration_s\n", f);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            sp__csv_str(f, run->region_names[rk->region[i]]);
            fprintf(f, ",%zu,%.9f,%.9f\n", r,
                    (double)(rk->start_ns[i] + rk->clock_offset_ns - t0) * 1e-9,
                    (double)(rk->end_ns[i] - rk->start_ns[i]) * 1e-9);
        }
    }
    return 0;
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

static int summary_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("{\n  \"format\": \"scope-profiler-plot-data\",\n  \"version\": 1,\n  \"source\": ", f);
    sp__json_str(f, run->source_path);
    fprintf(f, ",\n  \"ranks\": %zu,\n  \"files\": {", run->nranks);
    for (size_t i = 0; i < NFILES; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        sp__json_str(f, files[i].chart);
        fputs(": ", f);
        sp__json_str(f, files[i].name);
    }
    fputs("\n  },\n  \"regions\": [", f);
    bool first = true;
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_stats *st = &run->regions[g].all;
        if (!st->calls)
            continue;
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        first = false;
        sp__json_str(f, run->region_names[g]);
        fprintf(f, ", \"calls\": %" PRIu64 ", \"total_s\": ", st->calls);
        sp__json_num(f, st->total_s);
        fputs(", \"own_s\": ", f);
        sp__json_num(f, st->own_s);
        fputs(", \"mean_s\": ", f);
        sp__json_num(f, st->mean_s);
        fputs(", \"p50_s\": ", f);
        sp__json_num(f, st->p50_s);
        fputs(", \"p95_s\": ", f);
        sp__json_num(f, st->p95_s);
        fputs(", \"imbalance\": ", f);
        sp__json_num(f, sp_region_imbalance(run, (int32_t)g));
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
    return 0;
}

int sp__export_plot_data(const sp_run *run, const char *dir, sp__wrote_fn wrote)
{
    int rc = sp__mkdir_p(dir);
    for (size_t i = 0; !rc && i < NFILES; i++)
        rc = sp__write_in_dir(dir, files[i].name, files[i].body, run, NULL, wrote);
    if (!rc)
        rc = sp__write_in_dir(dir, "summary.json", summary_body, run, NULL, wrote);
    return rc;
}
