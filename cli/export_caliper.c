/* SPDX-License-Identifier: MIT */
/*
 * export_caliper.c - `export caliper-json`: the call tree with per-rank
 * inclusive and exclusive time and calls, in Caliper's json-split layout
 * (what Caliper's runtime-profile writes with output.format=json-split,
 * time.inclusive and region.count; Hatchet's and Thicket's from_caliper
 * read it):
 *
 *   { "data": [[node order, time (inc), time, Calls, threads, mpi.rank, path], ...],
 *     "columns": ["Node order", "time (inc)", "time", "Calls", "threads", "mpi.rank", "path"],
 *     "column_metadata": [{"is_value": true, ...}, ..., {"is_value": false}],
 *     "nodes": [{"label": "main", "column": "path"}, {"label": "solve", "column": "path", "parent": 0}, ...],
 *     "<metadata key>": "<value>", ... }
 *
 * One row per (call path, rank) where the rank called that path. Times are
 * seconds under the rank rule (sp_figures.h): a rank's time at a path is
 * the mean over its threads that ran it (`threads` says how many), so the
 * mean over ranks of a path's `time (inc)` (a rank without a row counts 0)
 * is what `summary` prints. Nodes come parents first (depth-first, the
 * children by time); the first len(nodes) rows hold one row of each node in
 * node order, so Hatchet's node ordering, which reads the order of node i
 * from row i, gets the right value. The run's metadata become top-level
 * string keys (Hatchet and Thicket take every key but the four sections as
 * metadata), with `mpi.world.size`.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "sp_agg.h"
#include "sp_error.h"

/* One (path, rank) row. */
typedef struct cal_row {
    int32_t node;      /* caliper node index */
    size_t rank;
    double incl_s, own_s;
    uint64_t calls;
    uint32_t threads;
} cal_row;

typedef struct cal_ctx {
    const bool *ranks; /* NULL: all */
} cal_ctx;

/* Tree nodes depth-first (children in the tree's order: by time). order[i]
 * is the tree node of caliper node i; index[tree node] the reverse. */
static size_t dfs_order(const sp_tree *t, int32_t *order, int32_t *index)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nnodes; i++)
        index[i] = -1;
    int32_t k = t->nnodes ? t->nodes[0].first_child : -1;
    while (k >= 0) {
        index[k] = (int32_t)n;
        order[n++] = k;
        const sp_tree_node *nd = &t->nodes[k];
        if (nd->first_child >= 0) {
            k = nd->first_child;
            continue;
        }
        while (k > 0 && t->nodes[k].next_sibling < 0)
            k = t->nodes[k].parent;
        k = k > 0 ? t->nodes[k].next_sibling : -1;
    }
    return n;
}

/* The rows of rank r: per path, its threads' cells folded under the rank
 * rule. acc_* are scratch arrays of the caliper node count. */
static size_t rank_rows(const sp_agg_rank *o, size_t r, const int32_t *index, double *sum_incl,
                        double *sum_own, uint64_t *calls, uint32_t *nthr, cal_row *out)
{
    size_t n = 0;
    int32_t *touched = malloc((o->nnode_cells + 1) * sizeof *touched);
    if (!touched)
        return SIZE_MAX;
    size_t nt = 0;
    for (size_t i = 0; i < o->nnode_cells; i++) {
        const sp_agg_cell *c = &o->node_cells[i];
        if (c->key < 0 || (size_t)c->key >= o->nnodes)
            continue;
        int32_t g = o->global_node[c->key];
        int32_t k = g >= 0 ? index[g] : -1;
        if (k < 0)
            continue;
        if (!calls[k] && !nthr[k] && sum_incl[k] == 0 && sum_own[k] == 0)
            touched[nt++] = k;
        sum_incl[k] += (double)c->incl_ns * 1e-9;
        sum_own[k] += (double)c->own_ns * 1e-9;
        calls[k] += c->calls;
        nthr[k] += c->calls > 0; /* a cell per (thread, path): threads that ran it */
    }
    for (size_t i = 0; i < nt; i++) {
        int32_t k = touched[i];
        uint32_t d = nthr[k] ? nthr[k] : 1;
        if (calls[k])
            out[n++] = (cal_row){.node = k, .rank = r, .incl_s = sum_incl[k] / d,
                                 .own_s = sum_own[k] / d, .calls = calls[k], .threads = nthr[k]};
        sum_incl[k] = sum_own[k] = 0;
        calls[k] = 0;
        nthr[k] = 0;
    }
    free(touched);
    return n;
}

static void put_row(FILE *f, const cal_row *w, bool first)
{
    fprintf(f, "%s\n    [%d, ", first ? "" : ",", (int)w->node);
    sp__json_num(f, w->incl_s);
    fputs(", ", f);
    sp__json_num(f, w->own_s);
    fprintf(f, ", %llu, %u, %zu, %d]", (unsigned long long)w->calls, w->threads, w->rank,
            (int)w->node);
}

static bool reserved_key(const char *k)
{
    static const char *const keys[] = {"data", "columns", "column_metadata", "nodes"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

static void put_metadata(const sp_run *run, FILE *f)
{
    for (size_t i = 0; i < run->meta.n; i++) {
        const sp_kv *kv = &run->meta.items[i];
        fputs(",\n  ", f);
        if (reserved_key(kv->key)) { /* would clobber a section */
            char k[300];
            snprintf(k, sizeof k, "%s (metadata)", kv->key);
            sp__json_str(f, k);
        } else {
            sp__json_str(f, kv->key);
        }
        fputs(": ", f);
        sp__json_str(f, kv->value);
    }
    if (!sp_kvlist_get(&run->meta, "mpi.world.size"))
        fprintf(f, ",\n  \"mpi.world.size\": \"%zu\"", run->nranks);
    if (run->source_path) {
        fputs(",\n  \"scope_profiler.file\": ", f);
        sp__json_str(f, run->source_path);
    }
}

static int caliper_body(const sp_run *run, FILE *f, const void *ctx)
{
    const cal_ctx *c = ctx;
    const sp_tree *t = &run->tree;
    const sp_agg *agg = run->agg;
    size_t nn = t->nnodes ? t->nnodes : 1;
    int32_t *order = malloc(nn * sizeof *order), *index = malloc(nn * sizeof *index);
    double *si = calloc(nn, sizeof *si), *so = calloc(nn, sizeof *so);
    uint64_t *calls = calloc(nn, sizeof *calls);
    uint32_t *nthr = calloc(nn, sizeof *nthr);
    cal_row *rows = NULL, *later = NULL;
    bool *placed = calloc(nn, sizeof *placed);
    int rc = 0;
    if (!order || !index || !si || !so || !calls || !nthr || !placed || !agg) {
        rc = agg ? SP_ENOMEM : sp__error(SP_EINVAL, "caliper-json: the run has no aggregates");
        goto done;
    }
    size_t nodes = dfs_order(t, order, index);
    rows = malloc((nodes + 1) * sizeof *rows);
    if (!rows) {
        rc = SP_ENOMEM;
        goto done;
    }
    /* Rows are few (paths x ranks): gathered, then written node order first. */
    size_t nrows = 0, cap = nodes + 1;
    later = malloc(cap * sizeof *later);
    if (!later) {
        rc = SP_ENOMEM;
        goto done;
    }
    for (size_t r = 0; r < agg->nranks && r < run->nranks; r++) {
        const sp_agg_rank *o = &agg->ranks[r];
        if (!o->read || (c->ranks && !c->ranks[r]))
            continue;
        if (nrows + nodes + 1 > cap) {
            cap = 2 * (nrows + nodes + 1);
            cal_row *m = realloc(later, cap * sizeof *m);
            if (!m) {
                rc = SP_ENOMEM;
                goto done;
            }
            later = m;
        }
        size_t k = rank_rows(o, r, index, si, so, calls, nthr, later + nrows);
        if (k == SIZE_MAX) {
            rc = SP_ENOMEM;
            goto done;
        }
        nrows += k;
    }
    fputs("{\n  \"data\": [", f);
    bool first = true;
    for (size_t i = 0; i < nrows; i++) /* first row of each node, by node */
        if (!placed[later[i].node]) {
            placed[later[i].node] = true;
            rows[later[i].node] = later[i];
            later[i].node = -1;
        }
    for (size_t k = 0; k < nodes; k++)
        if (placed[k]) {
            put_row(f, &rows[k], first);
            first = false;
        }
    for (size_t i = 0; i < nrows; i++)
        if (later[i].node >= 0) {
            put_row(f, &later[i], first);
            first = false;
        }
    fputs("\n  ],\n  \"columns\": [\"Node order\", \"time (inc)\", \"time\", \"Calls\", "
          "\"threads\", \"mpi.rank\", \"path\"],\n"
          "  \"column_metadata\": [{\"is_value\": true}, "
          "{\"is_value\": true, \"attribute.unit\": \"sec\"}, "
          "{\"is_value\": true, \"attribute.unit\": \"sec\"}, "
          "{\"is_value\": true, \"attribute.unit\": \"count\"}, {\"is_value\": true}, "
          "{\"is_value\": true}, {\"is_value\": false}],\n  \"nodes\": [",
          f);
    for (size_t k = 0; k < nodes; k++) {
        const sp_tree_node *nd = &t->nodes[order[k]];
        fputs(k ? ",\n    {\"label\": " : "\n    {\"label\": ", f);
        sp__json_str(f, nd->region >= 0 && (size_t)nd->region < run->nregions
                            ? run->region_names[nd->region]
                            : "");
        fputs(", \"column\": \"path\"", f);
        if (nd->parent > 0)
            fprintf(f, ", \"parent\": %d", (int)index[nd->parent]);
        fputc('}', f);
    }
    fputs("\n  ]", f);
    put_metadata(run, f);
    fputs("\n}\n", f);
done:
    free(order);
    free(index);
    free(si);
    free(so);
    free(calls);
    free(nthr);
    free(rows);
    free(later);
    free(placed);
    return rc == SP_ENOMEM ? sp__error(SP_ENOMEM, "out of memory") : rc;
}

int sp__export_caliper(const sp_run *run, const bool *ranks, const char *path, sp__wrote_fn wrote)
{
    cal_ctx c = {.ranks = ranks};
    return sp__write_file(path, caliper_body, run, &c, wrote);
}
