/* SPDX-License-Identifier: MIT */
/* sp_timeline_calls.c - a window of calls prepared for drawing: rows per
 * depth and their merge levels (see sp_timeline_private.h). */
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
static int build_levels(const sp_timeline_calls *ln, sp__tl_row *row)
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
                    dom_add(&acc, ln->w->region[row->calls[c]], d, d);
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

/* ---- rows ---- */

static void calls_free_rows(sp_timeline_calls *c)
{
    if (c->rows)
        for (int32_t d = 0; d < c->depths; d++)
            free_levels(&c->rows[d]);
    free(c->rows);
    free(c->block);
    c->rows = NULL;
    c->block = NULL;
}

void sp_timeline_calls_free(sp_timeline_calls *c)
{
    if (!c)
        return;
    calls_free_rows(c);
    sp_window_free(c->w);
    free(c);
}

static size_t level_bytes(const sp__tl_row *row)
{
    size_t n = 0;
    for (int k = 0; k < row->nlevels; k++)
        if (!row->levels[k].shared)
            n += row->levels[k].nruns * sizeof(sp__tl_run);
    return n + (size_t)row->nlevels * sizeof(sp__tl_level);
}

/* Rows per depth: a window lists calls in begin order, so the calls of one
 * depth come sorted by start already. */
static int build_rows(sp_timeline_calls *c)
{
    const sp_window *w = c->w;
    uint32_t maxd = 0;
    for (size_t i = 0; i < w->n; i++)
        if (w->depth[i] > maxd)
            maxd = w->depth[i];
    if (w->n == 0)
        return 0;
    if (maxd >= (uint32_t)INT32_MAX)
        return SP_EINVAL;
    c->depths = (int32_t)maxd + 1;
    c->rows = calloc((size_t)c->depths, sizeof *c->rows);
    c->block = malloc(w->n * sizeof *c->block);
    if (!c->rows || !c->block)
        return SP_ENOMEM;
    for (size_t i = 0; i < w->n; i++)
        c->rows[w->depth[i]].n++;
    size_t off = 0;
    for (int32_t d = 0; d < c->depths; d++) {
        c->rows[d].calls = c->block + off;
        off += c->rows[d].n;
        c->rows[d].n = 0;
    }
    for (size_t i = 0; i < w->n; i++) {
        sp__tl_row *row = &c->rows[w->depth[i]];
        row->calls[row->n++] = (uint32_t)i;
    }
    c->bytes += w->n * sizeof *c->block + (size_t)c->depths * sizeof *c->rows;
    for (int32_t d = 0; d < c->depths; d++) {
        int rc = build_levels(c, &c->rows[d]);
        if (rc)
            return rc;
        c->bytes += level_bytes(&c->rows[d]);
    }
    return 0;
}

sp_timeline_calls *sp_timeline_calls_new(const sp_timeline *tl, sp_window *w)
{
    if (!tl || !w) {
        sp_window_free(w);
        return sp__error_null(SP_EINVAL, "sp_timeline_calls_new: bad arguments");
    }
    int64_t lane = sp_timeline_find_lane(tl, (int32_t)w->rank, w->thread);
    if (lane < 0 || w->n >= UINT32_MAX) {
        sp_window_free(w);
        return sp__error_null(SP_EINVAL, "rank %zu, thread %d: %s", w->rank, (int)w->thread,
                              lane < 0 ? "no such timeline lane" : "too many calls in a window");
    }
    sp_timeline_calls *c = calloc(1, sizeof *c);
    if (!c) {
        sp_window_free(w);
        return sp__error_null(SP_ENOMEM, "out of memory preparing calls");
    }
    c->w = w;
    c->lane = (size_t)lane;
    c->origin = tl->origin;
    c->bytes = sizeof *c + sizeof *w + w->n * (2 * sizeof(int64_t) + sizeof(int32_t) +
                                               sizeof(uint32_t) + sizeof(int64_t));
    int rc = build_rows(c);
    if (rc) {
        sp_timeline_calls_free(c);
        return rc == SP_ENOMEM ? sp__error_null(SP_ENOMEM, "out of memory preparing calls")
                               : sp__error_null(rc, "calls nested too deep to draw");
    }
    return c;
}

size_t sp_timeline_calls_bytes(const sp_timeline_calls *c)
{
    return c ? c->bytes : 0;
}

const sp_window *sp_timeline_calls_window(const sp_timeline_calls *c)
{
    return c ? c->w : NULL;
}

size_t sp__tl_row_first_after(const sp_timeline_calls *c, const sp__tl_row *row, int64_t t)
{
    /* Rows are sorted by start and do not overlap, so ends are sorted too. */
    size_t lo = 0, hi = row->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp__tl_end(c, row, mid) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sp__tl_calls_cover(const sp_timeline_calls *c, int64_t first, int64_t last, int64_t t0,
                        int64_t t1)
{
    if (!c || c->w->truncated)
        return false;
    /* Nothing of the lane lies outside [first, last]. */
    if (t0 < first)
        t0 = first;
    if (t1 > last)
        t1 = last;
    if (t1 < t0)
        return true;
    return c->w->t0_ns - c->origin <= t0 && c->w->t1_ns - c->origin >= t1;
}
