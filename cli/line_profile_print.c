/* SPDX-License-Identifier: MIT */
/*
 * line_profile_print.c - the per-line table of `scope-profiler
 * line-profile`: line samples (sp_rank_data.line_*) merged over the chosen
 * ranks by (region, file, line, function), grouped by region (largest
 * sampled time first), lines by estimated time.
 */
#include "line_profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"

typedef sp__line_row line_row;

static int cmp_key(const void *pa, const void *pb)
{
    const line_row *a = pa, *b = pb;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->lineno != b->lineno)
        return a->lineno < b->lineno ? -1 : 1;
    return strcmp(a->function, b->function);
}

/* Within a region: larger time first, then file and line. */
static int cmp_time(const void *pa, const void *pb)
{
    const line_row *a = pa, *b = pb;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return cmp_key(pa, pb);
}

bool sp__run_has_line_data(const sp_run *run)
{
    for (size_t r = 0; r < run->nranks; r++)
        if (run->ranks[r].nlines)
            return true;
    return false;
}

const sp__line_words *sp__line_words_of(const sp_run *run)
{
    static const sp__line_words sampled = {
        "sample", "samples", "Samples", "estimated",
        "Per function, as line_profiler shows it (Samples: hits of the sampler):",
        "Time is estimated: samples x the sampling period."};
    static const sp__line_words traced = {
        "hit", "hits", "Hits", "measured", "Per function, as line_profiler shows it:",
        "Hits are the line's executions and times are measured (a line's time includes the "
        "calls it makes), by the line tracer of the run's metadata (line_tracer)."};
    const char *tracer = sp_run_metadata(run, "line_tracer");
    return tracer && *tracer ? &traced : &sampled;
}

line_row *sp__line_rows_collect(const sp_run *run, long rank, const sp_region_filter *f, size_t *n)
{
    size_t total = 0;
    for (size_t r = 0; r < run->nranks; r++)
        total += (rank < 0 || (size_t)rank == r) ? run->ranks[r].nlines : 0;
    line_row *rows = malloc((total ? total : 1) * sizeof *rows);
    if (!rows)
        return NULL;
    size_t k = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (rank >= 0 && (size_t)rank != r)
            continue;
        for (size_t i = 0; i < rk->nlines; i++) {
            int32_t g = rk->line_region[i];
            if (g < 0 || (size_t)g >= run->nregions ||
                !sp_region_filter_match(f, run->region_names[g]))
                continue;
            rows[k++] =
                (line_row){g,
                           rk->line_file && rk->line_file[i] ? rk->line_file[i] : "",
                           rk->line_function && rk->line_function[i] ? rk->line_function[i] : "",
                           rk->line_lineno[i],
                           rk->line_samples[i],
                           rk->line_time_ns[i]};
        }
    }
    *n = k;
    return rows;
}

/* Rows of the chosen ranks and regions, merged by key. */
static line_row *collect(const sp_run *run, long rank, const sp_region_filter *f, size_t *n)
{
    size_t k = 0;
    line_row *rows = sp__line_rows_collect(run, rank, f, &k);
    if (!rows)
        return NULL;
    if (k > 1)
        qsort(rows, k, sizeof *rows, cmp_key);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && cmp_key(&rows[m - 1], &rows[i]) == 0) {
            rows[m - 1].samples += rows[i].samples;
            rows[m - 1].time_ns += rows[i].time_ns;
        } else {
            rows[m++] = rows[i];
        }
    }
    *n = m;
    return rows;
}

typedef struct region_group {
    int32_t region;
    size_t first, n;
    uint64_t samples;
    int64_t time_ns;
} region_group;

static int cmp_group(const void *pa, const void *pb)
{
    const region_group *a = pa, *b = pb;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return a->region < b->region ? -1 : a->region > b->region;
}

static void print_group(const sp_run *run, const region_group *g, line_row *rows, long top,
                        FILE *out)
{
    const sp__line_words *w = sp__line_words_of(run);
    char name[256], b[32];
    sp__label_copy(name, sizeof name, run->region_names[g->region], 60);
    fprintf(out, "\n%s  (%" PRIu64 " %s, %s %s)\n", name, g->samples,
            g->samples == 1 ? w->one : w->many,
            sp__fmt_dur((double)g->time_ns * 1e-9, b, sizeof b), w->time);
    fprintf(out, "  %10s  %6s  %8s  %s\n", "time", "share", w->many, "line");
    line_row *r = rows + g->first;
    if (g->n > 1)
        qsort(r, g->n, sizeof *r, cmp_time);
    size_t shown = top > 0 && (size_t)top < g->n ? (size_t)top : g->n;
    for (size_t i = 0; i < shown; i++) {
        char file[512], func[256];
        sp__label_copy(file, sizeof file, *r[i].file ? r[i].file : "?", 80);
        sp__label_copy(func, sizeof func, r[i].function, 40);
        fprintf(out, "  %10s  %5.1f%%  %8" PRIu64 "  %s:%d%s%s%s\n",
                sp__fmt_dur((double)r[i].time_ns * 1e-9, b, sizeof b),
                g->time_ns > 0 ? 100.0 * (double)r[i].time_ns / (double)g->time_ns : 0.0,
                r[i].samples, file, (int)r[i].lineno, *func ? "  (" : "", func, *func ? ")" : "");
    }
    if (shown < g->n)
        fprintf(out, "  ... %zu more line%s (--top)\n", g->n - shown, g->n - shown == 1 ? "" : "s");
}

int sp__print_line_profile(const sp_run *run, const char *path, long rank,
                           const sp_region_filter *f, long top, FILE *out)
{
    size_t n = 0;
    line_row *rows = collect(run, rank, f, &n);
    region_group *groups = rows ? malloc((n ? n : 1) * sizeof *groups) : NULL;
    if (!rows || !groups) {
        free(rows);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ng || groups[ng - 1].region != rows[i].region)
            groups[ng++] = (region_group){rows[i].region, i, 0, 0, 0};
        groups[ng - 1].n++;
        groups[ng - 1].samples += rows[i].samples;
        groups[ng - 1].time_ns += rows[i].time_ns;
    }
    if (ng > 1)
        qsort(groups, ng, sizeof *groups, cmp_group);
    fprintf(out, "Line profile of %s", path);
    if (rank >= 0)
        fprintf(out, ", rank %ld", rank);
    else
        fprintf(out, ", %zu rank%s merged", run->nranks, run->nranks == 1 ? "" : "s");
    fprintf(out, ": %zu region%s with line %s\n", ng, ng == 1 ? "" : "s",
            sp__line_words_of(run)->many);
    for (size_t i = 0; i < ng; i++)
        print_group(run, &groups[i], rows, top, out);
    if (!ng)
        fprintf(out, "\nNo line samples match the selection.\n");
    fprintf(out, "\n%s\n", sp__line_words_of(run)->footnote);
    free(rows);
    free(groups);
    return 0;
}
