/* SPDX-License-Identifier: MIT */
/*
 * export_csv.c - `export csv`: a directory of CSV files (RFC 4180, UTF-8,
 * header row, "\n" line ends):
 *   regions.csv    region statistics over all ranks (seconds)
 *   per_rank.csv   the same per (region, rank), for ranks with calls
 *   calls.csv      every call: rank, thread, region, start/end (ns, the
 *                  rank's own clock; add clock_offset_ns of metadata.csv's
 *                  rank rows to align ranks), depth, parent (row index of
 *                  the enclosing call within the same rank, -1 = none)
 *   call_tree.csv  the merged call tree (inclusive/own seconds per path)
 *   metadata.csv   run metadata, then per-rank facts as "rankN.key"
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_error.h"

static void stats_cols(FILE *f, const sp_stats *st)
{
    fprintf(f, "%" PRIu64 ",%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f,%.9f", st->calls, st->total_s,
            st->own_s, st->mean_s, st->min_s, st->max_s, st->std_s, st->p50_s, st->p95_s,
            st->p99_s);
}

static int regions_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("region,calls,total_s,own_s,mean_s,min_s,max_s,std_s,p50_s,p95_s,p99_s,imbalance,"
          "dropped\n",
          f);
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_run_region *reg = &run->regions[g];
        if (!reg->all.calls)
            continue;
        sp__csv_str(f, reg->name);
        fputc(',', f);
        stats_cols(f, &reg->all);
        fprintf(f, ",%.6f,%" PRIu64 "\n", sp_region_imbalance(run, (int32_t)g), reg->dropped);
    }
    return 0;
}

static int per_rank_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("region,rank,calls,total_s,own_s,mean_s,min_s,max_s,std_s,p50_s,p95_s,p99_s\n", f);
    for (size_t g = 0; g < run->nregions; g++) {
        for (size_t r = 0; r < run->nranks; r++) {
            const sp_stats *st = &run->regions[g].per_rank[r];
            if (!st->calls)
                continue;
            sp__csv_str(f, run->region_names[g]);
            fprintf(f, ",%zu,", r);
            stats_cols(f, st);
            fputc('\n', f);
        }
    }
    return 0;
}

static int calls_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("rank,thread,thread_name,region,start_ns,end_ns,duration_ns,depth,parent\n", f);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int32_t t = rk->thread[i];
            const char *tn = (t >= 0 && (size_t)t < rk->nthreads) ? rk->threads[t].name : NULL;
            fprintf(f, "%zu,%d,", r, (int)t);
            sp__csv_str(f, tn);
            fputc(',', f);
            sp__csv_str(f, run->region_names[rk->region[i]]);
            fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%" PRId64 "\n", rk->start_ns[i],
                    rk->end_ns[i], rk->end_ns[i] - rk->start_ns[i],
                    rk->depth ? (int)rk->depth[i] : -1, rk->parent[i]);
        }
    }
    return 0;
}

static int tree_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    fputs("node,parent,depth,region,calls,inclusive_s,own_s\n", f);
    for (size_t n = 1; n < run->tree.nnodes; n++) {
        const sp_tree_node *t = &run->tree.nodes[n];
        fprintf(f, "%zu,%d,%d,", n, (int)t->parent, (int)t->depth);
        sp__csv_str(f, run->region_names[t->region]);
        fprintf(f, ",%" PRIu64 ",%.9f,%.9f\n", t->calls, t->incl_s, t->own_s);
    }
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

int sp__export_csv(const sp_run *run, const char *dir, sp__wrote_fn wrote)
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
        rc = sp__write_in_dir(dir, files[i].name, files[i].body, run, NULL, wrote);
    return rc;
}
