/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi_util.c - what both MPI writers share: the entry point,
 * agreeing on a status, the temporary name, publishing (rename or remove).
 *
 * Every MPI call here goes to the PMPI_ entry points: the library's own
 * communication must never be timed as an MPI call region.
 */
#ifdef SP_WITH_MPI

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_write_mpi_internal.h"

#define MSG_LEN 768 /* a reason travels between ranks in a fixed buffer */

const char *sp__h5_mpi_writer_name(sp__h5_mpi_writer w)
{
    return w == SP__H5_MPI_TOKEN ? "token" : "parallel-hdf5";
}

bool sp__h5_mpi_have_parallel(void)
{
#ifdef H5_HAVE_PARALLEL
    return true;
#else
    return false;
#endif
}

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

int sp__h5w_tmp_name(const sp__h5w *w, char **tmp)
{
    long pid = (long)getpid();
    /* Rank 0's pid names the file: the same name on every rank. */
    if (PMPI_Bcast(&pid, 1, MPI_LONG, 0, w->comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "cannot write '%s': MPI_Bcast failed", w->path);
    size_t len = strlen(w->path) + 32;
    if (!(*tmp = malloc(len)))
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", w->path);
    snprintf(*tmp, len, "%s.tmp.%ld", w->path, pid);
    return 0;
}

int sp__h5w_sync(const sp__h5w *w, const char *tmp)
{
    if (!w->o.fsync)
        return 0;
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return sp__error(SP_EIO, "cannot write '%s': cannot sync '%s': %s", w->path, tmp,
                         strerror(e));
    }
    close(fd);
    return 0;
}

int sp__h5w_publish(const sp__h5w *w, int rc, const char *tmp)
{
    rc = sp__mpi_agree(w->comm, rc);
    if (rc == 0) {
        int mine = 0;
        if (w->rank == 0 && rename(tmp, w->path) != 0)
            mine = sp__error(SP_EIO, "cannot write '%s': cannot rename '%s' into place: %s",
                             w->path, tmp, strerror(errno));
        rc = sp__mpi_agree(w->comm, mine);
    }
    if (rc != 0)
        sp__h5w_discard(w, tmp);
    return rc;
}

void sp__h5w_discard(const sp__h5w *w, const char *tmp)
{
    if (w->rank == 0 && tmp)
        unlink(tmp); /* never leave a partial file behind (ENOENT is fine) */
}

int sp__h5_mpi_fail_rank = -1;

int sp__h5w_injected_failure(const sp__h5w *w)
{
    if (w->rank != sp__h5_mpi_fail_rank)
        return 0;
    return sp__error(SP_EIO, "cannot write '%s': injected failure on rank %d (test hook)", w->path,
                     w->rank);
}

/* ---------------------------------------------------------------- entry */

int sp__h5_write_mpi(const sp_run *run, const sp__h5_mpi_clock *clock, const char *path,
                     MPI_Comm comm, sp__h5_mpi_writer kind)
{
    sp__h5w w = {.path = path, .comm = comm};
    sp__h5_write_options_default(&w.o);
    if (PMPI_Comm_rank(comm, &w.rank) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, &w.size) != MPI_SUCCESS)
        return sp__error(SP_EIO, "cannot write '%s': MPI_Comm_rank/size failed", path ? path : "");
    /* Arguments are the same on every rank, so every rank returns here. */
    if (!run || !path || !*path || !clock)
        return sp__error(SP_EINVAL, "sp__h5_write_mpi: run, clock and path are required");
    if (run->nranks != (size_t)w.size || !run->ranks)
        return sp__error(SP_EINVAL, "cannot write '%s': the run has %zu ranks, the job %d", path,
                         run->nranks, w.size);
    if (kind == SP__H5_MPI_PARALLEL && !sp__h5_mpi_have_parallel())
        kind = SP__H5_MPI_TOKEN;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    int rc = kind == SP__H5_MPI_TOKEN ? sp__h5_write_mpi_token(&w, run, clock)
                                      : sp__h5_write_mpi_parallel(&w, run, clock);
    sp__h5_quiet_end(&quiet);
    return rc;
}

#else
typedef int sp__h5_write_mpi_util_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
