/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_stub.c - the MPI hooks of sp_mpi.h in the serial library: without
 * MPI a session is never an MPI session. (libscope_profiler_mpi compiles
 * the real ones, sp_mpi_session.c, instead.)
 */
#ifndef SP_WITH_MPI

#include "sp_error.h"
#include "sp_mpi.h"

int sp__mpi_setup(const sp_options *o, bool recording, bool file_output,
                  sp__clock_source clock)
{
    return 0;
}

bool sp__mpi_messages(void)
{
    return false;
}

uint32_t sp__mpi_comm_rows(uint32_t from, sp__comm_rows *out)
{
    out->n = 0;
    out->nmembers = 0;
    return from;
}

void sp__mpi_msg_counts(uint64_t *dropped, uint64_t *untracked)
{
    *dropped = *untracked = 0;
}

bool sp__mpi_session(void)
{
    return false;
}

void sp__mpi_finalize_failed(int rc) {}

int sp__mpi_finalize(sp_run **run, const char *path, bool *verbose, bool want_merged)
{
    return sp__error(SP_ENOTSUP, "sp_finalize: this library was built without MPI");
}

int sp__mpi_share_path(char **path)
{
    (void)path;
    return 0;
}

void sp__mpi_place(int32_t *rank, size_t *size, int64_t *offset_ns, int64_t *err_ns)
{
    *rank = 0;
    *size = 1;
    *offset_ns = *err_ns = 0;
}

int sp__mpi_finalize_stream(sp_run **run, const char *path, const char *part_path,
                            const struct sp_v2_events *extra, const sp__clock_calib *calib,
                            bool *verbose, bool want_merged)
{
    return sp__error(SP_ENOTSUP, "sp_finalize: this library was built without MPI");
}

#else
typedef int sp__mpi_stub_unused; /* ISO C: no empty translation unit */
#endif
