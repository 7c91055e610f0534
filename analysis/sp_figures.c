/* SPDX-License-Identifier: MIT */
/*
 * sp_figures.c - figures under the rank rule (definitions in sp_figures.h).
 *
 * From the aggregates (sp_agg.h): per rank, each thread's inclusive and
 * own time and calls per key (a call-tree node, or a region) are the
 * pass's cells; they fold into the rank (sum and count of threads, slowest
 * thread), and when a rank ends into the figure (mean over ranks, max,
 * sum). Touched lists keep each fold O(keys touched), so the whole is
 * O(cells + keys), whatever the number of calls.
 */
#include "sp_figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_agg.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_numfmt.h"

/* Per key accumulators of one figure set (nodes or regions). */
typedef struct acc {
    size_t nkeys;
    /* the current thread */
    int64_t *thr_incl, *thr_own;
    uint64_t *thr_calls;
    uint32_t *thr_seen; /* thread stamp of the last touch */
    int32_t *thr_list;
    size_t thr_n;
    /* the current rank */
    double *rk_sum_incl, *rk_sum_own, *rk_max_incl, *rk_max_own;
    uint64_t *rk_calls;
    uint32_t *rk_nthr;
    uint32_t *rk_seen; /* rank stamp of the last touch */
    int32_t *rk_list;
    size_t rk_n;
    /* the outputs (owned by sp_figures) */
    sp_fig *incl, *own;
    sp_fig_calls *calls;
    bool threads; /* a key ran on several threads of a rank */
} acc;

static void acc_free(acc *a)
{
    free(a->thr_incl);
    free(a->thr_own);
    free(a->thr_calls);
    free(a->thr_seen);
    free(a->thr_list);
    free(a->rk_sum_incl);
    free(a->rk_sum_own);
    free(a->rk_max_incl);
    free(a->rk_max_own);
    free(a->rk_calls);
    free(a->rk_nthr);
    free(a->rk_seen);
    free(a->rk_list);
}

static int acc_init(acc *a, size_t nkeys, sp_fig *incl, sp_fig *own, sp_fig_calls *calls)
{
    size_t n = nkeys ? nkeys : 1;
    memset(a, 0, sizeof *a);
    a->nkeys = nkeys;
    a->incl = incl;
    a->own = own;
    a->calls = calls;
    a->thr_incl = calloc(n, sizeof *a->thr_incl);
    a->thr_own = calloc(n, sizeof *a->thr_own);
    a->thr_calls = calloc(n, sizeof *a->thr_calls);
    a->thr_seen = calloc(n, sizeof *a->thr_seen);
    a->thr_list = malloc(n * sizeof *a->thr_list);
    a->rk_sum_incl = calloc(n, sizeof *a->rk_sum_incl);
    a->rk_sum_own = calloc(n, sizeof *a->rk_sum_own);
    a->rk_max_incl = calloc(n, sizeof *a->rk_max_incl);
    a->rk_max_own = calloc(n, sizeof *a->rk_max_own);
    a->rk_calls = calloc(n, sizeof *a->rk_calls);
    a->rk_nthr = calloc(n, sizeof *a->rk_nthr);
    a->rk_seen = calloc(n, sizeof *a->rk_seen);
    a->rk_list = malloc(n * sizeof *a->rk_list);
    if (!a->thr_incl || !a->thr_own || !a->thr_calls || !a->thr_seen || !a->thr_list ||
        !a->rk_sum_incl || !a->rk_sum_own || !a->rk_max_incl || !a->rk_max_own || !a->rk_calls ||
        !a->rk_nthr || !a->rk_seen || !a->rk_list)
        return SP_ENOMEM;
    for (size_t k = 0; k < nkeys; k++)
        a->calls[k].min = UINT64_MAX;
    return 0;
}

static inline void touch(acc *a, int32_t k, uint32_t thr_stamp)
{
    if (a->thr_seen[k] != thr_stamp) {
        a->thr_seen[k] = thr_stamp;
        a->thr_list[a->thr_n++] = k;
    }
}

static void acc_end_thread(acc *a, uint32_t rk_stamp)
{
    for (size_t i = 0; i < a->thr_n; i++) {
        int32_t k = a->thr_list[i];
        if (a->rk_seen[k] != rk_stamp) {
            a->rk_seen[k] = rk_stamp;
            a->rk_list[a->rk_n++] = k;
            a->rk_sum_incl[k] = a->rk_sum_own[k] = 0;
            a->rk_max_incl[k] = a->rk_max_own[k] = 0;
            a->rk_calls[k] = 0;
            a->rk_nthr[k] = 0;
        }
        double incl = (double)a->thr_incl[k] * 1e-9, own = (double)a->thr_own[k] * 1e-9;
        if (a->thr_calls[k]) { /* a parent touched only as parent ran no call here */
            a->rk_nthr[k]++;
            if (incl > a->rk_max_incl[k])
                a->rk_max_incl[k] = incl;
        }
        a->rk_sum_incl[k] += incl;
        a->rk_sum_own[k] += own;
        if (own > a->rk_max_own[k])
            a->rk_max_own[k] = own;
        a->rk_calls[k] += a->thr_calls[k];
        a->thr_incl[k] = a->thr_own[k] = 0;
        a->thr_calls[k] = 0;
    }
    a->thr_n = 0;
}

static void acc_end_rank(acc *a)
{
    for (size_t i = 0; i < a->rk_n; i++) {
        int32_t k = a->rk_list[i];
        uint32_t nthr = a->rk_nthr[k] ? a->rk_nthr[k] : 1;
        if (a->rk_nthr[k] > 1)
            a->threads = true;
        /* the rank's figure: the mean over its threads that ran the key */
        a->incl[k].mean_s += a->rk_sum_incl[k] / nthr;
        a->own[k].mean_s += a->rk_sum_own[k] / nthr;
        a->incl[k].sum_s += a->rk_sum_incl[k];
        a->own[k].sum_s += a->rk_sum_own[k];
        if (a->rk_max_incl[k] > a->incl[k].max_s)
            a->incl[k].max_s = a->rk_max_incl[k];
        if (a->rk_max_own[k] > a->own[k].max_s)
            a->own[k].max_s = a->rk_max_own[k];
        sp_fig_calls *c = &a->calls[k];
        uint64_t n = a->rk_calls[k];
        if (n) {
            c->nhave++;
            c->sum += n;
            if (n > c->max)
                c->max = n;
            if (n < c->min)
                c->min = n;
        }
    }
    a->rk_n = 0;
}

static void acc_finish(acc *a, size_t nranks)
{
    for (size_t k = 0; k < a->nkeys; k++) {
        sp_fig_calls *c = &a->calls[k];
        if (c->nhave < nranks || c->min == UINT64_MAX)
            c->min = 0; /* a rank without the key made 0 calls */
        if (nranks) {
            a->incl[k].mean_s /= (double)nranks;
            a->own[k].mean_s /= (double)nranks;
            c->mean = (double)c->sum / (double)nranks;
        }
    }
}

void sp_figures_free(sp_figures *f)
{
    if (!f)
        return;
    free(f->node_incl);
    free(f->node_own);
    free(f->node_calls);
    free(f->region_total);
    free(f->region_own);
    free(f->region_calls);
    free(f);
}

double sp_run_sample_period_s(const sp_run *run)
{
    const char *hz = run ? sp_kvlist_get(&run->meta, "stack_sample_hz") : NULL;
    double v = hz ? strtod(hz, NULL) : 0.0;
    return v > 0.0 ? 1.0 / v : 0.0;
}

sp_fig_kind sp_region_fig_kind(const sp_run *run, int32_t region)
{
    if (!run || !run->region_flags || region < 0 || (size_t)region >= run->nregion_flags)
        return SP_FIG_EXACT;
    int32_t fl = run->region_flags[region];
    if (fl & SP_REGION_FLAG_SAMPLED)
        return SP_FIG_ESTIMATE;
    if (fl & SP_REGION_FLAG_THROTTLED)
        return SP_FIG_LOWER_BOUND;
    return SP_FIG_EXACT;
}

/* One rank's cells of a key set, grouped by thread: each cell is what
 * one thread spent in one key, folded as the thread's figure. */
static int cmp_cell_thread(const void *a, const void *b)
{
    const sp_agg_cell *x = a, *y = b;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int fold_cells(acc *a, const sp_agg_cell *cells, size_t n, const int32_t *key_map,
                      uint32_t *thr_stamp, uint32_t rk_stamp)
{
    /* The pass leaves cells by thread already: sorted, they are used as
     * they are (a copy and a sort of 10^6 cells cost a fifth of this). */
    size_t sorted = 1;
    while (sorted < n && cells[sorted - 1].thread <= cells[sorted].thread)
        sorted++;
    sp_agg_cell *copy = NULL;
    const sp_agg_cell *c = cells;
    if (sorted < n) {
        if (!(copy = malloc(n * sizeof *copy)))
            return SP_ENOMEM;
        memcpy(copy, cells, n * sizeof *copy);
        qsort(copy, n, sizeof *copy, cmp_cell_thread);
        c = copy;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || c[i].thread != c[i - 1].thread) {
            if (i)
                acc_end_thread(a, rk_stamp);
            ++*thr_stamp;
        }
        int32_t k = key_map ? key_map[c[i].key] : c[i].key;
        if (k < 0 || (size_t)k >= a->nkeys)
            continue;
        touch(a, k, *thr_stamp);
        a->thr_incl[k] += c[i].incl_ns;
        a->thr_own[k] += c[i].own_ns;
        a->thr_calls[k] += c[i].calls;
    }
    if (n)
        acc_end_thread(a, rk_stamp);
    free(copy);
    return 0;
}

/* The rank loop for both key sets at once, from the aggregates. */
static int accumulate(const sp_run *run, acc *nodes, acc *regions, size_t *nranks)
{
    uint32_t thr_stamp = 0, rk_stamp = 0;
    const sp_agg *agg = run->agg;
    *nranks = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (rk->excluded || (agg && r < agg->nranks && !agg->ranks[r].read))
            continue;
        (*nranks)++;
        rk_stamp++;
        if (!agg || r >= agg->nranks)
            continue;
        const sp_agg_rank *o = &agg->ranks[r];
        if (fold_cells(nodes, o->node_cells, o->nnode_cells, o->global_node, &thr_stamp,
                       rk_stamp) ||
            fold_cells(regions, o->region_cells, o->nregion_cells, NULL, &thr_stamp, rk_stamp))
            return SP_ENOMEM;
        acc_end_rank(nodes);
        acc_end_rank(regions);
    }
    return 0;
}

sp_figures *sp_figures_new(const sp_run *run)
{
    if (!run)
        return sp__error_null(SP_EINVAL, "sp_figures_new: run is NULL");
    int rc = sp__ensure_analyzed(run);
    if (rc)
        return NULL;
    sp_figures *f = calloc(1, sizeof *f);
    if (!f)
        return sp__error_null(SP_ENOMEM, "out of memory computing per-rank figures");
    f->nranks_file = run->nranks;
    f->nnodes = run->tree.nnodes;
    f->nregions = run->nregions;
    size_t nn = f->nnodes ? f->nnodes : 1, ng = f->nregions ? f->nregions : 1;
    f->node_incl = calloc(nn, sizeof *f->node_incl);
    f->node_own = calloc(nn, sizeof *f->node_own);
    f->node_calls = calloc(nn, sizeof *f->node_calls);
    f->region_total = calloc(ng, sizeof *f->region_total);
    f->region_own = calloc(ng, sizeof *f->region_own);
    f->region_calls = calloc(ng, sizeof *f->region_calls);
    acc nodes, regions;
    memset(&nodes, 0, sizeof nodes);
    memset(&regions, 0, sizeof regions);
    if (!f->node_incl || !f->node_own || !f->node_calls || !f->region_total || !f->region_own ||
        !f->region_calls || acc_init(&nodes, f->nnodes, f->node_incl, f->node_own, f->node_calls) ||
        acc_init(&regions, f->nregions, f->region_total, f->region_own, f->region_calls)) {
        acc_free(&nodes);
        acc_free(&regions);
        sp_figures_free(f);
        return sp__error_null(SP_ENOMEM, "out of memory computing per-rank figures");
    }
    if (accumulate(run, &nodes, &regions, &f->nranks)) {
        acc_free(&nodes);
        acc_free(&regions);
        sp_figures_free(f);
        return sp__error_null(SP_ENOMEM, "out of memory computing per-rank figures");
    }
    acc_finish(&nodes, f->nranks);
    acc_finish(&regions, f->nranks);
    f->threads = nodes.threads || regions.threads;
    f->two_columns = f->nranks > 1 || f->threads;
    acc_free(&nodes);
    acc_free(&regions);

    int64_t t0, t1;
    if (sp_run_time_span(run, &t0, &t1) == 0) {
        f->has_span = true;
        f->span_s = (double)(t1 - t0) * 1e-9;
    }
    f->sample_period_s = sp_run_sample_period_s(run);
    for (size_t g = 0; g < run->nregion_flags && run->region_flags; g++) {
        f->nsampled += (run->region_flags[g] & SP_REGION_FLAG_SAMPLED) != 0;
        f->nthrottled += (run->region_flags[g] & SP_REGION_FLAG_THROTTLED) != 0;
    }
    return f;
}

const char *sp_figures_ranks_text(const sp_figures *f, char *buf, size_t n)
{
    if (f->nranks == f->nranks_file)
        snprintf(buf, n, "%zu rank%s", f->nranks, f->nranks == 1 ? "" : "s");
    else
        snprintf(buf, n, "%zu of %zu ranks", f->nranks, f->nranks_file);
    return buf;
}

static const char *mark(sp_fig_kind kind)
{
    return kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? ">=" : "";
}

/* "%.6f" without printf (sp_numfmt.h): tables of 10^6 regions format
 * millions of figures, and printf's exact decimal conversion was a quarter
 * of `inspect`'s time. */
char *sp_fig_format_s(double s, sp_fig_kind kind, char *buf, size_t n)
{
    char num[SP_NUMFMT_BUF + 4];
    const char *m = mark(kind);
    size_t lm = strlen(m);
    memcpy(num, m, lm);
    size_t len = lm + sp_numfmt_fixed(s, 6, num + lm);
    if (n) { /* snprintf's contract: cut to n - 1 and terminated */
        len = len < n - 1 ? len : n - 1;
        memcpy(buf, num, len);
        buf[len] = '\0';
    }
    return buf;
}

char *sp_fig_format_calls(uint64_t calls, sp_fig_kind kind, char *buf, size_t n)
{
    snprintf(buf, n, "%s%llu", mark(kind), (unsigned long long)calls);
    return buf;
}

char *sp_fig_format_calls_range(const sp_fig_calls *c, sp_fig_kind kind, char *buf, size_t n)
{
    if (c->min == c->max)
        snprintf(buf, n, "%s%llu", mark(kind), (unsigned long long)c->max);
    else
        snprintf(buf, n, "%s%llu-%llu", mark(kind), (unsigned long long)c->min,
                 (unsigned long long)c->max);
    return buf;
}

const char *sp_figures_rule_text(const sp_figures *f, char *buf, size_t n)
{
    if (!f->two_columns) {
        snprintf(buf, n, "%s", "");
    } else if (f->nranks > 1) {
        snprintf(buf, n,
                 "Times are per rank: the mean over the %zu ranks (a rank without a region "
                 "counts 0 s) and the max (the slowest rank: what the job's wall clock sees)%s",
                 f->nranks,
                 f->threads ? "; within a rank, a region run by several threads counts the "
                              "mean of those threads (max: the slowest thread)."
                            : ".");
    } else {
        snprintf(buf, n, "%s",
                 "Times are per thread: a region run by several threads counts the mean of "
                 "those threads and the max (the slowest thread).");
    }
    return buf;
}
