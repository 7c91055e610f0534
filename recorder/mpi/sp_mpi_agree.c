/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_agree.c - every rank returns the same status: the lowest code any
 * rank had, with the failing rank's reason (PMPI only: the library's own
 * messages are never timed as MPI call regions).
 */
#ifdef SP_WITH_MPI

#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mpi_internal.h"

#define MSG_LEN 768 /* a reason travels between ranks in a fixed buffer */

int sp__mpi_agree(MPI_Comm comm, int rc)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    struct {
        int rc, rank;
    } in = {rc < 0 ? rc : 0, me}, out = {0, 0};
    /* MINLOC: the lowest code, and the lowest rank that has it. */
    if (PMPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "MPI_Allreduce failed while the ranks agreed on a status");
    if (out.rc == 0)
        return 0;
    char msg[MSG_LEN];
    memset(msg, 0, sizeof msg);
    if (me == out.rank)
        snprintf(msg, sizeof msg, "%s", sp_last_error());
    if (PMPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, out.rank, comm) != MPI_SUCCESS)
        return sp__error(out.rc, "rank %d failed (MPI_Bcast of its reason failed too)", out.rank);
    msg[sizeof msg - 1] = '\0';
    if (me != out.rank)
        sp__error(out.rc, "rank %d: %s", out.rank, msg);
    return out.rc;
}

#else
typedef int sp__mpi_agree_unused; /* ISO C: no empty translation unit */
#endif
