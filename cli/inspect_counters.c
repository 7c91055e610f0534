/* SPDX-License-Identifier: MIT */
/*
 * inspect_counters.c - the counter tables of `scope-profiler inspect`:
 * --counters (perf_event sums per region and event) and --likwid (LIKWID raw
 * events and derived metrics per region and hardware thread), from the
 * counter rows of the run model (sp_rank_data.counter_*).
 */
#include "inspect_counters.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"

bool sp__run_has_counters(const sp_run *run, bool perf, bool likwid)
{
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncounters; i++) {
            int s = rk->counter_source[i];
            if ((perf && s == SP_COUNTER_PERF) ||
                (likwid && (s == SP_COUNTER_LIKWID_EVENT || s == SP_COUNTER_LIKWID_METRIC)))
                return true;
        }
    }
    return false;
}

/* A counter value: time events in time units, the rest as numbers. */
static const char *fmt_value(const char *name, double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "nan");
    else if (strcmp(name, "task-clock") == 0 || strcmp(name, "cpu-clock") == 0)
        sp__fmt_dur(v * 1e-9, buf, n);
    else if (fabs(v) >= 1e15 || (v != 0 && fabs(v) < 1e-3))
        snprintf(buf, n, "%.4g", v);
    else if (v == floor(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.4g", v);
    return buf;
}

/* Room for one row per counter row of every rank (at least one row of
 * size bytes, so malloc never gets 0). NULL when out of memory. */
static void *alloc_rows(const sp_run *run, size_t size)
{
    size_t total = 0;
    for (size_t r = 0; r < run->nranks; r++)
        total += run->ranks[r].ncounters;
    return malloc((total ? total : 1) * size);
}

/* Is counter row i of rk wanted: from LIKWID (likwid) or perf_event
 * (!likwid), of a region that exists and matches f (NULL: all)? */
static bool row_selected(const sp_run *run, const sp_rank_data *rk, size_t i, bool likwid,
                         const sp_region_filter *f)
{
    int32_t g = rk->counter_region[i];
    int s = rk->counter_source[i];
    bool source = likwid ? s == SP_COUNTER_LIKWID_EVENT || s == SP_COUNTER_LIKWID_METRIC
                         : s == SP_COUNTER_PERF;
    return source && g >= 0 && (size_t)g < run->nregions &&
           sp_region_filter_match(f, run->region_names[g]);
}

/* ---- perf_event ---- */

typedef struct psum {
    int32_t region;
    const char *name;
    double value;
    uint64_t calls;
    size_t threads;
} psum;

static int psum_order(const void *pa, const void *pb)
{
    const psum *a = pa, *b = pb;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    return strcmp(a->name, b->name);
}

int sp__print_perf_counters(const sp_run *run, const sp_region_filter *f, FILE *out)
{
    psum *v = alloc_rows(run, sizeof *v);
    if (!v)
        return sp__error(SP_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncounters; i++) {
            int32_t g = rk->counter_region[i];
            if (!row_selected(run, rk, i, false, f))
                continue;
            v[n++] = (psum){g, rk->counter_name[i], rk->counter_value[i], rk->counter_calls[i], 1};
        }
    }
    qsort(v, n, sizeof *v, psum_order);
    size_t m = 0; /* merge threads and ranks */
    for (size_t i = 0; i < n; i++) {
        if (m && psum_order(&v[m - 1], &v[i]) == 0) {
            v[m - 1].value += v[i].value;
            v[m - 1].calls += v[i].calls;
            v[m - 1].threads++;
        } else {
            v[m++] = v[i];
        }
    }
    const char *events = sp_run_metadata(run, "perf_events");
    const char *dropped = sp_run_metadata(run, "perf_events_dropped");
    fprintf(out,
            "perf_event counters%s%s%s: sums over every call, thread and rank; a region's\n"
            "counts include those of the regions nested in it.\n",
            events ? " (" : "", events ? events : "", events ? ")" : "");
    if (dropped && *dropped)
        fprintf(out, "Not counted on the recording machine: %s\n", dropped);
    fprintf(out, "\n%-40s %-18s %14s %10s %14s %8s\n", "region", "event", "total", "calls",
            "per call", "threads");
    for (size_t i = 0; i < m; i++) {
        char name[256], tot[48], per[48];
        sp__label_copy(name, sizeof name, run->region_names[v[i].region], 40);
        fmt_value(v[i].name, v[i].value, tot, sizeof tot);
        fmt_value(v[i].name, v[i].calls ? v[i].value / (double)v[i].calls : 0, per, sizeof per);
        fprintf(out, "%-40s %-18s %14s %10" PRIu64 " %14s %8zu\n",
                i && v[i - 1].region == v[i].region ? "" : name, v[i].name, tot, v[i].calls, per,
                v[i].threads);
    }
    if (!m)
        fprintf(out, "(no region matches the selection)\n");
    free(v);
    return 0;
}

/* ---- LIKWID ---- */

typedef struct lrow {
    int32_t region, source;
    const char *name;
    int64_t col; /* rank << 32 | cpu */
    double value;
    uint64_t calls;
    size_t order; /* first appearance: keeps LIKWID's event and metric order */
} lrow;

static int lrow_order(const void *pa, const void *pb)
{
    const lrow *a = pa, *b = pb;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    if (a->source != b->source)
        return a->source < b->source ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* A row and where it was read: sorted by (region, source, name, position),
 * the first of each name gives its position to the others. */
typedef struct lkey {
    const lrow *row;
    size_t pos;
} lkey;

static int lkey_order(const void *pa, const void *pb)
{
    const lkey *a = pa, *b = pb;
    if (a->row->region != b->row->region)
        return a->row->region < b->row->region ? -1 : 1;
    if (a->row->source != b->row->source)
        return a->row->source < b->row->source ? -1 : 1;
    int c = strcmp(a->row->name, b->row->name);
    if (c)
        return c;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Each row's order: the position of its name's first row within its region
 * and source (LIKWID's event and metric order). One sort: looking back over
 * every earlier row was quadratic in regions x hardware threads x events.
 * 0 or SP_ENOMEM. */
static int first_appearance(lrow *v, size_t n)
{
    lkey *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return SP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        k[i] = (lkey){&v[i], i};
    qsort(k, n, sizeof *k, lkey_order);
    for (size_t i = 0, j; i < n; i = j) {
        size_t first = k[i].pos;
        for (j = i; j < n && k[j].row->region == k[i].row->region &&
                    k[j].row->source == k[i].row->source &&
                    strcmp(k[j].row->name, k[i].row->name) == 0;
             j++)
            v[k[j].pos].order = first;
    }
    free(k);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void print_likwid_region(const sp_run *run, const lrow *v, size_t n, FILE *out)
{
    /* Columns: the (rank, cpu) pairs of this region. */
    int64_t *cols = malloc(n * sizeof *cols);
    if (!cols)
        return;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        cols[nc++] = v[i].col;
    qsort(cols, nc, sizeof *cols, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nc; i++)
        if (!u || cols[u - 1] != cols[i])
            cols[u++] = cols[i];
    nc = u;
    char name[256];
    sp__label_copy(name, sizeof name, run->region_names[v[0].region], 60);
    fprintf(out, "\nRegion %s\n", name);
    fprintf(out, "  %-44s", "");
    for (size_t c = 0; c < nc; c++) {
        char head[32];
        if (run->nranks > 1)
            snprintf(head, sizeof head, "r%d cpu %d", (int)(cols[c] >> 32),
                     (int)(cols[c] & 0xffffffff));
        else
            snprintf(head, sizeof head, "cpu %d", (int)(cols[c] & 0xffffffff));
        fprintf(out, " %14s", head);
    }
    fprintf(out, "\n  %-44s", "calls");
    for (size_t c = 0; c < nc; c++) {
        uint64_t calls = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].col == cols[c] && v[i].calls > calls)
                calls = v[i].calls;
        fprintf(out, " %14" PRIu64, calls);
    }
    fprintf(out, "\n");
    int32_t source = -1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].source == v[i].source && strcmp(v[j].name, v[i].name) == 0)
            j++;
        if (v[i].source != source) {
            source = v[i].source;
            fprintf(out, "  %s\n", source == SP_COUNTER_LIKWID_EVENT ? "events:" : "metrics:");
        }
        char label[256];
        sp__label_copy(label, sizeof label, v[i].name, 42);
        fprintf(out, "    %-42s", label);
        for (size_t c = 0; c < nc; c++) {
            char buf[48] = "-";
            for (size_t k = i; k < j; k++)
                if (v[k].col == cols[c])
                    fmt_value(v[k].name, v[k].value, buf, sizeof buf);
            fprintf(out, " %14s", buf);
        }
        fprintf(out, "\n");
        i = j;
    }
    free(cols);
}

int sp__print_likwid(const sp_run *run, const sp_region_filter *f, FILE *out)
{
    lrow *v = alloc_rows(run, sizeof *v);
    if (!v)
        return sp__error(SP_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncounters; i++) {
            int32_t g = rk->counter_region[i];
            int32_t s = rk->counter_source[i];
            if (!row_selected(run, rk, i, true, f))
                continue;
            v[n] = (lrow){g,
                          s,
                          rk->counter_name[i],
                          ((int64_t)r << 32) | (uint32_t)rk->counter_cpu[i],
                          rk->counter_value[i],
                          rk->counter_calls[i],
                          0};
            n++;
        }
    }
    if (first_appearance(v, n)) {
        free(v);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    qsort(v, n, sizeof *v, lrow_order);
    const char *ev = sp_run_metadata(run, "likwid_events");
    const char *arch = sp_run_metadata(run, "likwid_arch");
    fprintf(out,
            "LIKWID results%s%s%s%s%s: raw events and derived metrics per region and\n"
            "hardware thread (sums over the region's calls, as likwid-perfctr -m shows them).\n",
            ev ? " (group " : "", ev ? ev : "", arch ? ", " : "", arch ? arch : "", ev ? ")" : "");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].region == v[i].region)
            j++;
        print_likwid_region(run, v + i, j - i, out);
        i = j;
    }
    if (!n)
        fprintf(out, "\n(no region matches the selection)\n");
    free(v);
    return 0;
}
