/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi_token.c - the serialized MPI writer: a token passes from
 * rank to rank and each appends its part of the file with plain POSIX I/O.
 *
 *   rank 0:      create tmp, write the root and /rank0, close, sync; token -> 1
 *   rank r > 0:  wait for the token, open tmp, write /rank<r>, close, sync;
 *                token -> r + 1
 *   all:         agree (MPI_Allreduce); rank 0 renames tmp into place or
 *                removes it
 *
 * The token carries the status so far: once a rank fails, the following
 * ranks write nothing and pass the failure on; the agreement at the end
 * hands every rank the failing rank's reason. Needs no MPI-IO, so it works
 * with a serial HDF5 build and on file systems where MPI-IO does not.
 *
 * The parallel writer uses the same pass, without the call data, to lay out
 * the file before the ranks write their calls at once.
 */
#ifdef SP_WITH_MPI

#include <stdlib.h>

#include "sp_error.h"
#include "sp_h5_write_mpi_internal.h"

#define TOKEN_TAG 4242

/* This rank's part: the root too on rank 0. */
static int append_part(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock,
                       const char *tmp, bool calls_data)
{
    hid_t file = H5I_INVALID_HID;
    int rc = w->rank == 0 ? sp__h5w_create(w, tmp, &file) : sp__h5w_open(w, tmp, false, &file);
    if (rc == 0 && w->rank == 0)
        rc = sp__h5w_root(w, file, run);
    if (rc == 0)
        rc = sp__h5w_rank(w, file, run, (size_t)w->rank, clock, calls_data);
    if (rc == 0 && calls_data)
        rc = sp__h5w_injected_failure(w);
    if (file >= 0 && H5Fclose(file) < 0 && rc == 0)
        rc = sp__h5_error(SP_EIO, "cannot write '%s': closing '%s'", w->path, tmp);
    if (rc == 0 && calls_data)
        rc = sp__h5w_sync(w, tmp); /* each rank syncs what it wrote */
    return rc;
}

int sp__h5w_token_pass(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock,
                       const char *tmp, bool calls_data)
{
    int rc = 0, token = 0; /* token 0: every rank before succeeded; < 0: one failed */
    if (w->rank > 0 && PMPI_Recv(&token, 1, MPI_INT, w->rank - 1, TOKEN_TAG, w->comm,
                                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
        rc = token = sp__error(SP_EIO,
                               "cannot write '%s': receiving the token from rank %d "
                               "failed",
                               w->path, w->rank - 1);
    if (token == 0)
        rc = token = append_part(w, run, clock, tmp, calls_data);
    if (w->rank + 1 < w->size &&
        PMPI_Send(&token, 1, MPI_INT, w->rank + 1, TOKEN_TAG, w->comm) != MPI_SUCCESS && rc == 0)
        rc = sp__error(SP_EIO, "cannot write '%s': passing the token to rank %d failed", w->path,
                       w->rank + 1);
    return rc; /* a rank after a failed one returns 0: the failing rank reports */
}

int sp__h5_write_mpi_token(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock)
{
    char *tmp = NULL;
    int rc = sp__h5w_tmp_name(w, &tmp);
    /* Everything the reader would refuse, before any file exists. */
    if (rc == 0)
        rc = sp__h5w_check(run, (size_t)w->rank, w->path);
    if ((rc = sp__mpi_agree(w->comm, rc)) == 0)
        rc = sp__h5w_publish(w, sp__h5w_token_pass(w, run, clock, tmp, true), tmp);
    free(tmp);
    return rc;
}

#else
typedef int sp__h5_write_mpi_token_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
