/* SPDX-License-Identifier: MIT */
/*
 * mpi_case.h - what tests/mpi/mpi_record.c records, as formulas, so the
 * checker (check_mpi_file.c) knows the exact count of every region on every
 * rank without being told.
 *
 * On rank r of P, with T threads per rank (thread 0 is the main thread):
 *   - rank SP_CASE_SILENT_RANK records nothing (it still takes part in the
 *     MPI calls, and in sp_setup/sp_finalize);
 *   - the main thread runs "step" SP_CASE_STEPS times; inside each step it
 *     calls MPI_Allreduce and MPI_Barrier once (timed as regions only with
 *     use_mpi_regions; the silent rank makes the same calls at top level);
 *   - the main thread runs "rank<r> only" r + 1 times (a region name only
 *     that rank has);
 *   - each thread t runs "work" (r + 1) * (t + 1) times, each containing one
 *     call of "inner".
 */
#ifndef MPI_CASE_H
#define MPI_CASE_H

#include <stdio.h>

#define SP_CASE_SILENT_RANK 2
#define SP_CASE_STEPS 3
#define SP_CASE_THREADS 4

static inline int sp_case_records(int rank)
{
    return rank != SP_CASE_SILENT_RANK;
}

/* Calls of "work" (and of "inner") on one thread. */
static inline long sp_case_work_calls(int rank, int thread)
{
    return sp_case_records(rank) ? (long)(rank + 1) * (thread + 1) : 0;
}

static inline void sp_case_only_name(int rank, char *buf, size_t len)
{
    snprintf(buf, len, "rank%d only", rank);
}

#endif
