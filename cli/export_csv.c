/* SPDX-License-Identifier: MIT */
/*
 * export_csv.c - `export csv`: a directory of CSV files (RFC 4180, UTF-8,
 * header row, "\n" line ends):
 *   regions.csv    region statistics (seconds) under the rank rule
 *                  (analysis/sp_figures.h): total_s and own_s per rank (the
 *                  mean over the ranks), total_max_rank_s the slowest rank;
 *                  sums over the ranks only in the *_sum_ranks columns;
 *                  calls_per_rank (the mean over the ranks) and
 *                  calls_max_rank (the busiest rank's), calls_sum_ranks
 *                  (every rank); per-call mean, min, max, std, p50, p95,
 *                  p99 over every call (exact but the percentiles: from
 *                  histograms, within 0.8 %); total_s counts a recursive
 *                  region's outermost calls only
 *   per_rank.csv   the same per (region, rank), for ranks with calls
 *   calls.csv      every call (or those of --from/--to): rank, thread,
 *                  region, start/end (ns, the rank's own clock; add
 *                  clock_offset_ns of metadata.csv's rank rows to align
 *                  ranks), depth, parent (row index of the enclosing call
 *                  among the rank's rows, -1 = none). A rank's rows come in
 *                  the order its calls began on their thread, threads
 *                  interleaved as the file stores them; streamed from the
 *                  file, so any length of run is written in bounded memory
 *   call_tree.csv  the merged call tree: per call path, calls per rank,
 *                  inclusive and own seconds per rank (mean, the slowest
 *                  rank's, and the sum over the ranks)
 *   metadata.csv   run metadata, then per-rank facts as "rankN.key"
 * One depth convention everywhere: 0 = a top-level call; a parent of -1 =
 * none (top level). estimated = 1: calls and times are estimates from
 * call-stack samples (min, max, std and percentiles left empty: their
 * resolution is the sampling period); lower_bound = 1: tracing was
 * throttled, calls and times are lower bounds.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_error.h"
#include "sp_figures.h"

/* The estimated and lower_bound columns of region g. */
static void kind_cols(FILE *f, const sp_run *run, int32_t g)
{
    sp_fig_kind k = sp_region_fig_kind(run, g);
    fprintf(f, "%d,%d", k == SP_FIG_ESTIMATE, k == SP_FIG_LOWER_BOUND);
}

/* mean, min, max, std, p50, p95, p99 of one call; only the mean for an
 * estimate (the others are empty). */
static void call_cols(FILE *f, const sp_stats *st, sp_fig_kind k)
{
    fprintf(f, "%.9f", st->mean_s);
    if (k == SP_FIG_ESTIMATE)
        fputs(",,,,,,", f);
    else
        fprintf(f, ",%.9f,%.9f,%.9f,%.9f,%.9f,%.9f", st->min_s, st->max_s, st->std_s, st->p50_s,
                st->p95_s, st->p99_s);
}

static int regions_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    sp_figures *fg = sp_figures_new(run);
    if (!fg)
        return SP_ENOMEM;
    fputs("region,estimated,lower_bound,ranks,calls_per_rank,calls_max_rank,total_s,"
          "total_max_rank_s,own_s,mean_s,min_s,max_s,std_s,p50_s,p95_s,p99_s,calls_sum_ranks,"
          "total_sum_ranks_s,own_sum_ranks_s,imbalance,dropped\n",
          f);
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_run_region *reg = &run->regions[g];
        if (!reg->all.calls)
            continue;
        sp__csv_str(f, reg->name);
        fputc(',', f);
        kind_cols(f, run, (int32_t)g);
        fprintf(f, ",%zu,%.6g,%" PRIu64 ",%.9f,%.9f,%.9f,", fg->nranks, fg->region_calls[g].mean,
                fg->region_calls[g].max, fg->region_total[g].mean_s, fg->region_total[g].max_s,
                fg->region_own[g].mean_s);
        call_cols(f, &reg->all, sp_region_fig_kind(run, (int32_t)g));
        fprintf(f, ",%" PRIu64 ",%.9f,%.9f,%.6f,%" PRIu64 "\n", reg->all.calls,
                fg->region_total[g].sum_s, fg->region_own[g].sum_s,
                sp_region_imbalance(run, (int32_t)g), reg->dropped);
    }
    sp_figures_free(fg);
    return 0;
}

static int per_rank_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("region,rank,estimated,lower_bound,calls,total_s,own_s,mean_s,min_s,max_s,std_s,p50_s,"
          "p95_s,p99_s\n",
          f);
    for (size_t g = 0; g < run->nregions; g++) {
        for (size_t r = 0; r < run->nranks; r++) {
            const sp_stats *st = &run->regions[g].per_rank[r];
            if (!st->calls)
                continue;
            sp__csv_str(f, run->region_names[g]);
            fprintf(f, ",%zu,", r);
            kind_cols(f, run, (int32_t)g);
            fprintf(f, ",%" PRIu64 ",%.9f,%.9f,", st->calls, st->total_s, st->own_s);
            call_cols(f, st, sp_region_fig_kind(run, (int32_t)g));
            fputc('\n', f);
        }
    }
    return 0;
}

typedef struct calls_out {
    FILE *f;
    const sp_run *run;
} calls_out;

static int call_row(void *ud, const sp__call *c)
{
    const calls_out *o = ud;
    const sp_rank_data *rk = &o->run->ranks[c->rank];
    FILE *f = o->f;
    int32_t t = c->thread;
    const char *tn = (t >= 0 && (size_t)t < rk->nthreads) ? rk->threads[t].name : NULL;
    fprintf(f, "%zu,%d,", c->rank, (int)t);
    sp__csv_str(f, tn);
    fputc(',', f);
    sp__csv_str(f, o->run->region_names[c->region]);
    fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%" PRId64 "\n", c->start_ns, c->end_ns,
            c->end_ns - c->start_ns, c->depth, c->parent);
    return 0;
}

static int calls_body(const sp_run *run, FILE *f, const void *ctx)
{
    fputs("rank,thread,thread_name,region,start_ns,end_ns,duration_ns,depth,parent\n", f);
    calls_out o = {f, run};
    return sp__export_each_call(ctx, call_row, &o);
}

static int tree_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    sp_figures *fg = sp_figures_new(run);
    if (!fg)
        return SP_ENOMEM;
    fputs("node,parent,depth,region,estimated,lower_bound,calls,calls_per_rank,inclusive_s,"
          "inclusive_max_rank_s,own_s,inclusive_sum_ranks_s,own_sum_ranks_s\n",
          f);
    for (size_t n = 1; n < run->tree.nnodes; n++) {
        const sp_tree_node *t = &run->tree.nodes[n];
        /* depth 0 = top level and parent -1 = none, as in calls.csv */
        fprintf(f, "%zu,%d,%d,", n, t->parent > 0 ? (int)t->parent : -1, (int)t->depth - 1);
        sp__csv_str(f, run->region_names[t->region]);
        fputc(',', f);
        kind_cols(f, run, t->region);
        fprintf(f, ",%" PRIu64 ",%.6g,%.9f,%.9f,%.9f,%.9f,%.9f\n", t->calls, fg->node_calls[n].mean,
                fg->node_incl[n].mean_s, fg->node_incl[n].max_s, fg->node_own[n].mean_s,
                fg->node_incl[n].sum_s, fg->node_own[n].sum_s);
    }
    sp_figures_free(fg);
    return 0;
}

static int meta_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("key,value\n", f);
    for (size_t i = 0; i < run->meta.n; i++) {
        sp__csv_str(f, run->meta.items[i].key);
        fputc(',', f);
        sp__csv_str(f, run->meta.items[i].value);
        fputc('\n', f);
    }
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        fprintf(f, "rank%zu.clock_offset_ns,%" PRId64 "\n", r, rk->clock_offset_ns);
        for (size_t i = 0; i < rk->meta.n; i++) {
            char key[512];
            snprintf(key, sizeof key, "rank%zu.%s", r, rk->meta.items[i].key);
            sp__csv_str(f, key);
            fputc(',', f);
            sp__csv_str(f, rk->meta.items[i].value);
            fputc('\n', f);
        }
    }
    return 0;
}

int sp__export_csv(const sp__export *x, const char *dir, sp__wrote_fn wrote)
{
    static const struct {
        const char *name;
        sp__body_fn body;
    } files[] = {{"regions.csv", regions_body},
                 {"per_rank.csv", per_rank_body},
                 {"calls.csv", calls_body},
                 {"call_tree.csv", tree_body},
                 {"metadata.csv", meta_body}};
    int rc = sp__mkdir_p(dir);
    for (size_t i = 0; !rc && i < sizeof files / sizeof *files; i++)
        rc = sp__write_in_dir(dir, files[i].name, files[i].body, x->run, x, wrote);
    return rc;
}
