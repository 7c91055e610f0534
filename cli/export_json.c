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
 *               "ncalls", "calls": {"region": [...], "thread": [...],
 *               "start_ns": [...], "end_ns": [...], "parent": [...],
 *               "depth": [...]}}]}
 * Per-call data is columnar (one array per field) to stay compact; region
 * and thread are indices into "regions" and the rank's "threads"; parent is
 * the index of the enclosing call in the rank's columns (-1: none). Every
 * call, or those of --from/--to; streamed from the file (a rank's columns
 * pass through temporary files), so the export holds no run's calls.
 * Percentiles (p50_s, p95_s, p99_s) come from histograms (within 0.8 %);
 * total_s counts a recursive region's outermost calls once.
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
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "export.h"
#include "sp_analysis.h"
#include "sp_colors.h"
#include "sp_diff.h"
#include "sp_error.h"
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

/* A rank's calls go into one temporary file per column while they stream,
 * then into the document column by column: columnar JSON in bounded
 * memory, whatever the number of calls. */
enum { COL_REGION, COL_THREAD, COL_START, COL_END, COL_PARENT, COL_DEPTH, NCOLS };
static const char *const col_names[NCOLS] = {"region", "thread", "start_ns",
                                             "end_ns", "parent", "depth"};

typedef struct columns {
    FILE *f[NCOLS];
    uint64_t n;
} columns;

static int column_value(void *ud, const sp__call *c)
{
    columns *cs = ud;
    const char *sep = cs->n ? "," : "";
    fprintf(cs->f[COL_REGION], "%s%d", sep, (int)c->region);
    fprintf(cs->f[COL_THREAD], "%s%d", sep, (int)c->thread);
    fprintf(cs->f[COL_START], "%s%" PRId64, sep, c->start_ns);
    fprintf(cs->f[COL_END], "%s%" PRId64, sep, c->end_ns);
    fprintf(cs->f[COL_PARENT], "%s%" PRId64, sep, c->parent);
    fprintf(cs->f[COL_DEPTH], "%s%u", sep, c->depth);
    cs->n++;
    return 0;
}

static int copy_column(FILE *from, FILE *to)
{
    char buf[1 << 16];
    size_t k;
    if (fflush(from) != 0 || ferror(from))
        return sp__error(SP_EIO, "cannot write a temporary file: %s", strerror(errno));
    rewind(from);
    while ((k = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, k, to);
    return ferror(from) ? sp__error(SP_EIO, "cannot read a temporary file back") : 0;
}

/* The calls of rank r: streamed into the columns, then written. */
static int rank_calls(const sp__export *x, size_t r, FILE *f)
{
    columns cs = {{NULL}, 0};
    int rc = 0;
    for (int k = 0; k < NCOLS && rc == 0; k++)
        if (!(cs.f[k] = tmpfile()))
            rc = sp__error(SP_EIO, "cannot create a temporary file: %s", strerror(errno));
    if (rc == 0)
        rc = sp__stream_rank_calls(x->src, x->run->agg, r, &x->calls, column_value, &cs);
    if (rc == 0) {
        fprintf(f, "], \"ncalls\": %" PRIu64 ",\n      \"calls\": {\n", cs.n);
        for (int k = 0; k < NCOLS && rc == 0; k++) {
            fprintf(f, "        \"%s\": [", col_names[k]);
            rc = copy_column(cs.f[k], f);
            fprintf(f, "]%s\n", k + 1 < NCOLS ? "," : "");
        }
    }
    for (int k = 0; k < NCOLS; k++)
        if (cs.f[k])
            fclose(cs.f[k]);
    return rc;
}

static int ranks(const sp__export *x, FILE *f)
{
    const sp_run *run = x->run;
    fputs("  \"ranks\": [", f);
    int rc = 0;
    for (size_t r = 0; r < run->nranks && rc == 0; r++) {
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
        rc = rank_calls(x, r, f);
        fputs("      }}", f);
    }
    fputs("\n  ]\n", f);
    return rc;
}

static int json_body(const sp_run *run, FILE *f, const void *ctx)
{
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
    int rc = ranks(ctx, f);
    fputs("}\n", f);
    sp_color_map_free(cm);
    sp_figures_free(fg);
    return rc;
}

int sp__export_json(const sp__export *x, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, json_body, x->run, x, wrote);
}
