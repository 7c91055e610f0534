/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi.h - the two writers that put every MPI rank's data into one
 * file (internal; libscope_profiler_mpi only, compiled with SP_WITH_MPI).
 *
 * Both take the run as each rank holds it after the recorder merged the
 * region tables: nranks = communicator size, ranks[me] holds this rank's
 * calls, threads, metadata and clock offset, the other entries are empty,
 * region_names is the global table (identical on every rank) and run->meta
 * (written from rank 0) describes the job. Both write "<path>.tmp.<pid of
 * rank 0>", agree on success with an MPI_Allreduce, and only then let rank 0
 * rename the file into place; on failure rank 0 removes the temporary file
 * and every rank returns the same code with the failing rank's reason.
 *
 * - parallel (default): rank 0 creates the whole file structure serially
 *   from what the ranks sent it (sizes, thread and metadata tables: a few
 *   bytes per rank), with every call column allocated but not written; then
 *   all ranks open the file through MPI-IO (H5Pset_fapl_mpio) and each writes
 *   its own call columns independently, in parallel. Why not create the
 *   objects collectively: HDF5 1.10 cannot write variable-length strings
 *   (region and thread names) through MPI-IO at all ("Parallel IO does not
 *   support writing VL datatypes"), and collective creation would make every
 *   rank repeat every rank's metadata operations (see SCHEMA.md, "MPI").
 * - token: rank 0 creates the file with the root and its own rank group;
 *   a token then passes from rank to rank, each opening the file, appending
 *   its rank group and closing it (plain POSIX I/O, no MPI-IO).
 *
 * The layout is exactly that of sp_h5_write() (SCHEMA.md), plus the clock
 * measurement attributes of each rank group.
 */
#ifndef SP_H5_WRITE_MPI_H
#define SP_H5_WRITE_MPI_H

#ifdef SP_WITH_MPI

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "sp_model.h"

#pragma GCC visibility push(hidden)

typedef enum sp__h5_mpi_writer {
    SP__H5_MPI_PARALLEL, /* parallel HDF5 (MPI-IO) for the call columns */
    SP__H5_MPI_TOKEN     /* serialized: a token passes from rank to rank */
} sp__h5_mpi_writer;

/* "parallel-hdf5" or "token" (the value of the mpi_writer metadata key). */
const char *sp__h5_mpi_writer_name(sp__h5_mpi_writer w);

/* Whether this HDF5 build can write through MPI-IO (H5_HAVE_PARALLEL). */
bool sp__h5_mpi_have_parallel(void);

/* One rank's clock offset measurements (ns, "add to this rank's times to
 * align them with rank 0"), written as attributes of /rank<N>. An error
 * below 0 means "not measured" (no attribute is written). */
typedef struct sp__h5_mpi_clock {
    int64_t setup_ns, setup_err_ns;
    int64_t finalize_ns, finalize_err_ns;
} sp__h5_mpi_clock;

/*
 * Write run (see above) to path with writer w. Collective over comm: every
 * rank calls it with its own clock measurements. Returns the same status on
 * every rank: 0, SP_EINVAL (bad data on some rank), SP_EIO, SP_ENOMEM.
 */
int sp__h5_write_mpi(const sp_run *run, const sp__h5_mpi_clock *clock, const char *path,
                     MPI_Comm comm, sp__h5_mpi_writer w);

/*
 * Agree on a status across comm (collective): rc is this rank's status (0 or
 * a negative SP_E* code with sp_last_error() set). Returns 0 when every rank
 * passed 0; otherwise the lowest code on every rank, and every rank but the
 * failing one gets sp_last_error() = "rank N: <its reason>".
 */
int sp__mpi_agree(MPI_Comm comm, int rc);

#pragma GCC visibility pop

#endif /* SP_WITH_MPI */

#endif /* SP_H5_WRITE_MPI_H */
