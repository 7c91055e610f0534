/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_clock.c - each rank's clock offset to rank 0, by ping-pong (see
 * sp__mpi_clock_offset in sp_mpi_internal.h and SCHEMA.md, "MPI").
 *
 * The clock compared is CLOCK_MONOTONIC, the time base of every recorded
 * timestamp (TSC ticks are converted to it at finalize). On one host all
 * ranks share that clock, so the measured offset is 0 within its error; on
 * several hosts it is what lines their timelines up.
 */
#ifdef SP_WITH_MPI

#include <stdlib.h>

#include "sp_clock.h"
#include "sp_error.h"
#include "sp_mpi_internal.h"

#define PING_TAG 4243

/* Rank 0's side with rank r: best round of SP__MPI_ROUNDS. */
static int ping(MPI_Comm comm, int r, int64_t *offset_ns, int64_t *err_ns)
{
    int64_t best_rtt = INT64_MAX, best_d = 0;
    for (int k = 0; k < SP__MPI_ROUNDS; k++) {
        int64_t t_r = 0;
        int64_t t0 = sp__mono_ns();
        if (PMPI_Send(NULL, 0, MPI_BYTE, r, PING_TAG, comm) != MPI_SUCCESS ||
            PMPI_Recv(&t_r, 1, MPI_INT64_T, r, PING_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return sp__error(SP_EIO, "clock offset: ping-pong with rank %d failed", r);
        int64_t t1 = sp__mono_ns();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            /* t_r - (t0 + rtt/2), without overflow: t0 + (t1 - t0) / 2 */
            best_d = t_r - (t0 + best_rtt / 2);
        }
    }
    *offset_ns = -best_d;
    *err_ns = (best_rtt + 1) / 2;
    return 0;
}

/* A rank's side: answer each ping with the clock reading. */
static int pong(MPI_Comm comm)
{
    for (int k = 0; k < SP__MPI_ROUNDS; k++) {
        if (PMPI_Recv(NULL, 0, MPI_BYTE, 0, PING_TAG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return sp__error(SP_EIO, "clock offset: receiving rank 0's ping failed");
        int64_t t = sp__mono_ns();
        if (PMPI_Send(&t, 1, MPI_INT64_T, 0, PING_TAG, comm) != MPI_SUCCESS)
            return sp__error(SP_EIO, "clock offset: answering rank 0's ping failed");
    }
    return 0;
}

int sp__mpi_clock_offset(MPI_Comm comm, int rank, int size, int64_t *offset_ns, int64_t *err_ns)
{
    int rc = 0;
    int64_t mine[2] = {0, 0}, *all = NULL;
    *offset_ns = *err_ns = 0;
    /* Start together, so no rank waits inside a ping-pong round. */
    if (PMPI_Barrier(comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "clock offset: MPI_Barrier failed");
    if (rank == 0) {
        all = calloc(2 * (size_t)size, sizeof *all);
        if (!all)
            return sp__error(SP_ENOMEM, "clock offset: out of memory");
        for (int r = 1; r < size && rc == 0; r++)
            rc = ping(comm, r, &all[2 * r], &all[2 * r + 1]);
    } else {
        rc = pong(comm);
    }
    /* Every rank gets its own result; a failed ping leaves zeros, and
     * the caller's agreement reports it. */
    if (PMPI_Scatter(all, 2, MPI_INT64_T, mine, 2, MPI_INT64_T, 0, comm) != MPI_SUCCESS && rc == 0)
        rc = sp__error(SP_EIO, "clock offset: MPI_Scatter failed");
    free(all);
    *offset_ns = mine[0];
    *err_ns = mine[1];
    return rc;
}

void sp__mpi_clock_combine(const sp_v2_mpi_clock *c, int64_t *offset_ns, int64_t *err_ns)
{
    bool s = c->setup_err_ns >= 0, f = c->finalize_err_ns >= 0;
    if (s && f) {
        int64_t diff = c->finalize_ns - c->setup_ns;
        *offset_ns = c->setup_ns + diff / 2;
        int64_t e = c->setup_err_ns > c->finalize_err_ns ? c->setup_err_ns : c->finalize_err_ns;
        *err_ns = e + (llabs(diff) + 1) / 2;
    } else if (s || f) {
        *offset_ns = s ? c->setup_ns : c->finalize_ns;
        *err_ns = s ? c->setup_err_ns : c->finalize_err_ns;
    } else {
        *offset_ns = *err_ns = 0;
    }
}

#else
typedef int sp__mpi_clock_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
