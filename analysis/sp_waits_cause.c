/* SPDX-License-Identifier: MIT */
/*
 * sp_waits_cause.c - what made the late rank late (sp_waits.h, "Causes"):
 * for each wait of rank W for rank L, the regions L spent more time in than
 * W since they last synchronised with each other.
 *
 * The only part of the waits analysis that needs the program's calls: the
 * own time per call path (per region when the run has no call tree) of one
 * thread of one rank in a time interval, interval_regions(), one pass over
 * the calls of that interval: found by binary search in the full-run model
 * (sp_run) when the calls are in memory, else loaded as a window from the
 * run's source (sp_window.h: aggregate-first runs, bounded by
 * SP_WAITS_WINDOW_CALLS).
 *
 * Call paths, not regions: "CalcHourglassControlForElems >
 * CalcElemVolumeDerivative" says where the late rank's extra time went
 * where a region name alone may be shared by several callers.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_waits_internal.h"
#include "sp_window.h"

/* A moment a rank synchronised: the end of an MPI call with records, with
 * one peer (point to point) or with a communicator's members. */
typedef struct sync_point {
    int64_t exit;   /* the rank's own clock */
    int32_t peer;   /* world rank, or -1: collective */
    int32_t gcomm;  /* the collective's global communicator */
} sync_point;

static int cmp_sync(const void *a, const void *b)
{
    const sync_point *x = a, *y = b;
    return x->exit < y->exit ? -1 : x->exit > y->exit;
}

/* How far back to look for the last synchronisation with a given rank;
 * beyond, the interval starts at the thread's first call. */
#define SYNC_LOOKBACK 4096

/* The last time rank `me` synchronised with `other` before t (its clock),
 * or INT64_MIN. */
static int64_t last_sync(const sp__waits_ctx *c, const sync_point *v, size_t n, int32_t other,
                         int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first point ending after t */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].exit <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; lo > 0 && k < SYNC_LOOKBACK; k++) {
        const sync_point *s = &v[--lo];
        if (s->peer >= 0 ? s->peer == other : sp__waits_in_comm(c, s->gcomm, other))
            return s->exit;
    }
    return INT64_MIN;
}

static sync_point *sync_points(const sp__waits_ctx *c, size_t r, size_t *n)
{
    const sp_mpi_rank *rk = &c->d->ranks[r];
    sync_point *v = malloc((rk->p2p.n + rk->coll.n + 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < rk->p2p.n; i++)
        if (rk->p2p.peer[i] >= 0 && rk->p2p.kind[i] != SP_MPI_KIND_PROBE)
            v[k++] = (sync_point){rk->p2p.done_exit[i], rk->p2p.peer[i], -1};
    for (size_t i = 0; i < rk->coll.n; i++)
        v[k++] = (sync_point){rk->coll.exit[i], -1, c->gcomm[r][rk->coll.comm[i]]};
    qsort(v, k, sizeof *v, cmp_sync);
    *n = k;
    return v;
}

/* ---------------------------------------------------------------- own time in an interval */

/* Own time per region, summed into acc; the regions touched are listed
 * once each in touched[0..nt) (stamp[g] == gen), so clearing costs what
 * was touched, not the number of regions. */
typedef struct region_acc {
    double *acc;
    int32_t *touched;
    uint32_t *stamp, gen;
    size_t nt, cap;
} region_acc;

static void acc_add(region_acc *a, int32_t region, double s)
{
    if (a->stamp[region] != a->gen) {
        a->stamp[region] = a->gen;
        a->touched[a->nt++] = region;
    }
    a->acc[region] += s;
}

static void acc_clear(region_acc *a)
{
    for (size_t i = 0; i < a->nt; i++)
        a->acc[a->touched[i]] = 0.0;
    a->nt = 0;
    if (++a->gen == 0) { /* wrapped: no stale stamp may equal it */
        a->gen = 1;
        memset(a->stamp, 0, a->cap * sizeof *a->stamp);
    }
}

static int64_t overlap(int64_t s, int64_t e, int64_t t0, int64_t t1)
{
    int64_t a = s > t0 ? s : t0, b = e < t1 ? e : t1;
    return b > a ? b - a : 0;
}

/* The own time per region of `thread` of rank rk in [t0, t1]: each call's
 * overlap with the interval goes to its region and comes off its parent's.
 * The calls found are those open at t0 (the ancestors of the last call
 * started by then) and those started in the interval. */
static void interval_regions_mem(const sp_rank_data *rk, const int32_t *key, int32_t thread,
                                 int64_t t0, int64_t t1, region_acc *a)
{
    size_t lo = 0, hi = rk->ncalls;
    while (lo < hi) { /* the thread's first call */
        size_t mid = lo + (hi - lo) / 2;
        if (rk->thread[mid] < thread)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t first = lo;
    hi = rk->ncalls;
    while (lo < hi) { /* the first call of the thread starting after t0 */
        size_t mid = lo + (hi - lo) / 2;
        if (rk->thread[mid] == thread && rk->start_ns[mid] <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t next = lo;
    /* Open at t0: the last call started by then and its ancestors. */
    if (next > first) {
        for (int64_t i = (int64_t)next - 1; i >= 0; i = rk->parent[i]) {
            int64_t ov = overlap(rk->start_ns[i], rk->end_ns[i], t0, t1);
            if (ov <= 0)
                continue;
            acc_add(a, key[i], sp__ns_s(ov));
            if (rk->parent[i] >= 0)
                acc_add(a, key[rk->parent[i]], -sp__ns_s(ov));
        }
    }
    for (size_t i = next; i < rk->ncalls && rk->thread[i] == thread && rk->start_ns[i] < t1; i++) {
        int64_t ov = overlap(rk->start_ns[i], rk->end_ns[i], t0, t1);
        acc_add(a, key[i], sp__ns_s(ov));
        if (rk->parent[i] >= 0)
            acc_add(a, key[rk->parent[i]], -sp__ns_s(ov));
    }
}

/* ---------------------------------------------------------------- charging */

typedef struct cause_state {
    region_acc late, waiter;
    bool by_path;            /* keys are call-tree nodes (else region ids) */
    size_t nkeys;
    bool *mpi;               /* keys that are MPI calls: never a cause */
    char **name;             /* the text of each key, made when first charged */
    /* the late rank's last interval (instances of one collective share it) */
    int32_t cached_rank, cached_thread;
    int64_t cached_t0, cached_t1;
    struct lane_window *windows; /* per rank: its last window (calls not in memory) */
} cause_state;

/* A rank's last window of calls (one thread's) and its calls' keys: the
 * waits come in time order, so the next interval of the rank usually lies
 * in the window loaded for the last one with some time ahead. */
typedef struct lane_window {
    sp_window *w;
    int32_t *key;
} lane_window;

static void lane_window_clear(lane_window *lw)
{
    sp_window_free(lw->w);
    free(lw->key);
    lw->w = NULL;
    lw->key = NULL;
}

/* Per call: its key (tree node or region). */
static const int32_t *keys_of(const cause_state *st, const sp_rank_data *rk)
{
    return st->by_path ? rk->tree_node : rk->region;
}

/* The tree node of region under node parent, or -1. */
static int32_t child_node(const sp_tree *t, int32_t parent, int32_t region)
{
    for (int32_t k = t->nodes[parent].first_child; k >= 0; k = t->nodes[k].next_sibling)
        if (t->nodes[k].region == region)
            return k;
    return -1;
}

/* The tree node of each call of window w (its region under its window
 * parent's node; the calls open at the window's start are in it, so paths
 * are complete), or its region; -1 for none. */
static int32_t *window_keys(const sp_run *run, const cause_state *st, const sp_window *w)
{
    int32_t *key = malloc((w->n ? w->n : 1) * sizeof *key);
    for (size_t i = 0; key && i < w->n; i++) {
        int64_t p = w->parent[i];
        int32_t g = w->region[i];
        if (g < 0 || (size_t)g >= run->nregions)
            key[i] = -1;
        else if (!st->by_path)
            key[i] = g;
        else if (p < 0)
            key[i] = child_node(&run->tree, 0, g);
        else
            key[i] = key[p] < 0 ? -1 : child_node(&run->tree, key[p], g);
    }
    return key;
}

/* How far past an interval a window is loaded, in multiples of the
 * interval: the rank's next intervals then come from the same window. */
#define WINDOW_AHEAD 8

/* A window of (rank, thread) that holds every call overlapping [a, b]
 * (aligned clocks; a == INT64_MIN: from the first call): the rank's last
 * one when it covers the interval, else one loaded with time ahead (without
 * it if that would pass SP_WAITS_WINDOW_CALLS). */
static int lane_window_get(const sp__waits_ctx *c, cause_state *st, int32_t rank,
                           int32_t thread, int64_t a, int64_t b, lane_window **out)
{
    lane_window *lw = &st->windows[rank];
    if (lw->w && lw->w->thread == thread && !lw->w->truncated && lw->w->t0_ns <= a &&
        b <= lw->w->t1_ns) {
        *out = lw;
        return 0;
    }
    lane_window_clear(lw);
    int64_t ahead = a == INT64_MIN || b - a > INT64_MAX / (2 * WINDOW_AHEAD) ? 0
                                                                           : WINDOW_AHEAD * (b - a);
    if (ahead > INT64_MAX - b)
        ahead = INT64_MAX - b;
    int rc = sp_window_load(c->src, c->run->agg, (size_t)rank, thread, a, b + ahead,
                            SP_WAITS_WINDOW_CALLS, &lw->w);
    if (rc == 0 && lw->w->truncated && ahead) {
        sp_window_free(lw->w);
        lw->w = NULL;
        rc = sp_window_load(c->src, c->run->agg, (size_t)rank, thread, a, b,
                            SP_WAITS_WINDOW_CALLS, &lw->w);
    }
    if (rc)
        return rc;
    if (!(lw->key = window_keys(c->run, st, lw->w))) {
        lane_window_clear(lw);
        return SP_ENOMEM;
    }
    *out = lw;
    return 0;
}

/* interval_regions_mem for a rank whose calls are not in memory: the calls
 * of a window (clocks aligned to rank 0 there, the rank's own here) that
 * overlap the interval. A window cut at SP_WAITS_WINDOW_CALLS gives the
 * interval's first calls only. */
static int interval_regions_window(const sp__waits_ctx *c, cause_state *st, int32_t rank,
                                   int32_t thread, int64_t t0, int64_t t1, region_acc *a)
{
    int64_t off = c->off[rank];
    /* No synchronisation found: from the thread's first call (a start far
     * enough back that adding the offset cannot overflow). */
    lane_window *lw;
    int rc = lane_window_get(c, st, rank, thread, t0 == INT64_MIN ? INT64_MIN / 4 : t0 + off,
                             t1 + off, &lw);
    if (rc == SP_ENOENT) /* a thread without calls */
        return 0;
    if (rc)
        return rc;
    const sp_window *w = lw->w;
    for (size_t i = 0; i < w->n; i++) {
        int64_t ov = overlap(w->start_ns[i] - off, w->end_ns[i] - off, t0, t1);
        if (ov <= 0)
            continue;
        int64_t p = w->parent[i];
        if (lw->key[i] >= 0)
            acc_add(a, lw->key[i], sp__ns_s(ov));
        if (p >= 0 && lw->key[p] >= 0)
            acc_add(a, lw->key[p], -sp__ns_s(ov));
    }
    return 0;
}

/* The own time per key of (rank, thread) in [t0, t1], into a. */
static int interval_regions(const sp__waits_ctx *c, cause_state *st, int32_t rank,
                            int32_t thread, int64_t t0, int64_t t1, region_acc *a)
{
    const sp_rank_data *rk = &c->run->ranks[rank];
    if (rk->ncalls || !c->src) {
        interval_regions_mem(rk, keys_of(st, rk), thread, t0, t1, a);
        return 0;
    }
    return interval_regions_window(c, st, rank, thread, t0, t1, a);
}

/* "main > step > compute" for a tree node. */
static char *node_text(const sp_run *run, int32_t node)
{
    size_t len = 1;
    for (int32_t k = node; k > 0; k = run->tree.nodes[k].parent)
        len += strlen(run->region_names[run->tree.nodes[k].region]) + 3;
    char *s = malloc(len), *end = s + len - 1;
    if (!s)
        return NULL;
    *end = '\0';
    for (int32_t k = node; k > 0; k = run->tree.nodes[k].parent) {
        const char *nm = run->region_names[run->tree.nodes[k].region];
        size_t n = strlen(nm);
        if (end != s + len - 1) {
            end -= 3;
            memcpy(end, " > ", 3);
        }
        end -= n;
        memcpy(end, nm, n);
    }
    memmove(s, end, strlen(end) + 1);
    return s;
}

static const char *key_name(const sp_run *run, cause_state *st, int32_t k)
{
    if (!st->by_path)
        return run->region_names[k];
    if (!st->name[k])
        st->name[k] = node_text(run, k);
    return st->name[k];
}

/* One cause of one wait: a key (call path or region) of a rank. */
typedef struct inst_cause {
    int32_t rank, key;
    double s;      /* the wait charged to it */
    double excess; /* how much longer the late rank was there (direct causes) */
    double via;    /* of s, what came through a rank that waited for it */
} inst_cause;

/* Causes kept per wait (the largest; the rest are merged into nothing:
 * they only ever matter through propagation, in proportion). */
#define KEEP_CAUSES 8

typedef struct wait_causes {
    inst_cause *v;           /* every processed wait's causes, wait by wait */
    size_t n, cap;
    size_t *first, *count;   /* per wait: where its causes are */
    bool *done;              /* per wait: processed */
    size_t **by_rank;        /* per rank: its waits (as waiter), by enter on its clock */
    size_t *nby_rank;
    inst_cause *tmp;         /* one wait's causes being gathered */
    size_t ntmp, tmpcap;
} wait_causes;

static int tmp_add(wait_causes *wc, int32_t rank, int32_t key, double s, double excess, double via)
{
    for (size_t i = 0; i < wc->ntmp; i++)
        if (wc->tmp[i].rank == rank && wc->tmp[i].key == key) {
            wc->tmp[i].s += s;
            wc->tmp[i].excess += excess;
            wc->tmp[i].via += via;
            return 0;
        }
    if (wc->ntmp == wc->tmpcap) {
        size_t cap = wc->tmpcap ? 2 * wc->tmpcap : 32;
        inst_cause *p = realloc(wc->tmp, cap * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        wc->tmp = p;
        wc->tmpcap = cap;
    }
    wc->tmp[wc->ntmp++] = (inst_cause){rank, key, s, excess, via};
    return 0;
}

static int by_share(const void *a, const void *b)
{
    const inst_cause *x = a, *y = b;
    return x->s < y->s ? 1 : x->s > y->s ? -1 : 0;
}

/* The waits rank r made (as the waiter) that began in [t0, t1] on its
 * clock and are already charged: their causes, gathered in proportion so
 * that `avail` seconds of them go into the current wait's list. */
static int propagate(const sp__waits_ctx *c, wait_causes *wc, int32_t r, int64_t t0, int64_t t1,
                     double avail, double *used)
{
    const size_t *v = wc->by_rank[r];
    size_t n = wc->nby_rank[r], lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->inst[v[mid]].waiter_enter < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    double waited = 0, charged = 0;
    for (size_t k = lo; k < n && c->inst[v[k]].waiter_enter <= t1; k++) {
        size_t j = v[k];
        if (!wc->done[j])
            continue;
        waited += c->inst[j].wait_s;
        for (size_t q = 0; q < wc->count[j]; q++)
            charged += wc->v[wc->first[j] + q].s;
    }
    *used = 0;
    if (charged <= 0 || waited <= 0)
        return 0;
    double take = avail < waited ? avail : waited, f = take / charged;
    if (f > 1)
        f = 1; /* never more than those waits were charged */
    for (size_t k = lo; k < n && c->inst[v[k]].waiter_enter <= t1; k++) {
        size_t j = v[k];
        if (!wc->done[j])
            continue;
        for (size_t q = 0; q < wc->count[j]; q++) {
            const inst_cause *x = &wc->v[wc->first[j] + q];
            int rc = tmp_add(wc, x->rank, x->key, x->s * f, 0, x->s * f);
            if (rc)
                return rc;
            *used += x->s * f;
        }
    }
    return 0;
}

/* Keep the wait's gathered causes (the largest KEEP_CAUSES). */
static int keep(wait_causes *wc, size_t i)
{
    if (wc->ntmp) /* tmp may be NULL when no cause was gathered */
        qsort(wc->tmp, wc->ntmp, sizeof *wc->tmp, by_share);
    size_t n = wc->ntmp < KEEP_CAUSES ? wc->ntmp : KEEP_CAUSES;
    if (wc->n + n > wc->cap) {
        size_t cap = wc->cap ? 2 * wc->cap : 256;
        while (cap < wc->n + n)
            cap *= 2;
        inst_cause *p = realloc(wc->v, cap * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        wc->v = p;
        wc->cap = cap;
    }
    if (n)
        memcpy(wc->v + wc->n, wc->tmp, n * sizeof *wc->tmp);
    wc->first[i] = wc->n;
    wc->count[i] = n;
    wc->n += n;
    wc->done[i] = true;
    return 0;
}

/* Charge wait i: the regions where the late rank spent more time than the
 * waiting one since they last synchronised (directly), then, for what that
 * does not explain, the causes of the waits the late rank itself made in
 * that interval (it was late because it waited: the delay propagates, as
 * in Scalasca's long-term delay costs). */
static int charge(sp__waits_ctx *c, cause_state *st, wait_causes *wc, size_t i, int64_t w0,
                  int64_t l0)
{
    const sp_run *run = c->run;
    const sp__wait_inst *in = &c->inst[i];
    int rc;
    if (!(st->cached_rank == in->late && st->cached_thread == in->late_thread &&
          st->cached_t0 == l0 && st->cached_t1 == in->late_enter)) {
        acc_clear(&st->late);
        st->cached_rank = -1;
        if ((rc = interval_regions(c, st, in->late, in->late_thread, l0, in->late_enter,
                                   &st->late)))
            return rc;
        st->cached_rank = in->late;
        st->cached_thread = in->late_thread;
        st->cached_t0 = l0;
        st->cached_t1 = in->late_enter;
    }
    acc_clear(&st->waiter);
    if ((rc = interval_regions(c, st, in->waiter, in->waiter_thread, w0, in->waiter_enter,
                               &st->waiter)))
        return rc;
    double total = 0;
    for (size_t k = 0; k < st->late.nt; k++) {
        int32_t g = st->late.touched[k];
        double e = st->late.acc[g] - st->waiter.acc[g];
        if (!st->mpi[g] && e > 0)
            total += e;
    }
    /* The wait goes to the regions in proportion to their excess, but no
     * region is charged more than its excess. */
    double scale = total > in->wait_s ? in->wait_s / total : 1.0, direct = 0;
    wc->ntmp = 0;
    for (size_t k = 0; k < st->late.nt && rc == 0 && total > 0; k++) {
        int32_t g = st->late.touched[k];
        double e = st->late.acc[g] - st->waiter.acc[g];
        if (!st->mpi[g] && e > 0) {
            rc = tmp_add(wc, in->late, g, e * scale, e, 0);
            direct += e * scale;
        }
    }
    double used = 0, rest = in->wait_s - direct;
    if (rc == 0 && rest > 0)
        rc = propagate(c, wc, in->late, l0, in->late_enter, rest, &used);
    if (rc == 0)
        rc = keep(wc, i);
    for (size_t k = 0; rc == 0 && k < wc->count[i]; k++) {
        const inst_cause *x = &wc->v[wc->first[i] + k];
        const char *name = key_name(run, st, x->key);
        rc = name ? sp__waits_charge(c, in->row, x->rank, name, x->s, x->excess, x->via)
                  : SP_ENOMEM;
    }
    return rc;
}

/* Waits in the order their waiting ended (on rank 0's clock): a wait of
 * the late rank that delayed it ends before the wait it caused does. */
static int cmp_end(const void *a, const void *b, void *arg)
{
    const sp__waits_ctx *c = arg;
    const sp__wait_inst *x = &c->inst[*(const size_t *)a], *y = &c->inst[*(const size_t *)b];
    int64_t ex = x->waiter_exit + c->off[x->waiter], ey = y->waiter_exit + c->off[y->waiter];
    if (ex != ey)
        return ex < ey ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_enter(const void *a, const void *b, void *arg)
{
    const sp__waits_ctx *c = arg;
    const sp__wait_inst *x = &c->inst[*(const size_t *)a], *y = &c->inst[*(const size_t *)b];
    if (x->waiter_enter != y->waiter_enter)
        return x->waiter_enter < y->waiter_enter ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void wait_causes_free(wait_causes *wc, size_t nr)
{
    for (size_t r = 0; wc->by_rank && r < nr; r++)
        free(wc->by_rank[r]);
    free(wc->by_rank);
    free(wc->nby_rank);
    free(wc->v);
    free(wc->first);
    free(wc->count);
    free(wc->done);
    free(wc->tmp);
}

/* Per rank its waits by enter; every wait not yet charged. */
static int wait_causes_init(const sp__waits_ctx *c, wait_causes *wc, size_t nr)
{
    size_t ni = c->ninst ? c->ninst : 1;
    if (!(wc->first = calloc(ni, sizeof *wc->first)) || !(wc->count = calloc(ni, sizeof *wc->count)) ||
        !(wc->done = calloc(ni, sizeof *wc->done)) ||
        !(wc->by_rank = calloc(nr ? nr : 1, sizeof *wc->by_rank)) ||
        !(wc->nby_rank = calloc(nr ? nr : 1, sizeof *wc->nby_rank)))
        return SP_ENOMEM;
    for (size_t i = 0; i < c->ninst; i++)
        wc->nby_rank[c->inst[i].waiter]++;
    for (size_t r = 0; r < nr; r++)
        if (!(wc->by_rank[r] = malloc((wc->nby_rank[r] ? wc->nby_rank[r] : 1) * sizeof(size_t))))
            return SP_ENOMEM;
    memset(wc->nby_rank, 0, nr * sizeof *wc->nby_rank);
    for (size_t i = 0; i < c->ninst; i++) {
        int32_t r = c->inst[i].waiter;
        wc->by_rank[r][wc->nby_rank[r]++] = i;
    }
    for (size_t r = 0; r < nr; r++)
        qsort_r(wc->by_rank[r], wc->nby_rank[r], sizeof(size_t), cmp_enter, (void *)c);
    return 0;
}

int sp__waits_causes(sp__waits_ctx *c)
{
    const sp_run *run = c->run;
    size_t nr = c->d->nranks;
    sync_point **sync = calloc(nr ? nr : 1, sizeof *sync);
    size_t *nsync = calloc(nr ? nr : 1, sizeof *nsync), *order = NULL;
    wait_causes wc = {0};
    cause_state st = {.cached_rank = -1, .by_path = run->analyzed && run->tree.nnodes > 0};
    for (size_t r = 0; st.by_path && r < run->nranks; r++)
        st.by_path = !run->ranks[r].ncalls || run->ranks[r].tree_node;
    st.nkeys = st.by_path ? run->tree.nnodes : run->nregions;
    size_t ng = st.nkeys ? st.nkeys : 1;
    region_acc *accs[2] = {&st.late, &st.waiter};
    int rc = SP_ENOMEM;
    if (!sync || !nsync || !(st.mpi = calloc(ng, sizeof(bool))) ||
        (st.by_path && !(st.name = calloc(ng, sizeof(char *)))) ||
        !(order = malloc((c->ninst ? c->ninst : 1) * sizeof *order)) ||
        !(st.windows = calloc(nr ? nr : 1, sizeof *st.windows)) ||
        wait_causes_init(c, &wc, nr) != 0)
        goto done;
    for (int k = 0; k < 2; k++) {
        region_acc *a = accs[k];
        a->cap = ng;
        a->gen = 1;
        if (!(a->acc = calloc(ng, sizeof *a->acc)) || !(a->touched = malloc(ng * sizeof *a->touched)) ||
            !(a->stamp = calloc(ng, sizeof *a->stamp)))
            goto done;
    }
    for (size_t k = 0; k < st.nkeys; k++) {
        int32_t region = st.by_path ? run->tree.nodes[k].region : (int32_t)k;
        st.mpi[k] = region < 0 || strncmp(run->region_names[region], "MPI_", 4) == 0;
    }
    for (size_t r = 0; r < nr; r++)
        if (c->d->ranks[r].present && !(sync[r] = sync_points(c, r, &nsync[r])))
            goto done;
    for (size_t i = 0; i < c->ninst; i++)
        order[i] = i;
    qsort_r(order, c->ninst, sizeof *order, cmp_end, c);
    rc = 0;
    for (size_t k = 0; k < c->ninst && rc == 0; k++) {
        const sp__wait_inst *in = &c->inst[order[k]];
        if (!sp__waits_rank_has_calls(c, (size_t)in->late) ||
            !sp__waits_rank_has_calls(c, (size_t)in->waiter))
            continue;
        int64_t w0 = last_sync(c, sync[in->waiter], nsync[in->waiter], in->late, in->waiter_enter);
        int64_t l0 = last_sync(c, sync[in->late], nsync[in->late], in->waiter, in->late_enter);
        rc = charge(c, &st, &wc, order[k], w0, l0);
    }
done:
    for (size_t r = 0; sync && r < nr; r++)
        free(sync[r]);
    free(sync);
    free(nsync);
    free(order);
    wait_causes_free(&wc, nr);
    for (int k = 0; k < 2; k++) {
        free(accs[k]->acc);
        free(accs[k]->touched);
        free(accs[k]->stamp);
    }
    for (size_t k = 0; st.name && k < st.nkeys; k++)
        free(st.name[k]);
    free(st.name);
    free(st.mpi);
    for (size_t r = 0; st.windows && r < nr; r++)
        lane_window_clear(&st.windows[r]);
    free(st.windows);
    return rc;
}
