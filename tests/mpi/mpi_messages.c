/* SPDX-License-Identifier: MIT */
/*
 * mpi_messages.c - every MPI call whose messages the library records, on 4
 * ranks, each noted beside the call as the row it must leave in the rank's
 * mpi/ tables (kind, function, completing function, peer, tag, bytes; for
 * collectives root, bytes and communicator). After sp_finalize, rank 0
 * reads the run the library wrote and compares every rank's recorded rows
 * with those notes (as multisets), the communicator table with the groups
 * the program made, and the analysis' matching with what was sent.
 *
 *   mpirun -n 4 mpi_messages OUT.h5      (prints "mpi messages: ok")
 *
 * Covered: Send Bsend Rsend Ssend Recv (MPI_ANY_TAG) Sendrecv
 * Sendrecv_replace Probe (MPI_ANY_SOURCE) Isend Ibsend Irsend Issend Irecv,
 * Wait Waitall Waitany Waitsome Test Testall Testany Testsome
 * (MPI_STATUS(ES)_IGNORE and real statuses), two sends sharing one request
 * handle (Open MPI does that for small messages), Request_free, every
 * collective on MPI_COMM_WORLD, Allreduce on a split communicator, the
 * five neighbourhood collectives on a periodic ring (MPI_Cart_create),
 * MPI_Comm_free.
 */
#include <math.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scope_profiler.h>

#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_h5.h"
#include "sp_mpi_data.h"
#include "sp_run_read.h"
#include "sp_waits.h"

#define NR 4

enum { C_WORLD, C_SPLIT, C_CART };

typedef struct want_p2p {
    int kind, op, done_op, peer, tag;
    long long bytes;
} want_p2p;

typedef struct want_coll {
    int op, root, comm;
    long long sent, recvd;
} want_coll;

static want_p2p wp[256];
static want_coll wc[256];
static int np, nc, rank;

static void p2p(int kind, int op, int done_op, int peer, int tag, long long bytes)
{
    wp[np++] = (want_p2p){kind, op, done_op, peer, tag, bytes};
}

static void coll(int op, int root, int comm, long long sent, long long recvd)
{
    wc[nc++] = (want_coll){op, root, comm, sent, recvd};
}

#define S SP_MPI_KIND_SEND
#define R SP_MPI_KIND_RECV
#define P SP_MPI_KIND_PROBE

static char buf[8][4096];

static void point_to_point(void)
{
    int right = (rank + 1) % NR, left = (rank + NR - 1) % NR;
    MPI_Status st;
    /* Send / Recv with MPI_ANY_TAG: 0 -> 1 */
    if (rank == 0) {
        MPI_Send(buf[0], 100, MPI_BYTE, 1, 11, MPI_COMM_WORLD);
        p2p(S, SP_MPI_Send, SP_MPI_Send, 1, 11, 100);
    } else if (rank == 1) {
        MPI_Recv(buf[0], 4096, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        p2p(R, SP_MPI_Recv, SP_MPI_Recv, 0, 11, 100);
    }
    /* Bsend: 1 -> 2, 10 doubles */
    if (rank == 1) {
        static char bsend[1 << 14];
        MPI_Buffer_attach(bsend, sizeof bsend);
        MPI_Bsend(buf[1], 10, MPI_DOUBLE, 2, 12, MPI_COMM_WORLD);
        p2p(S, SP_MPI_Bsend, SP_MPI_Bsend, 2, 12, 80);
        void *b;
        int n;
        MPI_Buffer_detach(&b, &n);
    } else if (rank == 2) {
        MPI_Recv(buf[1], 10, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD, &st);
        p2p(R, SP_MPI_Recv, SP_MPI_Recv, 1, 12, 80);
    }
    /* Ssend: 2 -> 3 */
    if (rank == 2) {
        MPI_Ssend(buf[2], 7, MPI_INT, 3, 13, MPI_COMM_WORLD);
        p2p(S, SP_MPI_Ssend, SP_MPI_Ssend, 3, 13, 28);
    } else if (rank == 3) {
        MPI_Recv(buf[2], 7, MPI_INT, 2, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        p2p(R, SP_MPI_Recv, SP_MPI_Recv, 2, 13, 28);
    }
    /* Rsend: 3 -> 0, the receive posted first (a barrier between) */
    MPI_Request rq;
    if (rank == 0)
        MPI_Irecv(buf[3], 64, MPI_BYTE, 3, 14, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    coll(SP_MPI_Barrier, -1, C_WORLD, 0, 0);
    if (rank == 3) {
        MPI_Rsend(buf[3], 64, MPI_BYTE, 0, 14, MPI_COMM_WORLD);
        p2p(S, SP_MPI_Rsend, SP_MPI_Rsend, 0, 14, 64);
    } else if (rank == 0) {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        p2p(R, SP_MPI_Irecv, SP_MPI_Wait, 3, 14, 64);
    }
    /* Sendrecv round the ring, Sendrecv_replace the other way */
    MPI_Sendrecv(buf[4], 3, MPI_INT, right, 15, buf[5], 3, MPI_INT, left, 15, MPI_COMM_WORLD, &st);
    p2p(S, SP_MPI_Sendrecv, SP_MPI_Sendrecv, right, 15, 12);
    p2p(R, SP_MPI_Sendrecv, SP_MPI_Sendrecv, left, 15, 12);
    MPI_Sendrecv_replace(buf[4], 5, MPI_INT, left, 16, right, 16, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    p2p(S, SP_MPI_Sendrecv_replace, SP_MPI_Sendrecv_replace, left, 16, 20);
    p2p(R, SP_MPI_Sendrecv_replace, SP_MPI_Sendrecv_replace, right, 16, 20);
    /* Probe from MPI_ANY_SOURCE, then the receive: 3 -> 0 */
    if (rank == 3) {
        MPI_Send(buf[0], 33, MPI_BYTE, 0, 17, MPI_COMM_WORLD);
        p2p(S, SP_MPI_Send, SP_MPI_Send, 0, 17, 33);
    } else if (rank == 0) {
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        p2p(P, SP_MPI_Probe, SP_MPI_Probe, 3, 17, 33);
        MPI_Recv(buf[0], 33, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        p2p(R, SP_MPI_Recv, SP_MPI_Recv, 3, 17, 33);
    }
}

static void nonblocking(void)
{
    int right = (rank + 1) % NR, left = (rank + NR - 1) % NR, flag = 0, idx = 0, out = 0;
    int ind[4];
    MPI_Request r[4];
    MPI_Status st[4];
    /* Isend + Irecv round the ring, Waitall with real statuses */
    MPI_Irecv(buf[0], 256, MPI_BYTE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf[1], 50 + rank, MPI_BYTE, right, 20, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    p2p(R, SP_MPI_Irecv, SP_MPI_Waitall, left, 20, 50 + left);
    p2p(S, SP_MPI_Isend, SP_MPI_Waitall, right, 20, 50 + rank);
    /* Issend completed by Test (polled), Irecv by Wait */
    MPI_Irecv(buf[2], 8, MPI_INT, left, 21, MPI_COMM_WORLD, &r[0]);
    MPI_Issend(buf[3], 8, MPI_INT, right, 21, MPI_COMM_WORLD, &r[1]);
    for (flag = 0; !flag;)
        MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], &st[0]);
    p2p(S, SP_MPI_Issend, SP_MPI_Test, right, 21, 32);
    p2p(R, SP_MPI_Irecv, SP_MPI_Wait, left, 21, 32);
    /* Ibsend by Testall (polled), Irecv by Testany (polled) */
    static char bsend[1 << 14];
    MPI_Buffer_attach(bsend, sizeof bsend);
    MPI_Irecv(buf[4], 4, MPI_DOUBLE, left, 22, MPI_COMM_WORLD, &r[0]);
    MPI_Ibsend(buf[5], 4, MPI_DOUBLE, right, 22, MPI_COMM_WORLD, &r[1]);
    for (flag = 0; !flag;)
        MPI_Testall(1, &r[1], &flag, MPI_STATUSES_IGNORE);
    for (flag = 0; !flag;)
        MPI_Testany(1, &r[0], &idx, &flag, MPI_STATUS_IGNORE);
    p2p(S, SP_MPI_Ibsend, SP_MPI_Testall, right, 22, 32);
    p2p(R, SP_MPI_Irecv, SP_MPI_Testany, left, 22, 32);
    void *b;
    int n;
    MPI_Buffer_detach(&b, &n);
    /* Irsend by Waitany (the receive posted before a barrier) */
    MPI_Irecv(buf[6], 9, MPI_BYTE, left, 23, MPI_COMM_WORLD, &r[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    coll(SP_MPI_Barrier, -1, C_WORLD, 0, 0);
    MPI_Irsend(buf[7], 9, MPI_BYTE, right, 23, MPI_COMM_WORLD, &r[1]);
    for (int done = 0; done < 2; done++)
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    p2p(S, SP_MPI_Irsend, SP_MPI_Waitany, right, 23, 9);
    p2p(R, SP_MPI_Irecv, SP_MPI_Waitany, left, 23, 9);
    /* Isend by Waitsome, Irecv by Testsome (polled) */
    MPI_Irecv(buf[0], 6, MPI_BYTE, left, 24, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf[1], 6, MPI_BYTE, right, 24, MPI_COMM_WORLD, &r[1]);
    for (out = 0; out == 0;)
        MPI_Waitsome(1, &r[1], &out, ind, MPI_STATUSES_IGNORE);
    for (out = 0; out == 0;)
        MPI_Testsome(1, &r[0], &out, ind, st);
    p2p(S, SP_MPI_Isend, SP_MPI_Waitsome, right, 24, 6);
    p2p(R, SP_MPI_Irecv, SP_MPI_Testsome, left, 24, 6);
    /* Two small sends at once: Open MPI hands both the same (completed)
     * request handle; each must still leave its row */
    MPI_Irecv(buf[4], 11, MPI_DOUBLE, left, 26, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(buf[5], 11, MPI_DOUBLE, left, 27, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(buf[6], 11, MPI_DOUBLE, right, 26, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(buf[7], 11, MPI_DOUBLE, right, 27, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    p2p(R, SP_MPI_Irecv, SP_MPI_Waitall, left, 26, 88);
    p2p(R, SP_MPI_Irecv, SP_MPI_Waitall, left, 27, 88);
    p2p(S, SP_MPI_Isend, SP_MPI_Waitall, right, 26, 88);
    p2p(S, SP_MPI_Isend, SP_MPI_Waitall, right, 27, 88);
    /* A freed send request: its send leaves no row, the receive does */
    MPI_Irecv(buf[2], 5, MPI_BYTE, left, 25, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf[3], 5, MPI_BYTE, right, 25, MPI_COMM_WORLD, &r[1]);
    MPI_Request_free(&r[1]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    p2p(R, SP_MPI_Irecv, SP_MPI_Wait, left, 25, 5);
    MPI_Barrier(MPI_COMM_WORLD); /* the freed send has left before the buffer is reused */
    coll(SP_MPI_Barrier, -1, C_WORLD, 0, 0);
}

static void collectives(void)
{
    int ints[64] = {0}, outi[64], counts[NR], displs[NR], c1[NR], d1[NR];
    double d[16] = {0}, od[16];
    MPI_Datatype types[NR];
    for (int r = 0; r < NR; r++) {
        counts[r] = r + 1;
        displs[r] = r * 8;
        c1[r] = 1;
        d1[r] = r;
        types[r] = MPI_INT;
    }
    MPI_Comm W = MPI_COMM_WORLD;
    MPI_Bcast(d, 10, MPI_DOUBLE, 1, W);
    coll(SP_MPI_Bcast, 1, C_WORLD, rank == 1 ? 80 : 0, rank == 1 ? 0 : 80);
    MPI_Reduce(ints, outi, 4, MPI_INT, MPI_SUM, 2, W);
    coll(SP_MPI_Reduce, 2, C_WORLD, 16, rank == 2 ? 16 : 0);
    MPI_Allreduce(d, od, 3, MPI_DOUBLE, MPI_SUM, W);
    coll(SP_MPI_Allreduce, -1, C_WORLD, 24, 24);
    MPI_Gather(ints, 2, MPI_INT, outi, 2, MPI_INT, 0, W);
    coll(SP_MPI_Gather, 0, C_WORLD, 8, rank == 0 ? 32 : 0);
    MPI_Gatherv(ints, rank + 1, MPI_INT, outi, counts, displs, MPI_INT, 0, W);
    coll(SP_MPI_Gatherv, 0, C_WORLD, 4 * (rank + 1), rank == 0 ? 40 : 0);
    MPI_Allgather(ints, 1, MPI_INT, outi, 1, MPI_INT, W);
    coll(SP_MPI_Allgather, -1, C_WORLD, 4, 16);
    MPI_Allgatherv(ints, rank + 1, MPI_INT, outi, counts, displs, MPI_INT, W);
    coll(SP_MPI_Allgatherv, -1, C_WORLD, 4 * (rank + 1), 40);
    MPI_Scatter(ints, 1, MPI_INT, outi, 1, MPI_INT, 3, W);
    coll(SP_MPI_Scatter, 3, C_WORLD, rank == 3 ? 16 : 0, 4);
    MPI_Scatterv(ints, counts, displs, MPI_INT, outi, rank + 1, MPI_INT, 3, W);
    coll(SP_MPI_Scatterv, 3, C_WORLD, rank == 3 ? 40 : 0, 4 * (rank + 1));
    MPI_Alltoall(ints, 1, MPI_INT, outi, 1, MPI_INT, W);
    coll(SP_MPI_Alltoall, -1, C_WORLD, 16, 16);
    MPI_Alltoallv(ints, c1, d1, MPI_INT, outi, c1, d1, MPI_INT, W);
    coll(SP_MPI_Alltoallv, -1, C_WORLD, 16, 16);
    int bd[NR];
    for (int r = 0; r < NR; r++)
        bd[r] = r * 4;
    MPI_Alltoallw(ints, c1, bd, types, outi, c1, bd, types, W);
    coll(SP_MPI_Alltoallw, -1, C_WORLD, 16, 16);
    MPI_Reduce_scatter(ints, outi, c1, MPI_INT, MPI_SUM, W);
    coll(SP_MPI_Reduce_scatter, -1, C_WORLD, 16, 4);
    MPI_Reduce_scatter_block(ints, outi, 2, MPI_INT, MPI_SUM, W);
    coll(SP_MPI_Reduce_scatter_block, -1, C_WORLD, 32, 8);
    MPI_Scan(d, od, 1, MPI_DOUBLE, MPI_SUM, W);
    coll(SP_MPI_Scan, -1, C_WORLD, 8, 8);
    MPI_Exscan(d, od, 1, MPI_DOUBLE, MPI_SUM, W);
    coll(SP_MPI_Exscan, -1, C_WORLD, 8, 8);

    /* A split communicator (ranks 0, 2 and 1, 3), then freed */
    MPI_Comm split;
    MPI_Comm_split(W, rank % 2, rank, &split);
    MPI_Allreduce(d, od, 1, MPI_DOUBLE, MPI_SUM, split);
    coll(SP_MPI_Allreduce, -1, C_SPLIT, 8, 8);
    MPI_Comm_free(&split);

    /* A periodic ring: two neighbours each */
    MPI_Comm ring;
    int dims[1] = {NR}, periods[1] = {1}, two[2] = {1, 1}, dd[2] = {0, 1};
    MPI_Aint ad[2] = {0, 4};
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
    MPI_Cart_create(W, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather(ints, 1, MPI_INT, outi, 1, MPI_INT, ring);
    coll(SP_MPI_Neighbor_allgather, -1, C_CART, 8, 8);
    MPI_Neighbor_allgatherv(ints, 1, MPI_INT, outi, two, dd, MPI_INT, ring);
    coll(SP_MPI_Neighbor_allgatherv, -1, C_CART, 8, 8);
    MPI_Neighbor_alltoall(ints, 1, MPI_INT, outi, 1, MPI_INT, ring);
    coll(SP_MPI_Neighbor_alltoall, -1, C_CART, 8, 8);
    MPI_Neighbor_alltoallv(ints, two, dd, MPI_INT, outi, two, dd, MPI_INT, ring);
    coll(SP_MPI_Neighbor_alltoallv, -1, C_CART, 8, 8);
    MPI_Neighbor_alltoallw(ints, two, ad, t2, outi, two, ad, t2, ring);
    coll(SP_MPI_Neighbor_alltoallw, -1, C_CART, 8, 8);
    MPI_Comm_free(&ring);
    MPI_Barrier(W);
    coll(SP_MPI_Barrier, -1, C_WORLD, 0, 0);
}

/* ---------------------------------------------------------------- the check */

static int failures;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL: " __VA_ARGS__);                                      \
            printf("\n");                                                      \
            failures++;                                                        \
        }                                                                      \
    } while (0)

/* Which of the program's communicators row c of rank r's table is. */
static int comm_kind(const sp_mpi_rank *rk, int32_t c, int r, int32_t world_row)
{
    size_t n;
    const int32_t *m = sp_mpi_comm_members(rk, (size_t)c, &n);
    if (c == world_row)
        return C_WORLD;
    if (n == 2 && m[0] == r % 2 && m[1] == r % 2 + 2)
        return C_SPLIT;
    if (n == NR && m[0] == 0 && m[1] == 1 && m[2] == 2 && m[3] == 3)
        return C_CART;
    return -1;
}

static void check_rank(const sp_mpi_rank *rk, int r, const want_p2p *ep, int nep,
                       const want_coll *ec, int nec)
{
    CHECK(rk->present, "rank %d has no mpi tables", r);
    int32_t world = -1;
    for (size_t c = 0; c < rk->ncomms; c++)
        if (rk->comm_flags[c] & SP_MPI_COMM_WORLD)
            world = (int32_t)c;
    CHECK(world >= 0, "rank %d: no row flagged MPI_COMM_WORLD", r);
    CHECK(rk->records_dropped == 0, "rank %d: %llu records dropped", r,
          (unsigned long long)rk->records_dropped);
    /* Every expected row found once (a multiset match). */
    bool *used = calloc(rk->p2p.n + rk->coll.n + 1, sizeof *used);
    CHECK((int)rk->p2p.n == nep, "rank %d: %zu point-to-point rows, expected %d", r, rk->p2p.n,
          nep);
    for (int k = 0; k < nep; k++) {
        const want_p2p *e = &ep[k];
        bool found = false;
        for (size_t i = 0; i < rk->p2p.n && !found; i++) {
            sp_mpi_p2p_row x;
            sp_mpi_p2p_get(&rk->p2p, i, &x);
            if (!used[i] && x.kind == e->kind && x.op == e->op && x.done_op == e->done_op &&
                x.peer == e->peer && x.tag == e->tag && x.bytes == e->bytes &&
                comm_kind(rk, x.comm, r, world) == C_WORLD && x.post_enter <= x.post_exit &&
                x.done_enter <= x.done_exit && x.post_enter <= x.done_exit)
                found = used[i] = true;
        }
        CHECK(found, "rank %d: no row kind %d %s/%s peer %d tag %d %lld bytes", r, e->kind,
              sp_mpi_func_name(e->op), sp_mpi_func_name(e->done_op), e->peer, e->tag, e->bytes);
    }
    memset(used, 0, (rk->p2p.n + rk->coll.n + 1) * sizeof *used);
    CHECK((int)rk->coll.n == nec, "rank %d: %zu collective rows, expected %d", r, rk->coll.n,
          nec);
    for (int k = 0; k < nec; k++) {
        const want_coll *e = &ec[k];
        bool found = false;
        for (size_t i = 0; i < rk->coll.n && !found; i++) {
            if (!used[i] && rk->coll.op[i] == e->op && rk->coll.root[i] == e->root &&
                rk->coll.bytes_sent[i] == e->sent && rk->coll.bytes_recv[i] == e->recvd &&
                comm_kind(rk, rk->coll.comm[i], r, world) == e->comm &&
                rk->coll.enter[i] <= rk->coll.exit[i])
                found = used[i] = true;
        }
        CHECK(found, "rank %d: no %s root %d sent %lld received %lld on communicator %d", r,
              sp_mpi_func_name(e->op), e->root, e->sent, e->recvd, e->comm);
    }
    free(used);
    /* The world, the split and the ring: three rows (the ring is not the world). */
    CHECK(rk->ncomms == 3, "rank %d: %zu communicators, expected 3", r, rk->ncomms);
}

/* The file read aggregate-first (sp_run_read: no calls, in-process and in
 * a reading child, whose pipe carries the header) has every rank's MPI
 * tables, read with the rank's header, and the waits analysis matches the
 * same messages and collectives from them as from the run finalize gave. */
static void check_read_aggregate_first(const char *path, const sp_run *whole, bool isolate)
{
    sp_agg_opts opts = {0};
    int status = 0;
    sp_run *run = sp_run_read(path, &opts, NULL, isolate, &status);
    const char *how = isolate ? "aggregate-first, isolated" : "aggregate-first";
    CHECK(run && run->mpi && run->mpi->nranks == NR, "%s: no MPI tables (%s)", how,
          run ? "read" : sp_last_error());
    if (!run || !run->mpi || !whole || !whole->mpi) {
        sp_run_free(run);
        return;
    }
    CHECK(sp_run_total_calls(run) > 0 && run->ranks[0].ncalls == 0,
          "%s: expected aggregates without calls", how);
    for (int r = 0; r < NR; r++)
        CHECK(run->mpi->ranks[r].p2p.n == whole->mpi->ranks[r].p2p.n &&
                  run->mpi->ranks[r].coll.n == whole->mpi->ranks[r].coll.n,
              "%s: rank %d: %zu + %zu records, finalize gave %zu + %zu", how, r,
              run->mpi->ranks[r].p2p.n, run->mpi->ranks[r].coll.n, whole->mpi->ranks[r].p2p.n,
              whole->mpi->ranks[r].coll.n);
    sp_waits *a = NULL, *b = NULL;
    CHECK(sp_waits_compute(run, &a) == 0 && sp_waits_compute(whole, &b) == 0, "%s: waits: %s",
          how, sp_last_error());
    if (a && b)
        CHECK(a->nmessages == b->nmessages && a->collectives == b->collectives,
              "%s: %zu messages, %llu collectives matched (finalize's run: %zu, %llu)", how,
              a->nmessages, (unsigned long long)a->collectives, b->nmessages,
              (unsigned long long)b->collectives);
    sp_waits_free(a);
    sp_waits_free(b);
    sp_run_free(run);
}

/* The waits of the file read aggregate-first with the causes from windows
 * of calls (sp_waits_compute_source, as the CLI's waits verb) equal those
 * of the file read whole with its calls in memory: every row's wait, the
 * rank waited for and its causes. */
static void check_waits_from_windows(const char *path)
{
    int status = 0;
    sp_event_source *src = sp_run_source_open(path, &status);
    sp_agg_opts opts = {.flags = SP_AGG_LANES};
    sp_run *whole = sp_h5_read(path, NULL);
    sp_waits *a = NULL, *b = NULL;
    CHECK(src && sp_run_aggregate(src, &opts) == 0 && whole && sp_run_analyze(whole) == 0,
          "windows: cannot read %s: %s", path, sp_last_error());
    CHECK(src && sp_waits_compute_source(src, &a) == 0 && whole && sp_waits_compute(whole, &b) == 0,
          "windows: waits: %s", sp_last_error());
    if (a && b) {
        CHECK(a->causes_done && b->causes_done && a->nrows == b->nrows && a->nrows > 0,
              "windows: %zu rows (causes %d), whole: %zu rows (causes %d)", a->nrows,
              (int)a->causes_done, b->nrows, (int)b->causes_done);
        for (size_t i = 0; i < a->nrows && i < b->nrows; i++) {
            const sp_wait_row *x = &a->rows[i], *y = &b->rows[i];
            bool same = x->rank == y->rank && x->pattern == y->pattern &&
                        x->wait_s == y->wait_s && x->late_rank == y->late_rank &&
                        x->ncauses == y->ncauses && fabs(x->explained_s - y->explained_s) < 1e-9;
            for (size_t k = 0; same && k < x->ncauses; k++)
                same = x->causes[k].rank == y->causes[k].rank &&
                       strcmp(a->names.s[x->causes[k].region], b->names.s[y->causes[k].region]) == 0 &&
                       fabs(x->causes[k].charged_s - y->causes[k].charged_s) < 1e-9;
            CHECK(same, "windows: row %zu (rank %d, %.9f s, %zu causes) differs from the whole "
                  "run's (rank %d, %.9f s, %zu causes)", i, x->rank, x->wait_s, x->ncauses,
                  y->rank, y->wait_s, y->ncauses);
        }
    }
    sp_waits_free(a);
    sp_waits_free(b);
    sp_run_free(whole);
    if (src)
        sp_event_source_free(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NR) {
        if (rank == 0)
            printf("FAIL: run with mpirun -n %d\n", NR);
        MPI_Finalize();
        return 1;
    }
    sp_options o;
    sp_options_init(&o);
    o.use_mpi_regions = true;
    o.file_path = argc > 1 ? argv[1] : "mpi_messages.h5";
    if (sp_setup(&o) != 0) {
        printf("FAIL: rank %d: sp_setup: %s\n", rank, sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    SP_SCOPE("main")
    {
        SP_SCOPE("point_to_point") point_to_point();
        SP_SCOPE("nonblocking") nonblocking();
        SP_SCOPE("collectives") collectives();
    }
    sp_run *run = NULL;
    if (sp_finalize(false, rank == 0 ? &run : NULL) != 0) {
        printf("FAIL: rank %d: sp_finalize: %s\n", rank, sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Rank 0 gathers every rank's notes (recording is off now). */
    static want_p2p all_p[NR][256];
    static want_coll all_c[NR][256];
    int all_np[NR], all_nc[NR];
    MPI_Gather(&np, 1, MPI_INT, all_np, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&nc, 1, MPI_INT, all_nc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(wp, (int)sizeof wp, MPI_BYTE, all_p, (int)sizeof wp, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gather(wc, (int)sizeof wc, MPI_BYTE, all_c, (int)sizeof wc, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(run && run->mpi && run->mpi->nranks == NR, "the run read back has no MPI tables");
        for (int r = 0; run && run->mpi && r < NR; r++)
            check_rank(&run->mpi->ranks[r], r, all_p[r], all_np[r], all_c[r], all_nc[r]);
        /* The analysis pairs every recorded send with its receive; the
         * freed request's receives (one per rank) have no recorded send. */
        sp_waits *w = NULL;
        CHECK(run && sp_waits_compute(run, &w) == 0, "waits: %s", sp_last_error());
        if (w) {
            long long sends = 0;
            for (int r = 0; r < NR; r++)
                for (int k = 0; k < all_np[r]; k++)
                    sends += all_p[r][k].kind == S;
            CHECK((long long)w->nmessages == sends, "%zu messages matched, %lld sent",
                  w->nmessages, sends);
            CHECK(w->unmatched_sends == 0 && w->unmatched_recvs == NR && w->untracked == 0,
                  "unmatched: %llu sends, %llu receives (expected 0 and %d); %llu untracked",
                  (unsigned long long)w->unmatched_sends, (unsigned long long)w->unmatched_recvs,
                  NR, (unsigned long long)w->untracked);
            /* 4 barriers, 16 other world collectives, the split's Allreduce
             * (two communicators of 2 ranks), 5 on the ring */
            CHECK(w->collectives == 4 + 16 + 2 + 5, "%llu collectives matched",
                  (unsigned long long)w->collectives);
            CHECK(w->coll_mismatched == 0, "%llu collectives mismatched",
                  (unsigned long long)w->coll_mismatched);
            sp_waits_free(w);
        }
        check_read_aggregate_first(o.file_path, run, false);
        check_read_aggregate_first(o.file_path, run, true);
        check_waits_from_windows(o.file_path);
        printf(failures ? "mpi messages: %d failures\n" : "mpi messages: ok\n", failures);
    }
    sp_run_free(run);
    MPI_Finalize();
    return failures != 0;
}
