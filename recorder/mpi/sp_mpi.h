/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi.h - the recorder's MPI hooks (internal).
 *
 * The same recorder sources build two libraries: libscope_profiler (serial
 * HDF5, no MPI) and libscope_profiler_mpi (compiled with -DSP_WITH_MPI=1,
 * Open MPI + the Open MPI flavour of HDF5). sp_setup() and sp_finalize() call
 * the hooks below unconditionally; sp_mpi_stub.c makes them no-ops in the
 * serial library, sp_mpi_session.c implements them in the MPI library.
 *
 * Under MPI a session is collective: every rank calls sp_setup() and
 * sp_finalize(). The recorder talks to the other ranks on its own duplicate
 * of MPI_COMM_WORLD, through the PMPI_ entry points only, so its messages
 * never meet the program's and are never timed as MPI call regions.
 */
#ifndef SP_MPI_H
#define SP_MPI_H

#include <stdbool.h>

#include "scope_profiler.h"
#include "sp_clock.h"
#include "sp_model.h"

#pragma GCC visibility push(hidden)

/*
 * sp_setup(), after the options were validated and before the session
 * starts (sp__lock not held). Reads SCOPE_PROFILER_MPI_WRITER and
 * SCOPE_PROFILER_MPI_REGIONS; if MPI is initialised, duplicates the
 * communicator and measures this rank's clock offset to rank 0 (collective),
 * and switches the MPI call regions on if asked (they record once the
 * session starts: until then sp_region_begin records nothing).
 * recording: false for a session that records nothing (no MPI work at all).
 * Returns 0, SP_EINVAL (bad environment value), SP_EIO (an MPI call failed).
 */
/* The serial library under an MPI launcher with several processes
 * (sp_mpi_launcher.c): *file_path (malloc'ed; may be NULL) becomes this
 * rank's own name.rank<N>.h5, and sp__mpi_misuse_note() says why (NULL
 * otherwise, and always in the MPI library; *rank: this process's rank).
 * 0 or SP_ENOMEM. */
int sp__mpi_serial_place(char **file_path);
const char *sp__mpi_misuse_note(int *rank);

int sp__mpi_setup(const sp_options *o, bool recording, bool file_output,
                  sp__clock_source clock);

/* Whether the session being finalized ends under MPI: MPI was initialised at
 * sp_setup() or is now (and not finalized). Every rank answers the same. */
bool sp__mpi_session(void);

/*
 * sp_finalize(), when this rank could not gather its run (rc < 0): take part
 * in the ranks' first agreement with the failure, so that the other ranks
 * fail with the reason instead of waiting. No-op without an MPI session.
 */
void sp__mpi_finalize_failed(int rc);

/*
 * sp_finalize() under MPI, instead of sp_h5_write(): agree with the other
 * ranks, measure the clock offset again, merge the region tables, make *run
 * the P-rank run of this rank (its own calls at index rank, the other ranks
 * empty), write path (NULL: no file) with the chosen writer, and on rank 0
 * replace *run by the merged file read back when want_merged. *verbose
 * becomes false on every rank but 0 (one summary per job).
 * Returns the same status on every rank: 0, SP_EIO (with the failing rank's
 * reason; no file left), SP_ENOMEM, SP_ESTATE (MPI already finalized).
 */
int sp__mpi_finalize(sp_run **run, const char *path, bool *verbose, bool want_merged);

/*
 * This process's place in the job as sp_setup() knows it: rank and size of
 * MPI_COMM_WORLD when MPI is initialised, else from the launcher's
 * environment (OMPI_COMM_WORLD_RANK/SIZE, PMIX_RANK, PMI_RANK/PMI_SIZE,
 * SLURM_PROCID/SLURM_NTASKS), else 0 of 1; and the clock offset to rank 0
 * measured at setup (0, 0 when none). The serial library: 0 of 1.
 */
void sp__mpi_place(int32_t *rank, size_t *size, int64_t *offset_ns, int64_t *err_ns);

/*
 * The file path of the job as rank 0 has it: when MPI was initialised at
 * sp_setup, rank 0's *path is broadcast and replaces the others' (collective:
 * every rank calls it at the same point of sp_setup; rank 0 picked another
 * name when its path was in use by another live run). Otherwise (the serial
 * library; sp_setup before MPI_Init) nothing changes. 0, SP_ENOMEM, SP_EIO.
 */
int sp__mpi_share_path(char **path);

struct sp_v2_events;

/* ---- MPI messages (sp_mpi_msg.c; SCHEMA.md "MPI messages and
 * collectives"). The serial library has none. ---- */

/* Whether this session records messages: set by sp__mpi_setup from
 * SCOPE_PROFILER_MPI_MESSAGES (default: on with use_mpi_regions), for
 * sessions that write a file. */
bool sp__mpi_messages(void);

/* Communicator rows for the writer: the rows from `from` on, appended to
 * out (cleared first). Returns the number of rows there are. */
typedef struct sp__comm_rows {
    uint32_t n, cap;
    uint32_t *size;    /* members per row */
    int32_t *flags;
    size_t nmembers, mcap;
    int32_t *members;  /* one row after the other */
} sp__comm_rows;
uint32_t sp__mpi_comm_rows(uint32_t from, sp__comm_rows *out);

/* Records this session could not keep on the recording side (no chunk),
 * and completed requests whose start was not seen. */
void sp__mpi_msg_counts(uint64_t *dropped, uint64_t *untracked);

/*
 * sp_finalize() under MPI for a session that streamed its part (part_path;
 * extra: more events after the part's): every rank adds its group to one
 * finished file, rank 0 publishes it, every rank removes its part; then, as
 * sp__mpi_finalize(), *run becomes the merged run on rank 0 when
 * want_merged (read back), this rank's own run elsewhere. Same status on
 * every rank: 0, SP_EIO (the failing rank's reason; the streamed main file
 * and parts are left as they were), SP_ENOMEM, SP_ESTATE.
 */
int sp__mpi_finalize_stream(sp_run **run, const char *path, const char *part_path,
                            const struct sp_v2_events *extra, const sp__clock_calib *calib,
                            bool *verbose, bool want_merged);

#pragma GCC visibility pop

#endif
