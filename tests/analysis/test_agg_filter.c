/* SPDX-License-Identifier: MIT */
/*
 * sp_agg_keep_regions (a region selection on aggregates) against the run
 * recorded without those regions: a generated run (two ranks, two threads,
 * loops, recursion 1..30 deep through a region that may be left out, calls
 * of one region under several callers) is analysed whole and cut to a
 * selection of regions; the same calls with the other regions' calls
 * removed (each kept call under its nearest kept caller) are analysed from
 * scratch. Every region's calls, total, own, mean, min, max and std, per
 * rank and over all, every call path's calls, inclusive and own time, and
 * the per-rank figures must agree, for every selection of the five
 * regions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_figures.h"
#include "sp_test.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_u(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *names[] = {"main", "step", "work", "rec", "leaf"};
#define NREG 5

typedef struct gen {
    sp_rank_data *rk;
    size_t cap;
} gen;

static int64_t put(gen *g, int32_t thread, int32_t region, int64_t s, int64_t parent)
{
    sp_rank_data *rk = g->rk;
    if (rk->ncalls == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        rk->start_ns = realloc(rk->start_ns, g->cap * sizeof *rk->start_ns);
        rk->end_ns = realloc(rk->end_ns, g->cap * sizeof *rk->end_ns);
        rk->region = realloc(rk->region, g->cap * sizeof *rk->region);
        rk->thread = realloc(rk->thread, g->cap * sizeof *rk->thread);
        rk->parent = realloc(rk->parent, g->cap * sizeof *rk->parent);
    }
    size_t i = rk->ncalls++;
    rk->start_ns[i] = s;
    rk->end_ns[i] = s;
    rk->region[i] = region;
    rk->thread[i] = thread;
    rk->parent[i] = parent;
    return (int64_t)i;
}

/* main > step x 60 > (work > leaf x k | rec > (leaf, rec > ...) | leaf) */
static sp_run *make_run(void)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 2);
    for (int i = 0; i < NREG; i++)
        sp_run_intern_region(run, names[i]);
    for (int r = 0; r < 2; r++) {
        sp_rank_data *rk = &run->ranks[r];
        rk->clock_offset_ns = r ? 333 : 0;
        rk->nthreads = 2;
        rk->threads = calloc(2, sizeof *rk->threads);
        gen g = {rk, 0};
        for (int32_t th = 0; th < 2; th++) {
            int64_t t = 100 + th;
            int64_t m = put(&g, th, 0, t, -1);
            for (int s = 0; s < 60; s++) {
                int64_t st = put(&g, th, 1, t += 3, m);
                int kind = (int)(next_u() % 3);
                if (kind == 0) {
                    int64_t w = put(&g, th, 2, t += 2, st);
                    for (int k = 0; k < 1 + (int)(next_u() % 9); k++) {
                        int64_t l = put(&g, th, 4, t += 4, w);
                        rk->end_ns[l] = t += 1 + (int64_t)(next_u() % 50);
                    }
                    rk->end_ns[w] = t += 2;
                } else if (kind == 1) {
                    int depth = 1 + (int)(next_u() % 30);
                    int64_t idx[31], par = st;
                    for (int d = 0; d < depth; d++) {
                        idx[d] = par = put(&g, th, 3, t += 2, par);
                        int64_t l = put(&g, th, d % 3 ? 4 : 2, t += 1, par);
                        rk->end_ns[l] = t += 1 + (int64_t)(next_u() % 7);
                    }
                    for (int d = depth - 1; d >= 0; d--)
                        rk->end_ns[idx[d]] = t += 1 + (int64_t)(next_u() % 3);
                } else {
                    int64_t l = put(&g, th, 4, t += 1, st);
                    rk->end_ns[l] = t += 10;
                }
                rk->end_ns[st] = t += 4;
            }
            rk->end_ns[m] = t += 9;
        }
    }
    return run;
}

/* The run's calls without the regions left out: each kept call under its
 * nearest kept caller (calls are in model order: parents first). */
static sp_run *without(const sp_run *run, const bool *keep)
{
    sp_run *out = sp_run_new();
    sp_run_set_ranks(out, run->nranks);
    for (int i = 0; i < NREG; i++)
        sp_run_intern_region(out, names[i]);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *a = &run->ranks[r];
        sp_rank_data *b = &out->ranks[r];
        b->clock_offset_ns = a->clock_offset_ns;
        b->nthreads = a->nthreads;
        b->threads = calloc(a->nthreads, sizeof *b->threads);
        size_t n = 0;
        for (size_t i = 0; i < a->ncalls; i++)
            n += keep[a->region[i]];
        sp_rank_alloc_calls(b, n);
        int64_t *map = malloc((a->ncalls + 1) * sizeof *map);
        size_t k = 0;
        for (size_t i = 0; i < a->ncalls; i++) {
            int64_t p = a->parent[i];
            while (p >= 0 && map[p] < 0)
                p = a->parent[p];
            map[i] = -1;
            if (!keep[a->region[i]])
                continue;
            b->start_ns[k] = a->start_ns[i];
            b->end_ns[k] = a->end_ns[i];
            b->region[k] = a->region[i];
            b->thread[k] = a->thread[i];
            b->parent[k] = p >= 0 ? map[p] : -1;
            map[i] = (int64_t)k++;
        }
        free(map);
    }
    return out;
}

static void same_stats(const sp_stats *x, const sp_stats *y, const char *what)
{
    ASSERT_MSG(x->calls == y->calls, "%s: calls %llu vs %llu", what,
               (unsigned long long)x->calls, (unsigned long long)y->calls);
    const double a[] = {x->total_s, x->own_s, x->mean_s, x->min_s, x->max_s, x->std_s};
    const double b[] = {y->total_s, y->own_s, y->mean_s, y->min_s, y->max_s, y->std_s};
    const char *f[] = {"total", "own", "mean", "min", "max", "std"};
    for (int i = 0; i < 6; i++)
        ASSERT_MSG(fabs(a[i] - b[i]) <= 1e-12 + 1e-9 * fabs(b[i]), "%s: %s %.12g vs %.12g", what,
                   f[i], a[i], b[i]);
}

/* "main;step;work" of node k. */
static void path_of(const sp_run *run, int32_t k, char *buf, size_t n)
{
    char tmp[4096];
    buf[0] = '\0';
    for (; k > 0; k = run->tree.nodes[k].parent) {
        snprintf(tmp, sizeof tmp, "%s%s%s", run->region_names[run->tree.nodes[k].region],
                 buf[0] ? ";" : "", buf);
        snprintf(buf, n, "%s", tmp);
    }
}

static int32_t find_path(const sp_run *run, const char *want)
{
    char p[4096];
    for (size_t k = 1; k < run->tree.nnodes; k++) {
        path_of(run, (int32_t)k, p, sizeof p);
        if (strcmp(p, want) == 0)
            return (int32_t)k;
    }
    return -1;
}

static void check_selection(unsigned mask)
{
    bool keep[NREG];
    for (int g = 0; g < NREG; g++)
        keep[g] = mask & (1u << g);
    rng = 0x2545F4914F6CDD1Dull;
    sp_run *full = make_run();
    rng = 0x2545F4914F6CDD1Dull;
    sp_run *again = make_run(); /* same calls: same seed */
    sp_run *ref = without(again, keep);
    sp_run_free(again);
    ASSERT_EQ_I(sp_run_analyze(full), 0);
    ASSERT_EQ_I(sp_run_analyze(ref), 0);
    ASSERT_EQ_I(sp_agg_keep_regions(full->agg, keep, NREG), 0);
    ASSERT_EQ_I(sp_agg_attach(full, full->agg), 0);
    char what[128];
    for (int g = 0; g < NREG && !sp_test_current_failed; g++) {
        snprintf(what, sizeof what, "mask %#x, %s, all ranks", mask, names[g]);
        same_stats(&full->regions[g].all, &ref->regions[g].all, what);
        for (size_t r = 0; r < 2; r++) {
            snprintf(what, sizeof what, "mask %#x, %s, rank %zu", mask, names[g], r);
            same_stats(&full->regions[g].per_rank[r], &ref->regions[g].per_rank[r], what);
        }
    }
    ASSERT_EQ_U(full->tree.nnodes, ref->tree.nnodes);
    char p[4096];
    for (size_t k = 1; k < ref->tree.nnodes && !sp_test_current_failed; k++) {
        path_of(ref, (int32_t)k, p, sizeof p);
        int32_t j = find_path(full, p);
        ASSERT_MSG(j > 0, "mask %#x: path %s missing", mask, p);
        if (j <= 0)
            break;
        const sp_tree_node *a = &full->tree.nodes[j], *b = &ref->tree.nodes[k];
        ASSERT_MSG(a->calls == b->calls && fabs(a->incl_s - b->incl_s) < 1e-12 &&
                       fabs(a->own_s - b->own_s) < 1e-12,
                   "mask %#x, path %s: %llu calls %.9g incl %.9g own, want %llu %.9g %.9g", mask,
                   p, (unsigned long long)a->calls, a->incl_s, a->own_s,
                   (unsigned long long)b->calls, b->incl_s, b->own_s);
    }
    /* the rank rule's figures come from the per-thread cells */
    sp_figures *fa = sp_figures_new(full), *fb = sp_figures_new(ref);
    ASSERT(fa && fb);
    for (int g = 0; fa && fb && g < NREG; g++) {
        ASSERT_NEAR(fa->region_total[g].mean_s, fb->region_total[g].mean_s, 1e-12);
        ASSERT_NEAR(fa->region_own[g].mean_s, fb->region_own[g].mean_s, 1e-12);
        ASSERT_NEAR(fa->region_own[g].max_s, fb->region_own[g].max_s, 1e-12);
    }
    sp_figures_free(fa);
    sp_figures_free(fb);
    sp_run_free(full);
    sp_run_free(ref);
}

static void test_every_selection(void)
{
    for (unsigned mask = 0; mask < (1u << NREG) && !sp_test_current_failed; mask++)
        check_selection(mask);
}

int main(void)
{
    RUN(test_every_selection);
    return sp_test_summary();
}
