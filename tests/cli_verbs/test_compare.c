/* SPDX-License-Identifier: MIT */
/*
 * test_compare.c - the comparison model (analysis/sp_compare.h) on
 * synthetic runs with known answers: verdicts and their reasons, per-rank
 * figures across rank and thread counts (never sums), call-count changes,
 * repeated runs, call paths, the tally text, the gate rule. The statistics
 * themselves are checked against scipy in tests/analysis.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_analysis.h"
#include "sp_compare.h"
#include "sp_compare_stats.h"
#include "sp_h5_v2.h"
#include "sp_run_read.h"
#include "sp_scaling.h"
#include "sp_test.h"
#include "synth_runs.h"

static sp_run *make(uint64_t seed, double kernel, double setup, int outliers, bool extra)
{
    sy_spec s;
    sy_spec_init(&s, seed);
    s.kernel_factor = kernel;
    s.setup_factor = setup;
    s.kernel_outliers = outliers;
    s.extra_region = extra;
    sp_run *run = sy_make(&s);
    if (run && sp_run_analyze(run)) {
        sp_run_free(run);
        return NULL;
    }
    return run;
}

static sp_run *make_spec(const sy_spec *s)
{
    sp_run *run = sy_make(s);
    if (run && sp_run_analyze(run)) {
        sp_run_free(run);
        return NULL;
    }
    return run;
}

/* Scheduling samples as the recorder takes them, for every thread: one at
 * the rank's first call and one at its last, the thread waiting `share`
 * of that time for a CPU and preempted `per_cpu_s` times per second on it. */
static void add_sched(sp_run *run, double share, double per_cpu_s)
{
    for (size_t r = 0; r < run->nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        int64_t t0 = INT64_MAX, t1 = INT64_MIN;
        for (size_t i = 0; i < rk->ncalls; i++) {
            t0 = rk->start_ns[i] < t0 ? rk->start_ns[i] : t0;
            t1 = rk->end_ns[i] > t1 ? rk->end_ns[i] : t1;
        }
        rk->nsched = 2 * rk->nthreads;
        rk->sched = calloc(rk->nsched, sizeof *rk->sched);
        for (size_t t = 0; t < rk->nthreads; t++) {
            int64_t wait = (int64_t)(share * (double)(t1 - t0)), cpu = t1 - t0 - wait;
            rk->sched[2 * t] = (sp_sched_sample){(int32_t)t, t0, 1000, 500, 10};
            rk->sched[2 * t + 1] = (sp_sched_sample){(int32_t)t, t1, 1000 + cpu, 500 + wait,
                                                     10 + (int64_t)(per_cpu_s * cpu * 1e-9)};
        }
    }
}

static sp_compare *compare1(const sp_run *b, const sp_run *c, const sp_compare_options *o)
{
    return sp_compare_runs(&b, 1, &c, 1, o);
}

static const sp_cmp_entry *find(const sp_compare *c, const char *name)
{
    return sp_compare_find(c, name);
}

static void test_slower(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(2, 1.2, 1.2, 0, false);
    ASSERT(b && c);
    sp_compare *cmp = compare1(b, c, NULL);
    ASSERT(cmp);
    ASSERT_EQ_I(cmp->mode, SP_CMP_MODE_CALLS);
    const sp_cmp_entry *k = find(cmp, "kernel"), *io = find(cmp, "io"),
                       *setup = find(cmp, "setup"), *rare = find(cmp, "rare"),
                       *w = find(cmp, "worker_task");
    ASSERT(k && io && setup && rare && w);
    /* kernel: N(1 ms, 5 %) -> N(1.2 ms, 5 %): the interval holds +20 %. */
    ASSERT_EQ_I(k->verdict, SP_CMP_SLOWER);
    ASSERT(k->tested && k->change_lo_pct < 20 && 20 < k->change_hi_pct);
    ASSERT(k->change_lo_pct <= k->change_pct && k->change_pct <= k->change_hi_pct);
    ASSERT_NEAR(k->change_pct, 20, 3);
    /* per rank: 100 calls of ~1 ms on each of the 2 ranks, never a sum */
    ASSERT_NEAR(k->base.time_mean_s, 0.100, 0.005);
    ASSERT_NEAR(k->base.calls_per_rank, 100, 0);
    ASSERT_EQ_U(k->base.calls, 200);
    ASSERT_NEAR(k->impact_s, 0.020, 0.004);
    ASSERT(!k->calls_changed);
    ASSERT_EQ_I(io->verdict, SP_CMP_SAME);
    ASSERT_EQ_I(io->why, SP_CMP_WHY_NOT_CLEAR);
    /* one call per run, 3 and 3 calls: no interval, not comparable */
    ASSERT_EQ_I(setup->verdict, SP_CMP_NOT_COMPARABLE);
    ASSERT_EQ_I(setup->why, SP_CMP_WHY_FEW_CALLS);
    ASSERT_NEAR(setup->change_pct, 20, 0.5); /* the observed change */
    ASSERT_EQ_I(rare->verdict, SP_CMP_NOT_COMPARABLE);
    ASSERT_EQ_I(w->verdict, SP_CMP_SAME);
    /* the enclosing "step" is judged on its own time, which did not move */
    const sp_cmp_entry *step = find(cmp, "step");
    ASSERT(step && step->verdict == SP_CMP_SAME);
    /* Entries by |impact|: kernel first. */
    ASSERT_STREQ(cmp->entries[0].name, "kernel");
    char buf[256];
    sp_cmp_tally t;
    sp_compare_tally(cmp, &t);
    ASSERT_EQ_U(t.total, 6);
    ASSERT_STREQ(sp_compare_tally_text(&t, buf, sizeof buf),
                 "1 slower · 0 faster · 3 within noise · 2 not comparable");
    ASSERT_STREQ(sp_cmp_why_text(cmp, setup, buf, sizeof buf), "1 call per run: repeat the runs");
    ASSERT(sp_cmp_entry_fails(cmp, k, false, false));
    ASSERT(!sp_cmp_entry_fails(cmp, setup, false, false));
    ASSERT(sp_cmp_entry_fails(cmp, setup, false, true)); /* +20 % and 2 ms: over budget */
    ASSERT(!sp_cmp_entry_fails(cmp, io, true, true));
    sp_compare_free(cmp);

    /* Inclusive time: step now carries kernel's change too. */
    sp_compare_options o;
    sp_compare_options_init(&o);
    o.own = false;
    cmp = compare1(b, c, &o);
    ASSERT(cmp);
    step = find(cmp, "step");
    ASSERT(step && step->verdict == SP_CMP_SLOWER);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* A few huge outliers push the total +28 %, yet the typical call is
 * unchanged: within noise (the old gate failed this). */
static void test_outliers_within_noise(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(SY_NOISY_SEED, 1.0, 1.0, 4, false);
    ASSERT(b && c);
    for (int est = 0; est < 2; est++) {
        sp_compare_options o;
        sp_compare_options_init(&o);
        o.estimator = est ? SP_CMP_EST_HL : SP_CMP_EST_QUANTILE;
        sp_compare *cmp = compare1(b, c, &o);
        ASSERT(cmp);
        const sp_cmp_entry *k = find(cmp, "kernel");
        ASSERT(k);
        ASSERT(k->cand.time_mean_s > 1.2 * k->base.time_mean_s); /* the observed sum moved */
        ASSERT_MSG(k->verdict == SP_CMP_SAME, "estimator %d: %s %+.1f%%", est,
                   sp_cmp_verdict_name(k->verdict), k->change_pct);
        ASSERT(fabs(k->change_pct) < 5);
        sp_compare_free(cmp);
    }
    sp_run_free(b);
    sp_run_free(c);
}

static void test_identical(void)
{
    sp_run *b = make(7, 1.0, 1.0, 0, true);
    ASSERT(b);
    sp_compare *cmp = compare1(b, b, NULL);
    ASSERT(cmp);
    for (size_t i = 0; i < cmp->n; i++) {
        const sp_cmp_entry *e = &cmp->entries[i];
        ASSERT(e->verdict == SP_CMP_SAME || e->verdict == SP_CMP_NOT_COMPARABLE);
        ASSERT_NEAR(e->change_pct, 0, 1e-9);
        ASSERT(!sp_cmp_entry_fails(cmp, e, true, true));
    }
    sp_compare_free(cmp);
    sp_run_free(b);
}

/* From ten times as long, changes read as ratios (the viewer's table and
 * the compare chart ran "+270865.4 % [+268860.1, ..." off their columns). */
static void test_change_text_ratio(void)
{
    char buf[64];
    sp_cmp_entry e = {.verdict = SP_CMP_SLOWER, .tested = true, .change_pct = 270865.4,
                      .change_lo_pct = 268860.1, .change_hi_pct = 273010.2};
    ASSERT_STREQ(sp_cmp_change_text(&e, buf, sizeof buf), "×2710 [×2690, ×2731]");
    e = (sp_cmp_entry){.verdict = SP_CMP_SLOWER, .tested = true, .change_pct = 900,
                       .change_lo_pct = 850, .change_hi_pct = 950};
    ASSERT_STREQ(sp_cmp_change_text(&e, buf, sizeof buf), "×10.0 [×9.5, ×10.5]");
    e.change_pct = 899.9;
    ASSERT_STREQ(sp_cmp_change_text(&e, buf, sizeof buf), "+899.9 % [+850.0, +950.0]");
    e = (sp_cmp_entry){.verdict = SP_CMP_SAME, .change_pct = 12000};
    ASSERT_STREQ(sp_cmp_change_text(&e, buf, sizeof buf), "×121");
}

static void test_new_removed(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(5, 1.0, 1.0, 0, true);
    ASSERT(b && c);
    sp_compare *cmp = compare1(b, c, NULL);
    const sp_cmp_entry *x = find(cmp, "extra");
    ASSERT(x && x->verdict == SP_CMP_NEW && isinf(x->change_pct));
    ASSERT(sp_cmp_entry_fails(cmp, x, true, false));
    ASSERT(!sp_cmp_entry_fails(cmp, x, false, false));
    char buf[64];
    ASSERT_STREQ(sp_cmp_change_text(x, buf, sizeof buf), "new");
    sp_compare_free(cmp);
    cmp = compare1(c, b, NULL);
    x = find(cmp, "extra");
    ASSERT(x && x->verdict == SP_CMP_REMOVED && x->change_pct == -100);
    sp_cmp_tally t;
    sp_compare_tally(cmp, &t);
    ASSERT_EQ_U(t.n[SP_CMP_REMOVED], 1);
    ASSERT_CONTAINS(sp_compare_tally_text(&t, buf, sizeof buf), "1 removed");
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* nranks ranks, each with `threads` threads that all run "work" (calls of
 * ~dur ms each, `calls` per thread) and rank 0 alone runs "io". */
static sp_run *spread(uint64_t seed, size_t nranks, int threads, int calls, double dur_ms)
{
    sy_rng rng = {seed};
    sy_calls l = {0};
    for (size_t r = 0; r < nranks; r++)
        for (int t = 0; t < threads; t++) {
            int64_t at = 0;
            for (int i = 0; i < calls; i++) {
                int64_t d = (int64_t)sy_normal(&rng, dur_ms * SY_MS, 0.02 * dur_ms * SY_MS);
                sy_add(&l, (int)r, t, "work", at, at + d);
                at += d + 1000;
            }
            if (r == 0 && t == 0)
                for (int i = 0; i < 40; i++, at += 600000)
                    sy_add(&l, 0, 0, "io", at, at + (int64_t)sy_normal(&rng, 0.5 * SY_MS, 0.01 * SY_MS));
        }
    /* sy_build names 2 threads; more need their own entries. */
    sp_run *run = sy_build(&l, nranks);
    for (size_t r = 0; run && r < nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        if ((size_t)threads > rk->nthreads) {
            rk->threads = realloc(rk->threads, (size_t)threads * sizeof *rk->threads);
            for (size_t t = rk->nthreads; t < (size_t)threads; t++) {
                rk->threads[t].os_tid = (int64_t)(3000 + t);
                rk->threads[t].name = NULL;
            }
            rk->nthreads = (size_t)threads;
        }
    }
    free(l.c);
    return run;
}

/* 1 rank vs 8 ranks doing the same work per rank: per-rank figures agree
 * (a sum over ranks would say +700 %). */
static void test_rank_counts(void)
{
    sp_run *one = spread(1, 1, 1, 60, 2.0), *eight = spread(2, 8, 1, 60, 2.0);
    ASSERT(one && eight);
    sp_compare *cmp = compare1(one, eight, NULL);
    ASSERT(cmp);
    const sp_cmp_entry *w = find(cmp, "work"), *io = find(cmp, "io");
    ASSERT(w && io);
    ASSERT_EQ_I(w->verdict, SP_CMP_SAME);
    ASSERT_NEAR(w->cand.time_mean_s / w->base.time_mean_s, 1, 0.02);
    ASSERT_EQ_U(w->cand.ranks, 8);
    ASSERT_EQ_U(w->cand.calls, 480);
    ASSERT_NEAR(w->cand.calls_per_rank, 60, 0);
    /* io runs on rank 0 only in both: its time per rank is that rank's */
    ASSERT_EQ_I(io->verdict, SP_CMP_SAME);
    ASSERT_NEAR(io->cand.time_mean_s / io->base.time_mean_s, 1, 0.02);
    ASSERT_EQ_U(cmp->base_ranks_max, 1);
    ASSERT_EQ_U(cmp->cand_ranks_max, 8);
    char buf[512];
    ASSERT_CONTAINS(sp_compare_ranks_text(cmp, buf, sizeof buf), "base 1 rank, candidate 8 ranks");
    sp_compare_free(cmp);
    sp_run_free(one);
    sp_run_free(eight);
}

/* 4 threads per rank doing 1/4 of the calls each vs 1 thread doing all:
 * the time per rank is per thread that ran it, so the parallel version is
 * faster by 4x, not equal (a sum over threads would say unchanged). */
static void test_thread_counts(void)
{
    sp_run *serial = spread(3, 2, 1, 80, 1.0), *threaded = spread(4, 2, 4, 20, 1.0);
    ASSERT(serial && threaded);
    sp_compare *cmp = compare1(serial, threaded, NULL);
    const sp_cmp_entry *w = find(cmp, "work");
    ASSERT(w);
    ASSERT_NEAR(w->base.calls_per_rank, 80, 0);
    ASSERT_NEAR(w->cand.calls_per_rank, 20, 0);
    ASSERT(w->calls_changed);
    ASSERT_EQ_I(w->verdict, SP_CMP_FASTER);
    ASSERT_NEAR(w->ratio, 0.25, 0.02);
    char buf[96];
    ASSERT_STREQ(sp_cmp_calls_text(w, buf, sizeof buf), "calls 80 -> 20 per rank");
    ASSERT_EQ_U(cmp->cand_threads_max, 4);
    sp_compare_free(cmp);
    sp_run_free(serial);
    sp_run_free(threaded);
}

/* Twice the calls per rank, same calls: the time per rank doubled and it
 * says why ("calls 60 -> 120 per rank", not "too few calls"). */
static void test_call_count_change(void)
{
    sp_run *b = spread(5, 2, 1, 60, 1.0), *c = spread(6, 2, 1, 120, 1.0);
    sp_compare *cmp = compare1(b, c, NULL);
    const sp_cmp_entry *w = find(cmp, "work");
    ASSERT(w);
    ASSERT(w->calls_changed);
    ASSERT_EQ_I(w->verdict, SP_CMP_SLOWER);
    ASSERT_NEAR(w->change_pct, 100, 3);
    char buf[96];
    ASSERT_STREQ(sp_cmp_calls_text(w, buf, sizeof buf), "calls 60 -> 120 per rank");
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* Repeated runs: each run is one value per region, Welch across runs. */
static void test_repeated_runs(void)
{
    sp_run *a[4], *a2[4], *s[4];
    for (int i = 0; i < 4; i++) {
        a[i] = make(100 + (uint64_t)i, 1.0, 1.0 + 0.01 * i, 0, false);
        a2[i] = make(200 + (uint64_t)i, 1.0, 1.0 - 0.01 * i, 0, false);
        s[i] = make(300 + (uint64_t)i, 1.25, 1.0 + 0.005 * i, 0, false);
        ASSERT(a[i] && a2[i] && s[i]);
    }
    const sp_run *const *A = (const sp_run *const *)a, *const *A2 = (const sp_run *const *)a2,
                        *const *S = (const sp_run *const *)s;
    sp_compare *aa = sp_compare_runs(A, 4, A2, 4, NULL);
    sp_compare *ab = sp_compare_runs(A, 4, S, 4, NULL);
    ASSERT(aa && ab);
    ASSERT_EQ_I(aa->mode, SP_CMP_MODE_RUNS);
    for (size_t i = 0; i < aa->n; i++)
        ASSERT_MSG(!sp_cmp_entry_fails(aa, &aa->entries[i], false, false), "%s fails A/A",
                   aa->entries[i].name);
    const sp_cmp_entry *k = find(ab, "kernel"), *setup = find(ab, "setup");
    ASSERT(k && setup);
    ASSERT_EQ_I(k->verdict, SP_CMP_SLOWER);
    ASSERT(k->change_lo_pct < 25 && 25 < k->change_hi_pct);
    /* setup has one call per run: with 4 runs per side it is testable */
    ASSERT(setup->tested);
    ASSERT_EQ_I(setup->verdict, SP_CMP_SAME);
    ASSERT_EQ_U(k->base.runs, 4);
    char buf[256];
    ASSERT_STREQ(sp_compare_mode_text(ab, buf, sizeof buf),
                 "4 base runs, 4 candidate runs (run-to-run variation)");
    sp_compare_free(aa);
    sp_compare_free(ab);
    /* A region missing from one candidate run: not comparable, says where. */
    sp_run *x[4];
    for (int i = 0; i < 4; i++)
        x[i] = make(400 + (uint64_t)i, 1.0, 1.0, 0, true);
    const sp_run *mixed[4] = {x[1], x[2], x[3], a2[0]};
    sp_compare *m = sp_compare_runs((const sp_run *const *)x, 4, mixed, 4, NULL);
    const sp_cmp_entry *e = find(m, "extra");
    ASSERT(e && e->verdict == SP_CMP_NOT_COMPARABLE && e->why == SP_CMP_WHY_MISSING_RUNS);
    ASSERT_STREQ(sp_cmp_why_text(m, e, buf, sizeof buf), "in 3 of 4 candidate runs");
    sp_compare_free(m);
    for (int i = 0; i < 4; i++)
        sp_run_free(x[i]);
    for (int i = 0; i < 4; i++) {
        sp_run_free(a[i]);
        sp_run_free(a2[i]);
        sp_run_free(s[i]);
    }
}

static void test_tree(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(2, 1.2, 1.2, 0, false);
    sp_compare_options o;
    sp_compare_options_init(&o);
    o.tree = true;
    sp_compare *cmp = compare1(b, c, &o);
    ASSERT(cmp);
    /* depth first: step, then its children */
    size_t step = cmp->n, kernel = cmp->n;
    for (size_t i = 0; i < cmp->n; i++) {
        if (strcmp(cmp->entries[i].name, "step") == 0)
            step = i;
        if (strcmp(cmp->entries[i].name, "kernel") == 0)
            kernel = i;
    }
    ASSERT(step < cmp->n && kernel < cmp->n && step < kernel);
    ASSERT_EQ_I(cmp->entries[kernel].parent, (int)step);
    ASSERT_EQ_I(cmp->entries[kernel].depth, 2);
    ASSERT_EQ_I(cmp->entries[kernel].verdict, SP_CMP_SLOWER);
    sp_compare_free(cmp);
    /* a run not analyzed compares by path too: the model runs the
     * aggregate pass over its calls */
    sp_run *raw = sy_make(&(sy_spec){.seed = 3, .kernel_factor = 1, .kernel_sd = 0.05,
                                     .setup_factor = 1, .rare_factor = 1});
    ASSERT(raw);
    cmp = compare1(raw, c, &o);
    ASSERT(cmp && sp_compare_find(cmp, "kernel"));
    sp_compare_free(cmp);
    sp_run_free(raw);
    sp_run_free(b);
    sp_run_free(c);
}

static void test_filter_and_options(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(2, 1.2, 1.2, 0, false);
    sp_compare_options o;
    sp_compare_options_init(&o);
    sp_region_filter *f = sp_region_filter_new("^(kernel|io)$", NULL);
    o.filter = f;
    sp_compare *cmp = compare1(b, c, &o);
    ASSERT(cmp && cmp->n == 2 && cmp->n_filtered == 4);
    sp_compare_free(cmp);
    sp_region_filter_free(f);
    /* A budget above the change: clear, but not counted. */
    sp_compare_options_init(&o);
    o.min_change_pct = 30;
    cmp = compare1(b, c, &o);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SAME && k->why == SP_CMP_WHY_SMALL_CHANGE);
    sp_compare_free(cmp);
    /* A time floor above the impact (20 ms per rank). */
    sp_compare_options_init(&o);
    o.min_time_s = 0.05;
    cmp = compare1(b, c, &o);
    k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SAME && k->why == SP_CMP_WHY_SMALL_TIME);
    sp_compare_free(cmp);
    /* A share floor above it (20 ms of the ~180 ms of typical time per rank). */
    sp_compare_options_init(&o);
    o.min_share_pct = 20;
    cmp = compare1(b, c, &o);
    k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SAME && k->why == SP_CMP_WHY_SMALL_SHARE);
    char buf[512];
    ASSERT_CONTAINS(sp_compare_method_text(cmp, buf, sizeof buf),
                    "typical: ratio of the low quantiles of call durations (the lowest with an "
                    "interval, 1-25 %) x calls per rank; total: all calls, as measured and net "
                    "of the measured wait for a CPU, within-run noise; own time, 95 % interval "
                    "(total 99.75 %); counted when beyond 10 %, 100 µs and 20 % of the run per "
                    "rank");
    sp_compare_free(cmp);
    /* Bad options are refused. */
    sp_compare_options_init(&o);
    o.alpha = 1.5;
    ASSERT(compare1(b, c, &o) == NULL);
    sp_compare_options_init(&o);
    o.quantile = 1;
    ASSERT(compare1(b, c, &o) == NULL);
    ASSERT(sp_compare_runs((const sp_run *const *)&b, 0, (const sp_run *const *)&c, 1, NULL) ==
           NULL);
    sp_run_free(b);
    sp_run_free(c);
}

static void test_texts(void)
{
    char buf[64];
    ASSERT_STREQ(sp_cmp_fmt_time(0.0012345, buf, sizeof buf), "1.23 ms");
    ASSERT_STREQ(sp_cmp_fmt_time(0.000240, buf, sizeof buf), "240 µs");
    ASSERT_STREQ(sp_cmp_fmt_time(-0.0123, buf, sizeof buf), "-12.3 ms");
    ASSERT_STREQ(sp_cmp_fmt_time(2.5, buf, sizeof buf), "2.50 s");
    ASSERT_STREQ(sp_cmp_fmt_time(0, buf, sizeof buf), "0 s");
    sp_cmp_tally t = {{0}, 0};
    t.n[SP_CMP_SAME] = 3;
    ASSERT_STREQ(sp_compare_tally_text(&t, buf, sizeof buf), "0 slower · 0 faster · 3 within noise");
    for (int v = 0; v < SP_CMP_NVERDICTS; v++)
        ASSERT(strcmp(sp_cmp_verdict_name((sp_cmp_verdict)v), "?") != 0);
}

/* The scaling study on synthetic runs: work divided over the ranks keeps
 * efficiency 1, work every rank repeats falls to 1/N. */
static sp_run *scaled(size_t nranks)
{
    sy_calls l = {0};
    for (size_t r = 0; r < nranks; r++) {
        int64_t at = 0;
        for (int i = 0; i < 10; i++) {
            int64_t d = (int64_t)(8 * SY_MS / (double)nranks);
            sy_add(&l, (int)r, 0, "divided", at, at + d);
            at += d;
            sy_add(&l, (int)r, 0, "replicated", at, at + (int64_t)(2 * SY_MS));
            at += (int64_t)(2 * SY_MS);
        }
    }
    sp_run *run = sy_build(&l, nranks);
    free(l.c);
    return run;
}

static void test_scaling(void)
{
    sp_run *r4 = scaled(4), *r1 = scaled(1), *r2 = scaled(2);
    const sp_run *runs[3] = {r4, r1, r2}; /* any order */
    sp_scaling *s = sp_scaling_study(runs, 3, NULL);
    ASSERT(s);
    ASSERT_NEAR(s->p[0], 1, 0);
    ASSERT_NEAR(s->p[2], 4, 0);
    ASSERT_EQ_U(s->input_index[0], 1);
    const sp_scaling_region *d = NULL, *rep = NULL;
    for (size_t g = 0; g < s->nregions; g++) {
        if (strcmp(s->regions[g].name, "divided") == 0)
            d = &s->regions[g];
        if (strcmp(s->regions[g].name, "replicated") == 0)
            rep = &s->regions[g];
    }
    ASSERT(d && rep);
    ASSERT_NEAR(d->pt[2].efficiency, 1, 1e-6);
    ASSERT_NEAR(d->pt[2].speedup, 4, 1e-6);
    ASSERT_NEAR(rep->pt[1].efficiency, 0.5, 1e-6);
    ASSERT_NEAR(rep->pt[2].efficiency, 0.25, 1e-6);
    ASSERT(!d->stops && rep->stops && rep->stop_at == 1);
    char buf[256];
    ASSERT_STREQ(sp_scaling_stops_text(s, buf, sizeof buf), "replicated (at 2 ranks: 0.50)");
    sp_scaling_free(s);
    /* Weak scaling: the same time at every count is efficiency 1. */
    sp_scaling_options o;
    sp_scaling_options_init(&o);
    o.kind = SP_SCALING_WEAK;
    s = sp_scaling_study(runs, 3, &o);
    ASSERT(s && s->weak);
    for (size_t g = 0; g < s->nregions; g++)
        if (strcmp(s->regions[g].name, "replicated") == 0) {
            ASSERT_NEAR(s->regions[g].pt[2].efficiency, 1, 1e-6);
            ASSERT_NEAR(s->regions[g].pt[2].speedup, 4, 1e-6);
        }
    sp_scaling_free(s);
    /* Detected: without problem-size metadata, strong. */
    s = sp_scaling_study(runs, 3, NULL);
    ASSERT(s && !s->weak);
    ASSERT_CONTAINS(s->kind_why, "no problem-size metadata that grows with the ranks");
    sp_scaling_free(s);
    /* A total size that grows with the ranks: weak, and said why. */
    sp_run *mr[3] = {r1, r2, r4};
    for (int i = 0; i < 3; i++) {
        char v[32];
        snprintf(v, sizeof v, "%dx64x64", 64 << (i == 2 ? 2 : i)); /* 64, 128, 256 x 64 x 64 */
        ASSERT_EQ_I(sp_kvlist_set(&mr[i]->meta, "grid", v), 0);
        ASSERT_EQ_I(sp_kvlist_set(&mr[i]->meta, "hostname", i ? "b" : "a"), 0);
    }
    s = sp_scaling_study(runs, 3, NULL);
    ASSERT(s && s->weak);
    ASSERT_CONTAINS(s->kind_why, "metadata 'grid' grows with the ranks: 262144 at 1, 1.04858e+06 at 4");
    sp_scaling_free(s);
    /* Asked for strong against it: strong, and the reason says so. */
    o.kind = SP_SCALING_STRONG;
    s = sp_scaling_study(runs, 3, &o);
    ASSERT(s && !s->weak);
    ASSERT_CONTAINS(s->kind_why, "asked (the metadata suggests otherwise");
    sp_scaling_free(s);
    /* A per-rank size that stays: weak; a total size that stays: strong. */
    for (int i = 0; i < 3; i++) {
        sp_kvlist_set(&mr[i]->meta, "grid", "64x64x64");
        sp_kvlist_set(&mr[i]->meta, "cells_per_rank", "4096");
    }
    s = sp_scaling_study(runs, 3, NULL);
    ASSERT(s && s->weak);
    ASSERT_CONTAINS(s->kind_why, "'cells_per_rank' (per rank) stays 4096");
    sp_scaling_free(s);
    for (int i = 0; i < 3; i++)
        sp_kvlist_set(&mr[i]->meta, "cells_per_rank", i ? "8192" : "4096");
    s = sp_scaling_study(runs, 3, NULL);
    ASSERT(s && !s->weak);
    ASSERT_CONTAINS(s->kind_why, "metadata 'grid' stays 262144 from 1 to 4 ranks: strong scaling");
    sp_scaling_free(s);
    /* Two runs with the same count are not a study. */
    const sp_run *same[2] = {r2, r2};
    ASSERT(sp_scaling_study(same, 2, NULL) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "both have 2 ranks");
    sp_run_free(r1);
    sp_run_free(r2);
    sp_run_free(r4);
}

/* A lock that makes every third kernel call wait 10 ms: the typical call
 * does not move, the total per rank does: a tail change, slower, decided
 * by the total, with its growth (~0.34 s per rank) as the impact. */
static void test_tail_change(void)
{
    sy_spec sp;
    sy_spec_init(&sp, 1);
    sp_run *b = make_spec(&sp);
    sy_spec_init(&sp, 2);
    sp.kernel_wait_every = 3;
    sp.kernel_wait_ms = 10;
    sp_run *c = make_spec(&sp);
    ASSERT(b && c);
    sp_compare *cmp = compare1(b, c, NULL);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k);
    ASSERT(k->tested && k->change_lo_pct < 10 && k->change_hi_pct > -10); /* typical: no */
    ASSERT_EQ_I(k->verdict, SP_CMP_SLOWER);
    ASSERT_EQ_I(k->basis, SP_CMP_BASIS_TOTAL);
    ASSERT(k->total_tested && k->total_lo_pct > 100);
    ASSERT_NEAR(k->impact_s, 0.34, 0.02); /* 34 calls per rank x 10 ms */
    ASSERT(sp_cmp_basis_text(k) && strstr(sp_cmp_basis_text(k), "tail change"));
    sp_cmp_quantity q;
    sp_cmp_entry_quantity(k, &q);
    ASSERT_STREQ(q.name, "total");
    ASSERT_EQ_I(sp_compare_gate(cmp, false, false), SP_CMP_GATE_FAIL);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* The candidate's threads waited 75 % of the run for a CPU, preempted 2000
 * times per CPU second: a 1.5 ms kernel call is preempted ~3 times,
 * so its +50 % typical change is not comparable (interference, named), and
 * check says undecided (exit 3), not slower. */
static void test_interference_undecided(void)
{
    sp_run *b = make(1, 1.0, 1.0, 0, false), *c = make(2, 1.5, 1.0, 0, false);
    ASSERT(b && c);
    add_sched(b, 0.01, 10);
    add_sched(c, 0.75, 2000);
    sp_compare *cmp = compare1(b, c, NULL);
    ASSERT(cmp && cmp->base_sched.measured && cmp->cand_sched.measured);
    ASSERT_NEAR(cmp->cand_sched.wait_share, 0.75, 0.01);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_NOT_COMPARABLE && k->why == SP_CMP_WHY_INTERFERENCE);
    ASSERT(k->cand.preempt_per_call > 1.5);
    char buf[400];
    ASSERT_CONTAINS(sp_cmp_why_text(cmp, k, buf, sizeof buf),
                    "candidate's calls were preempted 2.7 times each (it waited 75 % of its run "
                    "for a CPU): repeat the runs"); /* 1.35 ms fast calls x 2000 / s */
    ASSERT(sp_cmp_entry_undecided(cmp, k));
    ASSERT_EQ_I(sp_compare_gate(cmp, false, false), SP_CMP_GATE_UNDECIDED);
    ASSERT_EQ_I(sp_compare_gate(cmp, false, true), SP_CMP_GATE_FAIL);
    ASSERT_CONTAINS(sp_compare_sched_text(cmp, buf, sizeof buf),
                    "base waited 1 % of its run for a CPU");
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* Same code, a machine twice as busy: every call waited for a CPU now and
 * then, the totals grew ~2x, the fast calls did not. The load explains the
 * totals: no region is slower. */
static void test_load_explains_totals(void)
{
    sy_spec sp;
    sy_spec_init(&sp, 1);
    sp_run *b = make_spec(&sp);
    sy_spec_init(&sp, 2);
    sp.kernel_wait_every = 2; /* half the kernel calls preempted 2 ms */
    sp.kernel_wait_ms = 2;
    sp_run *c = make_spec(&sp);
    ASSERT(b && c);
    add_sched(b, 0.05, 20);
    add_sched(c, 0.55, 200); /* 0.2 preemptions per 1 ms call */
    sp_compare *cmp = compare1(b, c, NULL);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k && k->total_change_pct > 80); /* the total did grow */
    ASSERT(k->verdict != SP_CMP_SLOWER);
    ASSERT(!k->total_net_clear);
    ASSERT(sp_compare_gate(cmp, false, false) != SP_CMP_GATE_FAIL);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* Every region 30 % slower (a machine in a slower state, or all the code):
 * judged against the common change no region is slower, and the
 * comparison is undecided. */
static void test_common_change(void)
{
    sy_spec sp;
    sy_spec_init(&sp, 1);
    sp_run *b = make_spec(&sp);
    sy_spec_init(&sp, 2);
    sp.all_factor = 1.3;
    sp_run *c = make_spec(&sp);
    ASSERT(b && c);
    sp_compare *cmp = compare1(b, c, NULL);
    ASSERT(cmp->common_n >= 3);
    ASSERT_NEAR(cmp->common_ratio, 1.3, 0.03);
    ASSERT(cmp->undecided);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SAME && k->why == SP_CMP_WHY_COMMON);
    char buf[400];
    ASSERT_CONTAINS(sp_cmp_why_text(cmp, k, buf, sizeof buf), "no more than the common change (+3");
    ASSERT_EQ_I(sp_compare_gate(cmp, false, false), SP_CMP_GATE_UNDECIDED);
    sp_compare_free(cmp);
    /* The common change is not taken with inclusive time (nested regions). */
    sp_compare_options o;
    sp_compare_options_init(&o);
    o.own = false;
    cmp = compare1(b, c, &o);
    ASSERT(cmp && cmp->common_n == 0 && !cmp->undecided);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* A run on a machine 8 % slower in which one region is 23 % slower (14 %
 * beyond the common change): an uneven machine change, not a regression
 * (the budget grows by the common change); the same region 2x slower on
 * that machine is. */
static void test_uneven_common_change(void)
{
    sy_spec sp;
    sy_spec_init(&sp, 1);
    sp_run *b = make_spec(&sp);
    sy_spec_init(&sp, 2);
    sp.all_factor = 1.08;
    sp.kernel_factor = 1.14;
    sp_run *c = make_spec(&sp);
    sy_spec_init(&sp, 3);
    sp.all_factor = 1.08;
    sp.kernel_factor = 2;
    sp_run *c2 = make_spec(&sp);
    ASSERT(b && c && c2);
    sp_compare *cmp = compare1(b, c, NULL);
    ASSERT_NEAR(cmp->common_ratio, 1.08, 0.02);
    ASSERT(!cmp->undecided);
    const sp_cmp_entry *k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SAME && k->why == SP_CMP_WHY_SMALL_CHANGE);
    ASSERT_NEAR(cmp->uneven_pct, 8, 2);
    ASSERT(k->rel_ratio > 1.03 && k->ratio_lo / cmp->common_ratio > 1); /* clear, small */
    char buf[400];
    ASSERT_CONTAINS(sp_cmp_why_text(cmp, k, buf, sizeof buf), "for the common change");
    ASSERT_CONTAINS(sp_compare_common_text(cmp, buf, sizeof buf), "beyond the budget + ");
    ASSERT_EQ_I(sp_compare_gate(cmp, false, false), SP_CMP_GATE_PASS);
    sp_compare_free(cmp);
    /* The reverse pair is as uneven. */
    cmp = compare1(c, b, NULL);
    ASSERT_NEAR(cmp->uneven_pct, 8, 2);
    ASSERT(find(cmp, "kernel")->verdict == SP_CMP_SAME);
    sp_compare_free(cmp);
    cmp = compare1(b, c2, NULL);
    k = find(cmp, "kernel");
    ASSERT(k && k->verdict == SP_CMP_SLOWER);
    ASSERT_EQ_I(sp_compare_gate(cmp, false, false), SP_CMP_GATE_FAIL);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
    sp_run_free(c2);
}

/* Entry by entry, every figure and verdict of two comparisons equal. */
static void assert_same_comparison(const sp_compare *x, const sp_compare *y)
{
    ASSERT(x && y);
    ASSERT_EQ_I((int)x->n, (int)y->n);
    ASSERT_NEAR(x->common_ratio, y->common_ratio, 1e-12);
    ASSERT_NEAR(x->base_run_s, y->base_run_s, 1e-12);
    ASSERT_EQ_I((int)x->base_threads_max, (int)y->base_threads_max);
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        const sp_cmp_entry *a = &x->entries[i], *b = &y->entries[i];
        ASSERT(strcmp(a->name, b->name) == 0);
        ASSERT_EQ_I(a->depth, b->depth);
        ASSERT_EQ_I(a->parent, b->parent);
        ASSERT_EQ_I(a->verdict, b->verdict);
        ASSERT_EQ_I(a->why, b->why);
        ASSERT(a->base.calls == b->base.calls && a->cand.calls == b->cand.calls);
        /* exact sums: the same to the last bit; waits and segments are
         * sums of doubles in another order */
        ASSERT(a->base.time_mean_s == b->base.time_mean_s);
        ASSERT(a->cand.time_max_s == b->cand.time_max_s);
        ASSERT(a->cand.calls_per_rank == b->cand.calls_per_rank);
        ASSERT(a->base.per_call_s == b->base.per_call_s);
        ASSERT_NEAR(a->cand.cpu_wait_s, b->cand.cpu_wait_s, 1e-9 * (1 + a->cand.time_mean_s));
        ASSERT_NEAR(a->change_pct, b->change_pct, 1e-9);
        ASSERT_NEAR(a->total_lo_pct, b->total_lo_pct, 1e-6);
        ASSERT_NEAR(a->total_hi_pct, b->total_hi_pct, 1e-6);
    }
}

/* Runs read from files aggregate-first (no calls in memory) compare as the
 * same runs held in memory, by region and by call path; a run read without
 * the comparison's aggregates is refused with a reason. */
static void test_from_files(void)
{
    sy_spec sp;
    sy_spec_init(&sp, 1);
    sp_run *b = make_spec(&sp);
    sy_spec_init(&sp, 2);
    sp.kernel_factor = 1.3;
    sp.kernel_wait_every = 3; /* a tail too */
    sp.kernel_wait_ms = 1;
    sp_run *c = make_spec(&sp);
    ASSERT(b && c);
    add_sched(b, 0.05, 20);
    add_sched(c, 0.30, 100);
    char pb[] = "/tmp/sp_cmp_files_b_XXXXXX", pc[] = "/tmp/sp_cmp_files_c_XXXXXX";
    int fb = mkstemp(pb), fc = mkstemp(pc);
    ASSERT(fb >= 0 && fc >= 0);
    close(fb);
    close(fc);
    ASSERT_EQ_I(sp_h5_write_v2(b, pb), 0);
    ASSERT_EQ_I(sp_h5_write_v2(c, pc), 0);
    for (int tree = 0; tree < 2; tree++) {
        sp_agg_opts ao = {.flags = SP_COMPARE_AGG_FLAGS(tree)};
        int st;
        sp_run *fb_run = sp_run_read(pb, &ao, NULL, false, &st);
        sp_run *fc_run = sp_run_read(pc, &ao, NULL, false, &st);
        ASSERT(fb_run && fc_run);
        ASSERT(fb_run->ranks[0].ncalls == 0); /* aggregates only */
        sp_compare_options o;
        sp_compare_options_init(&o);
        o.tree = tree;
        sp_compare *mem = compare1(b, c, &o), *file = compare1(fb_run, fc_run, &o);
        assert_same_comparison(mem, file);
        const sp_cmp_entry *k = find(file, "kernel");
        ASSERT(k && k->verdict == SP_CMP_SLOWER && k->cand.cpu_wait_s > 0);
        sp_compare_free(mem);
        sp_compare_free(file);
        sp_run_free(fb_run);
        sp_run_free(fc_run);
    }
    /* read without the segments: refused, never compared without waits */
    sp_agg_opts plain = {0};
    int st;
    sp_run *fb_run = sp_run_read(pb, &plain, NULL, false, &st);
    ASSERT(fb_run);
    ASSERT(compare1(fb_run, c, NULL) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "without the comparison's aggregates");
    sp_run_free(fb_run);
    unlink(pb);
    unlink(pc);
    sp_run_free(b);
    sp_run_free(c);
}

/* The typical call's quantile: the lowest with an interval. */
static void test_typical_quantile(void)
{
    ASSERT_NEAR(sp__typical_quantile(150, 0.05), 0.0289, 0.0005);
    ASSERT_NEAR(sp__typical_quantile(600, 0.05), 0.01, 0); /* 0.0073, floor 1 % */
    ASSERT_NEAR(sp__typical_quantile(10, 0.05), 0.25, 0);  /* cap: no interval */
    ASSERT_NEAR(sp__typical_quantile(40, 0.05), 0.1038, 0.0005);
    /* The order-statistic interval exists at that quantile, not below. */
    size_t l, u;
    ASSERT(sp__quantile_ci_ranks(150, sp__typical_quantile(150, 0.05), 0.025, &l, &u) && l == 1);
    ASSERT(!sp__quantile_ci_ranks(150, 0.025, 0.025, &l, &u));
}

int main(void)
{
    RUN(test_slower);
    RUN(test_outliers_within_noise);
    RUN(test_identical);
    RUN(test_new_removed);
    RUN(test_change_text_ratio);
    RUN(test_rank_counts);
    RUN(test_thread_counts);
    RUN(test_call_count_change);
    RUN(test_repeated_runs);
    RUN(test_tree);
    RUN(test_filter_and_options);
    RUN(test_texts);
    RUN(test_scaling);
    RUN(test_tail_change);
    RUN(test_interference_undecided);
    RUN(test_load_explains_totals);
    RUN(test_common_change);
    RUN(test_uneven_common_change);
    RUN(test_typical_quantile);
    RUN(test_from_files);
    return sp_test_summary();
}
