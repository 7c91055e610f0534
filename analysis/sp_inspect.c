/* SPDX-License-Identifier: MIT */
/*
 * sp_inspect.c - `scope-profiler inspect`: the run's facts and metadata, then
 * one row per region with its statistics over all ranks:
 *
 *   region       calls  total [s]  own [s]  mean [s]  min [s]  max [s]  std [s]  p95 [s]
 *   solve            3   0.012345 ...
 *
 * Names are left-aligned (by display width), numbers right-aligned, every
 * column as wide as its widest cell. No caps: this is the full listing.
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#define NAME_COLS 80 /* longer region names end in "…" */
#define NCOLS 8

static const char *const col_head[NCOLS] = {"calls",   "total [s]", "own [s]", "mean [s]",
                                            "min [s]", "max [s]",   "std [s]", "p95 [s]"};

static void format_cells(const sp_stats *st, char cells[NCOLS][32])
{
    const double v[NCOLS] = {0,         st->total_s, st->own_s, st->mean_s,
                             st->min_s, st->max_s,   st->std_s, st->p95_s};
    snprintf(cells[0], 32, "%llu", (unsigned long long)st->calls);
    for (int c = 1; c < NCOLS; c++)
        snprintf(cells[c], 32, "%.6f", v[c]);
}

static void print_facts(const sp_run *run, FILE *out)
{
    uint64_t calls = 0;
    size_t threads = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        calls += run->ranks[r].ncalls;
        threads += run->ranks[r].nthreads;
    }
    char *path = run->source_path ? sp__display_dup(run->source_path) : NULL;
    fprintf(out, "File:      %s\n", path ? path : "(in memory)");
    free(path);
    fprintf(out, "Layout:    %s", run->layout ? run->layout : "scope-profiler");
    if (run->schema_version > 0) /* 0: built in memory, never a file */
        fprintf(out, ", schema %d", run->schema_version);
    fputc('\n', out);
    fprintf(out, "Ranks:     %zu\n", run->nranks);
    if (threads)
        fprintf(out, "Threads:   %zu (all ranks)\n", threads);
    fprintf(out, "Regions:   %zu\n", run->nregions);
    fprintf(out, "Calls:     %llu\n", (unsigned long long)calls);
    int64_t t0, t1;
    if (sp_run_time_span(run, &t0, &t1) == 0)
        fprintf(out, "Wall time: %.6f s (first call start to last call end)\n",
                (double)(t1 - t0) * 1e-9);
    if (run->meta.n) {
        size_t kw = 0;
        for (size_t i = 0; i < run->meta.n; i++) {
            size_t w = sp__utf8_width(run->meta.items[i].key);
            if (w > kw)
                kw = w;
        }
        fputs("\nMetadata:\n", out);
        for (size_t i = 0; i < run->meta.n; i++) {
            char *k = sp__display_dup(run->meta.items[i].key);
            char *v = sp__display_dup(run->meta.items[i].value);
            fputs("  ", out);
            sp__put_padded(out, k ? k : "?", kw);
            fprintf(out, " : %s\n", v ? v : "?");
            free(k);
            free(v);
        }
    }
    fputc('\n', out);
}

static void print_table(const sp_run *run, const int32_t *ids, size_t n, FILE *out)
{
    size_t name_w = strlen("region"), w[NCOLS];
    char name[NAME_COLS * 4 + 4], cells[NCOLS][32];
    for (int c = 0; c < NCOLS; c++)
        w[c] = strlen(col_head[c]);
    for (size_t i = 0; i < n; i++) { /* pass 1: column widths */
        const sp_run_region *reg = &run->regions[ids[i]];
        size_t nw = sp__label_copy(name, sizeof name, reg->name, NAME_COLS);
        if (nw > name_w)
            name_w = nw;
        format_cells(&reg->all, cells);
        for (int c = 0; c < NCOLS; c++)
            if (strlen(cells[c]) > w[c])
                w[c] = strlen(cells[c]);
    }
    sp__put_padded(out, "region", name_w);
    for (int c = 0; c < NCOLS; c++)
        fprintf(out, "  %*s", (int)w[c], col_head[c]);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) { /* pass 2: rows */
        const sp_run_region *reg = &run->regions[ids[i]];
        sp__label_copy(name, sizeof name, reg->name, NAME_COLS);
        sp__put_padded(out, name, name_w);
        format_cells(&reg->all, cells);
        for (int c = 0; c < NCOLS; c++)
            fprintf(out, "  %*s", (int)w[c], cells[c]);
        fputc('\n', out);
    }
}

/*
 * Mark the regions that are called (directly or not) from inside themselves:
 * their total counts the nested calls again inside their callers' durations.
 * An iterative depth-first walk of the call tree keeps, per region, how many
 * nodes on the current path have it: O(nodes + regions), no recursion.
 */
static unsigned char *recursive_regions(const sp_run *run)
{
    const sp_tree_node *nd = run->tree.nodes;
    size_t nreg = run->nregions;
    unsigned char *rec = calloc(nreg ? nreg : 1, 1);
    uint32_t *on_path = calloc(nreg ? nreg : 1, sizeof *on_path);
    if (!rec || !on_path) {
        free(rec);
        free(on_path);
        return NULL;
    }
    int32_t n = run->tree.nnodes ? nd[0].first_child : -1;
    while (n >= 0) {
        if (on_path[nd[n].region]++)
            rec[nd[n].region] = 1;
        if (nd[n].first_child >= 0) {
            n = nd[n].first_child;
            continue;
        }
        /* leave n and every ancestor that has no next sibling */
        while (n > 0) {
            on_path[nd[n].region]--;
            if (nd[n].next_sibling >= 0) {
                n = nd[n].next_sibling;
                break;
            }
            n = nd[n].parent;
        }
        if (n == 0)
            break;
    }
    free(on_path);
    return rec;
}

static void print_recursion_note(const sp_run *run, const int32_t *ids, size_t n, FILE *out)
{
    unsigned char *rec = recursive_regions(run);
    if (!rec)
        return; /* out of memory: the note is optional */
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rec[ids[i]])
            continue;
        if (count < 5) {
            char *name = sp__display_dup(run->regions[ids[i]].name);
            fprintf(out, "%s%s", count ? ", " : "\nRecursive: ", name ? name : "?");
            free(name);
        }
        count++;
    }
    if (count > 5)
        fprintf(out, " and %zu more", count - 5);
    if (count)
        fputs(" (called inside themselves: total counts the nested calls\n"
              "again inside their callers; own time does not count anything twice).\n",
              out);
    free(rec);
}

int sp_print_inspect(sp_run *run, sp_sort_key key, const sp_region_filter *f, FILE *out)
{
    if (!run || !out)
        return sp__error(SP_EINVAL, "sp_print_inspect: run and out must not be NULL");
    int rc = sp_run_analyze(run);
    if (rc)
        return rc;
    int32_t *ids;
    long n = sp_run_sorted_regions(run, key, f, &ids);
    if (n < 0)
        return SP_ENOMEM; /* analyzed already: allocation is all that can fail */
    print_facts(run, out);
    if (n == 0)
        fputs(run->nregions ? "(no region matches the filter)\n" : "(no regions)\n", out);
    else
        print_table(run, ids, (size_t)n, out);
    if ((size_t)n < run->nregions)
        fprintf(out, "\n%ld of %zu regions shown (filtered).\n", n, run->nregions);
    print_recursion_note(run, ids, (size_t)n, out);
    for (long i = 0; i < n; i++) {
        const sp_run_region *reg = &run->regions[ids[i]];
        if (reg->dropped) {
            char *name = sp__display_dup(reg->name);
            fprintf(out, "Warning: %llu calls of '%s' were dropped (out of memory).\n",
                    (unsigned long long)reg->dropped, name ? name : "?");
            free(name);
        }
    }
    fputs("\nDurations are in seconds, over all ranks and threads. own: exclusive time "
          "(without nested regions).\n",
          out);
    free(ids);
    if (fflush(out) != 0 || ferror(out))
        return sp__error(SP_EIO, "cannot write the inspect listing");
    return 0;
}
