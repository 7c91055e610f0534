/* SPDX-License-Identifier: MIT */
/*
 * sp_ranks_print.c - `scope-profiler ranks`: the cross-rank table, one row
 * per region, and optionally each region's per-rank table.
 *
 *   region    ranks  calls/rank  min [s]   mean [s]  max [s]   slowest  fastest  imbalance
 *   compute     4/4           5  0.010216  0.025586  0.040663        3        0  1.59 (+59%)
 *
 * Names left-aligned by display width, numbers right-aligned, each column as
 * wide as its widest cell.
 */
#include "sp_ranks.h"

#include <stdlib.h>
#include <string.h>

#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_figures.h"

#define NAME_COLS 60
#define NCOLS 8

/* Calls are per rank, as every figure (README "What the numbers mean"):
 * "20" when every rank made 20, "0-40" when they differ. */
static const char *const col_head[NCOLS] = {"ranks",   "calls/rank", "min [s]", "mean [s]",
                                            "max [s]", "slowest",    "fastest", "imbalance"};

static void format_imbalance(const sp_rank_region *s, char *buf, size_t len)
{
    if (s->imbalance <= 0.0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f (%+.0f%%)", s->imbalance, s->imbalance_pct);
}

static void format_row(const sp_rank_region *s, char cells[NCOLS][48])
{
    snprintf(cells[0], 48, "%zu/%zu", s->nhave, s->nranks);
    sp_fig_format_calls_range(&(sp_fig_calls){.min = s->calls_min, .max = s->calls_max},
                              SP_FIG_EXACT, cells[1], 48);
    snprintf(cells[2], 48, "%.6f", s->min_total_s);
    snprintf(cells[3], 48, "%.6f", s->mean_total_s);
    snprintf(cells[4], 48, "%.6f", s->max_total_s);
    snprintf(cells[5], 48, "%d", (int)s->slowest_rank);
    snprintf(cells[6], 48, "%d", (int)s->fastest_rank);
    format_imbalance(s, cells[7], 48);
}

/* Sort key of a row: larger first (name: A to Z). */
typedef struct row {
    sp_rank_region s;
    const char *name;
    double key;
} row;

static int cmp_row(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return strcmp(a->name, b->name);
}

static double sort_key(const sp_rank_region *s, sp_ranks_sort sort)
{
    switch (sort) {
    case SP_RANKS_SORT_IMBALANCE:
        return s->imbalance;
    case SP_RANKS_SORT_TOTAL:
        return s->total_s;
    case SP_RANKS_SORT_NAME:
        return 0.0;
    case SP_RANKS_SORT_MAX:
        break;
    }
    return s->max_total_s;
}

static void print_overview(const row *rows, size_t n, FILE *out)
{
    size_t name_w = strlen("region"), w[NCOLS];
    char name[NAME_COLS * 4 + 4], cells[NCOLS][48];
    for (int c = 0; c < NCOLS; c++)
        w[c] = strlen(col_head[c]);
    for (size_t i = 0; i < n; i++) {
        size_t nw = sp__label_copy(name, sizeof name, rows[i].name, NAME_COLS);
        name_w = nw > name_w ? nw : name_w;
        format_row(&rows[i].s, cells);
        for (int c = 0; c < NCOLS; c++)
            w[c] = strlen(cells[c]) > w[c] ? strlen(cells[c]) : w[c];
    }
    sp__put_padded(out, "region", name_w);
    for (int c = 0; c < NCOLS; c++)
        fprintf(out, "  %*s", (int)w[c], col_head[c]);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        sp__label_copy(name, sizeof name, rows[i].name, NAME_COLS);
        sp__put_padded(out, name, name_w);
        format_row(&rows[i].s, cells);
        for (int c = 0; c < NCOLS; c++)
            fprintf(out, "  %*s", (int)w[c], cells[c]);
        fputc('\n', out);
    }
}

/* One region's per-rank table. */
static void print_detail(const sp_run *run, const row *rw, const bool *sel, FILE *out)
{
    const sp_rank_region *s = &rw->s;
    const sp_stats *per = run->regions[s->region].per_rank;
    char *name = sp__display_dup(rw->name), imb[48];
    format_imbalance(s, imb, sizeof imb);
    fprintf(out, "\n%s: %zu of %zu ranks, imbalance %s, slowest rank %d, fastest rank %d\n",
            name ? name : "?", s->nhave, s->nranks, imb, (int)s->slowest_rank,
            (int)s->fastest_rank);
    free(name);
    fprintf(out, "  %6s  %8s  %10s  %10s  %10s  %10s  %8s\n", "rank", "calls", "total [s]",
            "mean [s]", "min [s]", "max [s]", "vs mean");
    for (size_t r = 0; r < run->nranks; r++) {
        if ((sel && !sel[r]) || per[r].calls == 0)
            continue;
        char vs[32] = "-";
        if (s->mean_total_s > 0.0)
            snprintf(vs, sizeof vs, "%+.1f%%", (per[r].total_s / s->mean_total_s - 1.0) * 100.0);
        fprintf(out, "  %6zu  %8llu  %10.6f  %10.6f  %10.6f  %10.6f  %8s%s\n", r,
                (unsigned long long)per[r].calls, per[r].total_s, per[r].mean_s, per[r].min_s,
                per[r].max_s, vs,
                (int32_t)r == s->slowest_rank   ? "  slowest"
                : (int32_t)r == s->fastest_rank ? "  fastest"
                                                : "");
    }
    if (s->nmissing) {
        fputs("  without it (0 calls, counted as 0 s):", out);
        for (size_t i = 0; i < s->nmissing && i < 32; i++)
            fprintf(out, " %d", (int)s->missing[i]);
        if (s->nmissing > 32)
            fprintf(out, " ... (%zu ranks)", s->nmissing);
        fputc('\n', out);
        fprintf(out, "  mean over the %zu rank%s that %s it: %.6f s\n", s->nhave,
                s->nhave == 1 ? "" : "s", s->nhave == 1 ? "has" : "have", s->mean_have_s);
    }
}

int sp_print_ranks(sp_run *run, const sp_region_filter *f, const bool *sel, sp_ranks_sort sort,
                   bool detail, FILE *out)
{
    if (!run || !out)
        return sp__error(SP_EINVAL, "sp_print_ranks: run and out must not be NULL");
    int rc = sp_run_analyze(run);
    if (rc)
        return rc;
    row *rows = calloc(run->nregions ? run->nregions : 1, sizeof *rows);
    if (!rows)
        return sp__error(SP_ENOMEM, "out of memory listing ranks");
    size_t n = 0;
    for (size_t g = 0; g < run->nregions; g++) {
        if (!sp_region_filter_match(f, run->region_names[g]))
            continue;
        if ((rc = sp_rank_region_stats(run, (int32_t)g, sel, &rows[n].s)) != 0)
            goto done;
        rows[n].name = run->region_names[g];
        rows[n].key = sort_key(&rows[n].s, sort);
        n++;
    }
    qsort(rows, n, sizeof *rows, cmp_row);

    size_t considered = 0;
    for (size_t r = 0; r < run->nranks; r++)
        considered += !sel || sel[r];
    char list[256];
    sp_rank_list_format(sel, run->nranks, list, sizeof list);
    fprintf(out, "Ranks: %zu of %zu (%s)\n", considered, run->nranks,
            run->nranks ? list : "none");
    if (sp_run_is_incomplete(run)) { /* killed, or still recording */
        char lost[1024];
        sp__put_wrapped(out, sp_run_incomplete_text(run, lost, sizeof lost), 88);
    }
    fputc('\n', out);
    if (n == 0)
        fputs(run->nregions ? "(no region matches the filter)\n" : "(no regions)\n", out);
    else
        print_overview(rows, n, out);
    for (size_t i = 0; detail && i < n; i++)
        print_detail(run, &rows[i], sel, out);
    fprintf(out,
            "\nPer-rank totals in seconds. min, mean, max, slowest and fastest cover all %zu "
            "ranks shown:\na rank without the region counts 0 calls and 0 s. imbalance = max / "
            "mean (+N%%: the slowest\nrank above the mean); ranks: ranks with calls / ranks "
            "shown; calls/rank: one rank's calls\n(fewest-most when ranks differ).\n",
            considered);
    if (fflush(out) != 0 || ferror(out))
        rc = sp__error(SP_EIO, "cannot write the ranks listing");
done:
    for (size_t i = 0; i < run->nregions && i < n + 1; i++)
        sp_rank_region_free(&rows[i].s);
    free(rows);
    return rc;
}
