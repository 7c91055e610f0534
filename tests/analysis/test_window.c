/* SPDX-License-Identifier: MIT */
/*
 * Windows of calls (sp_window.h) against brute force: a generated run of
 * nested calls on two threads and two ranks (deep recursion spanning many
 * blocks, long calls open across the whole run), loaded from memory and
 * from a v2 file written from it, for windows everywhere in the run (empty,
 * tiny, inside one long call, the whole run): every call that overlaps the
 * window is there once, with its start, end, region, depth and parent.
 * Also the level-of-detail index: every bin names a region that really
 * overlaps it at that depth. And a finished file's second read of a rank
 * (its columns closed after the pass) gives the same events, and a lean
 * header (summary's and ranks') the same figures as a full one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_builder.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_h5.h"
#include "sp_h5_v2.h"
#include "sp_lod.h"
#include "sp_run_read.h"
#include "sp_source_mem.h"
#include "sp_test.h"
#include "sp_window.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A run whose calls are built recursively with an explicit stack: main >
 * step x N > (work | recurse 1..40 levels | short) ... */
typedef struct gen {
    sp_run *run;
    size_t n, cap;
} gen;

static int64_t put(sp_rank_data *rk, gen *g, int32_t thread, int32_t region, int64_t s,
                   int64_t e, int64_t parent)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        rk->start_ns = realloc(rk->start_ns, g->cap * sizeof *rk->start_ns);
        rk->end_ns = realloc(rk->end_ns, g->cap * sizeof *rk->end_ns);
        rk->region = realloc(rk->region, g->cap * sizeof *rk->region);
        rk->thread = realloc(rk->thread, g->cap * sizeof *rk->thread);
        rk->parent = realloc(rk->parent, g->cap * sizeof *rk->parent);
    }
    rk->start_ns[g->n] = s;
    rk->end_ns[g->n] = e;
    rk->region[g->n] = region;
    rk->thread[g->n] = thread;
    rk->parent[g->n] = parent;
    rk->ncalls = ++g->n;
    return (int64_t)g->n - 1;
}

static sp_run *make_run(void)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 2);
    const char *names[] = {"main", "step", "work", "rec", "short"};
    for (int i = 0; i < 5; i++)
        sp_run_intern_region(run, names[i]);
    for (int r = 0; r < 2; r++) {
        sp_rank_data *rk = &run->ranks[r];
        rk->clock_offset_ns = r ? 777 : 0;
        rk->nthreads = 2;
        rk->threads = calloc(2, sizeof *rk->threads);
        gen g = {run, 0, 0};
        for (int32_t th = 0; th < 2; th++) {
            int64_t t = 1000 + th * 3;
            int64_t m = put(rk, &g, th, 0, t, 0, -1);
            for (int s = 0; s < 300; s++) {
                int64_t st = put(rk, &g, th, 1, t, 0, m);
                t += 10;
                int kind = (int)(next_u() % 3);
                if (kind == 0) {
                    for (int k = 0; k < 50; k++) {
                        put(rk, &g, th, 2, t, t + 5 + (int64_t)(next_u() % 20), st);
                        t += 30;
                    }
                } else if (kind == 1) {
                    int depth = 1 + (int)(next_u() % 40);
                    int64_t idx[41], par = st;
                    for (int d = 0; d < depth; d++) {
                        idx[d] = par = put(rk, &g, th, 3, t, 0, par);
                        t += 2;
                        put(rk, &g, th, 4, t, t + 1, par);
                        t += 3;
                    }
                    for (int d = depth - 1; d >= 0; d--) {
                        t += 1;
                        rk->end_ns[idx[d]] = t;
                    }
                } else {
                    for (int k = 0; k < 200; k++) {
                        put(rk, &g, th, 4, t, t + 1, st);
                        t += 2;
                    }
                }
                t += 5;
                rk->end_ns[st] = t;
                t += 1;
            }
            rk->end_ns[m] = t + 10;
        }
    }
    return run;
}

typedef struct truth {
    size_t rank;
    int32_t thread;
    int64_t a, b;
} truth;

/* The window must hold exactly the calls of the lane overlapping [a, b]. */
static void check_window(const sp_run *run, const sp_window *w, truth q, const char *what)
{
    const sp_rank_data *rk = &run->ranks[q.rank];
    int64_t off = rk->clock_offset_ns;
    size_t want = 0, k = 0;
    for (size_t i = 0; i < rk->ncalls; i++) {
        if (rk->thread[i] != q.thread)
            continue;
        int64_t s = rk->start_ns[i] + off, e = rk->end_ns[i] + off;
        if (e < q.a || s > q.b)
            continue;
        want++;
        /* same order: begin order within the lane */
        ASSERT_MSG(k < w->n, "%s: window [%lld, %lld] lacks call %zu", what, (long long)q.a,
                   (long long)q.b, i);
        ASSERT_MSG(w->start_ns[k] == s && w->end_ns[k] == e && w->region[k] == rk->region[i],
                   "%s: call %zu of window [%lld, %lld]: %lld-%lld r%d, want %lld-%lld r%d",
                   what, k, (long long)q.a, (long long)q.b, (long long)w->start_ns[k],
                   (long long)w->end_ns[k], w->region[k], (long long)s, (long long)e,
                   rk->region[i]);
        /* depth: the number of ancestors; parent: the window's index of it */
        uint32_t depth = 0;
        for (int64_t p = rk->parent[i]; p >= 0; p = rk->parent[p])
            depth++;
        ASSERT_EQ_U(w->depth[k], depth);
        if (rk->parent[i] < 0) {
            ASSERT_EQ_I(w->parent[k], -1);
        } else {
            int64_t p = w->parent[k];
            ASSERT(p >= 0 && (size_t)p < k);
            ASSERT_EQ_I(w->start_ns[p], rk->start_ns[rk->parent[i]] + off);
            ASSERT_EQ_U(w->depth[p] + 1, depth);
        }
        k++;
    }
    ASSERT_EQ_U(w->n, want);
    ASSERT(!w->truncated);
}

static void windows_of(sp_event_source *src, const sp_agg *agg, const sp_run *truth_run,
                       const char *what)
{
    int64_t t0 = agg->first_ns, t1 = agg->last_ns;
    /* The same windows through a block index: identical, and the estimate
     * found by binary search equals the scan's. */
    sp_block_index *ix = sp_block_index_new(src);
    ASSERT(ix != NULL);
    for (int i = 0; i < 300; i++) {
        truth q = {(size_t)(next_u() % 2), (int32_t)(next_u() % 2), 0, 0};
        int kind = i % 4;
        int64_t span = t1 - t0 + 200;
        q.a = t0 - 100 + (int64_t)(next_u() % (uint64_t)span);
        int64_t len = kind == 0 ? 0 : kind == 1 ? 50 : kind == 2 ? 5000 : span;
        q.b = q.a + len;
        if (kind == 3)
            q.a = t0 - 100;
        sp_window *w = NULL;
        int rc = sp_window_load(src, agg, q.rank, q.thread, q.a, q.b, 0, &w);
        ASSERT_MSG(rc == 0, "%s: %s", what, sp_last_error());
        check_window(truth_run, w, q, what);
        sp_window_free(w);
        rc = sp_window_load_ix(src, ix, agg, q.rank, q.thread, q.a, q.b, 0, &w);
        ASSERT_MSG(rc == 0, "%s: %s", what, sp_last_error());
        check_window(truth_run, w, q, what);
        sp_window_free(w);
        ASSERT_EQ_U(sp_window_estimate_ix(src, ix, q.rank, q.thread, q.a, q.b),
                    sp_window_estimate(src, q.rank, q.thread, q.a, q.b));
        if (sp_test_current_failed) {
            sp_block_index_free(ix);
            return;
        }
    }
    sp_block_index_free(ix);
    /* a limit cuts the window and says so */
    sp_window *w = NULL;
    ASSERT_EQ_I(sp_window_load(src, agg, 0, 0, t0, t1, 10, &w), 0);
    ASSERT(w->truncated);
    ASSERT(w->n <= 10);
    size_t lane_calls = 0;
    for (size_t i = 0; i < truth_run->ranks[0].ncalls; i++)
        lane_calls += truth_run->ranks[0].thread[i] == 0;
    ASSERT_EQ_U(sp_window_estimate(src, 0, 0, t0, t1), lane_calls);
    sp_window_free(w);
}

static void test_windows_from_memory(void)
{
    sp_run *run = make_run();
    sp_run *hdr = sp_run_new();
    /* the source's header: the run itself, taken back before freeing */
    sp_event_source *src = sp_source_mem_new(run, run);
    sp_run_free(hdr);
    ASSERT(src);
    sp_agg_opts o = {.flags = SP_AGG_LANES};
    sp_agg *agg = NULL;
    int rc = sp_agg_run(src, &o, &agg);
    ASSERT_MSG(rc == 0, "%s", sp_last_error());
    const sp_agg_lane *l = sp_agg_find_lane(agg, 0, 1);
    ASSERT(l && l->nspans > 0); /* main and deep recursion span blocks */
    windows_of(src, agg, run, "memory");
    sp_agg_free(agg);
    sp_event_source_take_run(src);
    sp_event_source_free(src);
    sp_run_free(run);
}

static void test_windows_from_file(void)
{
    sp_run *run = make_run();
    char path[] = "/tmp/sp_test_window_XXXXXX.h5";
    int fd = mkstemps(path, 3);
    ASSERT(fd >= 0);
    close(fd);
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    int st;
    sp_event_source *src = sp_run_source_open(path, &st);
    ASSERT_MSG(src, "%s", sp_last_error());
    sp_agg_opts o = {.flags = SP_AGG_LANES | SP_AGG_LOD | SP_AGG_SERIES | SP_AGG_NODE_HIST};
    sp_agg *agg = NULL;
    ASSERT_EQ_I(sp_agg_run(src, &o, &agg), 0);
    windows_of(src, agg, run, "file");
    /* The aggregates through the wire (as from a reading child) serve
     * windows the same; damaged bytes are refused, never trusted. */
    uint8_t *bytes = NULL;
    size_t len = 0;
    ASSERT_EQ_I(sp_agg_encode(agg, &bytes, &len), 0);
    sp_agg *back = NULL;
    ASSERT_MSG(sp_agg_decode(bytes, len, src->run, &back) == 0, "%s", sp_last_error());
    windows_of(src, back, run, "file, decoded aggregates");
    ASSERT_EQ_U(back->ranks[1].calls, agg->ranks[1].calls);
    sp_agg_free(back);
    for (int i = 0; i < 300; i++) {
        size_t at = (size_t)(next_u() % len);
        uint8_t old = bytes[at];
        bytes[at] ^= (uint8_t)(1u << (next_u() % 8));
        size_t cut = i % 3 == 0 ? (size_t)(next_u() % len) : len;
        back = NULL;
        int rc = sp_agg_decode(bytes, cut, src->run, &back);
        ASSERT(rc == 0 || rc == SP_EFORMAT);
        ASSERT((rc == 0) == (back != NULL));
        sp_agg_free(back);
        bytes[at] = old;
    }
    free(bytes);
    sp_agg_free(agg);
    sp_event_source_free(src);
    sp_run_free(run);
    unlink(path);
}

/* A lean header (SP_AGG_LEAN_HEADER: what summary and ranks read) leaves
 * each rank's metadata and thread names unread, keeps the thread count,
 * and changes no figure: the same calls, totals and windows as a full
 * read of the same file. */
static void test_lean_header_same_figures(void)
{
    sp_run *run = make_run();
    for (size_t r = 0; r < 2; r++) {
        sp_rank_data *rk = &run->ranks[r];
        ASSERT_EQ_I(sp_kvlist_set(&rk->meta, "hostname", r ? "node1" : "node0"), 0);
        for (size_t t = 0; t < rk->nthreads; t++)
            rk->threads[t].name = strdup(t ? "worker" : "main");
    }
    char path[] = "/tmp/sp_test_lean_XXXXXX.h5";
    int fd = mkstemps(path, 3);
    ASSERT(fd >= 0);
    close(fd);
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    int st;
    sp_event_source *full = sp_run_source_open(path, &st);
    sp_event_source *lean = sp_run_source_open_ex(path, SP_AGG_LEAN_HEADER, &st);
    ASSERT_MSG(full && lean, "%s", sp_last_error());
    sp_agg_opts o = {.flags = SP_AGG_LANES | SP_AGG_NODE_HIST};
    sp_agg *fa = NULL, *la = NULL;
    ASSERT_EQ_I(sp_agg_run(full, &o, &fa), 0);
    ASSERT_EQ_I(sp_agg_run(lean, &o, &la), 0);
    for (size_t r = 0; r < 2; r++) {
        const sp_rank_data *fr = &full->run->ranks[r], *lr = &lean->run->ranks[r];
        ASSERT_STREQ(sp_kvlist_get(&fr->meta, "hostname"), r ? "node1" : "node0");
        ASSERT(sp_kvlist_get(&lr->meta, "hostname") == NULL);
        ASSERT_EQ_U(lr->nthreads, fr->nthreads);
        ASSERT_STREQ(fr->threads[1].name, "worker");
        ASSERT(lr->threads[1].name == NULL);
        ASSERT_EQ_U(la->ranks[r].calls, fa->ranks[r].calls);
        ASSERT_EQ_U(la->ranks[r].calls, sp_run_rank_calls(run, r));
        for (size_t g = 0; g < full->run->nregions; g++) {
            const sp_agg_region *a = sp_agg_rank_region(&fa->ranks[r], (int32_t)g);
            const sp_agg_region *b = sp_agg_rank_region(&la->ranks[r], (int32_t)g);
            ASSERT((a == NULL) == (b == NULL));
            if (a) {
                ASSERT_EQ_U(b->calls, a->calls);
                ASSERT_EQ_I(b->total_ns, a->total_ns);
                ASSERT_EQ_I(b->own_ns, a->own_ns);
            }
        }
    }
    windows_of(lean, la, run, "lean header");
    sp_agg_free(fa);
    sp_agg_free(la);
    sp_event_source_free(full);
    sp_event_source_free(lean);
    sp_run_free(run);
    unlink(path);
}

/* Events of blocks [b0, b1) of one rank, folded into a checksum. */
typedef struct digest {
    uint64_t events, begins, sum;
} digest;

static int fold(void *ud, const sp_event_batch *b)
{
    digest *d = ud;
    for (size_t i = 0; i < b->n; i++) {
        d->sum = d->sum * 1000003u + (uint64_t)b->t_ns[i] * 31u + (uint64_t)(b->region[i] + 2);
        d->begins += b->region[i] >= 0;
    }
    d->events += b->n;
    return 0;
}

/* A finished file's columns are closed once a read reaches a rank's last
 * block (sp_h5_stream.c: a run of many ranks kept thousands of datasets
 * open); every later read of the rank (the pass, an export, a window)
 * opens them again and sees the same events, whole or from a later block
 * on, before and after the pass. */
static void test_second_read_same_events(void)
{
    sp_run *run = make_run();
    char path[] = "/tmp/sp_test_reread_XXXXXX.h5";
    int fd = mkstemps(path, 3);
    ASSERT(fd >= 0);
    close(fd);
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    int st;
    sp_event_source *src = sp_run_source_open(path, &st);
    ASSERT_MSG(src, "%s", sp_last_error());
    ASSERT(src->complete);
    digest first[2] = {{0}}, mid[2] = {{0}};
    for (size_t r = 0; r < 2; r++) {
        ASSERT(src->nblocks[r] >= 2);
        ASSERT_EQ_I(sp_event_source_read(src, r, 0, src->nblocks[r], fold, &first[r]), 0);
        size_t half = src->nblocks[r] / 2;
        ASSERT_EQ_I(sp_event_source_read(src, r, half, src->nblocks[r], fold, &mid[r]), 0);
    }
    sp_agg_opts o = {.flags = SP_AGG_LANES};
    sp_agg *agg = NULL;
    ASSERT_EQ_I(sp_agg_run(src, &o, &agg), 0); /* reads every rank to its end */
    ASSERT_EQ_U(sp_run_total_calls(run), agg->ranks[0].calls + agg->ranks[1].calls);
    for (int round = 0; round < 2; round++)
        for (size_t r = 0; r < 2; r++) {
            digest again = {0}, again_mid = {0};
            ASSERT_EQ_I(sp_event_source_read(src, r, 0, src->nblocks[r], fold, &again), 0);
            ASSERT_EQ_U(again.events, first[r].events);
            ASSERT_EQ_U(again.begins, first[r].begins);
            ASSERT_EQ_U(again.sum, first[r].sum);
            size_t half = src->nblocks[r] / 2;
            ASSERT_EQ_I(sp_event_source_read(src, r, half, src->nblocks[r], fold, &again_mid),
                        0);
            ASSERT_EQ_U(again_mid.sum, mid[r].sum);
            ASSERT_EQ_U(again_mid.events, mid[r].events);
        }
    ASSERT_EQ_U(first[0].begins + first[1].begins, sp_run_total_calls(run));
    sp_agg_free(agg);
    sp_event_source_free(src);
    sp_run_free(run);
    unlink(path);
}

/* Every LOD bin names a region that overlaps the bin at that depth, and a
 * bin no call covers is empty. */
static void test_lod_bins_are_true(void)
{
    enum { N = 200000 };
    sp_lod *lod = sp_lod_new(0, N * 10, N);
    ASSERT(lod);
    /* depth 0: calls of 10 ns with 5 ns gaps; region = i % 7 */
    for (int64_t i = 0; i < N; i++)
        ASSERT_EQ_I(sp_lod_add(lod, i * 15, i * 15 + 10, (int32_t)(i % 7), 0), 0);
    ASSERT_EQ_I(sp_lod_finish(lod), 0);
    for (size_t k = 0; k < lod->nlevels; k++) {
        const sp_lod_level *lv = &lod->levels[k];
        for (size_t b = 0; b < lv->nbins; b += 37) {
            int64_t lo = lod->origin_ns + (int64_t)b * lv->bin_ns, hi = lo + lv->bin_ns;
            int32_t r = lv->region[0][b];
            bool any = false, match = false;
            for (int64_t i = lo / 15 - 1; i <= hi / 15 + 1; i++) {
                if (i < 0 || i >= N || i * 15 + 10 < lo || i * 15 >= hi)
                    continue;
                any = true;
                match |= (int32_t)(i % 7) == r;
            }
            ASSERT_MSG(any == (r >= 0) && (!any || match), "level %zu bin %zu region %d", k,
                       b, r);
        }
    }
    ASSERT(sp_lod_pick(lod, 0, N * 15, 1000)->nbins <= 2048);
    sp_lod_free(lod);
}

/* The index as its rule defines it, computed naively: a call's bins by
 * division (the last holds everything beyond), the longest call per bin
 * (the first of equals), the covered ns added in float in call order. */
typedef struct lod_ref {
    int64_t origin, w;
    size_t nbins;
    int32_t *reg[4];
    int64_t *dur[4];
    float *cov[4];
} lod_ref;

static void ref_keep(lod_ref *m, uint32_t d, size_t b, int64_t dur, int32_t region)
{
    if (dur > m->dur[d][b] || m->reg[d][b] < 0) {
        m->dur[d][b] = dur;
        m->reg[d][b] = region;
    }
}

static void ref_add(lod_ref *m, int64_t s, int64_t t, int32_t region, uint32_t d)
{
    int64_t a = s - m->origin, e = t - m->origin, dur = t - s;
    a = a < 0 ? 0 : a;
    e = e < a ? a : e;
    size_t last = m->nbins - 1, b0 = (size_t)(a / m->w), b1 = (size_t)(e / m->w);
    b0 = b0 > last ? last : b0;
    b1 = b1 > last ? last : b1;
    if (b0 == last || e < (int64_t)(b0 + 1) * m->w) {
        ref_keep(m, d, b0, dur, region);
        m->cov[d][b0] += (float)(e - a);
        return;
    }
    for (size_t b = b0; b <= b1; b++) {
        ref_keep(m, d, b, dur, region);
        int64_t lo = (int64_t)b * m->w, hi = lo + m->w;
        int64_t ov = (e < hi ? e : hi) - (a > lo ? a : lo);
        if (ov > 0)
            m->cov[d][b] += (float)ov;
    }
}

/* Nested calls of a thread in end order (4 depths, short calls many to a
 * bin, long ones over many bins, equal durations, calls before the first
 * block and past the last) through the pass's inline shortcut: the finest
 * level is exactly what the rule gives, call for call. */
static void test_lod_shortcut_follows_rule(void)
{
    enum { OUTER = 3000 };
    const int64_t origin = 1000000, span = (int64_t)OUTER * 4000;
    sp_lod *lod = sp_lod_new(origin, origin + span, 70000);
    ASSERT(lod);
    const sp_lod_level *l0 = &lod->levels[0];
    lod_ref m = {.origin = origin, .w = l0->bin_ns, .nbins = l0->nbins};
    for (int d = 0; d < 4; d++) {
        m.reg[d] = malloc(m.nbins * sizeof *m.reg[d]);
        m.dur[d] = calloc(m.nbins, sizeof *m.dur[d]);
        m.cov[d] = calloc(m.nbins, sizeof *m.cov[d]);
        ASSERT(m.reg[d] && m.dur[d] && m.cov[d]);
        for (size_t b = 0; b < m.nbins; b++)
            m.reg[d][b] = -1;
    }
    uint64_t x = 88172645463325252ull; /* xorshift */
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
#define CALL(s, t, r, d)                                                                  \
    do {                                                                                  \
        ASSERT_EQ_I(sp_lod_add_call(lod, (s), (t), (r), (d)), 0);                         \
        ref_add(&m, (s), (t), (r), (d));                                                  \
    } while (0)
    int64_t t = origin - 500; /* the first calls start before the index */
    for (int i = 0; i < OUTER; i++) {
        int64_t o0 = t;
        for (int j = 0; j < 4; j++) {
            int64_t m0 = t;
            for (int k = 0; k < 6; k++) {
                int64_t len = (int64_t)(NEXT() % 4) * 7 + 3; /* equal lengths recur */
                CALL(t, t + len, 3 + k % 2, 2);
                t += len + (int64_t)(NEXT() % 5);
                if (NEXT() % 9 == 0) {
                    CALL(t, t + 2, 5, 3);
                    t += 2;
                }
            }
            CALL(m0, t, 2, 1);
            t += (int64_t)(NEXT() % 50);
            if (NEXT() % 97 == 0)
                t += (int64_t)(NEXT() % 40000); /* a gap over many bins */
        }
        CALL(o0, t, 1, 0);
    }
    CALL(origin - 500, t + span, 0, 0); /* past the end: into the last bin */
#undef CALL
#undef NEXT
    for (uint32_t d = 0; d < 4; d++)
        for (size_t b = 0; b < m.nbins; b++) {
            ASSERT_MSG(l0->region[d][b] == m.reg[d][b] && l0->dur[d][b] == m.dur[d][b] &&
                           memcmp(&l0->cover[d][b], &m.cov[d][b], sizeof(float)) == 0,
                       "depth %u bin %zu: region %d/%d cover %g/%g", d, b, l0->region[d][b],
                       m.reg[d][b], (double)l0->cover[d][b], (double)m.cov[d][b]);
        }
    for (int d = 0; d < 4; d++) {
        free(m.reg[d]);
        free(m.dur[d]);
        free(m.cov[d]);
    }
    ASSERT_EQ_I(sp_lod_finish(lod), 0);
    sp_lod_free(lod);
}

int main(void)
{
    RUN(test_windows_from_memory);
    RUN(test_windows_from_file);
    RUN(test_lean_header_same_figures);
    RUN(test_second_read_same_events);
    RUN(test_lod_bins_are_true);
    RUN(test_lod_shortcut_follows_rule);
    return sp_test_summary();
}
