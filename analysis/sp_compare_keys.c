/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_keys.c - keys shared by the runs of a comparison, and the
 * per-rank figures and duration histograms of each key in a run, in one
 * pass over its calls (see sp_compare_keys.h).
 */
#include "sp_compare_keys.h"

#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_analysis_internal.h"
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

static int grow_slots(sp__cmp_keys *k)
{
    size_t ns = k->nslots ? 2 * k->nslots : 256;
    int32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return SP_ENOMEM;
    for (size_t i = 0; i < k->n; i++) {
        size_t at = hash_str(k->keys[i].path) & (ns - 1);
        while (slots[at])
            at = (at + 1) & (ns - 1);
        slots[at] = (int32_t)i + 1;
    }
    free(k->slots);
    k->slots = slots;
    k->nslots = ns;
    return 0;
}

int32_t sp__cmp_keys_intern(sp__cmp_keys *k, const char *path, int32_t depth, int32_t parent)
{
    if (2 * (k->n + 1) > k->nslots && grow_slots(k))
        return -1;
    size_t at = hash_str(path) & (k->nslots - 1);
    while (k->slots[at]) {
        int32_t i = k->slots[at] - 1;
        if (strcmp(k->keys[i].path, path) == 0)
            return i;
        at = (at + 1) & (k->nslots - 1);
    }
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        sp__cmp_key *keys = realloc(k->keys, cap * sizeof *keys);
        if (!keys)
            return -1;
        k->keys = keys;
        k->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    const char *last = strrchr(copy, SP__CMP_PATH_SEP);
    k->keys[k->n] = (sp__cmp_key){copy, last ? last + 1 : copy, depth, parent};
    k->slots[at] = (int32_t)k->n + 1;
    return (int32_t)k->n++;
}

void sp__cmp_keys_free(sp__cmp_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i].path);
    free(k->keys);
    free(k->slots);
    memset(k, 0, sizeof *k);
}

/* ---------------------------------------------------------------- runs */

/* Which regions (or tree nodes) have calls in the run. */
static bool *local_used(const sp_run *run, size_t nlocal, bool tree)
{
    bool *used = calloc(nlocal ? nlocal : 1, sizeof *used);
    if (!used)
        return NULL;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++) {
            int32_t l = tree ? rk->tree_node[i] : rk->region[i];
            if (l >= 0 && (size_t)l < nlocal)
                used[l] = true;
        }
    }
    return used;
}

static int tree_keys(sp__cmp_run *r, const sp_run *run, const bool *used, sp__cmp_keys *keys)
{
    const sp_tree *t = &run->tree;
    /* Breadth-first from the root, so a parent's key exists before its
     * children's; a path's key is its parent's path + SEP + name. */
    int32_t *queue = malloc(t->nnodes * sizeof *queue);
    if (!queue)
        return SP_ENOMEM;
    size_t head = 0, tail = 0;
    queue[tail++] = 0;
    int rc = 0;
    while (head < tail && !rc) {
        int32_t node = queue[head++];
        for (int32_t c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling) {
            if (tail < t->nnodes)
                queue[tail++] = c;
            int32_t reg = t->nodes[c].region;
            if (!used[c] || reg < 0 || (size_t)reg >= run->nregions)
                continue; /* no calls at this path (or a broken tree) */
            int32_t pk = node == 0 ? -1 : r->local_key[node];
            const char *name = run->region_names[reg];
            char *path = pk < 0 ? strdup(name)
                                : sp__strdup_printf("%s%c%s", keys->keys[pk].path,
                                                    SP__CMP_PATH_SEP, name);
            int32_t depth = pk < 0 ? 1 : keys->keys[pk].depth + 1;
            int32_t k = path ? sp__cmp_keys_intern(keys, path, depth, pk) : -1;
            free(path);
            if (k < 0)
                rc = SP_ENOMEM;
            r->local_key[c] = k;
        }
    }
    free(queue);
    return rc;
}

int sp__cmp_run_keys(sp__cmp_run *r, const sp_run *run, bool tree, sp__cmp_keys *keys)
{
    memset(r, 0, sizeof *r);
    r->run = run;
    if (tree && !run->analyzed)
        return sp__error(SP_EINVAL, "compare: call paths need an analyzed run");
    r->nlocal = tree ? run->tree.nnodes : run->nregions;
    r->local_key = malloc((r->nlocal ? r->nlocal : 1) * sizeof *r->local_key);
    bool *used = r->local_key ? local_used(run, r->nlocal, tree) : NULL;
    if (!used) {
        free(r->local_key);
        r->local_key = NULL;
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    }
    for (size_t l = 0; l < r->nlocal; l++)
        r->local_key[l] = -1;
    int rc = 0;
    if (tree && r->nlocal) {
        rc = tree_keys(r, run, used, keys);
    } else if (!tree) {
        for (size_t g = 0; g < r->nlocal && !rc; g++) {
            if (!used[g])
                continue;
            r->local_key[g] = sp__cmp_keys_intern(keys, run->region_names[g], 0, -1);
            if (r->local_key[g] < 0)
                rc = SP_ENOMEM;
        }
    }
    free(used);
    return rc ? sp__error(SP_ENOMEM, "out of memory comparing runs") : 0;
}

void sp__cmp_own_durations(const sp_rank_data *rk, int64_t *own)
{
    for (size_t i = 0; i < rk->ncalls; i++)
        own[i] = rk->end_ns[i] - rk->start_ns[i];
    for (size_t i = 0; i < rk->ncalls; i++) {
        int64_t p = sp__valid_parent(rk, i);
        if (p >= 0)
            own[p] -= rk->end_ns[i] - rk->start_ns[i];
    }
}

static size_t max_rank_calls(const sp_run *run)
{
    size_t m = 0;
    for (size_t r = 0; r < run->nranks; r++)
        m = run->ranks[r].ncalls > m ? run->ranks[r].ncalls : m;
    return m;
}

/* First start and last end of the rank's calls: its segments' span. */
static void rank_span(const sp_rank_data *rk, int64_t *t0, int64_t *t1)
{
    *t0 = INT64_MAX, *t1 = INT64_MIN;
    for (size_t i = 0; i < rk->ncalls; i++) {
        *t0 = rk->start_ns[i] < *t0 ? rk->start_ns[i] : *t0;
        *t1 = rk->end_ns[i] > *t1 ? rk->end_ns[i] : *t1;
    }
}

/* Per key, what one rank adds up before it is averaged into the run's. */
typedef struct rank_acc {
    int64_t *ns;
    double *wait_ns, *seg_ns; /* seg: SP__CMP_SEGMENTS per key */
    uint64_t *calls;
    uint32_t *threads;
    int64_t *last;
} rank_acc;

static void rank_acc_free(rank_acc *a)
{
    free(a->ns), free(a->wait_ns), free(a->seg_ns), free(a->calls), free(a->threads),
        free(a->last);
}

static int rank_acc_alloc(rank_acc *a, size_t nkeys)
{
    size_t n = nkeys ? nkeys : 1;
    a->ns = calloc(n, sizeof *a->ns);
    a->wait_ns = calloc(n, sizeof *a->wait_ns);
    a->seg_ns = calloc(n * SP__CMP_SEGMENTS, sizeof *a->seg_ns);
    a->calls = calloc(n, sizeof *a->calls);
    a->threads = calloc(n, sizeof *a->threads);
    a->last = malloc(n * sizeof *a->last);
    if (!a->ns || !a->wait_ns || !a->seg_ns || !a->calls || !a->threads || !a->last)
        return SP_ENOMEM;
    for (size_t k = 0; k < n; k++)
        a->last[k] = -1;
    return 0;
}

/* One rank's calls into acc (times of calls, their estimated waits for a
 * CPU, by segment). owns: the rank's own durations or NULL (inclusive). */
static int rank_add(sp__cmp_run *r, size_t rank, bool tree, const int64_t *owns,
                    const sp_sched_index *ix, int64_t stamp_base, rank_acc *a)
{
    const sp_rank_data *rk = &r->run->ranks[rank];
    int rc = 0;
    int64_t t0, t1;
    rank_span(rk, &t0, &t1);
    double seg_per_ns = t1 > t0 ? SP__CMP_SEGMENTS / (double)(t1 - t0) : 0;
    /* Calls come ordered by thread, so a (key, thread) pair is one run of
     * calls: count a thread when the key's last thread changes. */
    for (size_t i = 0; i < rk->ncalls; i++) {
        int32_t k = sp__cmp_call_key(r, rk, i, tree);
        if (k < 0)
            continue;
        int64_t d = owns ? owns[i] : rk->end_ns[i] - rk->start_ns[i];
        if (!rc)
            rc = sp_hist_add(&r->hist[(size_t)k * r->nranks + rank], d);
        double w = (double)d * sp_sched_share_at(ix, rk->thread[i], rk->start_ns[i]);
        size_t j = (size_t)((double)(rk->start_ns[i] - t0) * seg_per_ns);
        a->ns[k] += d;
        a->wait_ns[k] += w;
        a->seg_ns[(size_t)k * SP__CMP_SEGMENTS + (j < SP__CMP_SEGMENTS ? j : SP__CMP_SEGMENTS - 1)] +=
            (double)d;
        a->calls[k]++;
        int64_t stamp = stamp_base + rk->thread[i];
        if (a->last[k] != stamp) {
            a->last[k] = stamp;
            a->threads[k]++;
        }
    }
    return rc;
}

/* Average the rank's sums per thread into the run's figures; reset acc. */
static void rank_fold(rank_acc *a, size_t nkeys, sp__cmp_fig *fig)
{
    for (size_t k = 0; k < nkeys; k++) {
        if (!a->calls[k])
            continue;
        sp__cmp_fig *f = &fig[k];
        double per = (double)a->ns[k] * NS_TO_S / (double)a->threads[k];
        f->calls += a->calls[k];
        f->calls_per_rank += (double)a->calls[k] / (double)a->threads[k];
        f->time_mean_s += per;
        f->wait_s += a->wait_ns[k] * NS_TO_S / (double)a->threads[k];
        for (size_t j = 0; j < SP__CMP_SEGMENTS; j++) {
            double *s = &a->seg_ns[k * SP__CMP_SEGMENTS + j];
            f->seg_s[j] += *s * NS_TO_S / (double)a->threads[k];
            *s = 0;
        }
        if (per > f->time_max_s)
            f->time_max_s = per;
        f->ranks++;
        a->ns[k] = 0;
        a->wait_ns[k] = 0;
        a->calls[k] = 0;
        a->threads[k] = 0;
    }
}

int sp__cmp_run_figures(sp__cmp_run *r, size_t nkeys, bool tree, bool own)
{
    const sp_run *run = r->run;
    size_t maxcalls = max_rank_calls(run);
    rank_acc a = {0};
    r->fig = calloc(nkeys ? nkeys : 1, sizeof *r->fig);
    r->nkeys = nkeys;
    r->nranks = run->nranks;
    r->hist = calloc(nkeys * run->nranks + 1, sizeof *r->hist); /* zeroed: empty */
    int64_t *owns = own ? malloc((maxcalls ? maxcalls : 1) * sizeof *owns) : NULL;
    if (!r->fig || !r->hist || rank_acc_alloc(&a, nkeys) || (own && !owns)) {
        rank_acc_free(&a);
        free(owns);
        return sp__error(SP_ENOMEM, "out of memory comparing runs");
    }
    int64_t stamp_base = 0; /* thread stamps never repeat across ranks */
    int rc = 0;
    for (size_t rr = 0; rr < run->nranks && !rc; rr++) {
        const sp_rank_data *rk = &run->ranks[rr];
        sp_sched_index ix;
        if ((rc = sp_sched_index_build(rk, &ix)))
            break;
        if (own)
            sp__cmp_own_durations(rk, owns);
        rc = rank_add(r, rr, tree, owns, &ix, stamp_base, &a);
        sp_sched_index_free(&ix);
        rank_fold(&a, nkeys, r->fig);
        /* Threads that ran something (calls come grouped by thread). */
        size_t busy = 0;
        for (size_t i = 0; i < rk->ncalls; i++)
            busy += i == 0 || rk->thread[i] != rk->thread[i - 1];
        if (busy > r->threads_max)
            r->threads_max = busy;
        stamp_base += (int64_t)rk->nthreads + (int64_t)INT32_MAX + 1;
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
    free(owns);
    return rc ? sp__error(SP_ENOMEM, "out of memory comparing runs") : 0;
}

void sp__cmp_run_free(sp__cmp_run *r)
{
    for (size_t i = 0; r->hist && i < r->nkeys * r->nranks; i++)
        sp_hist_free(&r->hist[i]);
    free(r->hist);
    free(r->local_key);
    free(r->fig);
    memset(r, 0, sizeof *r);
}

