/* SPDX-License-Identifier: MIT */
/* test_diff.c - the diff analysis (analysis/sp_diff.h): the Mann-Whitney U
 * test against hand values and a brute-force count, region and tree diffs
 * of synthetic runs with known answers, metrics, filtering, the budget rule. */
#include <math.h>

#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_test.h"
#include "synth_runs.h"

/* U of cand by counting pairs (ties 1/2), independent of the rank sums. */
static double brute_u(const int64_t *b, size_t nb, const int64_t *c, size_t nc)
{
    double u = 0;
    for (size_t i = 0; i < nb; i++)
        for (size_t j = 0; j < nc; j++)
            u += c[j] > b[i] ? 1.0 : c[j] == b[i] ? 0.5 : 0.0;
    return u;
}

static void test_mw_separated(void)
{
    /* scipy.stats.mannwhitneyu([6..10], [1..5]) (asymptotic, continuity):
     * U = 25, p = 0.012185780355. */
    int64_t b[] = {5, 3, 1, 4, 2}, c[] = {10, 6, 9, 7, 8};
    sp_noise_test t;
    ASSERT_EQ_I(sp_noise_mann_whitney(b, 5, c, 5, 0.05, &t), 0);
    ASSERT(t.tested && t.conclusive);
    ASSERT_NEAR(t.u, 25.0, 1e-12);
    ASSERT_NEAR(t.p_value, 0.012185780355, 1e-9);
    ASSERT_NEAR(t.effect, 1.0, 1e-12);
    ASSERT(t.z > 0);
    /* The other way round: same p, opposite effect. */
    int64_t b2[] = {6, 7, 8, 9, 10}, c2[] = {1, 2, 3, 4, 5};
    ASSERT_EQ_I(sp_noise_mann_whitney(b2, 5, c2, 5, 0.05, &t), 0);
    ASSERT_NEAR(t.u, 0.0, 1e-12);
    ASSERT_NEAR(t.p_value, 0.012185780355, 1e-9);
    ASSERT_NEAR(t.effect, -1.0, 1e-12);
}

static void test_mw_ties_against_brute_force(void)
{
    sy_rng rng = {42};
    for (int round = 0; round < 50; round++) {
        size_t nb = 2 + sy_next(&rng) % 30, nc = 2 + sy_next(&rng) % 30;
        int64_t b[32], c[32], bc[32], cc[32];
        for (size_t i = 0; i < nb; i++)
            b[i] = bc[i] = (int64_t)(sy_next(&rng) % 6); /* many ties */
        for (size_t i = 0; i < nc; i++)
            c[i] = cc[i] = (int64_t)(sy_next(&rng) % 6) + (round % 3 == 0);
        sp_noise_test t;
        ASSERT_EQ_I(sp_noise_mann_whitney(b, nb, c, nc, 0.05, &t), 0);
        double u = brute_u(bc, nb, cc, nc);
        ASSERT_NEAR(t.u, u, 1e-9);
        ASSERT_NEAR(t.effect, 2 * u / ((double)nb * (double)nc) - 1, 1e-12);
        /* Tie-corrected variance recomputed from the tie groups of the pooled values. */
        double ties = 0, n = (double)(nb + nc);
        for (int64_t v = 0; v <= 6; v++) {
            double k = 0;
            for (size_t i = 0; i < nb; i++)
                k += bc[i] == v;
            for (size_t i = 0; i < nc; i++)
                k += cc[i] == v;
            ties += k * k * k - k;
        }
        double var = (double)nb * (double)nc / 12 * ((n + 1) - ties / (n * (n - 1)));
        double d = u - (double)nb * (double)nc / 2;
        if (var > 0) {
            double z = fabs(d) <= 0.5 ? 0 : (d - copysign(0.5, d)) / sqrt(var);
            ASSERT_NEAR(t.p_value, erfc(fabs(z) / sqrt(2)), 1e-12);
        } else {
            ASSERT_NEAR(t.p_value, 1.0, 0);
        }
        ASSERT(t.p_value >= 0 && t.p_value <= 1);
    }
}

static void test_mw_degenerate(void)
{
    int64_t b[] = {7, 7, 7}, c[] = {7, 7, 7, 7};
    sp_noise_test t;
    ASSERT_EQ_I(sp_noise_mann_whitney(b, 3, c, 4, 0.05, &t), 0);
    ASSERT(t.tested);
    ASSERT_NEAR(t.p_value, 1.0, 0);
    ASSERT_NEAR(t.effect, 0.0, 1e-12);
    int64_t one[] = {1};
    ASSERT_EQ_I(sp_noise_mann_whitney(one, 1, c, 4, 0.05, &t), 0);
    ASSERT(!t.tested && !t.conclusive);
    ASSERT_EQ_U(t.n_base, 1);
    ASSERT_EQ_U(t.n_cand, 4);
    /* 3 vs 3 cannot reach 0.05 (most extreme: p = 0.081), 4 vs 4 can. */
    ASSERT(sp_noise_min_p(3, 3) > 0.05);
    ASSERT_NEAR(sp_noise_min_p(3, 3), 0.0808556, 1e-6);
    ASSERT(sp_noise_min_p(4, 4) < 0.05);
    int64_t b3[] = {1, 2, 3}, c3[] = {10, 11, 12};
    ASSERT_EQ_I(sp_noise_mann_whitney(b3, 3, c3, 3, 0.05, &t), 0);
    ASSERT(t.tested && !t.conclusive);
}

static const sp_diff_entry *find(const sp_diff *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->entries[i].name, name) == 0)
            return &d->entries[i];
    return NULL;
}

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

static void test_regions_slower(void)
{
    sp_run *base = make(1, 1.0, 1.0, 0, false), *cand = make(2, 1.2, 1.2, 0, true);
    ASSERT(base && cand);
    sp_diff *d = sp_diff_regions(base, cand, NULL);
    ASSERT(d);
    ASSERT_EQ_I(d->metric, SP_METRIC_TOTAL);
    const sp_diff_entry *k = find(d, "kernel"), *s = find(d, "setup"), *x = find(d, "extra");
    const sp_diff_entry *io = find(d, "io");
    ASSERT(k && s && x && io);
    ASSERT_EQ_I(k->presence, SP_DIFF_IN_BOTH);
    ASSERT_EQ_U(k->base_calls, 200);
    ASSERT(k->percent > 15 && k->percent < 25);
    ASSERT_NEAR(k->delta, k->cand - k->base, 1e-15);
    ASSERT_NEAR(k->base, base->regions[sp_run_region_id(base, "kernel")].all.total_s, 1e-15);
    ASSERT(k->noise.tested && k->noise.conclusive && k->noise.p_value < 1e-6);
    ASSERT(k->noise.effect > 0.8);
    ASSERT_EQ_I(k->verdict, SP_DIFF_SLOWER);
    ASSERT(!s->noise.tested);
    ASSERT_EQ_I(s->verdict, SP_DIFF_UP);
    ASSERT_EQ_I(x->presence, SP_DIFF_ONLY_CAND);
    ASSERT_EQ_I(x->verdict, SP_DIFF_ADDED);
    ASSERT(isinf(x->percent) && x->base_id == -1 && x->cand_id >= 0);
    /* io has the same distribution in both: whatever p says, it did not
     * move by 20 %. */
    ASSERT(fabs(io->percent) < 5);
    /* Sorted by |delta| descending. */
    for (size_t i = 1; i < d->n; i++)
        ASSERT(fabs(d->entries[i - 1].delta) >= fabs(d->entries[i].delta));
    /* Budget rule. */
    ASSERT(sp_diff_entry_violates(k, 10, false));
    ASSERT(!sp_diff_entry_violates(k, 30, false));
    ASSERT(sp_diff_entry_violates(s, 10, false)); /* single call: budget only */
    ASSERT(!sp_diff_entry_violates(x, 10, false));
    ASSERT(sp_diff_entry_violates(x, 10, true));
    sp_diff_free(d);

    /* The reverse direction is faster, never a violation. */
    d = sp_diff_regions(cand, base, NULL);
    ASSERT(d);
    k = find(d, "kernel");
    x = find(d, "extra");
    ASSERT(k && x);
    ASSERT_EQ_I(k->verdict, SP_DIFF_FASTER);
    ASSERT(k->noise.effect < -0.8);
    ASSERT_EQ_I(x->verdict, SP_DIFF_REMOVED);
    ASSERT(!sp_diff_entry_violates(k, 0, true) && !sp_diff_entry_violates(x, 0, true));
    sp_diff_free(d);
    sp_run_free(base);
    sp_run_free(cand);
}

static void test_regions_noisy_and_options(void)
{
    sp_run *base = make(1, 1.0, 1.0, 0, false), *cand = make(SY_NOISY_SEED, 1.0, 1.0, 4, false);
    ASSERT(base && cand);
    sp_diff_options o;
    sp_diff_options_init(&o);
    o.metric = SP_METRIC_TOTAL;
    sp_diff *d = sp_diff_regions(base, cand, &o);
    ASSERT(d);
    const sp_diff_entry *k = find(d, "kernel");
    ASSERT(k);
    ASSERT(k->percent > 20);                            /* the outliers move the total... */
    ASSERT(k->noise.tested && k->noise.p_value > 0.05); /* ...not the distribution */
    ASSERT_EQ_I(k->verdict, SP_DIFF_SAME);
    ASSERT(!sp_diff_entry_violates(k, 10, true));
    sp_diff_free(d);

    /* max sees the outliers; calls and imbalance are never tested. */
    o.metric = SP_METRIC_MAX;
    d = sp_diff_regions(base, cand, &o);
    ASSERT(d && find(d, "kernel"));
    ASSERT_NEAR(find(d, "kernel")->cand, 0.015, 1e-9);
    sp_diff_free(d);
    o.metric = SP_METRIC_CALLS;
    d = sp_diff_regions(base, cand, &o);
    ASSERT(d && find(d, "kernel"));
    ASSERT_NEAR(find(d, "kernel")->base, 200, 0);
    ASSERT(!find(d, "kernel")->noise.tested);
    ASSERT_EQ_I(find(d, "kernel")->verdict, SP_DIFF_SAME);
    sp_diff_free(d);

    /* Threshold and filter drop entries and count them. */
    sp_diff_options_init(&o);
    o.threshold_pct = 15;
    d = sp_diff_regions(base, cand, &o);
    ASSERT(d && find(d, "kernel") && !find(d, "io"));
    ASSERT(d->n_filtered >= 1);
    ASSERT_EQ_U(d->n + d->n_filtered, 6);
    sp_diff_free(d);
    sp_region_filter *f = sp_region_filter_new("^(io|kernel)$", NULL);
    o.threshold_pct = 0;
    o.filter = f;
    o.sort = SP_DIFF_SORT_NAME;
    d = sp_diff_regions(base, cand, &o);
    ASSERT(d);
    ASSERT_EQ_U(d->n, 2);
    ASSERT_STREQ(d->entries[0].name, "io");
    ASSERT_STREQ(d->entries[1].name, "kernel");
    sp_diff_free(d);
    sp_region_filter_free(f);

    /* Bad arguments. */
    sp_diff_options_init(&o);
    o.alpha = 1.5;
    ASSERT(sp_diff_regions(base, cand, &o) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "alpha");
    sp_run *raw = sp_run_new();
    ASSERT(sp_diff_regions(base, raw, NULL) == NULL);
    ASSERT_CONTAINS(sp_last_error(), "not analyzed");
    sp_run_free(raw);
    sp_run_free(base);
    sp_run_free(cand);
}

static void test_metrics_and_parse(void)
{
    /* Region "w": 3 s on rank 0, 1 s on rank 1 -> imbalance 3 / 2. */
    sy_calls l = {0};
    sy_add(&l, 0, 0, "w", 0, 3000000000);
    sy_add(&l, 1, 0, "w", 0, 1000000000);
    sy_add(&l, 0, 0, "inner", 1000000000, 1500000000);
    sp_run *run = sy_build(&l, 2);
    free(l.c);
    ASSERT(run && sp_run_analyze(run) == 0);
    int32_t w = sp_run_region_id(run, "w"), in = sp_run_region_id(run, "inner");
    ASSERT_NEAR(sp_region_imbalance(run, w), 1.5, 1e-12);
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_IMBALANCE), 1.5, 1e-12);
    ASSERT_NEAR(sp_region_imbalance(run, in), 2.0, 1e-12); /* only on one of 2 ranks */
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_TOTAL), 4.0, 1e-9);
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_OWN), 3.5, 1e-9);
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_MIN), 1.0, 1e-9);
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_P50), 2.0, 1e-9);
    ASSERT_NEAR(sp_diff_region_value(run, w, SP_METRIC_CALLS), 2.0, 0);
    ASSERT_NEAR(sp_diff_region_value(run, 99, SP_METRIC_TOTAL), 0.0, 0);

    /* The own metric tests own durations: w's own per call is {2.5, 1} s. */
    sp_diff_options o;
    sp_diff_options_init(&o);
    o.metric = SP_METRIC_OWN;
    sp_diff *d = sp_diff_regions(run, run, &o);
    ASSERT(d && find(d, "w"));
    ASSERT_NEAR(find(d, "w")->base, 3.5, 1e-9);
    ASSERT_EQ_I(find(d, "w")->verdict, SP_DIFF_SAME);
    sp_diff_free(d);

    sp_diff_metric m;
    ASSERT_EQ_I(sp_diff_metric_parse("p99", &m), 0);
    ASSERT_EQ_I(m, SP_METRIC_P99);
    ASSERT_EQ_I(sp_diff_metric_parse("imbalance", &m), 0);
    ASSERT_EQ_I(m, SP_METRIC_IMBALANCE);
    ASSERT_EQ_I(sp_diff_metric_parse("fast", &m), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "unknown metric 'fast'");
    ASSERT_STREQ(sp_diff_metric_name(SP_METRIC_P50), "p50");
    sp_diff_sort s;
    ASSERT_EQ_I(sp_diff_sort_parse("percent", &s), 0);
    ASSERT_EQ_I(s, SP_DIFF_SORT_PERCENT);
    ASSERT_EQ_I(sp_diff_sort_parse("size", &s), SP_EINVAL);
    ASSERT_STREQ(sp_diff_verdict_name(SP_DIFF_SAME), "within noise");
    sp_run_free(run);
}

static void test_tree(void)
{
    sp_run *base = make(1, 1.0, 1.0, 0, false), *cand = make(2, 1.2, 1.0, 0, true);
    ASSERT(base && cand);
    sp_diff *d = sp_diff_tree(base, cand, NULL);
    ASSERT(d);
    size_t kernels = 0;
    for (size_t i = 0; i < d->n; i++) {
        const sp_diff_entry *e = &d->entries[i];
        if (e->parent < 0) {
            ASSERT_EQ_I(e->depth, 1);
        } else {
            ASSERT((size_t)e->parent < i); /* depth-first: parents first */
            ASSERT_EQ_I(e->depth, d->entries[e->parent].depth + 1);
        }
        if (strcmp(e->name, "kernel") == 0) {
            kernels++;
            ASSERT(e->parent >= 0);
            ASSERT_STREQ(d->entries[e->parent].name, "step");
            ASSERT_EQ_I(e->verdict, SP_DIFF_SLOWER);
            ASSERT_EQ_U(e->base_calls, 200);
            ASSERT_NEAR(e->base, base->tree.nodes[e->base_id].incl_s, 1e-15);
            ASSERT_NEAR(e->cand, cand->tree.nodes[e->cand_id].incl_s, 1e-15);
        }
        if (strcmp(e->name, "extra") == 0)
            ASSERT_EQ_I(e->presence, SP_DIFF_ONLY_CAND);
    }
    ASSERT_EQ_U(kernels, 1);
    /* Every tree node of both runs (but the roots) appears exactly once. */
    size_t both = 0, only_b = 0, only_c = 0;
    for (size_t i = 0; i < d->n; i++) {
        both += d->entries[i].presence == SP_DIFF_IN_BOTH;
        only_b += d->entries[i].presence == SP_DIFF_ONLY_BASE;
        only_c += d->entries[i].presence == SP_DIFF_ONLY_CAND;
    }
    ASSERT_EQ_U(both + only_b, base->tree.nnodes - 1);
    ASSERT_EQ_U(both + only_c, cand->tree.nnodes - 1);
    sp_diff_free(d);
    /* Against an empty run: everything is removed. */
    sp_run *empty = sp_run_new();
    ASSERT(empty && sp_run_set_ranks(empty, 1) == 0 && sp_run_analyze(empty) == 0);
    d = sp_diff_tree(base, empty, NULL);
    ASSERT(d);
    ASSERT_EQ_U(d->n, base->tree.nnodes - 1);
    for (size_t i = 0; i < d->n; i++)
        ASSERT_EQ_I(d->entries[i].verdict, SP_DIFF_REMOVED);
    sp_diff_free(d);
    d = sp_diff_regions(empty, empty, NULL);
    ASSERT(d);
    ASSERT_EQ_U(d->n, 0);
    sp_diff_free(d);
    sp_run_free(empty);
    sp_run_free(base);
    sp_run_free(cand);
}

int main(void)
{
    RUN(test_mw_separated);
    RUN(test_mw_ties_against_brute_force);
    RUN(test_mw_degenerate);
    RUN(test_regions_slower);
    RUN(test_regions_noisy_and_options);
    RUN(test_metrics_and_parse);
    RUN(test_tree);
    return sp_test_summary();
}
