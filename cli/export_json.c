/* SPDX-License-Identifier: MIT */
/*
 * export_json.c - `export json`: one JSON document with everything:
 *   {"format": "scope-profiler-export", "version": 1, "source", "layout",
 *    "schema_version", "metadata": {...}, "time_span_ns": [t0, t1] | null,
 *    "regions": [{"id", "name", "calls", "total_s", ..., "imbalance",
 *                 "per_rank": [{"rank", "calls", "total_s", ...}]}],
 *    "call_tree": [{"node", "parent", "depth", "region", "calls",
 *                   "inclusive_s", "own_s"}],
 *    "ranks": [{"rank", "clock_offset_ns", "metadata", "threads": [...],
 *               "calls": {"region": [...], "thread": [...], "start_ns": [...],
 *                         "end_ns": [...], "parent": [...], "depth": [...]}}]}
 * Per-call data is columnar (one array per field) to stay compact; region
 * and thread are indices into "regions" and the rank's "threads".
 * A region's "calls", "total_s", "own_s" ... are over every rank (its
 * "per_rank" entries are each rank's); the figures under the rank rule
 * (analysis/sp_figures.h) are beside them: "total_per_rank_s" (mean over
 * the ranks), "total_max_rank_s", "own_per_rank_s", "calls_per_rank", with
 * "estimated" (calls and times from call-stack samples), "lower_bound"
 * (throttled tracing) and the region's "color" ("#rrggbb", as the charts).
 * The document also gives "ranks_considered" and "wall_clock_span_s". Depth
 * is 0 for a top-level call everywhere; a call-tree node's parent is -1 at
 * the top level.
 */
#include <inttypes.h>

#include "export.h"
#include "sp_analysis.h"
#include "sp_colors.h"
#include "sp_diff.h"
#include "sp_figures.h"

static void kv_object(FILE *f, const sp_kvlist *l)
{
    fputc('{', f);
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            fputs(", ", f);
        sp__json_str(f, l->items[i].key);
        fputs(": ", f);
        sp__json_str(f, l->items[i].value);
    }
    fputc('}', f);
}

static void stats_fields(FILE *f, const sp_stats *st)
{
    fprintf(f, "\"calls\": %" PRIu64, st->calls);
    const char *names[] = {"total_s", "own_s", "mean_s", "min_s", "max_s",
                           "std_s",   "p50_s", "p95_s",  "p99_s"};
    double v[] = {st->total_s, st->own_s, st->mean_s, st->min_s, st->max_s,
                  st->std_s,   st->p50_s, st->p95_s,  st->p99_s};
    for (int i = 0; i < 9; i++) {
        fprintf(f, ", \"%s\": ", names[i]);
        sp__json_num(f, v[i]);
    }
}

static void regions(const sp_run *run, const sp_figures *fg, const sp_color_map *cm, FILE *f)
{
    char hex[8];
    fputs("  \"regions\": [", f);
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_run_region *reg = &run->regions[g];
        sp_fig_kind k = sp_region_fig_kind(run, (int32_t)g);
        fprintf(f, "%s\n    {\"id\": %zu, \"name\": ", g ? "," : "", g);
        sp__json_str(f, reg->name);
        fprintf(f, ", \"color\": \"%s\", \"estimated\": %s, \"lower_bound\": %s, ",
                sp_color_hex(sp_color_map_rgb(cm, reg->name), hex),
                k == SP_FIG_ESTIMATE ? "true" : "false",
                k == SP_FIG_LOWER_BOUND ? "true" : "false");
        stats_fields(f, &reg->all);
        fputs(", \"calls_per_rank\": ", f);
        sp__json_num(f, fg->region_calls[g].mean);
        fputs(", \"total_per_rank_s\": ", f);
        sp__json_num(f, fg->region_total[g].mean_s);
        fputs(", \"total_max_rank_s\": ", f);
        sp__json_num(f, fg->region_total[g].max_s);
        fputs(", \"own_per_rank_s\": ", f);
        sp__json_num(f, fg->region_own[g].mean_s);
        fputs(", \"imbalance\": ", f);
        sp__json_num(f, sp_region_imbalance(run, (int32_t)g));
        fprintf(f, ", \"dropped\": %" PRIu64 ", \"per_rank\": [", reg->dropped);
        for (size_t r = 0; r < run->nranks; r++) {
            fprintf(f, "%s{\"rank\": %zu, ", r ? ", " : "", r);
            stats_fields(f, &reg->per_rank[r]);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n", f);
}

static void tree(const sp_run *run, const sp_figures *fg, FILE *f)
{
    fputs("  \"call_tree\": [", f);
    for (size_t n = 1; n < run->tree.nnodes; n++) {
        const sp_tree_node *t = &run->tree.nodes[n];
        fprintf(f,
                "%s\n    {\"node\": %zu, \"parent\": %d, \"depth\": %d, \"region\": %d, "
                "\"calls\": %" PRIu64 ", \"inclusive_s\": ",
                n > 1 ? "," : "", n, t->parent > 0 ? (int)t->parent : -1, (int)t->depth - 1,
                (int)t->region, t->calls);
        sp__json_num(f, t->incl_s);
        fputs(", \"own_s\": ", f);
        sp__json_num(f, t->own_s);
        fputs(", \"inclusive_per_rank_s\": ", f);
        sp__json_num(f, fg->node_incl[n].mean_s);
        fputs(", \"inclusive_max_rank_s\": ", f);
        sp__json_num(f, fg->node_incl[n].max_s);
        fputs(", \"own_per_rank_s\": ", f);
        sp__json_num(f, fg->node_own[n].mean_s);
        fputc('}', f);
    }
    fputs("\n  ],\n", f);
}

/* One column of a rank's calls as a JSON array. */
static void column_i64(FILE *f, const char *name, const int64_t *a, size_t n, bool last)
{
    fprintf(f, "        \"%s\": [", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? "," : "", a[i]);
    fprintf(f, "]%s\n", last ? "" : ",");
}

static void column_i32(FILE *f, const char *name, const int32_t *a, size_t n, bool last)
{
    fprintf(f, "        \"%s\": [", name);
    for (size_t i = 0; a && i < n; i++)
        fprintf(f, "%s%d", i ? "," : "", (int)a[i]);
    fprintf(f, "]%s\n", last ? "" : ",");
}

static void ranks(const sp_run *run, FILE *f)
{
    fputs("  \"ranks\": [", f);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        fprintf(f,
                "%s\n    {\"rank\": %zu, \"clock_offset_ns\": %" PRId64
                ", \"clock_offset_err_ns\": %" PRId64 ", \"metadata\": ",
                r ? "," : "", r, rk->clock_offset_ns, rk->clock_offset_err_ns);
        kv_object(f, &rk->meta);
        fputs(", \"threads\": [", f);
        for (size_t t = 0; t < rk->nthreads; t++) {
            fprintf(f, "%s{\"index\": %zu, \"os_tid\": %" PRId64 ", \"name\": ", t ? ", " : "", t,
                    rk->threads[t].os_tid);
            sp__json_str(f, rk->threads[t].name);
            fputc('}', f);
        }
        fprintf(f, "], \"ncalls\": %zu,\n      \"calls\": {\n", rk->ncalls);
        column_i32(f, "region", rk->region, rk->ncalls, false);
        column_i32(f, "thread", rk->thread, rk->ncalls, false);
        column_i64(f, "start_ns", rk->start_ns, rk->ncalls, false);
        column_i64(f, "end_ns", rk->end_ns, rk->ncalls, false);
        column_i64(f, "parent", rk->parent, rk->ncalls, false);
        column_i32(f, "depth", rk->depth, rk->ncalls, true);
        fputs("      }}", f);
    }
    fputs("\n  ]\n", f);
}

static int json_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("{\n  \"format\": \"scope-profiler-export\",\n  \"version\": 1,\n  \"source\": ", f);
    sp__json_str(f, run->source_path);
    fputs(",\n  \"layout\": ", f);
    sp__json_str(f, run->layout);
    fprintf(f, ",\n  \"schema_version\": %d,\n  \"metadata\": ", run->schema_version);
    kv_object(f, &run->meta);
    sp_figures *fg = sp_figures_new(run);
    sp_color_map *cm = fg ? sp_color_map_for_run(run) : NULL;
    if (!fg || !cm) {
        sp_figures_free(fg);
        return SP_ENOMEM;
    }
    int64_t t0, t1;
    if (sp_run_time_span(run, &t0, &t1) == 0)
        fprintf(f, ",\n  \"time_span_ns\": [%" PRId64 ", %" PRId64 "]", t0, t1);
    else
        fputs(",\n  \"time_span_ns\": null", f);
    fprintf(f, ",\n  \"ranks_considered\": %zu,\n  \"wall_clock_span_s\": ", fg->nranks);
    sp__json_num(f, fg->span_s);
    fputs(",\n  \"sample_period_s\": ", f);
    if (fg->sample_period_s > 0)
        sp__json_num(f, fg->sample_period_s);
    else
        fputs("null", f);
    fputs(",\n", f);
    regions(run, fg, cm, f);
    tree(run, fg, f);
    ranks(run, f);
    fputs("}\n", f);
    sp_color_map_free(cm);
    sp_figures_free(fg);
    return 0;
}

int sp__export_json(const sp_run *run, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, json_body, run, NULL, wrote);
}
