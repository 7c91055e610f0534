/* SPDX-License-Identifier: MIT */
/*
 * sp_compare.c - the comparison model (see sp_compare.h): read each run's
 * per-rank figures per key, estimate each key's ratio with its interval,
 * decide the verdict, order the entries.
 */
#define _GNU_SOURCE /* qsort_r */
#include "sp_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_compare_keys.h"
#include "sp_compare_stats.h"
#include "sp_error.h"

#define NS_TO_S 1e-9

void sp_compare_options_init(sp_compare_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->estimator = SP_CMP_EST_QUANTILE;
    o->quantile = 0; /* adaptive (sp__typical_quantile) */
    o->alpha = 0.05;
    o->min_change_pct = 10;
    o->min_time_s = 1e-4;
    o->min_share_pct = 1;
    o->own = true;
}

void sp_compare_free(sp_compare *c)
{
    if (!c)
        return;
    sp_strpool_free(&c->names_); /* the entries' names */
    free(c->entries);
    free(c);
}

static int check_options(const sp_compare_options *o, size_t nb, size_t nc)
{
    if (nb == 0 || nc == 0)
        return sp__error(SP_EINVAL, "compare: no %s run", nb == 0 ? "base" : "candidate");
    if (!(o->alpha > 0 && o->alpha < 1))
        return sp__error(SP_EINVAL, "compare: alpha %g is not between 0 and 1", o->alpha);
    if (!(o->quantile >= 0 && o->quantile < 1) ||
        (o->estimator != SP_CMP_EST_QUANTILE && o->estimator != SP_CMP_EST_HL))
        return sp__error(SP_EINVAL, "compare: bad estimator or quantile %g", o->quantile);
    if (!(o->min_change_pct >= 0) || !(o->min_time_s >= 0) || !(o->min_share_pct >= 0))
        return sp__error(SP_EINVAL, "compare: negative threshold");
    return 0;
}

/* ---------------------------------------------------------------- sides */

/* Average the figures of key k over the runs of a side that have it; loc:
 * the typical call (s) of each run and key, nkeys per run. */
static void side_of(const sp__cmp_run *runs, size_t nr, int32_t k, const double *loc,
                    size_t nkeys, sp_cmp_side *s)
{
    memset(s, 0, sizeof *s);
    for (size_t j = 0; j < nr; j++) {
        const sp__cmp_fig *f = &runs[j].fig[k];
        if (!f->calls)
            continue;
        double typ = loc[j * nkeys + (size_t)k];
        s->per_call_s += typ;
        s->typical_time_s += typ * f->calls_per_rank;
        s->runs++;
        s->calls += f->calls;
        s->calls_per_rank += f->calls_per_rank;
        s->time_mean_s += f->time_mean_s;
        s->time_max_s += f->time_max_s;
        s->cpu_wait_s += f->wait_s;
        /* Preemptions per typical call: its length x the measured rate of
         * preemptions per second on a CPU. */
        double pre = typ * runs[j].sched.switches_per_cpu_s;
        s->preempt_per_call = pre > s->preempt_per_call ? pre : s->preempt_per_call;
        if (f->ranks > s->ranks)
            s->ranks = f->ranks;
    }
    if (s->runs) {
        s->calls_per_rank /= s->runs;
        s->time_mean_s /= s->runs;
        s->time_max_s /= s->runs;
        s->per_call_s /= s->runs;
        s->typical_time_s /= s->runs;
        s->cpu_wait_s /= s->runs;
    }
    s->net_time_s = s->time_mean_s - s->cpu_wait_s;
}

/* ---------------------------------------------------------------- tests */

/* log of a duration in ns (a 0 ns call counts as 1 ns). */
static double log_ns(double v)
{
    return log(v > 1 ? v : 1.0);
}

/* A key's calls in a run as a sorted sample of log durations, read from
 * the run's per-rank histograms of the key without merging them: a call
 * on rank st counts as log(duration) - off[st] (off NULL: 0). Order
 * statistics come within the histograms' bound (SP_HIST_REL_ERROR). */
typedef struct strata {
    const sp__cmp_run *r;
    int32_t k;
    const double *off;
    uint64_t n;
} strata;

static void strata_init(strata *t, const sp__cmp_run *r, int32_t k, const double *off)
{
    t->r = r;
    t->k = k;
    t->off = off;
    t->n = 0;
    for (size_t st = 0; st < r->nranks; st++)
        t->n += sp__cmp_hist(r, k, st)->count;
}

/* Values <= v (a log) over every rank. */
static uint64_t strata_count_le(const strata *t, double v)
{
    uint64_t cnt = 0;
    for (size_t st = 0; st < t->r->nranks; st++) {
        const sp_hist *h = sp__cmp_hist(t->r, t->k, st);
        double x = v + (t->off ? t->off[st] : 0);
        if (!h->count || x < 0)
            continue; /* log_ns is never below 0 */
        double bound = floor(exp(x));
        cnt += bound >= 9.0e18 ? h->count : sp_hist_count_le(h, (int64_t)bound);
    }
    return cnt;
}

/* The i-th smallest value (0-based): read from the histogram with one rank
 * and no offsets, else by bisection on the value with counts from every
 * rank's histogram (down to 1e-5 in log, far below a bucket's width). */
static double strata_at(const void *ctx, size_t i)
{
    const strata *t = ctx;
    size_t nr = t->r->nranks;
    if (nr == 1 && !t->off)
        return log_ns((double)sp_hist_value_at_rank(sp__cmp_hist(t->r, t->k, 0), i));
    double lo = INFINITY, hi = -INFINITY;
    for (size_t st = 0; st < nr; st++) {
        const sp_hist *h = sp__cmp_hist(t->r, t->k, st);
        if (!h->count)
            continue;
        double off = t->off ? t->off[st] : 0;
        lo = fmin(lo, log_ns((double)h->min) - off);
        hi = fmax(hi, log_ns((double)h->max) - off);
    }
    lo -= 1e-6; /* count(lo) = 0 <= i < count(hi) = n */
    for (int it = 0; it < 100 && hi - lo > 1e-5; it++) {
        double mid = 0.5 * (lo + hi);
        if (strata_count_le(t, mid) >= (uint64_t)i + 1)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The typical call (s) of key k: its quantile of the log durations (so a
 * geometric interpolation), or the median for HL. 0 without calls. */
static double typical_call(const sp__cmp_run *r, int32_t k, const sp_compare_options *o,
                           double quantile)
{
    strata t;
    strata_init(&t, r, k, NULL);
    if (!t.n)
        return 0;
    double q = o->estimator == SP_CMP_EST_HL ? 0.5 : quantile;
    double h = q * (double)(t.n - 1);
    size_t lo = (size_t)floor(h);
    double v = strata_at(&t, lo);
    if (lo + 1 < t.n)
        v += (h - (double)lo) * (strata_at(&t, lo + 1) - v);
    return exp(v) * NS_TO_S;
}

/* The base's median log call of key k on each rank, or pooled where the
 * base has no call on a rank: the normalisers of a stratified comparison.
 * norm has the base's ranks entries. */
static void strata_medians(const sp__cmp_run *b, int32_t k, double *norm)
{
    strata t;
    strata_init(&t, b, k, NULL);
    double pooled = 0;
    if (t.n)
        pooled = 0.5 * (strata_at(&t, (t.n - 1) / 2) + strata_at(&t, t.n / 2));
    for (size_t st = 0; st < b->nranks; st++) {
        const sp_hist *h = sp__cmp_hist(b, k, st);
        norm[st] = h->count ? log_ns(sp_hist_quantile(h, 0.5)) : pooled;
    }
}

/* A value of the weighted sample HL reads. */
typedef struct wval {
    double v;
    uint64_t w;
} wval;

static int cmp_wval(const void *a, const void *b)
{
    double x = ((const wval *)a)->v, y = ((const wval *)b)->v;
    return (x > y) - (x < y);
}

/* Key k's calls of run r as sorted distinct log durations with counts
 * (each rank's buckets, shifted by its offset): *v and *w malloc'ed. */
static int weighted_logs(const sp__cmp_run *r, int32_t k, const double *off, double **v,
                         uint64_t **w, size_t *n)
{
    size_t cap = 0;
    for (size_t st = 0; st < r->nranks; st++) {
        size_t it = 0;
        uint32_t idx;
        uint64_t c;
        while (sp_hist_next(sp__cmp_hist(r, k, st), &it, &idx, &c))
            cap++;
    }
    wval *a = malloc((cap ? cap : 1) * sizeof *a);
    *v = malloc((cap ? cap : 1) * sizeof **v);
    *w = malloc((cap ? cap : 1) * sizeof **w);
    if (!a || !*v || !*w) {
        free(a), free(*v), free(*w);
        *v = NULL, *w = NULL;
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    }
    size_t m = 0;
    for (size_t st = 0; st < r->nranks; st++) {
        const sp_hist *h = sp__cmp_hist(r, k, st);
        size_t it = 0;
        uint32_t idx;
        uint64_t c;
        while (sp_hist_next(h, &it, &idx, &c))
            a[m++] = (wval){log_ns((double)sp_hist_bucket_value(h, idx)) - (off ? off[st] : 0), c};
    }
    qsort(a, m, sizeof *a, cmp_wval);
    size_t d = 0; /* equal values merged */
    for (size_t i = 0; i < m; i++) {
        if (d && (*v)[d - 1] == a[i].v) {
            (*w)[d - 1] += a[i].w;
        } else {
            (*v)[d] = a[i].v;
            (*w)[d++] = a[i].w;
        }
    }
    free(a);
    *n = d;
    return 0;
}

/* One run per side: the estimator's shift of the log per-call durations.
 * With the same ranks (> 1) on both sides each call counts relative to the
 * base's median call of the key on its rank, so that systematic
 * differences between ranks (imbalance, waiting) do not blur the shift
 * that all ranks share. norm: scratch, a value per rank. */
static int test_calls(sp_cmp_entry *e, const sp__cmp_run *rb, const sp__cmp_run *rc_, int32_t k,
                      const sp_compare_options *o, double *norm)
{
    double q = e->quantile;
    bool by_rank = rb->nranks > 1 && rb->nranks == rc_->nranks;
    if (by_rank)
        strata_medians(rb, k, norm);
    const double *off = by_rank ? norm : NULL;
    sp__shift_ci s;
    if (o->estimator == SP_CMP_EST_HL) {
        /* HL reads every bucket of both sides (weighted pairs). */
        double *xb = NULL, *xc = NULL;
        uint64_t *wb = NULL, *wc = NULL;
        size_t nb = 0, nc = 0;
        int rc = weighted_logs(rb, k, off, &xb, &wb, &nb);
        if (!rc)
            rc = weighted_logs(rc_, k, off, &xc, &wc, &nc);
        if (!rc)
            rc = sp__hl_shift_weighted(xb, wb, nb, xc, wc, nc, o->alpha, &s);
        free(xb), free(xc), free(wb), free(wc);
        if (rc)
            return rc;
    } else {
        /* A few order statistics of each side. */
        strata tb, tc;
        strata_init(&tb, rb, k, off);
        strata_init(&tc, rc_, k, off);
        sp__sorted xs = {(size_t)tb.n, strata_at, &tb}, ys = {(size_t)tc.n, strata_at, &tc};
        sp__quantile_shift_acc(&xs, &ys, q, o->alpha, &s);
    }
    /* Time per rank = calls per rank x time per call: the count ratio is
     * exact (no sampling noise), the per-call ratio carries the interval. */
    double counts = e->cand.calls_per_rank / e->base.calls_per_rank;
    if (s.ok) {
        e->tested = true;
        e->ratio = exp(s.estimate) * counts;
        e->ratio_lo = exp(s.lo) * counts;
        e->ratio_hi = exp(s.hi) * counts;
        e->p_value = s.p_value;
    }
    return 0;
}

/* The level of the total's interval: it is judged on fewer, dependent
 * values (segments of a run, or runs) and its noise has heavy tails (a few
 * long preemptions), so it is held to alpha / 20 (99.75 % at 0.05). */
#define TOTAL_ALPHA_DIV 20

/* Repeated runs: Welch on the log of each run's robust time per rank
 * (typical call x calls per rank), and on the log of its net total. */
static void test_runs(sp_cmp_entry *e, const sp__cmp_run *br, size_t nb, const sp__cmp_run *cr,
                      size_t nc, int32_t k, const double *locb, const double *locc, size_t nkeys,
                      double alpha, double *xb, double *xc)
{
    for (size_t j = 0; j < nb; j++)
        xb[j] = log(fmax(locb[j * nkeys + (size_t)k] * br[j].fig[k].calls_per_rank, 1e-12));
    for (size_t j = 0; j < nc; j++)
        xc[j] = log(fmax(locc[j * nkeys + (size_t)k] * cr[j].fig[k].calls_per_rank, 1e-12));
    sp__welch_ci w;
    sp__welch(xb, nb, xc, nc, alpha, &w);
    if (w.ok) {
        e->tested = true;
        e->ratio = exp(w.estimate);
        e->ratio_lo = exp(w.lo);
        e->ratio_hi = exp(w.hi);
        e->p_value = w.p_value;
    }
    /* The totals, as measured and net of the waits for a CPU (the
     * interval spans both). */
    double lo = INFINITY, hi = -INFINITY;
    bool clear[2];
    for (int net = 0; net < 2; net++) {
        for (size_t j = 0; j < nb; j++)
            xb[j] = log(fmax(br[j].fig[k].time_mean_s - net * br[j].fig[k].wait_s, 1e-12));
        for (size_t j = 0; j < nc; j++)
            xc[j] = log(fmax(cr[j].fig[k].time_mean_s - net * cr[j].fig[k].wait_s, 1e-12));
        sp__welch(xb, nb, xc, nc, alpha / TOTAL_ALPHA_DIV, &w);
        if (!w.ok)
            return;
        lo = fmin(lo, w.lo);
        hi = fmax(hi, w.hi);
        clear[net] = w.lo > 0 || w.hi < 0;
    }
    e->total_tested = true;
    e->total_lo_pct = 100 * (exp(lo) - 1);
    e->total_hi_pct = 100 * (exp(hi) - 1);
    e->total_raw_clear = clear[0];
    e->total_net_clear = clear[1] && e->total_diff_s != 0;
}

/* One run per side: the change of the total time per rank. Noise: its
 * within-run variation over the segments of each run, and the scatter of
 * the waits for a CPU in it (preemptions arrive at random: a compound
 * Poisson sum of preemptions of mean length w, variance ~ 2 w x the
 * expected wait; the mean over ranks divides it). What the machine's load
 * could explain: where the region ran, the base's threads waited a share
 * wb of the time for a CPU and the candidate's wc, so unchanged code would
 * take (1 - wb) / (1 - wc) times the base's time: the change beyond that is
 * the change of the time net of the waits, scaled by 1 / (1 - wc), and so
 * is its noise (the waits' scatter weighs more where little time was left
 * to run). The interval spans the change as measured and beyond that. */
static void test_total(sp_cmp_entry *e, const sp__cmp_run *br, const sp__cmp_run *cr, int32_t k,
                       double alpha)
{
    const sp__cmp_fig *f[2] = {&br->fig[k], &cr->fig[k]};
    const sp__cmp_run *r[2] = {br, cr};
    double var_seg = 0, var_wait = 0, share[2];
    for (int s = 0; s < 2; s++) {
        /* The total is the sum of the segments: n x their variance. */
        double mean = 0, ss = 0;
        for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
            mean += f[s]->seg_s[j] / SP__CMP_SEGMENTS;
        for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
            ss += (f[s]->seg_s[j] - mean) * (f[s]->seg_s[j] - mean);
        var_seg += ss / (SP__CMP_SEGMENTS - 1) * SP__CMP_SEGMENTS;
        double w = r[s]->sched.wait_per_switch_s;
        var_wait += 2 * w * f[s]->wait_s / (f[s]->ranks ? f[s]->ranks : 1);
        share[s] = f[s]->time_mean_s > 0 ? fmin(f[s]->wait_s / f[s]->time_mean_s, 0.98) : 0;
    }
    double base = e->base.time_mean_s;
    if (!(base > 0))
        return;
    double z = sp__normal_quantile(1 - alpha / TOTAL_ALPHA_DIV / 2);
    double raw = e->cand.time_mean_s - base;
    /* Beyond the load: the change of the time net of the waits for a CPU
     * (whose estimates carry var_wait), on the candidate's scale: divided
     * by its share of time not waiting, (cand - load x base) exactly. */
    double net = (e->cand.time_mean_s - f[1]->wait_s) - (base - f[0]->wait_s);
    double beyond = net / (1 - share[1]);
    double hr = z * sqrt(var_seg), hb = z * sqrt(var_seg + var_wait) / (1 - share[1]);
    e->total_tested = true;
    e->total_lo_pct = 100 * fmin(raw - hr, beyond - hb) / base;
    e->total_hi_pct = 100 * fmax(raw + hr, beyond + hb) / base;
    e->total_raw_clear = raw - hr > 0 || raw + hr < 0;
    e->total_net_clear = (beyond - hb > 0 || beyond + hb < 0) && raw * beyond > 0;
    /* What is judged: the smaller of the two (0 when they disagree). */
    e->total_diff_s = raw * beyond <= 0 ? 0 : fabs(raw) < fabs(beyond) ? raw : beyond;
}

/* ---------------------------------------------------------------- verdict */

/* Preemptions per typical call above which a side's fastest calls cannot
 * be trusted to be undisturbed: with a random phase, a call of length L
 * between preemptions D apart escapes them with probability 1 - L / D, so
 * at 0.5 half the calls or fewer ran whole. */
#define PREEMPT_MAX 0.5

/* |change| beyond the budget (+ the common change's unevenness), and
 * |impact| at least both floors. */
static sp_cmp_why relevance(const sp_compare *c, double change_pct, double impact)
{
    const sp_compare_options *o = &c->opts;
    if (!(fabs(change_pct) > o->min_change_pct + c->uneven_pct))
        return SP_CMP_WHY_SMALL_CHANGE;
    if (fabs(impact) < o->min_time_s)
        return SP_CMP_WHY_SMALL_TIME;
    if (fabs(impact) < o->min_share_pct / 100 * c->base_share_s)
        return SP_CMP_WHY_SMALL_SHARE;
    return SP_CMP_WHY_NONE;
}

/* A change of a total (s) beyond the common change's share of it
 * (common, s), or 0 when the common change explains it or turns it around. */
static double beyond_common(double change, double common)
{
    return change * (change - common) > 0 ? change - common : 0;
}

static void decide(sp_cmp_entry *e, const sp_compare *c)
{
    e->change_pct = 100 * (e->ratio - 1);
    e->rel_ratio = e->ratio / c->common_ratio;
    e->impact_s = (e->rel_ratio - 1) * e->base.typical_time_s;
    if (e->tested) {
        e->change_lo_pct = 100 * (e->ratio_lo - 1);
        e->change_hi_pct = 100 * (e->ratio_hi - 1);
    }
    /* 1. The typical time per rank, against the common change. */
    sp_cmp_why typical = SP_CMP_WHY_NOT_CLEAR;
    if (e->tested) {
        double lo = e->ratio_lo / c->common_ratio, hi = e->ratio_hi / c->common_ratio;
        bool clear = lo > 1 || hi < 1;
        bool clear_raw = e->ratio_lo > 1 || e->ratio_hi < 1;
        typical = clear ? relevance(c, 100 * (e->rel_ratio - 1), e->impact_s)
                        : clear_raw && c->common_ratio != 1 ? SP_CMP_WHY_COMMON
                                                            : SP_CMP_WHY_NOT_CLEAR;
        if (typical == SP_CMP_WHY_NONE) {
            if (e->base.preempt_per_call > PREEMPT_MAX || e->cand.preempt_per_call > PREEMPT_MAX) {
                e->verdict = SP_CMP_NOT_COMPARABLE;
                e->why = SP_CMP_WHY_INTERFERENCE;
                return;
            }
            e->verdict = e->rel_ratio > 1 ? SP_CMP_SLOWER : SP_CMP_FASTER;
            e->basis = SP_CMP_BASIS_TYPICAL;
            /* The impact on the time per rank is the total's change when
             * that is clear the same way and larger (waits that grew with
             * the calls): the typical calls alone would understate it. */
            if (e->total_tested && e->total_raw_clear && e->total_diff_s * e->impact_s > 0 &&
                fabs(e->total_diff_s) > fabs(e->impact_s))
                e->impact_s = e->total_diff_s;
            return;
        }
    }
    /* 2. The total: a tail change (waits, stalls) the typical call misses,
     * clear as measured and net of the waits for a CPU; clear only as
     * measured, the waits for a CPU may explain it: undecided. */
    double base = e->base.time_mean_s, raw = e->cand.time_mean_s - base;
    /* Judged like the typical change: beyond what the common change
     * would make of the base's total. */
    double common = (c->common_ratio - 1) * base;
    double raw_rel = beyond_common(raw, common);
    double diff_rel = beyond_common(e->total_diff_s, common);
    if (e->total_tested && e->total_raw_clear && base > 0 &&
        relevance(c, 100 * raw_rel / base, raw_rel) == SP_CMP_WHY_NONE) {
        if (e->total_net_clear &&
            relevance(c, 100 * diff_rel / base, diff_rel) == SP_CMP_WHY_NONE) {
            e->verdict = e->total_diff_s > 0 ? SP_CMP_SLOWER : SP_CMP_FASTER;
            e->basis = SP_CMP_BASIS_TOTAL;
            e->impact_s = e->total_diff_s;
            return;
        }
        /* Unless the typical call shows no change beyond the budget: then
         * the code did not change, the machine's load did. */
        double budget = c->opts.min_change_pct / 100;
        bool bounded = e->tested && e->ratio_hi / c->common_ratio < 1 + budget &&
                       e->ratio_lo / c->common_ratio > 1 - budget;
        if (!bounded) {
            e->verdict = SP_CMP_NOT_COMPARABLE;
            e->why = SP_CMP_WHY_CPU_WAIT;
            e->impact_s = raw;
            return;
        }
    }
    if (!e->tested) {
        e->verdict = SP_CMP_NOT_COMPARABLE;
        return;
    }
    e->verdict = SP_CMP_SAME;
    e->why = typical;
}

/* What the comparison is built from (freed once the entries are filled). */
typedef struct work {
    sp__cmp_keys keys;
    sp__cmp_run *br, *cr;
    double *locb, *locc;    /* typical call per run and key (nkeys per run) */
    double *quant;          /* per key: the quantile of its typical call */
    double *xb, *xc;        /* scratch: a value per run of each side */
    double *norm;           /* scratch: per-rank normalisers */
} work;

/* Fill entry e of key k: both sides and the tests; the verdict comes once
 * every entry is tested (decide(), against the common change). */
static int fill_entry(sp_cmp_entry *e, const sp_compare *c, const work *w, int32_t k)
{
    size_t nb = c->nbase, nc = c->ncand, nkeys = w->keys.n;
    const sp__cmp_run *br = w->br, *cr = w->cr;
    side_of(br, nb, k, w->locb, nkeys, &e->base);
    side_of(cr, nc, k, w->locc, nkeys, &e->cand);
    e->p_value = 1;
    e->quantile = c->opts.estimator == SP_CMP_EST_HL ? 0 : w->quant[k];
    if (!e->base.runs) {
        e->verdict = SP_CMP_NEW;
        e->change_pct = INFINITY;
        e->impact_s = e->cand.time_mean_s; /* all of it is added */
        return 0;
    }
    if (!e->cand.runs) {
        e->verdict = SP_CMP_REMOVED;
        e->change_pct = -100;
        e->impact_s = -e->base.time_mean_s;
        return 0;
    }
    double cb = e->base.calls_per_rank, cc = e->cand.calls_per_rank;
    e->calls_changed = fabs(cc - cb) > 0.005 * fmax(cb, cc);
    /* Untested entries keep the observed ratio as a rough change. */
    e->ratio = e->base.typical_time_s > 0 ? e->cand.typical_time_s / e->base.typical_time_s : 1;
    /* The total's change is that of the time per rank; what is judged
     * (total_diff_s) is the smaller of it and of the change beyond what
     * the machine's load explains (see test_total). */
    double raw = e->cand.time_mean_s - e->base.time_mean_s;
    double wb = e->base.time_mean_s > 0 ? fmin(e->base.cpu_wait_s / e->base.time_mean_s, 0.98) : 0;
    double wc = e->cand.time_mean_s > 0 ? fmin(e->cand.cpu_wait_s / e->cand.time_mean_s, 0.98) : 0;
    double beyond = e->cand.time_mean_s - (1 - wb) / (1 - wc) * e->base.time_mean_s;
    e->total_diff_s = raw * beyond <= 0 ? 0 : fabs(raw) < fabs(beyond) ? raw : beyond;
    e->total_change_pct = e->base.time_mean_s > 0 ? 100 * raw / e->base.time_mean_s : 0;
    if (c->mode == SP_CMP_MODE_CALLS) {
        int rc = test_calls(e, &br[0], &cr[0], k, &c->opts, w->norm);
        if (rc)
            return rc;
        if (!e->tested)
            e->why = SP_CMP_WHY_FEW_CALLS;
        test_total(e, br, cr, k, c->opts.alpha);
    } else if (e->base.runs < nb || e->cand.runs < nc) {
        e->why = SP_CMP_WHY_MISSING_RUNS;
    } else {
        test_runs(e, br, nb, cr, nc, k, w->locb, w->locc, nkeys, c->opts.alpha, w->xb, w->xc);
    }
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The common change (one run per side, own time): the median per-call
 * ratio of the entries with an interval, when there are at least 3. */
static void common_change(sp_compare *c)
{
    c->common_ratio = 1;
    c->common_n = 0;
    /* Inclusive times nest (a parent carries its children's changes): their
     * ratios are not independent witnesses of the machine. */
    if (c->mode != SP_CMP_MODE_CALLS || !c->opts.own)
        return;
    double *r = malloc((c->n ? c->n : 1) * sizeof *r);
    size_t n = 0;
    for (size_t i = 0; r && i < c->n; i++) {
        const sp_cmp_entry *e = &c->entries[i];
        if (e->tested && e->base.calls_per_rank > 0 && e->cand.calls_per_rank > 0)
            r[n++] = e->ratio / (e->cand.calls_per_rank / e->base.calls_per_rank);
    }
    if (n >= 3) {
        qsort(r, n, sizeof *r, cmp_dbl);
        c->common_ratio = n % 2 ? r[n / 2] : sqrt(r[n / 2 - 1] * r[n / 2]);
        c->common_n = n;
        c->undecided = fabs(c->common_ratio - 1) * 100 > c->opts.min_change_pct;
        /* Symmetric in the two runs: -9 % one way is +9.9 % the other. */
        c->uneven_pct = 100 * (exp(fabs(log(c->common_ratio))) - 1);
    }
    free(r);
}

/* ---------------------------------------------------------------- order */

static int cmp_entries(const void *pa, const void *pb)
{
    const sp_cmp_entry *a = pa, *b = pb;
    double x = fabs(a->impact_s), y = fabs(b->impact_s);
    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_index(const void *pa, const void *pb, void *arg)
{
    const sp_cmp_entry *e = arg;
    return cmp_entries(&e[*(const size_t *)pa], &e[*(const size_t *)pb]);
}

/* Tree: depth-first with siblings by cmp_entries. e[i].parent indexes e. */
static int order_tree(sp_compare *c)
{
    size_t n = c->n;
    sp_cmp_entry *e = c->entries;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), *stack = malloc((n ? n : 1) * sizeof *stack);
    int32_t *newpos = malloc((n ? n : 1) * sizeof *newpos);
    sp_cmp_entry *out = malloc((n ? n : 1) * sizeof *out);
    size_t *first = calloc(n + 1, sizeof *first), *count = calloc(n + 1, sizeof *count);
    if (!idx || !stack || !newpos || !out || !first || !count) {
        free(idx), free(stack), free(newpos), free(out), free(first), free(count);
        return sp__error(SP_ENOMEM, "out of memory ordering the comparison");
    }
    /* Group children by parent (slot n = top level), each group sorted. */
    for (size_t i = 0; i < n; i++)
        count[e[i].parent < 0 ? n : (size_t)e[i].parent]++;
    size_t acc = 0;
    for (size_t p = 0; p <= n; p++) {
        first[p] = acc;
        acc += count[p];
        count[p] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t p = e[i].parent < 0 ? n : (size_t)e[i].parent;
        idx[first[p] + count[p]++] = i;
    }
    for (size_t p = 0; p <= n; p++)
        if (count[p] > 1)
            qsort_r(idx + first[p], count[p], sizeof *idx, cmp_index, e);
    /* Depth-first: push a group's members in reverse so the first pops first. */
    size_t top = 0, m = 0;
    for (size_t q = count[n]; q-- > 0;)
        stack[top++] = idx[first[n] + q];
    while (top) {
        size_t i = stack[--top];
        newpos[i] = (int32_t)m;
        out[m++] = e[i];
        for (size_t q = count[i]; q-- > 0;)
            stack[top++] = idx[first[i] + q];
    }
    for (size_t i = 0; i < m; i++)
        if (out[i].parent >= 0)
            out[i].parent = newpos[out[i].parent];
    memcpy(e, out, m * sizeof *e);
    c->n = m;
    free(idx), free(stack), free(newpos), free(out), free(first), free(count);
    return 0;
}

/* ---------------------------------------------------------------- build */

static void work_free(work *w, size_t nb, size_t nc)
{
    for (size_t j = 0; w->br && j < nb; j++)
        sp__cmp_run_free(&w->br[j]);
    for (size_t j = 0; w->cr && j < nc; j++)
        sp__cmp_run_free(&w->cr[j]);
    free(w->br);
    free(w->cr);
    free(w->locb);
    free(w->locc);
    free(w->quant);
    free(w->norm);
    free(w->xb);
    free(w->xc);
    sp__cmp_keys_free(&w->keys);
}

static void rank_range(const sp__cmp_run *r, size_t n, size_t *lo, size_t *hi, size_t *threads,
                       double *span)
{
    *lo = SIZE_MAX, *hi = 0, *threads = 0, *span = 0;
    for (size_t j = 0; j < n; j++) {
        size_t k = r[j].run->nranks;
        *lo = k < *lo ? k : *lo;
        *hi = k > *hi ? k : *hi;
        *threads = r[j].threads_max > *threads ? r[j].threads_max : *threads;
        *span += r[j].span_s / (double)n;
    }
}

/* Each side's waits for a CPU: its runs' added up; measured only when
 * every run of the side is. */
static void sides_sched(sp_compare *c, const work *w)
{
    for (int side = 0; side < 2; side++) {
        const sp__cmp_run *r = side ? w->cr : w->br;
        size_t n = side ? c->ncand : c->nbase;
        sp_sched_summary *s = side ? &c->cand_sched : &c->base_sched;
        memset(s, 0, sizeof *s);
        bool all = true;
        for (size_t j = 0; j < n; j++) {
            all &= r[j].sched.measured;
            sp_sched_summary_add(s, &r[j].sched);
        }
        s->measured = all && n;
        sp_sched_summary_finish(s);
    }
}

static int read_runs(work *w, const sp_run *const *base, size_t nb, const sp_run *const *cand,
                     size_t nc, const sp_compare_options *o)
{
    w->br = calloc(nb, sizeof *w->br);
    w->cr = calloc(nc, sizeof *w->cr);
    if (!w->br || !w->cr)
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    int rc = 0;
    for (size_t j = 0; j < nb + nc && !rc; j++) {
        const sp_run *run = j < nb ? base[j] : cand[j - nb];
        if (!run)
            return sp__error(SP_EINVAL, "compare: NULL run");
        rc = sp__cmp_run_keys(j < nb ? &w->br[j] : &w->cr[j - nb], run, o->tree,
                              SP_AGG_SEGMENTS, &w->keys);
    }
    for (size_t j = 0; j < nb + nc && !rc; j++)
        rc = sp__cmp_run_figures(j < nb ? &w->br[j] : &w->cr[j - nb], w->keys.n, o->own);
    return rc;
}

/* The typical call of every run and key (w->locb, w->locc), from the
 * runs' histograms. */
static int locations(work *w, size_t nb, size_t nc, const sp_compare_options *o)
{
    size_t nkeys = w->keys.n;
    w->locb = calloc(nb * nkeys + 1, sizeof *w->locb);
    w->locc = calloc(nc * nkeys + 1, sizeof *w->locc);
    w->quant = calloc(nkeys + 1, sizeof *w->quant);
    if (!w->locb || !w->locc || !w->quant)
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    /* Every run uses the key's one quantile: the lowest the run with the
     * fewest calls of it allows. */
    for (size_t k = 0; k < nkeys; k++) {
        uint64_t fewest = UINT64_MAX;
        for (size_t j = 0; j < nb + nc; j++) {
            uint64_t n = (j < nb ? w->br[j] : w->cr[j - nb]).fig[k].calls;
            fewest = n && n < fewest ? n : fewest;
        }
        w->quant[k] = o->quantile > 0 ? o->quantile
                                      : sp__typical_quantile(fewest == UINT64_MAX ? 0 : fewest,
                                                             o->alpha);
    }
    for (size_t j = 0; j < nb + nc; j++) {
        bool is_base = j < nb;
        size_t jj = is_base ? j : j - nb;
        const sp__cmp_run *r = is_base ? &w->br[jj] : &w->cr[jj];
        double *loc = (is_base ? w->locb : w->locc) + jj * nkeys;
        for (size_t k = 0; k < nkeys; k++)
            loc[k] = typical_call(r, (int32_t)k, o, w->quant[k]);
    }
    return 0;
}

sp_compare *sp_compare_runs(const sp_run *const *base, size_t nb, const sp_run *const *cand,
                            size_t nc, const sp_compare_options *opts)
{
    sp_compare_options defaults;
    sp_compare_options_init(&defaults);
    const sp_compare_options *o = opts ? opts : &defaults;
    if (check_options(o, nb, nc) || !base || !cand)
        return base && cand ? NULL : sp__error_null(SP_EINVAL, "compare: no runs");
    sp_compare *c = calloc(1, sizeof *c);
    work w = {0};
    int rc = c ? read_runs(&w, base, nb, cand, nc, o) : SP_ENOMEM;
    if (c) {
        c->opts = *o;
        c->opts.filter = NULL;
        c->nbase = nb;
        c->ncand = nc;
        c->mode = nb == 1 && nc == 1 ? SP_CMP_MODE_CALLS : SP_CMP_MODE_RUNS;
    }
    if (!rc) {
        rank_range(w.br, nb, &c->base_ranks_min, &c->base_ranks_max, &c->base_threads_max,
                   &c->base_run_s);
        rank_range(w.cr, nc, &c->cand_ranks_min, &c->cand_ranks_max, &c->cand_threads_max,
                   &c->cand_run_s);
    }
    size_t nkeys = w.keys.n, scratch = nb > nc ? nb : nc;
    if (!rc)
        rc = locations(&w, nb, nc, o);
    if (!rc) {
        /* The share floor's whole: robust like the impacts (see header). */
        c->base_share_s = c->base_run_s;
        if (o->own) {
            double sum = 0;
            for (size_t j = 0; j < nb; j++)
                for (size_t k = 0; k < nkeys; k++)
                    sum += w.locb[j * nkeys + k] * w.br[j].fig[k].calls_per_rank;
            c->base_share_s = sum / (double)nb;
        }
        w.xb = malloc((scratch ? scratch : 1) * sizeof *w.xb);
        w.xc = malloc((scratch ? scratch : 1) * sizeof *w.xc);
        w.norm = malloc((w.br[0].nranks ? w.br[0].nranks : 1) * sizeof *w.norm);
        c->entries = calloc(nkeys ? nkeys : 1, sizeof *c->entries);
        if (!w.xb || !w.xc || !w.norm || !c->entries)
            rc = sp__error(SP_ENOMEM, "out of memory comparing runs");
    }
    /* Keys are in discovery order, a tree path after its parent: entry
     * indices of parents are known when their children come. */
    int32_t *entry_of = !rc ? malloc((nkeys ? nkeys : 1) * sizeof *entry_of) : NULL;
    if (!rc && !entry_of)
        rc = sp__error(SP_ENOMEM, "out of memory comparing runs");
    for (size_t k = 0; !rc && k < nkeys; k++) {
        const sp__cmp_key *key = &w.keys.keys[k];
        entry_of[k] = -1;
        if (!o->tree && !sp_region_filter_match(o->filter, key->name)) {
            c->n_filtered++;
            continue;
        }
        sp_cmp_entry *e = &c->entries[c->n];
        e->name = (char *)key->name; /* in the keys' blocks, which c takes */
        e->depth = key->depth;
        e->parent = key->parent >= 0 ? entry_of[key->parent] : -1;
        c->n++;
        rc = fill_entry(e, c, &w, (int32_t)k);
        entry_of[k] = (int32_t)(c->n - 1);
    }
    free(entry_of);
    if (!rc) {
        common_change(c);
        for (size_t i = 0; i < c->n; i++)
            if (c->entries[i].verdict != SP_CMP_NEW && c->entries[i].verdict != SP_CMP_REMOVED)
                decide(&c->entries[i], c);
        sides_sched(c, &w);
    }
    if (c)
        c->names_ = sp__cmp_keys_take_names(&w.keys);
    work_free(&w, nb, nc);
    if (!rc) {
        if (o->tree)
            rc = order_tree(c);
        else
            qsort(c->entries, c->n, sizeof *c->entries, cmp_entries);
    }
    if (rc) {
        sp_compare_free(c);
        return rc == SP_ENOMEM && !c ? sp__error_null(SP_ENOMEM, "out of memory comparing runs")
                                     : NULL;
    }
    return c;
}

const sp_cmp_entry *sp_compare_find(const sp_compare *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n; i++)
        if (strcmp(c->entries[i].name, name) == 0)
            return &c->entries[i];
    return NULL;
}
