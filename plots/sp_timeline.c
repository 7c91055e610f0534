/* SPDX-License-Identifier: MIT */
/* sp_timeline.c - preparing the timeline index: lanes, rows, merge levels. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_timeline_private.h"

static int bitlen(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* ---- per-row merge levels ---- */

#define DOM_SLOTS 6

/* A few (region, weight) candidates for the dominant region of a run. */
typedef struct dom_acc {
    int n;
    int32_t region[DOM_SLOTS];
    double w[DOM_SLOTS];
    double cov;
} dom_acc;

static void dom_add(dom_acc *a, int32_t region, double w, double cov)
{
    a->cov += cov;
    for (int i = 0; i < a->n; i++)
        if (a->region[i] == region) {
            a->w[i] += w;
            return;
        }
    if (a->n < DOM_SLOTS) {
        a->region[a->n] = region;
        a->w[a->n++] = w;
        return;
    }
    /* Full: replace the lightest candidate if this one weighs more (an
     * approximation that only matters for runs mixing > 6 regions). */
    int lo = 0;
    for (int i = 1; i < a->n; i++)
        if (a->w[i] < a->w[lo])
            lo = i;
    if (w > a->w[lo]) {
        a->region[lo] = region;
        a->w[lo] = w;
    }
}

static void dom_finish(const dom_acc *a, sp__tl_run *r)
{
    int best = 0;
    for (int i = 1; i < a->n; i++)
        if (a->w[i] > a->w[best])
            best = i;
    r->region = a->n ? a->region[best] : -1;
    r->dom_ns = a->n ? (float)a->w[best] : 0.0f;
    r->cov_ns = (float)a->cov;
}

static void free_levels(sp__tl_row *row)
{
    for (int k = 0; k < row->nlevels; k++)
        if (!row->levels[k].shared)
            free(row->levels[k].runs);
    free(row->levels);
    row->levels = NULL;
    row->nlevels = 0;
}

/* Keep every other level (even k) to halve the memory: each level was needed
 * to build the next, but drawing only needs one within a factor 4 of the
 * pixel. A dropped level's array lives on if the next level shares it. */
static void drop_odd_levels(sp__tl_row *row)
{
    for (int k = 1; k < row->nlevels; k += 2) {
        sp__tl_level *lev = &row->levels[k];
        if (!lev->shared) {
            sp__tl_level *next = k + 1 < row->nlevels ? &row->levels[k + 1] : NULL;
            if (next && next->shared && next->runs == lev->runs)
                next->shared = false; /* ownership moves to the kept level */
            else
                free(lev->runs);
        }
        lev->runs = NULL;
        lev->nruns = 0;
        lev->shared = true; /* nothing to free */
    }
}

/*
 * Build the merge levels of a row. m[i] is the lowest level at which calls i
 * and i + 1 join one run: both shorter than 2^L and starting in the same 2^L
 * bucket. A run at level L is a maximal chain of pairs with m <= L; its
 * dominant region is combined from the runs of level L - 1 it contains plus
 * its newly joined single calls, so each call is visited once as a single.
 */
static int build_levels(const sp__tl_lane *ln, sp__tl_row *row)
{
    size_t n = row->n;
    if (n < 2)
        return 0;
    uint8_t *m = malloc(n - 1);
    if (!m)
        return SP_ENOMEM;
    int lmin = 64, lmax = 0;
    size_t hist[65] = {0};
    /* Chains at level L: pairs i with m[i] <= L < m[i - 1] (a chain starts
     * there), counted for every level at once with a difference array. */
    long chain_diff[66] = {0};
    uint8_t m_prev = 65;
    int64_t s_prev = sp__tl_start(ln, row, 0);
    int64_t w_prev = sp__tl_end(ln, row, 0) - s_prev;
    for (size_t i = 0; i + 1 < n; i++) {
        int64_t s = sp__tl_start(ln, row, i + 1), w = sp__tl_end(ln, row, i + 1) - s;
        int l = bitlen((uint64_t)(w_prev > 0 ? w_prev : 0));
        int l2 = bitlen((uint64_t)(w > 0 ? w : 0));
        int l3 = bitlen((uint64_t)(s_prev > 0 ? s_prev : 0) ^ (uint64_t)(s > 0 ? s : 0));
        if (l2 > l)
            l = l2;
        if (l3 > l)
            l = l3;
        m[i] = (uint8_t)l;
        hist[l]++;
        if (l < m_prev) {
            chain_diff[l]++;
            chain_diff[m_prev]--;
        }
        m_prev = (uint8_t)l;
        if (l < lmin)
            lmin = l;
        if (l > lmax)
            lmax = l;
        s_prev = s;
        w_prev = w;
    }
    row->lmin = lmin;
    row->nlevels = lmax - lmin + 1;
    row->levels = calloc((size_t)row->nlevels, sizeof *row->levels);
    if (!row->levels) {
        free(m);
        row->nlevels = 0;
        return SP_ENOMEM;
    }
    size_t chains[65];
    long acc_chains = 0;
    for (int L = 0; L < 65; L++) {
        acc_chains += chain_diff[L];
        chains[L] = (size_t)acc_chains;
    }
    const sp__tl_level *prev = NULL;
    for (int k = 0; k < row->nlevels; k++) {
        int L = lmin + k;
        sp__tl_level *lev = &row->levels[k];
        if (prev && hist[L] == 0) { /* no new joins: same runs as below */
            *lev = *prev;
            lev->shared = true;
            continue;
        }
        size_t nr = chains[L];
        lev->runs = malloc((nr ? nr : 1) * sizeof *lev->runs);
        if (!lev->runs) {
            free(m);
            return SP_ENOMEM;
        }
        lev->nruns = nr;
        size_t r = 0, pj = 0; /* pj: cursor into prev->runs */
        for (size_t i = 0; i + 1 < n;) {
            if (m[i] > L) {
                i++;
                continue;
            }
            size_t a = i, b = i + 1; /* chain covers calls a..b */
            while (b < n - 1 && m[b] <= L)
                b++;
            dom_acc acc = {0};
            size_t c = a;
            while (c <= b) {
                while (prev && pj < prev->nruns && prev->runs[pj].first + prev->runs[pj].count <= c)
                    pj++;
                if (prev && pj < prev->nruns && prev->runs[pj].first == c) {
                    const sp__tl_run *pr = &prev->runs[pj];
                    if (pr->region >= 0)
                        dom_add(&acc, pr->region, pr->dom_ns, pr->cov_ns);
                    else
                        acc.cov += pr->cov_ns;
                    c += pr->count;
                } else {
                    double d = (double)(sp__tl_end(ln, row, c) - sp__tl_start(ln, row, c));
                    dom_add(&acc, ln->region[row->calls[c]], d, d);
                    c++;
                }
            }
            if (r == nr) /* cannot happen: chains[] counts exactly these */
                break;
            sp__tl_run *run = &lev->runs[r++];
            run->first = (uint32_t)a;
            run->count = (uint32_t)(b - a + 1);
            run->t0 = sp__tl_start(ln, row, a);
            run->dur_ns = (float)(sp__tl_end(ln, row, b) - run->t0);
            dom_finish(&acc, run);
            i = b + 1;
        }
        lev->nruns = r;
        prev = lev;
    }
    free(m);
    drop_odd_levels(row);
    return 0;
}

/* ---- lanes ---- */

/* qsort_r (GNU) so that timelines can be prepared on several threads. */
static int by_start(const void *pa, const void *pb, void *ctx)
{
    const sp__tl_lane *ln = ctx;
    int64_t a = ln->start[*(const uint32_t *)pa], b = ln->start[*(const uint32_t *)pb];
    if (a != b)
        return a < b ? -1 : 1;
    int64_t ea = ln->end[*(const uint32_t *)pa], eb = ln->end[*(const uint32_t *)pb];
    return ea > eb ? -1 : ea < eb;
}

static void sort_row_if_needed(sp__tl_lane *ln, sp__tl_row *row)
{
    for (size_t k = 1; k < row->n; k++)
        if (ln->start[row->calls[k]] < ln->start[row->calls[k - 1]]) {
            qsort_r(row->calls, row->n, sizeof *row->calls, by_start, ln);
            return;
        }
}

/* Depth of each call: the analysis' depth[] when present, else from parent[]
 * (parents precede children in model order; anything else counts as top
 * level, bounded so malformed input cannot loop). */
static int32_t *compute_depths(const sp_rank_data *rk)
{
    int32_t *d = malloc((rk->ncalls ? rk->ncalls : 1) * sizeof *d);
    if (!d)
        return NULL;
    for (size_t i = 0; i < rk->ncalls; i++) {
        int64_t p = rk->parent ? rk->parent[i] : -1;
        if (rk->depth)
            d[i] = rk->depth[i] < 0 ? 0 : rk->depth[i];
        else if (p >= 0 && (size_t)p < i && d[p] < 100000)
            d[i] = d[p] + 1;
        else
            d[i] = 0;
    }
    return d;
}

static int build_rank(sp_timeline *tl, const sp_rank_data *rk, int64_t origin)
{
    if (rk->ncalls == 0)
        return 0;
    if (rk->ncalls >= UINT32_MAX)
        return sp__error(SP_EINVAL, "rank %d has too many calls for the timeline (%zu)", rk->rank,
                         rk->ncalls);
    int32_t *depth = compute_depths(rk);
    if (!depth)
        return SP_ENOMEM;
    int32_t nthreads = (int32_t)rk->nthreads;
    for (size_t i = 0; i < rk->ncalls; i++)
        if (rk->thread[i] >= nthreads)
            nthreads = rk->thread[i] + 1;
    /* Per thread: number of calls and max depth. */
    size_t *tcount = calloc((size_t)nthreads + 1, sizeof *tcount);
    int32_t *tdepth = calloc((size_t)nthreads + 1, sizeof *tdepth);
    int rc = 0;
    if (!tcount || !tdepth) {
        rc = SP_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < rk->ncalls; i++) {
        int32_t t = rk->thread[i] < 0 ? 0 : rk->thread[i];
        tcount[t]++;
        if (depth[i] + 1 > tdepth[t])
            tdepth[t] = depth[i] + 1;
    }
    for (int32_t t = 0; t < nthreads; t++) {
        if (tcount[t] == 0)
            continue;
        sp__tl_lane *ln = &tl->lanes[tl->nlanes];
        memset(ln, 0, sizeof *ln);
        ln->rank = rk->rank;
        ln->thread = t;
        ln->depths = tdepth[t];
        ln->ncalls = tcount[t];
        ln->offset = rk->clock_offset_ns - origin;
        ln->start = rk->start_ns;
        ln->end = rk->end_ns;
        ln->region = rk->region;
        ln->rows = calloc((size_t)ln->depths, sizeof *ln->rows);
        ln->block = malloc(ln->ncalls * sizeof *ln->block);
        tl->nlanes++; /* counted now so sp_timeline_free releases partial work */
        if (!ln->rows || !ln->block) {
            rc = SP_ENOMEM;
            goto done;
        }
        for (size_t i = 0; i < rk->ncalls; i++)
            if ((rk->thread[i] < 0 ? 0 : rk->thread[i]) == t)
                ln->rows[depth[i]].n++;
        size_t off = 0;
        for (int32_t d = 0; d < ln->depths; d++) {
            ln->rows[d].calls = ln->block + off;
            off += ln->rows[d].n;
            ln->rows[d].n = 0;
        }
        for (size_t i = 0; i < rk->ncalls; i++)
            if ((rk->thread[i] < 0 ? 0 : rk->thread[i]) == t) {
                sp__tl_row *row = &ln->rows[depth[i]];
                row->calls[row->n++] = (uint32_t)i;
            }
        for (int32_t d = 0; d < ln->depths; d++) {
            sort_row_if_needed(ln, &ln->rows[d]);
            if ((rc = build_levels(ln, &ln->rows[d])) != 0)
                goto done;
        }
    }
done:
    free(tcount);
    free(tdepth);
    free(depth);
    return rc;
}

sp_timeline *sp_timeline_new(const sp_run *run)
{
    if (!run)
        return sp__error_null(SP_EINVAL, "sp_timeline_new: no run");
    sp_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return sp__error_null(SP_ENOMEM, "out of memory preparing the timeline");
    tl->run = run;
    /* The run's own colour map (never analyzes the run); NULL: hash colours. */
    tl->colors = sp_color_map_for_run(run);
    /* Span over every rank after clock offsets. */
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t max_lanes = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int64_t s = rk->start_ns[i] + rk->clock_offset_ns, e = rk->end_ns[i] + rk->clock_offset_ns;
            if (s < t0)
                t0 = s;
            if (e > t1)
                t1 = e;
        }
        int32_t nt = (int32_t)rk->nthreads;
        for (size_t i = 0; i < rk->ncalls; i++)
            if (rk->thread[i] >= nt)
                nt = rk->thread[i] + 1;
        max_lanes += rk->ncalls ? (size_t)(nt > 0 ? nt : 1) : 0;
    }
    if (max_lanes == 0)
        return tl; /* no calls: zero lanes, draws the empty state */
    tl->origin = t0;
    tl->duration = t1 > t0 ? t1 - t0 : 0;
    tl->lanes = calloc(max_lanes, sizeof *tl->lanes);
    if (!tl->lanes) {
        sp_color_map_free(tl->colors);
        free(tl);
        return sp__error_null(SP_ENOMEM, "out of memory preparing the timeline");
    }
    for (size_t r = 0; r < run->nranks; r++) {
        int rc = build_rank(tl, &run->ranks[r], t0);
        if (rc) {
            sp_timeline_free(tl);
            if (rc == SP_ENOMEM)
                return sp__error_null(SP_ENOMEM, "out of memory preparing the timeline");
            return NULL; /* message already set */
        }
    }
    for (size_t l = 0; l < tl->nlanes; l++) {
        tl->lanes[l].depth_before = tl->total_depths;
        tl->total_depths += (size_t)tl->lanes[l].depths;
    }
    return tl;
}

void sp_timeline_free(sp_timeline *tl)
{
    if (!tl)
        return;
    for (size_t l = 0; l < tl->nlanes; l++) {
        sp__tl_lane *ln = &tl->lanes[l];
        if (ln->rows)
            for (int32_t d = 0; d < ln->depths; d++)
                free_levels(&ln->rows[d]);
        free(ln->rows);
        free(ln->block);
    }
    for (int k = 0; k < SP__TL_NSLOTS; k++)
        free(tl->slots[k].v);
    free(tl->labels);
    free(tl->lanes);
    sp_color_map_free(tl->colors);
    free(tl->slot_of);
    free(tl->shown);
    free(tl);
}

const sp_run *sp_timeline_run(const sp_timeline *tl)
{
    return tl ? tl->run : NULL;
}

int64_t sp_timeline_duration_ns(const sp_timeline *tl)
{
    return tl ? tl->duration : 0;
}

int64_t sp_timeline_origin_ns(const sp_timeline *tl)
{
    return tl ? tl->origin : 0;
}

size_t sp_timeline_lane_count(const sp_timeline *tl)
{
    return tl ? tl->nlanes : 0;
}

int sp_timeline_lane_info_get(const sp_timeline *tl, size_t lane, sp_timeline_lane_info *out)
{
    if (!tl || !out || lane >= tl->nlanes)
        return sp__error(SP_EINVAL, "no timeline lane %zu", lane);
    const sp__tl_lane *ln = &tl->lanes[lane];
    const sp_rank_data *rk = &tl->run->ranks[ln->rank];
    out->rank = ln->rank;
    out->thread = ln->thread;
    out->thread_name = (size_t)ln->thread < rk->nthreads ? rk->threads[ln->thread].name : NULL;
    out->depths = ln->depths;
    out->ncalls = ln->ncalls;
    return 0;
}

void sp_timeline_view_init(sp_timeline_view *view, const sp_timeline *tl)
{
    if (!view)
        return;
    memset(view, 0, sizeof *view);
    view->t0_ns = 0;
    view->t1_ns = tl ? tl->duration : 0;
    view->scroll_y = 0;
    view->highlight_region = -1;
    view->selected_rank = -1;
    view->selected_call = -1;
    view->show_lane_labels = true;
    view->show_axis = true;
    view->show_legend = true;
    view->note_hidden_lanes = true;
}

size_t sp__tl_row_first_after(const sp__tl_lane *ln, const sp__tl_row *row, int64_t t)
{
    /* Rows are sorted by start and do not overlap, so ends are sorted too. */
    size_t lo = 0, hi = row->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp__tl_end(ln, row, mid) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
