/* SPDX-License-Identifier: MIT */
/*
 * sp_waits_match.c - matching the ranks' MPI records (sp_waits.h): one id
 * per communicator for every rank, sends to receives by channel and order,
 * collectives by communicator and order; and the waits each match shows.
 *
 * Memory grows with the records (a few tens of bytes per message side),
 * never with the program's calls. Sorting both sides of every channel by
 * (source, destination, communicator, tag, start) lets one merge walk pair
 * the k-th send with the k-th receive of each channel, which is MPI's
 * non-overtaking order.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_waits_internal.h"

/* ---------------------------------------------------------------- communicators */

typedef struct family {
    const int32_t *members; /* one rank's copy */
    size_t n;
    uint64_t hash;
    int32_t *gids;          /* gid of the k-th communicator with these members */
    size_t ngids;
} family;

static uint64_t hash_members(const int32_t *m, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint32_t)m[i]) * 1099511628211ull;
    return h;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* A new global id for family f's next communicator. */
static int32_t new_gid(sp__waits_ctx *c, family *f, size_t *cap)
{
    if (c->ngcomms == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        const int32_t **m = realloc(c->gmembers, nc * sizeof *m);
        if (m)
            c->gmembers = m;
        size_t *s = realloc(c->gsize, nc * sizeof *s);
        if (s)
            c->gsize = s;
        int32_t **so = realloc(c->gsorted, nc * sizeof *so);
        if (so)
            c->gsorted = so;
        if (!m || !s || !so)
            return -1;
        *cap = nc;
    }
    int32_t *gids = realloc(f->gids, (f->ngids + 1) * sizeof *gids);
    int32_t *sorted = malloc((f->n ? f->n : 1) * sizeof *sorted);
    if (gids)
        f->gids = gids;
    if (!gids || !sorted) {
        free(sorted);
        return -1;
    }
    if (f->n) /* members may be NULL when none */
        memcpy(sorted, f->members, f->n * sizeof *sorted);
    qsort(sorted, f->n, sizeof *sorted, cmp_i32);
    size_t g = c->ngcomms++;
    c->gmembers[g] = f->members;
    c->gsize[g] = f->n;
    c->gsorted[g] = sorted;
    f->gids[f->ngids++] = (int32_t)g;
    return (int32_t)g;
}

int sp__waits_comms(sp__waits_ctx *c)
{
    const sp_mpi_data *d = c->d;
    size_t nr = d->nranks, fcap = 0, nf = 0, hcap = 0, gcap = 0;
    family *fam = NULL;
    size_t *slot = NULL, *count = NULL;
    int rc = SP_ENOMEM;
    if (!(c->gcomm = calloc(nr ? nr : 1, sizeof *c->gcomm)))
        return SP_ENOMEM;
    for (size_t r = 0; r < nr; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        if (!rk->present)
            continue;
        if (!(c->gcomm[r] = malloc((rk->ncomms ? rk->ncomms : 1) * sizeof **c->gcomm)))
            goto done;
        /* How many of this rank's communicators each family had so far. */
        free(count);
        if (!(count = calloc(nf + rk->ncomms + 1, sizeof *count)))
            goto done;
        for (size_t i = 0; i < rk->ncomms; i++) {
            size_t n;
            const int32_t *m = sp_mpi_comm_members(rk, i, &n);
            uint64_t h = hash_members(m, n);
            if (2 * (nf + 1) > hcap) {
                size_t nc = hcap ? 2 * hcap : 64;
                size_t *ns = calloc(nc, sizeof *ns);
                if (!ns)
                    goto done;
                for (size_t k = 0; k < nf; k++) {
                    size_t s = (size_t)fam[k].hash & (nc - 1);
                    while (ns[s])
                        s = (s + 1) & (nc - 1);
                    ns[s] = k + 1;
                }
                free(slot);
                slot = ns;
                hcap = nc;
            }
            size_t s = (size_t)h & (hcap - 1);
            for (; slot[s]; s = (s + 1) & (hcap - 1)) {
                const family *f = &fam[slot[s] - 1];
                if (f->hash == h && f->n == n && !memcmp(f->members, m, n * sizeof *m))
                    break;
            }
            if (!slot[s]) {
                if (nf == fcap) {
                    size_t nc = fcap ? 2 * fcap : 16;
                    family *p = realloc(fam, nc * sizeof *p);
                    if (!p)
                        goto done;
                    fam = p;
                    fcap = nc;
                }
                fam[nf] = (family){.members = m, .n = n, .hash = h};
                slot[s] = ++nf;
            }
            size_t f = slot[s] - 1, k = count[f]++;
            int32_t g = k < fam[f].ngids ? fam[f].gids[k] : new_gid(c, &fam[f], &gcap);
            if (g < 0)
                goto done;
            c->gcomm[r][i] = g;
        }
    }
    rc = 0;
done:
    for (size_t i = 0; i < nf; i++)
        free(fam[i].gids);
    free(fam);
    free(slot);
    free(count);
    return rc;
}

bool sp__waits_in_comm(const sp__waits_ctx *c, int32_t g, int32_t r)
{
    const int32_t *m = c->gsorted[g];
    size_t lo = 0, hi = c->gsize[g];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->gsize[g] && m[lo] == r;
}

/* ---------------------------------------------------------------- point to point */

/* One side of a message: its channel, when it was started, where it is. */
typedef struct endpoint {
    int32_t src, dst, gcomm, tag;
    int64_t post;   /* the starting call's enter, on the owner's clock */
    int32_t owner;  /* the rank whose table holds it */
    int32_t msg;    /* the message it matched, or -1 */
    size_t row;
} endpoint;

static int cmp_endpoint(const void *a, const void *b)
{
    const endpoint *x = a, *y = b;
#define CMP(f)                                                                 \
    if (x->f != y->f)                                                          \
        return x->f < y->f ? -1 : 1;
    CMP(src) CMP(dst) CMP(gcomm) CMP(tag) CMP(post) CMP(row)
#undef CMP
    return 0;
}

static bool same_channel(const endpoint *a, const endpoint *b)
{
    return a->src == b->src && a->dst == b->dst && a->gcomm == b->gcomm && a->tag == b->tag;
}

/* Sends (kind) or receives of every rank as endpoints, sorted. */
static endpoint *endpoints(const sp__waits_ctx *c, int kind, size_t *n)
{
    const sp_mpi_data *d = c->d;
    size_t total = 0;
    for (size_t r = 0; r < d->nranks; r++)
        total += d->ranks[r].p2p.n;
    endpoint *e = malloc((total ? total : 1) * sizeof *e);
    if (!e)
        return NULL;
    *n = 0;
    for (size_t r = 0; r < d->nranks; r++) {
        const sp_mpi_p2p *p = &d->ranks[r].p2p;
        for (size_t i = 0; i < p->n; i++) {
            if (p->kind[i] != kind || p->peer[i] < 0)
                continue;
            int32_t me = (int32_t)r;
            e[(*n)++] = (endpoint){.src = kind == SP_MPI_KIND_SEND ? me : p->peer[i],
                                   .dst = kind == SP_MPI_KIND_SEND ? p->peer[i] : me,
                                   .gcomm = c->gcomm[r][p->comm[i]], .tag = p->tag[i],
                                   .post = p->post_enter[i], .owner = me, .msg = -1, .row = i};
        }
    }
    qsort(e, *n, sizeof *e, cmp_endpoint);
    return e;
}

static int add_pair(sp_waits *w, size_t *cap, int32_t src, int32_t dst)
{
    if (w->npairs && w->pairs[w->npairs - 1].src == src && w->pairs[w->npairs - 1].dst == dst)
        return 0;
    if (w->npairs == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        sp_wait_pair *p = realloc(w->pairs, nc * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        w->pairs = p;
        *cap = nc;
    }
    w->pairs[w->npairs++] = (sp_wait_pair){.src = src, .dst = dst};
    return 0;
}

/* Pair the k-th send with the k-th receive of every channel; count the
 * messages of each pair of ranks. */
static int match(sp__waits_ctx *c, endpoint *s, size_t ns, endpoint *r, size_t nr)
{
    sp_waits *w = c->w;
    size_t mcap = 0, pcap = 0, i = 0, j = 0;
    while (i < ns || j < nr) {
        int order = i == ns ? 1 : j == nr ? -1 : cmp_endpoint(&s[i], &r[j]);
        bool same = i < ns && j < nr && same_channel(&s[i], &r[j]);
        const endpoint *e = same || order < 0 ? &s[i] : &r[j];
        if (add_pair(w, &pcap, e->src, e->dst))
            return SP_ENOMEM;
        sp_wait_pair *pair = &w->pairs[w->npairs - 1];
        if (same) {
            const sp_mpi_p2p *sp = &c->d->ranks[s[i].owner].p2p;
            const sp_mpi_p2p *rp = &c->d->ranks[r[j].owner].p2p;
            if (w->nmessages == mcap) {
                mcap = mcap ? 2 * mcap : 256;
                sp_message *m = realloc(w->messages, mcap * sizeof *m);
                if (!m)
                    return SP_ENOMEM;
                w->messages = m;
            }
            sp_message *m = &w->messages[w->nmessages];
            *m = (sp_message){.src = s[i].src, .dst = s[i].dst, .tag = s[i].tag,
                              .bytes = sp->bytes[s[i].row],
                              .send_ns = sp->post_enter[s[i].row] + c->off[s[i].src],
                              .recv_ns = rp->done_exit[r[j].row] + c->off[r[j].dst],
                              .send_row = s[i].row, .recv_row = r[j].row};
            if (m->recv_ns - m->send_ns > w->max_transit_ns)
                w->max_transit_ns = m->recv_ns - m->send_ns;
            s[i].msg = r[j].msg = (int32_t)w->nmessages;
            c->send_match[s[i].owner][s[i].row] = (int32_t)w->nmessages;
            c->recv_match[r[j].owner][r[j].row] = (int32_t)w->nmessages;
            w->nmessages++;
            pair->matched++;
        }
        if (same || order < 0) {
            const sp_mpi_p2p *p = &c->d->ranks[s[i].owner].p2p;
            pair->sent++;
            pair->sent_bytes += (uint64_t)(p->bytes[s[i].row] > 0 ? p->bytes[s[i].row] : 0);
            w->unmatched_sends += !same;
            i++;
        }
        if (same || order > 0) {
            const sp_mpi_p2p *p = &c->d->ranks[r[j].owner].p2p;
            pair->received++;
            pair->received_bytes += (uint64_t)(p->bytes[r[j].row] > 0 ? p->bytes[r[j].row] : 0);
            w->unmatched_recvs += !same;
            j++;
        }
    }
    return 0;
}

/* The waits of one completing call (rows[0..n) of rank `me`, one call):
 * late sender when `recv` (the receives it completed waited for their
 * sends), else late receiver (synchronous sends waiting for the receives'
 * posts). */
static int call_waits(sp__waits_ctx *c, int32_t me, const size_t *rows, size_t n, bool recv)
{
    const sp_mpi_p2p *p = &c->d->ranks[me].p2p;
    int64_t latest = INT64_MIN;
    int32_t late = -1, late_thread = 0;
    int64_t late_enter = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = rows[k];
        int32_t m = (recv ? c->recv_match : c->send_match)[me][i];
        if (m < 0)
            continue;
        const sp_message *msg = &c->w->messages[m];
        int32_t other = recv ? msg->src : msg->dst;
        const sp_mpi_p2p *q = &c->d->ranks[other].p2p;
        size_t oi = recv ? msg->send_row : msg->recv_row;
        int64_t t = q->post_enter[oi] + c->off[other];
        if (t > latest) {
            latest = t;
            late = other;
            late_thread = q->thread[oi];
            late_enter = q->post_enter[oi];
        }
    }
    if (late < 0)
        return 0;
    size_t i = rows[0];
    int64_t enter = p->done_enter[i] + c->off[me], exit = p->done_exit[i] + c->off[me];
    int64_t wait = (latest < exit ? latest : exit) - enter;
    if (wait <= 0 || late == me)
        return 0;
    sp__wait_inst in = {.pattern = recv ? SP_WAIT_LATE_SENDER : SP_WAIT_LATE_RECEIVER,
                        .waiter = me, .late = late, .waiter_path = p->path[i],
                        .waiter_thread = p->thread[i], .late_thread = late_thread,
                        .waiter_enter = p->done_enter[i], .waiter_exit = p->done_exit[i],
                        .late_enter = late_enter,
                        .wait_s = sp__ns_s(wait), .uncertain = wait <= c->err[me] + c->err[late]};
    return sp__waits_add(c, &in);
}

/* Rows of one rank ordered by their completing call (qsort_r, GNU: the
 * analysis may run on several threads at once). */
static int cmp_done(const void *a, const void *b, void *arg)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const sp_mpi_p2p *p = arg;
#define CMP(f)                                                                 \
    if (p->f[x] != p->f[y])                                                    \
        return p->f[x] < p->f[y] ? -1 : 1;
    CMP(thread) CMP(done_enter) CMP(done_exit) CMP(done_op)
#undef CMP
    return x < y ? -1 : x > y;
}

/* Whether a completing call blocks (it can wait). */
static bool blocking(int32_t op)
{
    sp_mpi_class k = sp_mpi_func_class(op);
    return k == SP_MPI_CLASS_RECV || k == SP_MPI_CLASS_SENDRECV || k == SP_MPI_CLASS_WAIT ||
           k == SP_MPI_CLASS_SEND || k == SP_MPI_CLASS_SSEND;
}

static bool synchronous(int32_t op)
{
    sp_mpi_class k = sp_mpi_func_class(op);
    return k == SP_MPI_CLASS_SSEND || k == SP_MPI_CLASS_ISSEND;
}

/* Late senders and late receivers of rank me, call by call. */
static int rank_waits(sp__waits_ctx *c, int32_t me, size_t *idx)
{
    const sp_mpi_p2p *p = &c->d->ranks[me].p2p;
    for (int pass = 0; pass < 2; pass++) {
        bool recv = pass == 0;
        size_t n = 0;
        for (size_t i = 0; i < p->n; i++) {
            bool take = recv ? p->kind[i] == SP_MPI_KIND_RECV && c->recv_match[me][i] >= 0
                             : p->kind[i] == SP_MPI_KIND_SEND && c->send_match[me][i] >= 0 &&
                                   synchronous(p->op[i]);
            if (take && blocking(p->done_op[i]))
                idx[n++] = i;
        }
        qsort_r(idx, n, sizeof *idx, cmp_done, (void *)p);
        for (size_t a = 0, b; a < n; a = b) {
            for (b = a + 1; b < n && p->thread[idx[b]] == p->thread[idx[a]] &&
                            p->done_enter[idx[b]] == p->done_enter[idx[a]] &&
                            p->done_exit[idx[b]] == p->done_exit[idx[a]] &&
                            p->done_op[idx[b]] == p->done_op[idx[a]];
                 b++)
                ;
            int rc = call_waits(c, me, idx + a, b - a, recv);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* A probe waited for the send of the message the next matching receive
 * took (the first receive of its channel started at or after it). */
static int probe_waits(sp__waits_ctx *c, const endpoint *r, size_t nr)
{
    const sp_mpi_data *d = c->d;
    for (size_t me = 0; me < d->nranks; me++) {
        const sp_mpi_p2p *p = &d->ranks[me].p2p;
        for (size_t i = 0; i < p->n; i++) {
            if (p->kind[i] != SP_MPI_KIND_PROBE || p->peer[i] < 0)
                continue;
            endpoint key = {.src = p->peer[i], .dst = (int32_t)me,
                            .gcomm = c->gcomm[me][p->comm[i]], .tag = p->tag[i],
                            .post = p->post_enter[i], .row = 0};
            size_t lo = 0, hi = nr;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cmp_endpoint(&r[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == nr || !same_channel(&r[lo], &key) || r[lo].msg < 0)
                continue;
            const sp_message *m = &c->w->messages[r[lo].msg];
            const sp_mpi_p2p *q = &d->ranks[m->src].p2p;
            int64_t send = q->post_enter[m->send_row] + c->off[m->src];
            int64_t enter = p->done_enter[i] + c->off[me], exit = p->done_exit[i] + c->off[me];
            int64_t wait = (send < exit ? send : exit) - enter;
            if (wait <= 0 || m->src == (int32_t)me)
                continue;
            sp__wait_inst in = {.pattern = SP_WAIT_LATE_SENDER, .waiter = (int32_t)me,
                                .late = m->src, .waiter_path = p->path[i],
                                .waiter_thread = p->thread[i],
                                .late_thread = q->thread[m->send_row],
                                .waiter_enter = p->done_enter[i],
                                .waiter_exit = p->done_exit[i],
                                .late_enter = q->post_enter[m->send_row],
                                .wait_s = sp__ns_s(wait),
                                .uncertain = wait <= c->err[me] + c->err[m->src]};
            int rc = sp__waits_add(c, &in);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int by_send_time(const void *a, const void *b)
{
    const sp_message *x = a, *y = b;
    if (x->send_ns != y->send_ns)
        return x->send_ns < y->send_ns ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

int sp__waits_match_p2p(sp__waits_ctx *c)
{
    const sp_mpi_data *d = c->d;
    size_t nr = d->nranks, ns = 0, nrv = 0, most = 0;
    int rc = SP_ENOMEM;
    endpoint *s = NULL, *r = NULL;
    size_t *idx = NULL;
    if (!(c->recv_match = calloc(nr ? nr : 1, sizeof *c->recv_match)) ||
        !(c->send_match = calloc(nr ? nr : 1, sizeof *c->send_match)))
        return SP_ENOMEM;
    for (size_t k = 0; k < nr; k++) {
        size_t n = d->ranks[k].p2p.n;
        most = n > most ? n : most;
        if (!(c->recv_match[k] = malloc((n ? n : 1) * sizeof **c->recv_match)) ||
            !(c->send_match[k] = malloc((n ? n : 1) * sizeof **c->send_match)))
            return SP_ENOMEM;
        memset(c->recv_match[k], 0xff, n * sizeof **c->recv_match);
        memset(c->send_match[k], 0xff, n * sizeof **c->send_match);
    }
    if (!(s = endpoints(c, SP_MPI_KIND_SEND, &ns)) || !(r = endpoints(c, SP_MPI_KIND_RECV, &nrv)) ||
        !(idx = malloc((most ? most : 1) * sizeof *idx)) || (rc = match(c, s, ns, r, nrv)))
        goto done;
    for (size_t k = 0; k < nr && rc == 0; k++)
        rc = rank_waits(c, (int32_t)k, idx);
    if (rc == 0)
        rc = probe_waits(c, r, nrv);
    /* By send time, for the timeline's windows (the matches above are done). */
    if (rc == 0 && c->w->nmessages)
        qsort(c->w->messages, c->w->nmessages, sizeof *c->w->messages, by_send_time);
done:
    free(s);
    free(r);
    free(idx);
    return rc;
}

/* ---------------------------------------------------------------- collectives */

typedef struct coll_ref {
    int32_t gcomm;
    int64_t enter;
    size_t row;
} coll_ref;

static int cmp_coll(const void *a, const void *b)
{
    const coll_ref *x = a, *y = b;
    if (x->gcomm != y->gcomm)
        return x->gcomm < y->gcomm ? -1 : 1;
    if (x->enter != y->enter)
        return x->enter < y->enter ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The first of rank r's sorted collectives on g. */
static size_t first_of(const coll_ref *v, size_t n, int32_t g)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].gcomm < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The waits of one collective instance: member m's row is rows[m]. */
static int instance_waits(sp__waits_ctx *c, int32_t g, const size_t *rows)
{
    const sp_mpi_data *d = c->d;
    const int32_t *mem = c->gmembers[g];
    size_t n = c->gsize[g];
    const sp_mpi_coll *c0 = &d->ranks[mem[0]].coll;
    int32_t op = c0->op[rows[0]];
    sp_mpi_class cls = sp_mpi_func_class(op);
    sp_wait_pattern pat;
    if (cls == SP_MPI_CLASS_BARRIER)
        pat = SP_WAIT_BARRIER;
    else if (cls == SP_MPI_CLASS_ALL_TO_ALL)
        pat = SP_WAIT_NXN;
    else if (cls == SP_MPI_CLASS_ONE_TO_ALL)
        pat = SP_WAIT_LATE_BCAST;
    else if (cls == SP_MPI_CLASS_ALL_TO_ONE)
        pat = SP_WAIT_EARLY_REDUCE;
    else
        return 0; /* scan, neighbourhood: matched, not charged */
    int32_t root = c0->root[rows[0]];
    /* The member everyone waits for: the last to arrive (the root for a
     * broadcast; for a reduce the last of the others). */
    int32_t late = -1;
    int64_t last = INT64_MIN;
    for (size_t m = 0; m < n; m++) {
        int32_t r = mem[m];
        if (pat == SP_WAIT_EARLY_REDUCE && r == root)
            continue;
        int64_t t = d->ranks[r].coll.enter[rows[m]] + c->off[r];
        bool pick = pat == SP_WAIT_LATE_BCAST ? r == root : t > last;
        if (pick) {
            last = t;
            late = r;
        }
    }
    if (late < 0)
        return 0;
    const sp_mpi_coll *lc = &d->ranks[late].coll;
    size_t lrow = 0;
    for (size_t m = 0; m < n; m++)
        if (mem[m] == late)
            lrow = rows[m];
    for (size_t m = 0; m < n; m++) {
        int32_t r = mem[m];
        if (r == late || (pat == SP_WAIT_EARLY_REDUCE && r != root))
            continue;
        const sp_mpi_coll *cc = &d->ranks[r].coll;
        int64_t enter = cc->enter[rows[m]] + c->off[r], exit = cc->exit[rows[m]] + c->off[r];
        int64_t wait = (last < exit ? last : exit) - enter;
        if (wait <= 0)
            continue;
        sp__wait_inst in = {.pattern = pat, .waiter = r, .late = late,
                            .waiter_path = cc->path[rows[m]], .waiter_thread = cc->thread[rows[m]],
                            .late_thread = lc->thread[lrow], .waiter_enter = cc->enter[rows[m]],
                            .waiter_exit = cc->exit[rows[m]],
                            .late_enter = lc->enter[lrow], .wait_s = sp__ns_s(wait),
                            .uncertain = wait <= c->err[r] + c->err[late]};
        int rc = sp__waits_add(c, &in);
        if (rc)
            return rc;
    }
    return 0;
}

/* The instances of global communicator g, in order on every member. */
static int comm_waits(sp__waits_ctx *c, int32_t g, coll_ref *const *sorted, const size_t *nsorted,
                      size_t *pos, size_t *rows)
{
    const int32_t *mem = c->gmembers[g];
    size_t n = c->gsize[g], k = SIZE_MAX, most = 0;
    for (size_t m = 0; m < n; m++) {
        int32_t r = mem[m];
        if (r < 0 || !c->d->ranks[r].present)
            return 0; /* a member without records: nothing to match with */
        pos[m] = first_of(sorted[r], nsorted[r], g);
        size_t have = 0;
        while (pos[m] + have < nsorted[r] && sorted[r][pos[m] + have].gcomm == g)
            have++;
        k = have < k ? have : k;
        most = have > most ? have : most;
    }
    c->w->coll_mismatched += most - k;
    for (size_t i = 0; i < k; i++) {
        int32_t op = -1;
        bool same = true;
        for (size_t m = 0; m < n; m++) {
            rows[m] = sorted[mem[m]][pos[m] + i].row;
            int32_t o = c->d->ranks[mem[m]].coll.op[rows[m]];
            same &= op < 0 || o == op;
            op = o;
        }
        if (!same) { /* ranks disagree from here on: stop matching this one */
            c->w->coll_mismatched += k - i;
            return 0;
        }
        c->w->collectives++;
        int rc = instance_waits(c, g, rows);
        if (rc)
            return rc;
    }
    return 0;
}

int sp__waits_match_coll(sp__waits_ctx *c)
{
    const sp_mpi_data *d = c->d;
    size_t nr = d->nranks, widest = 0;
    coll_ref **sorted = calloc(nr ? nr : 1, sizeof *sorted);
    size_t *nsorted = calloc(nr ? nr : 1, sizeof *nsorted), *pos = NULL, *rows = NULL;
    int rc = SP_ENOMEM;
    if (!sorted || !nsorted)
        goto done;
    for (size_t r = 0; r < nr; r++) {
        const sp_mpi_coll *cc = &d->ranks[r].coll;
        if (!d->ranks[r].present)
            continue;
        if (!(sorted[r] = malloc((cc->n ? cc->n : 1) * sizeof **sorted)))
            goto done;
        for (size_t i = 0; i < cc->n; i++)
            sorted[r][i] = (coll_ref){c->gcomm[r][cc->comm[i]], cc->enter[i], i};
        nsorted[r] = cc->n;
        qsort(sorted[r], cc->n, sizeof **sorted, cmp_coll);
    }
    for (size_t g = 0; g < c->ngcomms; g++)
        widest = c->gsize[g] > widest ? c->gsize[g] : widest;
    if (!(pos = malloc((widest ? widest : 1) * sizeof *pos)) ||
        !(rows = malloc((widest ? widest : 1) * sizeof *rows)))
        goto done;
    rc = 0;
    for (size_t g = 0; g < c->ngcomms && rc == 0; g++)
        rc = comm_waits(c, (int32_t)g, sorted, nsorted, pos, rows);
done:
    for (size_t r = 0; sorted && r < nr; r++)
        free(sorted[r]);
    free(sorted);
    free(nsorted);
    free(pos);
    free(rows);
    return rc;
}
