/* SPDX-License-Identifier: MIT */
/*
 * sp_diff.c - per-region diff of two runs (sp_diff_regions) and the pieces
 * the tree diff shares: per-call samples, finishing an entry, ordering.
 *
 * Verdict rules (see sp_diff.h for the test itself):
 * - only in one run: ADDED / REMOVED;
 * - no change of the value: SAME;
 * - total or own with different call counts: UP / DOWN (untested). The
 *   test compares per-call durations, so it says nothing about a total that
 *   moved because the code ran a region more or fewer times; that is a
 *   change of behaviour, not sampling noise, and `check` applies the budget;
 * - a conclusive test (sp_noise_test.conclusive): p <= alpha gives SLOWER
 *   or FASTER by the sign of the delta, else SAME;
 * - otherwise (calls, imbalance, too few calls): UP / DOWN.
 */
#define _GNU_SOURCE /* qsort_r (analysis/CMakeLists.txt does not define it) */
#include "sp_diff.h"
#include "sp_analysis_internal.h"
#include "sp_diff_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

/* ---------------------------------------------------------------- samples */

void sp__diff_samples_free(sp__diff_samples *s)
{
    free(s->off);
    free(s->val);
    memset(s, 0, sizeof *s);
}

/* Exclusive duration of every call of rk: its duration minus its direct
 * children's. own has rk->ncalls entries. */
static void own_durations(const sp_rank_data *rk, int64_t *own)
{
    for (size_t i = 0; i < rk->ncalls; i++)
        own[i] = rk->end_ns[i] - rk->start_ns[i];
    for (size_t i = 0; i < rk->ncalls; i++) {
        int64_t p = sp__valid_parent(rk, i);
        if (p >= 0)
            own[p] -= rk->end_ns[i] - rk->start_ns[i];
    }
}

static int32_t call_key(const sp_rank_data *rk, size_t i, bool by_node)
{
    return by_node ? rk->tree_node[i] : rk->region[i];
}

int sp__diff_samples_collect(const sp_run *run, bool by_node, bool own, sp__diff_samples *s)
{
    memset(s, 0, sizeof *s);
    s->nkeys = by_node ? run->tree.nnodes : run->nregions;
    size_t total = 0, maxcalls = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        total += run->ranks[r].ncalls;
        if (run->ranks[r].ncalls > maxcalls)
            maxcalls = run->ranks[r].ncalls;
    }
    s->off = calloc(s->nkeys + 1, sizeof *s->off);
    s->val = malloc((total ? total : 1) * sizeof *s->val);
    int64_t *owns = own ? malloc((maxcalls ? maxcalls : 1) * sizeof *owns) : NULL;
    size_t *fill = calloc(s->nkeys + 1, sizeof *fill);
    if (!s->off || !s->val || (own && !owns) || !fill) {
        free(owns);
        free(fill);
        sp__diff_samples_free(s);
        return sp__error(SP_ENOMEM, "out of memory grouping %zu call durations", total);
    }
    /* Counting sort: count per key, prefix sums, scatter. */
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int32_t k = call_key(rk, i, by_node);
            if (k >= 0 && (size_t)k < s->nkeys)
                s->off[k + 1]++;
        }
    }
    for (size_t k = 0; k < s->nkeys; k++) {
        s->off[k + 1] += s->off[k];
        fill[k] = s->off[k];
    }
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (own)
            own_durations(rk, owns);
        for (size_t i = 0; i < rk->ncalls; i++) {
            int32_t k = call_key(rk, i, by_node);
            if (k < 0 || (size_t)k >= s->nkeys)
                continue;
            s->val[fill[k]++] = own ? owns[i] : rk->end_ns[i] - rk->start_ns[i];
        }
    }
    free(owns);
    free(fill);
    return 0;
}

/* ---------------------------------------------------------------- entries */

static bool uses_samples(sp_diff_metric m)
{
    return sp_diff_metric_is_time(m);
}

int sp__diff_entry_finish(sp_diff_entry *e, const sp_diff_options *o, sp__diff_samples *sb,
                          sp__diff_samples *sc)
{
    e->delta = e->cand - e->base;
    if (e->base != 0)
        e->percent = 100.0 * e->delta / fabs(e->base);
    else
        e->percent = e->cand == 0 ? 0.0 : (e->cand > 0 ? INFINITY : -INFINITY);
    memset(&e->noise, 0, sizeof e->noise);
    e->noise.n_base = e->base_calls;
    e->noise.n_cand = e->cand_calls;
    e->noise.p_value = 1.0;

    if (e->presence == SP_DIFF_ONLY_CAND) {
        e->verdict = SP_DIFF_ADDED;
        return 0;
    }
    if (e->presence == SP_DIFF_ONLY_BASE) {
        e->verdict = SP_DIFF_REMOVED;
        return 0;
    }
    if (sb && sc && uses_samples(o->metric) && e->base_id >= 0 && e->cand_id >= 0) {
        size_t b0 = sb->off[e->base_id], nb = sb->off[e->base_id + 1] - b0;
        size_t c0 = sc->off[e->cand_id], nc = sc->off[e->cand_id + 1] - c0;
        int rc = sp_noise_mann_whitney(sb->val + b0, nb, sc->val + c0, nc, o->alpha, &e->noise);
        if (rc)
            return rc;
    }
    bool count_changed = (o->metric == SP_METRIC_TOTAL || o->metric == SP_METRIC_OWN) &&
                         e->base_calls != e->cand_calls;
    if (e->delta == 0)
        e->verdict = SP_DIFF_SAME;
    else if (e->noise.conclusive && !count_changed)
        e->verdict = e->noise.p_value > o->alpha ? SP_DIFF_SAME
                     : e->delta > 0              ? SP_DIFF_SLOWER
                                                 : SP_DIFF_FASTER;
    else
        e->verdict = e->delta > 0 ? SP_DIFF_UP : SP_DIFF_DOWN;
    return 0;
}

static int cmp_double_desc(double a, double b)
{
    return (a < b) - (a > b);
}

int sp__diff_entry_cmp(const void *pa, const void *pb, void *arg)
{
    const sp_diff_entry *a = pa, *b = pb;
    sp_diff_sort key = *(const sp_diff_sort *)arg;
    int c = 0;
    if (key == SP_DIFF_SORT_DELTA)
        c = cmp_double_desc(fabs(a->delta), fabs(b->delta));
    else if (key == SP_DIFF_SORT_PERCENT)
        c = cmp_double_desc(fabs(a->percent), fabs(b->percent));
    if (!c && key != SP_DIFF_SORT_NAME) /* ties (often 0): larger values first */
        c = cmp_double_desc(fmax(fabs(a->base), fabs(a->cand)), fmax(fabs(b->base), fabs(b->cand)));
    return c ? c : strcmp(a->name, b->name);
}

int sp__diff_check_args(const sp_run *base, const sp_run *cand, const sp_diff_options *o)
{
    if (!base || !cand || !o)
        return sp__error(SP_EINVAL, "diff: NULL run");
    if (!base->analyzed || !cand->analyzed)
        return sp__error(SP_EINVAL, "diff: run not analyzed (call sp_run_analyze first)");
    if (!(o->alpha > 0 && o->alpha < 1))
        return sp__error(SP_EINVAL, "diff: alpha %g is not between 0 and 1", o->alpha);
    if ((unsigned)o->metric >= SP_METRIC_COUNT || (unsigned)o->sort > SP_DIFF_SORT_NAME)
        return sp__error(SP_EINVAL, "diff: bad metric or sort key");
    return 0;
}

/* ---------------------------------------------------------------- regions */

void sp_diff_free(sp_diff *d)
{
    if (!d)
        return;
    free(d->entries);
    free(d);
}

static uint64_t region_calls(const sp_run *run, int32_t id)
{
    return id >= 0 ? run->regions[id].all.calls : 0;
}

static void fill_entry(sp_diff_entry *e, const sp_run *base, const sp_run *cand, int32_t bid,
                       int32_t cid, sp_diff_metric m)
{
    memset(e, 0, sizeof *e);
    e->base_id = bid;
    e->cand_id = cid;
    e->parent = -1;
    e->name = bid >= 0 ? base->region_names[bid] : cand->region_names[cid];
    e->base_calls = region_calls(base, bid);
    e->cand_calls = region_calls(cand, cid);
    e->presence = bid < 0 ? SP_DIFF_ONLY_CAND : cid < 0 ? SP_DIFF_ONLY_BASE : SP_DIFF_IN_BOTH;
    e->base = sp_diff_region_value(base, bid, m);
    e->cand = sp_diff_region_value(cand, cid, m);
}

/* Keep e? (filter by name; threshold for regions in both runs) */
static bool keep_entry(const sp_diff_entry *e, const sp_diff_options *o)
{
    if (!sp_region_filter_match(o->filter, e->name))
        return false;
    return e->presence != SP_DIFF_IN_BOTH || o->threshold_pct <= 0 ||
           fabs(e->percent) >= o->threshold_pct;
}

sp_diff *sp_diff_regions(const sp_run *base, const sp_run *cand, const sp_diff_options *opts)
{
    sp_diff_options defaults;
    sp_diff_options_init(&defaults);
    const sp_diff_options *o = opts ? opts : &defaults;
    if (sp__diff_check_args(base, cand, o))
        return NULL;

    sp_diff *d = calloc(1, sizeof *d);
    size_t cap = base->nregions + cand->nregions;
    if (d)
        d->entries = calloc(cap ? cap : 1, sizeof *d->entries);
    if (!d || !d->entries) {
        sp_diff_free(d);
        return sp__error_null(SP_ENOMEM, "out of memory comparing runs");
    }
    d->metric = o->metric;
    d->alpha = o->alpha;

    sp__diff_samples sb = {0}, sc = {0};
    bool test = o->noise && uses_samples(o->metric);
    if (test && (sp__diff_samples_collect(base, false, o->metric == SP_METRIC_OWN, &sb) ||
                 sp__diff_samples_collect(cand, false, o->metric == SP_METRIC_OWN, &sc))) {
        sp__diff_samples_free(&sb);
        sp_diff_free(d);
        return NULL;
    }

    int rc = 0;
    /* Base regions (matched by name), then the candidate's new ones. */
    for (size_t pass = 0; pass < 2 && !rc; pass++) {
        const sp_run *run = pass == 0 ? base : cand;
        for (size_t g = 0; g < run->nregions && !rc; g++) {
            if (run->regions[g].all.calls == 0)
                continue; /* a name without calls is no region of this run */
            int32_t other = sp_run_region_id(pass == 0 ? cand : base, run->region_names[g]);
            if (other >= 0 && (pass == 0 ? cand : base)->regions[other].all.calls == 0)
                other = -1;
            if (pass == 1 && other >= 0)
                continue; /* matched in the first pass */
            int32_t bid = pass == 0 ? (int32_t)g : -1;
            int32_t cid = pass == 0 ? other : (int32_t)g;
            sp_diff_entry *e = &d->entries[d->n];
            fill_entry(e, base, cand, bid, cid, o->metric);
            /* Finish before filtering: the threshold needs the percent. */
            rc = sp__diff_entry_finish(e, o, test ? &sb : NULL, test ? &sc : NULL);
            if (!rc && keep_entry(e, o))
                d->n++;
            else if (!rc)
                d->n_filtered++;
        }
    }
    sp__diff_samples_free(&sb);
    sp__diff_samples_free(&sc);
    if (rc) {
        sp_diff_free(d);
        return NULL;
    }
    sp_diff_sort key = o->sort;
    qsort_r(d->entries, d->n, sizeof *d->entries, sp__diff_entry_cmp, &key);
    return d;
}
