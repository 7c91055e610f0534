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
 *
 * Several ranks (or a region on several threads of a rank): the rank rule
 * of sp_figures.h. calls, total and own are per rank (calls as a range over
 * the ranks, total and own the mean over the ranks, with the slowest rank's
 * total beside); the per-call columns (mean, min, max, std, p95 of one
 * call's duration) cover every call:
 *
 *   region  calls/rank  total/rank [s]  slowest rank [s]  own/rank [s]  call mean [s] ...
 *
 * Estimates (sampled regions) read "~"; their per-call min, max, std and
 * p95 print "-" (their resolution is the sampling period, stated below the
 * table). Lower bounds (throttled functions) read ">=".
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_figures.h"
#include "sp_sched.h"

#define NAME_COLS 80 /* longer region names lose their middle to "…" */
#define META_KEY_COLS 60
#define META_VALUE_COLS 2000
#define NCOLS 8

static const char *const col_head[NCOLS] = {"calls",   "total [s]", "own [s]", "mean [s]",
                                            "min [s]", "max [s]",   "std [s]", "p95 [s]"};
#define NCOLS2 9
static const char *const col_head2[NCOLS2] = {"calls/rank",   "total/rank [s]", "slowest rank [s]",
                                              "own/rank [s]", "call mean [s]",  "call min [s]",
                                              "call max [s]", "call std [s]",   "call p95 [s]"};

/* The cells of region g: NCOLS (one rank) or NCOLS2 (the rank rule). */
static int format_cells(const sp_run *run, const sp_figures *fig, int32_t g, char cells[][32])
{
    const sp_stats *st = &run->regions[g].all;
    sp_fig_kind kind = sp_region_fig_kind(run, g);
    int c = 0;
    if (fig->two_columns) {
        sp_fig_format_calls_range(&fig->region_calls[g], kind, cells[c++], 32);
        sp_fig_format_s(fig->region_total[g].mean_s, kind, cells[c++], 32);
        sp_fig_format_s(fig->region_total[g].max_s, kind, cells[c++], 32);
        sp_fig_format_s(fig->region_own[g].mean_s, kind, cells[c++], 32);
    } else {
        sp_fig_format_calls(st->calls, kind, cells[c++], 32);
        sp_fig_format_s(st->total_s, kind, cells[c++], 32);
        sp_fig_format_s(st->own_s, kind, cells[c++], 32);
    }
    sp_fig_format_s(st->mean_s, kind, cells[c++], 32);
    const double v[4] = {st->min_s, st->max_s, st->std_s, st->p95_s};
    for (int k = 0; k < 4; k++, c++) {
        if (kind == SP_FIG_ESTIMATE) /* resolution: the sampling period */
            snprintf(cells[c], 32, "-");
        else
            sp_fig_format_s(v[k], kind == SP_FIG_LOWER_BOUND ? SP_FIG_EXACT : kind, cells[c], 32);
    }
    return c;
}

static void print_facts(const sp_run *run, const sp_figures *fig, FILE *out)
{
    uint64_t calls = 0;
    size_t threads = 0;
    char ranks[64];
    for (size_t r = 0; r < run->nranks; r++) {
        calls += sp_run_rank_calls(run, r);
        if (!run->ranks[r].excluded)
            threads += run->ranks[r].nthreads;
    }
    char *path = run->source_path ? sp__display_dup(run->source_path) : NULL;
    fprintf(out, "File:      %s\n", path ? path : "(in memory)");
    free(path);
    fprintf(out, "Layout:    %s", run->layout ? run->layout : "scope-profiler");
    if (run->schema_version > 0) /* 0: built in memory, never a file */
        fprintf(out, ", schema %d", run->schema_version);
    fputc('\n', out);
    if (fig->nranks == fig->nranks_file)
        fprintf(out, "Ranks:     %zu\n", fig->nranks);
    else
        fprintf(out, "Ranks:     %zu of %zu (selected)\n", fig->nranks, fig->nranks_file);
    (void)ranks;
    if (threads)
        fprintf(out, "Threads:   %zu (%s)\n", threads,
                fig->nranks == 1 ? "the rank" : "all ranks shown");
    fprintf(out, "Regions:   %zu\n", run->nregions);
    fprintf(out, "Calls:     %llu\n", (unsigned long long)calls);
    if (fig->has_span)
        fprintf(out, "Wall time: %.6f s (wall-clock span: first call start to last call end%s)\n",
                fig->span_s, fig->nranks > 1 ? ", all ranks" : "");
    char wait[256];
    fprintf(out, "CPU wait:  %s\n", sp_sched_run_text(run, wait, sizeof wait));
    if (run->nranks > 1) { /* each rank's, when measured */
        bool first = true;
        for (size_t r = 0; r < run->nranks; r++) {
            sp_sched_summary s;
            sp_sched_rank_summary(&run->ranks[r], &s);
            if (!s.measured)
                continue;
            fprintf(out, "%s rank %zu %.0f %%", first ? "           per rank:" : ",", r,
                    100 * s.wait_share);
            first = false;
        }
        if (!first)
            fputc('\n', out);
    }
    if (run->meta.n) {
        /* Keys and values come from the file: a key is cut to META_KEY_COLS
         * (both ends kept), a value to META_VALUE_COLS (its start kept) and
         * its length said: a 16 MB value made inspect print 16 MB. */
        char k[META_KEY_COLS * 4 + 4], v[META_VALUE_COLS * 4 + 4];
        size_t kw = 0;
        for (size_t i = 0; i < run->meta.n; i++) {
            size_t w = sp__label_copy(k, sizeof k, run->meta.items[i].key, META_KEY_COLS);
            if (w > kw)
                kw = w;
        }
        fputs("\nMetadata:\n", out);
        for (size_t i = 0; i < run->meta.n; i++) {
            const char *value = run->meta.items[i].value;
            sp__label_copy(k, sizeof k, run->meta.items[i].key, META_KEY_COLS);
            sp__label_copy_end(v, sizeof v, value, META_VALUE_COLS);
            fputs("  ", out);
            sp__put_padded(out, k, kw);
            fprintf(out, " : %s", v);
            if (sp__utf8_wider_than(value, META_VALUE_COLS))
                fprintf(out, " (%zu bytes in all; scope-profiler export json writes it whole)",
                        strlen(value));
            fputc('\n', out);
        }
    }
    fputc('\n', out);
}

static void print_table(const sp_run *run, const sp_figures *fig, const int32_t *ids, size_t n,
                        FILE *out)
{
    int ncols = fig->two_columns ? NCOLS2 : NCOLS;
    const char *const *head = fig->two_columns ? col_head2 : col_head;
    size_t name_w = strlen("region"), w[NCOLS2];
    char name[NAME_COLS * 4 + 4], cells[NCOLS2][32];
    for (int c = 0; c < ncols; c++)
        w[c] = strlen(head[c]);
    for (size_t i = 0; i < n; i++) { /* pass 1: column widths */
        const sp_run_region *reg = &run->regions[ids[i]];
        size_t nw = sp__label_copy(name, sizeof name, reg->name, NAME_COLS);
        if (nw > name_w)
            name_w = nw;
        format_cells(run, fig, ids[i], cells);
        for (int c = 0; c < ncols; c++)
            if (strlen(cells[c]) > w[c])
                w[c] = strlen(cells[c]);
    }
    sp__put_padded(out, "region", name_w);
    for (int c = 0; c < ncols; c++)
        fprintf(out, "  %*s", (int)w[c], head[c]);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) { /* pass 2: rows */
        const sp_run_region *reg = &run->regions[ids[i]];
        sp__label_copy(name, sizeof name, reg->name, NAME_COLS);
        sp__put_padded(out, name, name_w);
        format_cells(run, fig, ids[i], cells);
        for (int c = 0; c < ncols; c++)
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
        fputs(" (called inside themselves: total counts each outermost call once,\n"
              "the nested calls' time being inside it; calls and the per-call figures count\n"
              "every call; own time does not count anything twice).\n",
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
    sp_figures *fig = sp_figures_new(run);
    if (!fig) {
        free(ids);
        return SP_ENOMEM;
    }
    print_facts(run, fig, out);
    if (n == 0)
        fputs(run->nregions ? "(no region matches the filter)\n" : "(no regions)\n", out);
    else
        print_table(run, fig, ids, (size_t)n, out);
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
    char rule[512], note[1600];
    size_t o = 0;
    if (fig->two_columns)
        o += (size_t)snprintf(
            note + o, sizeof note - o,
            "\nDurations are in seconds. %s calls/rank: calls of one rank (a range when ranks "
            "differ); total/rank and own/rank: the mean over the ranks; slowest rank: the "
            "largest rank's total; call mean, min, max, std, p95: of one call's duration, over "
            "every call. own: exclusive time (without nested regions). Sums over the %zu "
            "ranks: export csv (regions.csv, columns *_sum_ranks_s).\n",
            sp_figures_rule_text(fig, rule, sizeof rule), fig->nranks);
    else
        o += (size_t)snprintf(note + o, sizeof note - o,
                              "\nDurations are in seconds. own: exclusive time (without nested "
                              "regions).\n");
    if (fig->nsampled && o < sizeof note) {
        char period[64] = "";
        if (fig->sample_period_s > 0)
            snprintf(period, sizeof period, " taken every %.3g ms of CPU time",
                     fig->sample_period_s * 1e3);
        o += (size_t)snprintf(note + o, sizeof note - o,
                              "Sampled (~): %zu region%s estimated from call-stack samples%s; "
                              "per-call min, max, std and p95 are not shown (their resolution "
                              "is the sampling period).\n",
                              fig->nsampled, fig->nsampled == 1 ? "" : "s", period);
    }
    if (fig->nthrottled && o < sizeof note)
        snprintf(note + o, sizeof note - o,
                 "Throttled (>=): tracing stopped for %zu very short, very frequent function%s; "
                 "calls and times are lower bounds.\n",
                 fig->nthrottled, fig->nthrottled == 1 ? "" : "s");
    sp__put_wrapped(out, note, 100);
    sp_figures_free(fig);
    free(ids);
    if (fflush(out) != 0 || ferror(out))
        return sp__error(SP_EIO, "cannot write the inspect listing");
    return 0;
}
