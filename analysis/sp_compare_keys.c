/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_keys.c - keys shared by the runs of a comparison, and the
 * per-rank figures and duration histograms of each key in a run, read from
 * the run's aggregates (sp_agg.h; see sp_compare_keys.h).
 */
#include "sp_compare_keys.h"

#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_agg.h"
#include "sp_analysis_internal.h"
#include "sp_source_mem.h"
#include "sp_error.h"

#define NS_TO_S 1e-9

/* ---------------------------------------------------------------- keys */

static uint64_t hash_str(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

sp_strpool sp__cmp_keys_take_names(sp__cmp_keys *k)
{
    sp_strpool names = k->names;
    k->names = (sp_strpool){0};
    return names;
}

/* The table with ns slots (a power of two), the keys placed by their
 * kept hashes. */
static int rehash(sp__cmp_keys *k, size_t ns)
{
    sp__cmp_slot *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return SP_ENOMEM;
    for (size_t i = 0; i < k->n; i++) {
        size_t at = k->keys[i].hash & (ns - 1);
        while (slots[at].key1)
            at = (at + 1) & (ns - 1);
        slots[at] = (sp__cmp_slot){(int32_t)i + 1, (uint32_t)k->keys[i].hash};
    }
    free(k->slots);
    k->slots = slots;
    k->nslots = ns;
    return 0;
}

static int grow_keys(sp__cmp_keys *k, size_t cap)
{
    sp__cmp_key *keys = realloc(k->keys, cap * sizeof *keys);
    if (!keys)
        return SP_ENOMEM;
    k->keys = keys;
    k->cap = cap;
    return 0;
}

int sp__cmp_keys_reserve(sp__cmp_keys *k, size_t more)
{
    size_t want = k->n + more, ns = k->nslots ? k->nslots : 256;
    while (2 * want > ns)
        ns *= 2;
    if (ns != k->nslots && rehash(k, ns))
        return SP_ENOMEM;
    return want > k->cap ? grow_keys(k, want) : 0;
}

int32_t sp__cmp_keys_intern(sp__cmp_keys *k, const char *path, int32_t depth, int32_t parent)
{
    if (2 * (k->n + 1) > k->nslots && rehash(k, k->nslots ? 2 * k->nslots : 256))
        return -1;
    uint64_t h = hash_str(path);
    size_t at = h & (k->nslots - 1);
    for (; k->slots[at].key1; at = (at + 1) & (k->nslots - 1)) {
        int32_t i = k->slots[at].key1 - 1;
        if (k->slots[at].hash == (uint32_t)h && strcmp(k->keys[i].path, path) == 0)
            return i;
    }
    if (k->n == k->cap && grow_keys(k, k->cap ? 2 * k->cap : 64))
        return -1;
    char *copy = sp_strpool_copy(&k->names, path);
    if (!copy)
        return -1;
    const char *last = strrchr(copy, SP__CMP_PATH_SEP);
    k->keys[k->n] = (sp__cmp_key){copy, last ? last + 1 : copy, depth, parent, h};
    k->slots[at] = (sp__cmp_slot){(int32_t)k->n + 1, (uint32_t)h};
    return (int32_t)k->n++;
}

void sp__cmp_keys_free(sp__cmp_keys *k)
{
    sp_strpool_free(&k->names);
    free(k->keys);
    free(k->slots);
    memset(k, 0, sizeof *k);
}

/* ---------------------------------------------------------------- runs */

/* The aggregates of a run held in memory, with what the comparison needs
 * (need: SP_AGG_* flags): one pass over its calls, as a file's. */
static int own_aggregates(sp__cmp_run *r, const sp_run *run, unsigned need)
{
    sp_run *header = sp_run_copy_header(run);
    r->own_src = header ? sp_source_mem_new(run, header) : NULL;
    if (!r->own_src) {
        sp_run_free(header);
        return SP_ENOMEM;
    }
    bool *sel = malloc((run->nranks ? run->nranks : 1) * sizeof *sel);
    if (!sel)
        return SP_ENOMEM;
    for (size_t rr = 0; rr < run->nranks; rr++)
        sel[rr] = !run->ranks[rr].excluded;
    sp_agg_opts opts = {.flags = need, .ranks = sel, .threads = 1};
    int rc = sp_agg_run(r->own_src, &opts, &r->own_agg);
    free(sel);
    r->agg = r->own_agg;
    return rc;
}

/* The key of every region (or every rank's call path) with calls. */
static int region_keys(sp__cmp_run *r, const sp_run *run, sp__cmp_keys *keys)
{
    bool *used = calloc(run->nregions ? run->nregions : 1, sizeof *used);
    r->region_key = malloc((run->nregions ? run->nregions : 1) * sizeof *r->region_key);
    if (!used || !r->region_key) {
        free(used);
        return SP_ENOMEM;
    }
    for (size_t rr = 0; rr < r->agg->nranks; rr++) {
        const sp_agg_rank *ar = &r->agg->ranks[rr];
        for (size_t i = 0; i < ar->nregions; i++)
            if (ar->regions[i].calls && ar->regions[i].region >= 0 &&
                (size_t)ar->regions[i].region < run->nregions)
                used[ar->regions[i].region] = true;
    }
    /* The first run's keys are its names: room for them at once (10^6
     * names grew the table 13 times). */
    size_t nused = 0;
    for (size_t g = 0; g < run->nregions; g++)
        nused += used[g];
    int rc = keys->n ? 0 : sp__cmp_keys_reserve(keys, nused);
    for (size_t g = 0; g < run->nregions; g++) {
        r->region_key[g] = -1;
        if (used[g] && !rc && (r->region_key[g] = sp__cmp_keys_intern(keys, run->region_names[g],
                                                                        0, -1)) < 0)
            rc = SP_ENOMEM;
    }
    free(used);
    if (rc)
        return rc;
    /* Two regions of one name (a damaged or hand-made run) share a key:
     * then a rank's regions add up per key before they are averaged. */
    bool *seen = calloc(keys->n ? keys->n : 1, sizeof *seen);
    if (!seen)
        return SP_ENOMEM;
    r->unique_keys = true;
    for (size_t g = 0; g < run->nregions && r->unique_keys; g++) {
        int32_t k = r->region_key[g];
        if (k >= 0)
            r->unique_keys = !seen[k] && (seen[k] = true);
    }
    free(seen);
    return 0;
}

/* A path's key is its parent's path + SEP + name (local nodes come parents
 * first, so the parent's key exists). Nodes without calls (the root) get
 * none; their children start at the top. */
static int path_keys(sp__cmp_run *r, const sp_run *run, sp__cmp_keys *keys)
{
    r->node_key = calloc(r->nranks ? r->nranks : 1, sizeof *r->node_key);
    if (!r->node_key)
        return SP_ENOMEM;
    for (size_t rr = 0; rr < r->nranks; rr++) {
        const sp_agg_rank *ar = &r->agg->ranks[rr];
        int32_t *nk = malloc((ar->nnodes ? ar->nnodes : 1) * sizeof *nk);
        if (!(r->node_key[rr] = nk))
            return SP_ENOMEM;
        for (size_t i = 0; i < ar->nnodes; i++)
            nk[i] = -1;
        bool *used = calloc(ar->nnodes ? ar->nnodes : 1, sizeof *used);
        if (!used)
            return SP_ENOMEM;
        for (size_t c = 0; c < ar->nnode_cells; c++)
            if (ar->node_cells[c].calls && ar->node_cells[c].key >= 0 &&
                (size_t)ar->node_cells[c].key < ar->nnodes)
                used[ar->node_cells[c].key] = true;
        int rc = 0;
        for (size_t i = 1; i < ar->nnodes && !rc; i++) {
            int32_t reg = ar->nodes[i].region, par = ar->nodes[i].parent;
            if (!used[i] || reg < 0 || (size_t)reg >= run->nregions || par < 0 ||
                (size_t)par >= i)
                continue; /* no calls at this path (or a broken tree) */
            int32_t pk = nk[par];
            const char *name = run->region_names[reg];
            char *path = pk < 0 ? strdup(name)
                                : sp__strdup_printf("%s%c%s", keys->keys[pk].path,
                                                    SP__CMP_PATH_SEP, name);
            int32_t depth = pk < 0 ? 1 : keys->keys[pk].depth + 1;
            nk[i] = path ? sp__cmp_keys_intern(keys, path, depth, pk) : -1;
            free(path);
            if (nk[i] < 0)
                rc = SP_ENOMEM;
        }
        free(used);
        if (rc)
            return rc;
    }
    return 0;
}

static bool calls_in_memory(const sp_run *run)
{
    for (size_t rr = 0; rr < run->nranks; rr++)
        if (run->ranks[rr].ncalls)
            return true;
    return false;
}

int sp__cmp_run_keys(sp__cmp_run *r, const sp_run *run, bool tree, unsigned need,
                     sp__cmp_keys *keys)
{
    memset(r, 0, sizeof *r);
    r->run = run;
    r->tree = tree;
    r->nranks = run->nranks;
    need |= tree ? SP_AGG_NODE_HIST : 0;
    if (run->agg && (run->agg->flags & need) == need && run->agg->nranks == run->nranks) {
        r->agg = run->agg;
    } else if (calls_in_memory(run) || sp_run_total_calls(run) == 0) {
        int rc = own_aggregates(r, run, need);
        if (rc)
            return sp__error(rc, "%s", rc == SP_ENOMEM ? "out of memory comparing runs"
                                                       : sp_last_error());
    } else {
        return sp__error(SP_EINVAL, "compare: %s was read without the comparison's aggregates",
                         run->source_path ? run->source_path : "a run");
    }
    int rc = tree ? path_keys(r, run, keys) : region_keys(r, run, keys);
    return rc ? sp__error(SP_ENOMEM, "out of memory comparing runs") : 0;
}

/* Per key, what one rank adds up before it is averaged into the run's. */
typedef struct rank_acc {
    int64_t *ns;
    double *wait_ns, *seg_ns; /* seg: SP__CMP_SEGMENTS per key */
    uint64_t *calls;
    uint32_t *threads;
} rank_acc;

static void rank_acc_free(rank_acc *a)
{
    free(a->ns), free(a->wait_ns), free(a->seg_ns), free(a->calls), free(a->threads);
}

static int rank_acc_alloc(rank_acc *a, size_t nkeys)
{
    size_t n = nkeys ? nkeys : 1;
    a->ns = calloc(n, sizeof *a->ns);
    a->wait_ns = calloc(n, sizeof *a->wait_ns);
    a->seg_ns = calloc(n * SP__CMP_SEGMENTS, sizeof *a->seg_ns);
    a->calls = calloc(n, sizeof *a->calls);
    a->threads = calloc(n, sizeof *a->threads);
    return a->ns && a->wait_ns && a->seg_ns && a->calls && a->threads ? 0 : SP_ENOMEM;
}

/* Key k's segments and waits on the rank (own: index 1 of sp_agg_segs). */
static void acc_segs(rank_acc *a, int32_t k, const sp_agg_segs *sg, bool own)
{
    a->wait_ns[k] += sg->wait_ns[own];
    for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
        a->seg_ns[(size_t)k * SP__CMP_SEGMENTS + j] += sg->time_ns[own][j];
}

/* One rank's regions (or paths) into acc and the histograms. */
static void rank_add(sp__cmp_run *r, size_t rank, bool own, rank_acc *a)
{
    const sp_agg_rank *ar = &r->agg->ranks[rank];
    if (!r->tree) {
        for (size_t i = 0; i < ar->nregions; i++) {
            const sp_agg_region *g = &ar->regions[i];
            int32_t k = g->region >= 0 && (size_t)g->region < r->run->nregions
                            ? r->region_key[g->region] : -1;
            if (k < 0 || !g->calls)
                continue;
            /* Every call's time (a call inside one of its region counts again). */
            a->ns[k] += own ? g->own_ns : g->all_ns;
            a->calls[k] += g->calls;
            a->threads[k] += g->nthreads;
            acc_segs(a, k, &g->segs, own);
            r->hist[(size_t)k * r->nranks + rank] = own ? &g->own_hist : &g->hist;
        }
        return;
    }
    /* A path's cells: one per thread that ran it. */
    const int32_t *nk = r->node_key[rank];
    for (size_t c = 0; c < ar->nnode_cells; c++) {
        const sp_agg_cell *cell = &ar->node_cells[c];
        int32_t k = cell->key >= 0 && (size_t)cell->key < ar->nnodes ? nk[cell->key] : -1;
        if (k < 0 || !cell->calls)
            continue;
        a->ns[k] += own ? cell->own_ns : cell->incl_ns;
        a->calls[k] += cell->calls;
        a->threads[k]++;
    }
    for (size_t i = 0; i < ar->nnode_hists; i++) {
        const sp_agg_node_hist *h = &ar->node_hists[i];
        int32_t k = h->node >= 0 && (size_t)h->node < ar->nnodes ? nk[h->node] : -1;
        if (k < 0)
            continue;
        acc_segs(a, k, &h->segs, own);
        r->hist[(size_t)k * r->nranks + rank] = own ? &h->own_hist : &h->hist;
    }
}

/* A rank's sums of one key (ns, waits, segments: ns; calls; threads)
 * averaged per thread into the run's figures of the key. */
static void fold_key(sp__cmp_fig *f, int64_t ns, double wait_ns, const double *seg_ns,
                     uint64_t calls, uint32_t threads)
{
    double per = (double)ns * NS_TO_S / (double)threads;
    f->calls += calls;
    f->calls_per_rank += (double)calls / (double)threads;
    f->time_mean_s += per;
    f->wait_s += wait_ns * NS_TO_S / (double)threads;
    for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
        f->seg_s[j] += seg_ns[j] * NS_TO_S / (double)threads;
    if (per > f->time_max_s)
        f->time_max_s = per;
    f->ranks++;
}

/* Average the rank's sums per thread into the run's figures; reset acc. */
static void rank_fold(rank_acc *a, size_t nkeys, sp__cmp_fig *fig)
{
    for (size_t k = 0; k < nkeys; k++) {
        if (!a->calls[k])
            continue;
        double *seg = &a->seg_ns[k * SP__CMP_SEGMENTS];
        fold_key(&fig[k], a->ns[k], a->wait_ns[k], seg, a->calls[k], a->threads[k]);
        memset(seg, 0, SP__CMP_SEGMENTS * sizeof *seg);
        a->ns[k] = 0;
        a->wait_ns[k] = 0;
        a->calls[k] = 0;
        a->threads[k] = 0;
    }
}

/* A rank's regions each once (by region id, as the pass writes them). */
static bool regions_ascending(const sp_agg_rank *ar)
{
    for (size_t i = 1; i < ar->nregions; i++)
        if (ar->regions[i].region <= ar->regions[i - 1].region)
            return false;
    return true;
}

/* One rank's regions straight into the run's figures, when each key is
 * one region's (unique_keys): every key's sums are that region's alone,
 * so nothing is added up per key first (the sums of 10^6 keys, and a pass
 * over all of them per rank, cost more than the figures). The same
 * arithmetic as rank_add + rank_fold: a sum of one value is that value. */
static void rank_direct(sp__cmp_run *r, size_t rank, bool own)
{
    const sp_agg_rank *ar = &r->agg->ranks[rank];
    for (size_t i = 0; i < ar->nregions; i++) {
        const sp_agg_region *g = &ar->regions[i];
        int32_t k =
            g->region >= 0 && (size_t)g->region < r->run->nregions ? r->region_key[g->region] : -1;
        if (k < 0 || !g->calls)
            continue;
        double seg[SP__CMP_SEGMENTS];
        for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
            seg[j] = 0.0 + g->segs.time_ns[own][j]; /* as added to a zero sum */
        fold_key(&r->fig[k], own ? g->own_ns : g->all_ns, 0.0 + g->segs.wait_ns[own], seg, g->calls,
                 g->nthreads);
        r->hist[(size_t)k * r->nranks + rank] = own ? &g->own_hist : &g->hist;
    }
}

/* Threads of the rank that made calls. */
static size_t busy_threads(const sp_agg_rank *ar)
{
    size_t n = 0;
    /* Region cells come by thread, then region. */
    for (size_t i = 0; i < ar->nregion_cells; i++)
        n += i == 0 || ar->region_cells[i].thread != ar->region_cells[i - 1].thread;
    return n;
}

int sp__cmp_run_figures(sp__cmp_run *r, size_t nkeys, bool own)
{
    const sp_run *run = r->run;
    rank_acc a = {0};
    bool direct = !r->tree && r->unique_keys;
    r->fig = calloc(nkeys ? nkeys : 1, sizeof *r->fig);
    r->nkeys = nkeys;
    r->hist = calloc(nkeys * r->nranks + 1, sizeof *r->hist); /* NULL: no calls */
    if (direct)
        for (size_t rr = 0; rr < r->nranks && rr < r->agg->nranks && direct; rr++)
            direct = regions_ascending(&r->agg->ranks[rr]);
    if (!r->fig || !r->hist || (!direct && rank_acc_alloc(&a, nkeys))) {
        rank_acc_free(&a);
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    }
    for (size_t rr = 0; rr < r->nranks && rr < r->agg->nranks; rr++) {
        if (!r->agg->ranks[rr].read)
            continue;
        if (direct) {
            rank_direct(r, rr, own);
        } else {
            rank_add(r, rr, own, &a);
            rank_fold(&a, nkeys, r->fig);
        }
        size_t busy = busy_threads(&r->agg->ranks[rr]);
        if (busy > r->threads_max)
            r->threads_max = busy;
    }
    for (size_t k = 0; k < nkeys; k++) {
        sp__cmp_fig *f = &r->fig[k];
        if (f->ranks) {
            f->calls_per_rank /= f->ranks;
            f->time_mean_s /= f->ranks;
            f->wait_s /= f->ranks;
            for (size_t j = 0; j < SP__CMP_SEGMENTS; j++)
                f->seg_s[j] /= f->ranks;
        }
    }
    int64_t t0, t1;
    r->span_s = sp_run_time_span(run, &t0, &t1) == 0 ? (double)(t1 - t0) * NS_TO_S : 0;
    sp_sched_run_summary(run, &r->sched, NULL);
    rank_acc_free(&a);
    return 0;
}

const sp_hist sp__cmp_no_hist;

void sp__cmp_run_free(sp__cmp_run *r)
{
    for (size_t rr = 0; r->node_key && rr < r->nranks; rr++)
        free(r->node_key[rr]);
    free(r->node_key);
    free(r->region_key);
    free(r->hist);
    free(r->fig);
    sp_agg_free(r->own_agg);
    sp_event_source_free(r->own_src);
    memset(r, 0, sizeof *r);
}
