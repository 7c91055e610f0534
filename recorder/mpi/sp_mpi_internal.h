/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_internal.h - state and helpers shared by the recorder's MPI files
 * (sp_mpi_*.c; libscope_profiler_mpi only, compiled with SP_WITH_MPI).
 */
#ifndef SP_MPI_INTERNAL_H
#define SP_MPI_INTERNAL_H

#ifdef SP_WITH_MPI

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "sp_h5_v2.h"
#include "sp_model.h"
#include "sp_mpi.h"

#pragma GCC visibility push(hidden)

/* The MPI side of the current session (touched by sp_setup/sp_finalize and
 * MPI_Finalize only, which the program calls from one thread). */
typedef struct sp__mpi_state {
    bool have_comm; /* comm is our duplicate of MPI_COMM_WORLD */
    MPI_Comm comm;
    int rank, size;
    bool at_setup;          /* MPI was initialised when the session began */
    sp_v2_mpi_clock clock;  /* this rank's offset measurements (err < 0: none) */
} sp__mpi_state;

extern sp__mpi_state sp__mpi;

/* Duplicate MPI_COMM_WORLD once (collective the first time). 0 or SP_EIO. */
int sp__mpi_comm(void);

/* MPI is initialised and not yet finalized. */
bool sp__mpi_running(void);

/* The start of sp_finalize() under MPI (collective): MPI call regions off,
 * the communicator, *verbose false on ranks but 0, the first agreement (a
 * rank that failed to gather its run joins it through
 * sp__mpi_finalize_failed), the clock offset measured again. */
int sp__mpi_finalize_begin(bool *verbose);

/* mpi_size and num_threads (summed over the ranks) in run->meta; idx: where
 * this rank's data is in run. Collective. 0, SP_EIO, SP_ENOMEM. */
int sp__mpi_job_metadata(sp_run *run, size_t idx);

/*
 * Measure this rank's clock offset to rank 0 (collective over comm): after a
 * barrier, rank 0 plays ping-pong with each rank in turn, SP__MPI_ROUNDS
 * rounds, and keeps the round with the smallest round trip: it sent at t0,
 * the rank answered with its clock reading t_r, the answer arrived at t1;
 * rtt = t1 - t0, d = t_r - (t0 + rtt/2) (how far the rank's clock is ahead).
 * *offset_ns = -d (what to add to the rank's times to put them on rank 0's
 * clock), *err_ns = ceil(rtt/2) (t_r lies between t0 and t1, so the true
 * offset is within that of the estimate). Rank 0 gets 0 and 0.
 * Returns 0 or SP_EIO.
 */
#define SP__MPI_ROUNDS 10
int sp__mpi_clock_offset(MPI_Comm comm, int rank, int size, int64_t *offset_ns, int64_t *err_ns);

/* One offset for the whole run from the two measurements (either may be
 * missing: err < 0): their mean, uncertain by the larger error plus half
 * their difference (so it covers both ends of the run). */
void sp__mpi_clock_combine(const sp_v2_mpi_clock *c, int64_t *offset_ns, int64_t *err_ns);

/*
 * Agree on a status across comm (collective): rc is this rank's status (0 or
 * a negative SP_E* code with sp_last_error() set). Returns 0 when every rank
 * passed 0; otherwise the lowest code on every rank, and every rank but the
 * failing one gets sp_last_error() = "rank N: <its reason>".
 */
int sp__mpi_agree(MPI_Comm comm, int rc);

/* Tests: the rank whose part of the finished file fails on purpose (-1:
 * none). */
extern int sp__mpi_fail_rank;

/*
 * Make run (this rank's one-rank run) the rank's part of the job's run
 * (collective): the global region table (rank 0's names first, then each
 * rank's new names in rank order; built on rank 0 and broadcast), this
 * rank's region ids in calls and dropped remapped to it, and nranks = size
 * with this rank's data at index rank (the others empty). Returns the same
 * status on every rank: 0, SP_ENOMEM, SP_EIO.
 */
int sp__mpi_merge_run(sp_run *run, MPI_Comm comm, int rank, int size);

/* ---- MPI call regions (sp_mpi_pmpi.c) ---- */

/* Resolve the region handles of the wrapped calls ("MPI_Send", ...). */
void sp__mpi_regions_resolve(void);

#pragma GCC visibility pop

#endif /* SP_WITH_MPI */

#endif
