/* SPDX-License-Identifier: MIT */
/*
 * export_otf2_mpi.c - a run's recorded MPI messages and collectives as OTF2
 * MPI events (see export_otf2_mpi.h and h5schema/FORMATS.md).
 */
#include "export_otf2_mpi.h"

#ifdef SP_HAVE_OTF2

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_waits.h"

#define NO_RANK UINT32_MAX

typedef struct comm {
    const int32_t *members; /* world ranks, communicator order (the run's arrays) */
    size_t n;
    size_t k;               /* the k-th communicator of a rank with these members */
    bool world;
} comm;

struct sp__otf2_mpi {
    const sp__trace_input *in;
    const sp_mpi_data *d;
    uint32_t *pos;          /* per world rank: index among the exported ranks, or NO_RANK */
    size_t nsel;
    comm *comms;            /* OTF2 Comm g = comms[g]; its Group is 1 + g */
    size_t ncomms;
    int32_t **gcomm;        /* per rank, per communicator row: g, or -1 (not exported) */
    /* the rank being written: its kept events, by thread, each in time order */
    size_t cur;
    bool loaded;
    int rc;                 /* a failure while loading, reported by write_next */
    sp_mpi_event *ev;
    size_t *tbeg, *tnext;   /* per thread: [tbeg[t], tbeg[t + 1]) of ev; next unwritten */
    size_t nthreads;
};

/* ---- communicators ---- */

static bool same_members(const comm *c, const int32_t *m, size_t n)
{
    return c->n == n && (n == 0 || memcmp(c->members, m, n * sizeof *m) == 0);
}

/* Global ids of every rank's communicators: the k-th communicator of a
 * rank with given members is the k-th of every other rank with them.
 * Communicators are few (tens): plain scans. */
static int map_comms(sp__otf2_mpi *m)
{
    const sp_mpi_data *d = m->d;
    size_t cap = 0;
    if (!(m->gcomm = calloc(d->nranks + 1, sizeof *m->gcomm)))
        return SP_ENOMEM;
    for (size_t r = 0; r < d->nranks; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        if (!rk->present || !rk->ncomms)
            continue;
        if (!(m->gcomm[r] = malloc(rk->ncomms * sizeof **m->gcomm)))
            return SP_ENOMEM;
        for (size_t i = 0; i < rk->ncomms; i++) {
            size_t n, k = 0;
            const int32_t *mem = sp_mpi_comm_members(rk, i, &n);
            m->gcomm[r][i] = -1;
            if (rk->comm_flags && (rk->comm_flags[i] & SP_MPI_COMM_INTER))
                continue; /* members are one side only: not written */
            for (size_t j = 0; j < i; j++) {
                size_t nj;
                const int32_t *mj = sp_mpi_comm_members(rk, j, &nj);
                comm tmp = {.members = mj, .n = nj};
                k += same_members(&tmp, mem, n);
            }
            size_t g = 0;
            while (g < m->ncomms && !(m->comms[g].k == k && same_members(&m->comms[g], mem, n)))
                g++;
            if (g == m->ncomms) {
                if (m->ncomms == cap) {
                    cap = cap ? 2 * cap : 8;
                    comm *p = realloc(m->comms, cap * sizeof *p);
                    if (!p)
                        return SP_ENOMEM;
                    m->comms = p;
                }
                m->comms[m->ncomms++] = (comm){.members = mem, .n = n, .k = k};
            }
            if (rk->comm_flags && (rk->comm_flags[i] & SP_MPI_COMM_WORLD))
                m->comms[g].world = true;
            m->gcomm[r][i] = (int32_t)g;
        }
    }
    return 0;
}

/* World rank w's rank in the exported part of communicator g (its Group),
 * or NO_RANK when w is not in it or not exported. A scan of the members per
 * event: fine for tens of ranks; a per-communicator index would be the
 * step for thousands. */
static uint32_t comm_rank(const sp__otf2_mpi *m, size_t g, int32_t w)
{
    uint32_t k = 0;
    for (size_t i = 0; i < m->comms[g].n; i++) {
        int32_t x = m->comms[g].members[i];
        if (x == w)
            return m->pos[x] == NO_RANK ? NO_RANK : k;
        if (x >= 0 && (size_t)x < m->d->nranks && m->pos[x] != NO_RANK)
            k++;
    }
    return NO_RANK;
}

static int32_t global_comm(const sp__otf2_mpi *m, size_t r, int32_t local)
{
    const sp_mpi_rank *rk = &m->d->ranks[r];
    return local >= 0 && (size_t)local < rk->ncomms ? m->gcomm[r][local] : -1;
}

static OTF2_CollectiveOp coll_op(int op, bool *ok)
{
    *ok = true;
    switch (op) {
    case SP_MPI_Barrier: return OTF2_COLLECTIVE_OP_BARRIER;
    case SP_MPI_Bcast: return OTF2_COLLECTIVE_OP_BCAST;
    case SP_MPI_Gather: return OTF2_COLLECTIVE_OP_GATHER;
    case SP_MPI_Gatherv: return OTF2_COLLECTIVE_OP_GATHERV;
    case SP_MPI_Scatter: return OTF2_COLLECTIVE_OP_SCATTER;
    case SP_MPI_Scatterv: return OTF2_COLLECTIVE_OP_SCATTERV;
    case SP_MPI_Allgather: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case SP_MPI_Allgatherv: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case SP_MPI_Alltoall: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case SP_MPI_Alltoallv: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case SP_MPI_Alltoallw: return OTF2_COLLECTIVE_OP_ALLTOALLW;
    case SP_MPI_Allreduce: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case SP_MPI_Reduce: return OTF2_COLLECTIVE_OP_REDUCE;
    case SP_MPI_Reduce_scatter: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case SP_MPI_Reduce_scatter_block: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
    case SP_MPI_Scan: return OTF2_COLLECTIVE_OP_SCAN;
    case SP_MPI_Exscan: return OTF2_COLLECTIVE_OP_EXSCAN;
    default: *ok = false; return OTF2_COLLECTIVE_OP_BARRIER; /* neighbourhood: none in OTF2 3.0 */
    }
}

/* ---- one rank's events ---- */

/* Whether [a, b] (the rank's clock) overlaps the export's window. */
static bool in_window(const sp__otf2_mpi *m, int64_t off, int64_t a, int64_t b)
{
    const sp_trace_select *s = &m->in->sel;
    return !s->window || (a + off <= s->t1_ns && b + off >= s->t0_ns);
}

/* Whether event e of rank r is written (see export_otf2_mpi.h). */
static bool keep(const sp__otf2_mpi *m, size_t r, const sp_mpi_event *e, size_t nthreads)
{
    const sp_mpi_rank *rk = &m->d->ranks[r];
    bool coll = e->kind == SP_MPI_EV_COLL_BEGIN || e->kind == SP_MPI_EV_COLL_END;
    int32_t thread, g;
    bool ok = true;
    if (coll) {
        const sp_mpi_coll *c = &rk->coll;
        thread = c->thread[e->row];
        g = global_comm(m, r, c->comm[e->row]);
        coll_op(c->op[e->row], &ok);
        ok = ok && in_window(m, rk->clock_offset_ns, c->enter[e->row], c->exit[e->row]);
    } else {
        const sp_mpi_p2p *p = &rk->p2p;
        thread = p->thread[e->row];
        g = global_comm(m, r, p->comm[e->row]);
        ok = g >= 0 && comm_rank(m, (size_t)g, p->peer[e->row]) != NO_RANK &&
             in_window(m, rk->clock_offset_ns, p->post_enter[e->row], p->done_exit[e->row]);
    }
    /* A message's events in a window: each one itself in it too, so the
     * MPI call around it overlaps the window and is written (a request
     * whose completion alone is in the window would otherwise stand
     * outside any call). A collective's begin and end are its call's own
     * enter and exit: written together with it. */
    ok = ok && (coll || in_window(m, rk->clock_offset_ns, e->t_ns, e->t_ns));
    return ok && g >= 0 && thread >= 0 && (size_t)thread < nthreads;
}

static int32_t event_thread(const sp_mpi_rank *rk, const sp_mpi_event *e)
{
    bool coll = e->kind == SP_MPI_EV_COLL_BEGIN || e->kind == SP_MPI_EV_COLL_END;
    return coll ? rk->coll.thread[e->row] : rk->p2p.thread[e->row];
}

static void unload(sp__otf2_mpi *m)
{
    free(m->ev);
    free(m->tbeg);
    free(m->tnext);
    m->ev = NULL;
    m->tbeg = m->tnext = NULL;
    m->nthreads = 0;
    m->loaded = false;
}

/* Rank r's kept events, grouped by thread (a stable counting sort keeps
 * each thread's time order). */
static int load(sp__otf2_mpi *m, size_t r)
{
    unload(m);
    m->cur = r;
    m->loaded = true;
    size_t nt = m->in->run->ranks[r].nthreads;
    m->nthreads = nt;
    if (!(m->tbeg = calloc(nt + 2, sizeof *m->tbeg)) || !(m->tnext = calloc(nt + 1, sizeof *m->tnext)))
        return sp__error(SP_ENOMEM, "out of memory");
    if (r >= m->d->nranks || !m->d->ranks[r].present)
        return 0;
    const sp_mpi_rank *rk = &m->d->ranks[r];
    sp_mpi_event *all = NULL;
    long n = sp_mpi_rank_events(m->d, r, INT64_MIN, INT64_MAX, &all);
    if (n < 0)
        return SP_ENOMEM;
    for (long i = 0; i < n; i++) {
        if (keep(m, r, &all[i], nt))
            m->tbeg[event_thread(rk, &all[i]) + 2]++;
    }
    for (size_t t = 0; t < nt; t++)
        m->tbeg[t + 2] += m->tbeg[t + 1]; /* tbeg[t + 1]: where thread t's events go */
    if (!(m->ev = malloc((m->tbeg[nt + 1] + 1) * sizeof *m->ev))) {
        free(all);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    for (long i = 0; i < n; i++)
        if (keep(m, r, &all[i], nt))
            m->ev[m->tbeg[event_thread(rk, &all[i]) + 1]++] = all[i];
    free(all);
    /* now tbeg[t + 1] is the end of thread t's events = the start of t + 1's */
    for (size_t t = 0; t < nt; t++)
        m->tnext[t] = m->tbeg[t];
    return 0;
}

static const sp_mpi_event *next_event(sp__otf2_mpi *m, size_t rank, int32_t thread)
{
    if (!m->loaded || m->cur != rank) /* ranks come one after the other */
        m->rc = load(m, rank);
    if (m->rc || thread < 0 || (size_t)thread >= m->nthreads)
        return NULL;
    size_t t = (size_t)thread;
    return m->tnext[t] < m->tbeg[t + 1] ? &m->ev[m->tnext[t]] : NULL;
}

static int64_t next_time(void *ud, size_t rank, int32_t thread)
{
    sp__otf2_mpi *m = ud;
    const sp_mpi_event *e = next_event(m, rank, thread);
    if (m->rc)
        return INT64_MIN; /* due now: write_next reports the failure */
    return e ? e->t_ns + m->d->ranks[rank].clock_offset_ns : INT64_MAX;
}

static int write_next(void *ud, sp__otf2 *w, size_t rank, int32_t thread, OTF2_EvtWriter *evt)
{
    sp__otf2_mpi *m = ud;
    const sp_mpi_event *e = next_event(m, rank, thread);
    if (m->rc || !e)
        return m->rc ? m->rc : sp__error(SP_EINVAL, "OTF2: no MPI event to write");
    const sp_mpi_rank *rk = &m->d->ranks[rank];
    OTF2_TimeStamp ts = sp__otf2_ts(w, e->t_ns + rk->clock_offset_ns);
    OTF2_ErrorCode x = OTF2_SUCCESS;
    size_t i = e->row;
    if (e->kind == SP_MPI_EV_COLL_BEGIN) {
        x = OTF2_EvtWriter_MpiCollectiveBegin(evt, NULL, ts);
    } else if (e->kind == SP_MPI_EV_COLL_END) {
        const sp_mpi_coll *c = &rk->coll;
        size_t g = (size_t)global_comm(m, rank, c->comm[i]);
        bool ok;
        uint32_t root = c->root[i] >= 0 ? comm_rank(m, g, c->root[i]) : NO_RANK;
        x = OTF2_EvtWriter_MpiCollectiveEnd(evt, NULL, ts, coll_op(c->op[i], &ok), (OTF2_CommRef)g,
                                            root == NO_RANK ? OTF2_UNDEFINED_UINT32 : root,
                                            (uint64_t)c->bytes_sent[i], (uint64_t)c->bytes_recv[i]);
    } else {
        const sp_mpi_p2p *p = &rk->p2p;
        OTF2_CommRef g = (OTF2_CommRef)global_comm(m, rank, p->comm[i]);
        uint32_t peer = comm_rank(m, g, p->peer[i]), tag = (uint32_t)p->tag[i];
        uint64_t bytes = (uint64_t)p->bytes[i], req = i; /* the row: unique on the rank */
        switch (e->kind) {
        case SP_MPI_EV_SEND: x = OTF2_EvtWriter_MpiSend(evt, NULL, ts, peer, g, tag, bytes); break;
        case SP_MPI_EV_ISEND: x = OTF2_EvtWriter_MpiIsend(evt, NULL, ts, peer, g, tag, bytes, req); break;
        case SP_MPI_EV_ISEND_COMPLETE: x = OTF2_EvtWriter_MpiIsendComplete(evt, NULL, ts, req); break;
        case SP_MPI_EV_IRECV_REQUEST: x = OTF2_EvtWriter_MpiIrecvRequest(evt, NULL, ts, req); break;
        case SP_MPI_EV_IRECV: x = OTF2_EvtWriter_MpiIrecv(evt, NULL, ts, peer, g, tag, bytes, req); break;
        default: x = OTF2_EvtWriter_MpiRecv(evt, NULL, ts, peer, g, tag, bytes); break;
        }
    }
    m->tnext[thread]++;
    if (x != OTF2_SUCCESS)
        return sp__error(SP_EIO, "OTF2: writing an MPI event failed: %s",
                         OTF2_Error_GetDescription(x));
    return 0;
}

/* ---- definitions ---- */

static int write_defs(void *ud, sp__otf2 *w, OTF2_GlobalDefWriter *defs)
{
    sp__otf2_mpi *m = ud;
    size_t nmax = m->nsel;
    for (size_t g = 0; g < m->ncomms; g++)
        nmax = m->comms[g].n > nmax ? m->comms[g].n : nmax;
    uint64_t *ids = malloc((nmax + 1) * sizeof *ids);
    if (!ids)
        return sp__error(SP_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t r = 0; r < m->in->run->nranks; r++)
        if (m->pos[r] != NO_RANK)
            ids[n++] = sp__otf2_location_ref(w, r, 0);
    OTF2_StringRef none = sp__otf2_new_string(w, "");
    OTF2_ErrorCode x = OTF2_GlobalDefWriter_WriteGroup(defs, 0, none, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, ids);
    char name[64];
    for (size_t g = 0; g < m->ncomms && x == OTF2_SUCCESS; g++) {
        n = 0;
        for (size_t i = 0; i < m->comms[g].n; i++) {
            int32_t r = m->comms[g].members[i];
            if (r >= 0 && (size_t)r < m->d->nranks && m->pos[r] != NO_RANK)
                ids[n++] = m->pos[r];
        }
        if (m->comms[g].world)
            snprintf(name, sizeof name, "MPI_COMM_WORLD");
        else
            snprintf(name, sizeof name, "communicator %zu (%zu ranks)", g, m->comms[g].n);
        x = OTF2_GlobalDefWriter_WriteGroup(defs, (OTF2_GroupRef)(1 + g), none,
                                            OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, n, ids);
        if (x == OTF2_SUCCESS)
            x = OTF2_GlobalDefWriter_WriteComm(defs, (OTF2_CommRef)g, sp__otf2_new_string(w, name),
                                               (OTF2_GroupRef)(1 + g), OTF2_UNDEFINED_COMM,
                                               OTF2_COMM_FLAG_NONE);
    }
    free(ids);
    if (x != OTF2_SUCCESS)
        return sp__error(SP_EIO, "OTF2: writing the communicators failed: %s",
                         OTF2_Error_GetDescription(x));
    return 0;
}

/* ---- life ---- */

int sp__otf2_mpi_new(const sp__trace_input *in, sp__otf2_mpi **out, sp__otf2_extra *x)
{
    *out = NULL;
    const sp_run *run = in->run;
    if (!run->mpi)
        return 0;
    sp__otf2_mpi *m = calloc(1, sizeof *m);
    if (!m || !(m->pos = malloc((run->nranks + 1) * sizeof *m->pos))) {
        free(m);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    m->in = in;
    m->d = run->mpi;
    for (size_t r = 0; r < run->nranks; r++)
        m->pos[r] = in->ranks[r] ? (uint32_t)m->nsel++ : NO_RANK;
    if (run->mpi->nranks != run->nranks) {
        sp__otf2_mpi_free(m);
        return sp__error(SP_EFORMAT, "the run's MPI tables have %zu ranks, the run %zu",
                         run->mpi->nranks, run->nranks);
    }
    if (map_comms(m)) {
        sp__otf2_mpi_free(m);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    *x = (sp__otf2_extra){.ud = m, .next_time = next_time, .write_next = write_next,
                          .write_defs = write_defs};
    *out = m;
    return 0;
}

void sp__otf2_mpi_free(sp__otf2_mpi *m)
{
    if (!m)
        return;
    unload(m);
    for (size_t r = 0; m->gcomm && r < m->d->nranks; r++)
        free(m->gcomm[r]);
    free(m->gcomm);
    free(m->comms);
    free(m->pos);
    free(m);
}

#endif /* SP_HAVE_OTF2 */
