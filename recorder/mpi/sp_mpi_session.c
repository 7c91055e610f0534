/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_session.c - the MPI hooks of sp_setup() and sp_finalize() (see
 * sp_mpi.h): notice MPI, measure clock offsets, merge every rank's run into
 * one file, agree on the outcome.
 *
 * sp_finalize() under MPI, rank by rank:
 *   agree that every rank gathered its run (a rank that could not joins
 *   through sp__mpi_finalize_failed) -> measure the clock offset again ->
 *   merge the region tables and place the rank's data at its index (sp_mpi_
 *   merge.c) -> job metadata (mpi_size, num_threads over all ranks,
 *   mpi_writer) -> write with the chosen writer (h5schema/sp_h5_write_mpi*)
 *   -> rank 0 reads the merged file back when the caller wants the run.
 */
#ifdef SP_WITH_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sp_error.h"
#include "sp_h5.h"
#include "sp_env.h"
#include "sp_mpi_internal.h"
#include "sp_recorder.h"
#include "sp_schema.h"

sp__mpi_state sp__mpi = {.clock = {0, -1, 0, -1}};

static bool mpi_running(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    return init && !fin;
}

int sp__mpi_comm(void)
{
    if (sp__mpi.have_comm)
        return 0;
    /* Our own communicator: the program's messages (MPI_ANY_TAG receives
     * included) never see ours. */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &sp__mpi.comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "MPI_Comm_dup(MPI_COMM_WORLD) failed");
    PMPI_Comm_rank(sp__mpi.comm, &sp__mpi.rank);
    PMPI_Comm_size(sp__mpi.comm, &sp__mpi.size);
    sp__mpi.have_comm = true;
    return 0;
}

/* ---------------------------------------------------------------- setup */

static int env_writer(sp__h5_mpi_writer *out)
{
    const char *v = getenv("SCOPE_PROFILER_MPI_WRITER");
    *out = sp__h5_mpi_have_parallel() ? SP__H5_MPI_PARALLEL : SP__H5_MPI_TOKEN;
    if (!v || !*v || strcasecmp(v, "auto") == 0)
        return 0;
    if (strcasecmp(v, "token") == 0) {
        *out = SP__H5_MPI_TOKEN;
        return 0;
    }
    if (strcasecmp(v, "parallel") == 0) {
        if (!sp__h5_mpi_have_parallel())
            return sp__error(SP_ENOTSUP, "SCOPE_PROFILER_MPI_WRITER=parallel: this HDF5 "
                                         "build has no parallel I/O (use token)");
        return 0;
    }
    return sp__error(SP_EINVAL,
                     "SCOPE_PROFILER_MPI_WRITER='%s': expected parallel, token or "
                     "auto",
                     v);
}

static int env_regions(const sp_options *o, bool *out)
{
    *out = o && o->use_mpi_regions;
    return sp__env_bool("SCOPE_PROFILER_MPI_REGIONS", out);
}

int sp__mpi_setup(const sp_options *o, bool recording)
{
    sp__h5_mpi_writer writer;
    bool regions;
    int rc;
    if ((rc = env_writer(&writer)) != 0 || (rc = env_regions(o, &regions)) != 0)
        return rc;
    sp__mpi_regions_set(false);
    sp__mpi.writer = writer;
    sp__mpi.at_setup = false;
    sp__mpi.clock = (sp__h5_mpi_clock){0, -1, 0, -1};
    if (!recording)
        return 0; /* a deactivated session does no MPI work at all */
    if (mpi_running()) {
        if ((rc = sp__mpi_comm()) != 0)
            return rc;
        rc = sp__mpi_clock_offset(sp__mpi.comm, sp__mpi.rank, sp__mpi.size, &sp__mpi.clock.setup_ns,
                                  &sp__mpi.clock.setup_err_ns);
        if ((rc = sp__mpi_agree(sp__mpi.comm, rc)) != 0) {
            sp__mpi.clock.setup_err_ns = -1;
            return rc;
        }
        sp__mpi.at_setup = true;
    }
    /* Also before MPI_Init: the calls made after it are timed. */
    if (regions) {
        sp__mpi_regions_resolve();
        sp__mpi_regions_set(true);
    }
    return 0;
}

/* ---------------------------------------------------------------- finalize */

bool sp__mpi_session(void)
{
    return sp__mpi.at_setup || mpi_running();
}

void sp__mpi_finalize_failed(int rc)
{
    sp__mpi_regions_set(false);
    if (rc >= 0 || !sp__mpi_session() || !mpi_running() || sp__mpi_comm() != 0)
        return;
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", sp_last_error());
    sp__mpi_agree(sp__mpi.comm, rc); /* the other ranks are in sp__mpi_finalize */
    sp__error(rc, "%s", reason);     /* this rank keeps its own reason */
}

/* mpi_size, num_threads (all ranks) and mpi_writer in the run metadata;
 * collective (a sum of threads). */
static int job_metadata(sp_run *run, const char *path)
{
    long long mine = (long long)run->ranks[sp__mpi.rank].nthreads, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, sp__mpi.comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "sp_finalize: MPI_Allreduce of the thread counts failed");
    char v[32];
    snprintf(v, sizeof v, "%d", sp__mpi.size);
    int rc = sp_kvlist_set(&run->meta, SP_META_KEY(MPI_SIZE), v);
    snprintf(v, sizeof v, "%lld", all);
    if (rc == 0)
        rc = sp_kvlist_set(&run->meta, SP_META_KEY(NUM_THREADS), v);
    if (rc == 0 && path)
        rc = sp_kvlist_set(&run->meta, SP_META_KEY(MPI_WRITER),
                           sp__h5_mpi_writer_name(sp__mpi.writer));
    return rc ? sp__error(SP_ENOMEM, "sp_finalize: out of memory recording the job metadata") : 0;
}

/* Rank 0: the merged file instead of its own part, for the summary and the
 * caller (the other ranks keep their part: the file is read once). */
static void read_back(sp_run **run, const char *path)
{
    int st = 0;
    sp_run *merged = sp_h5_read(path, &st);
    if (!merged)
        return; /* keep rank 0's part; the file itself was written */
    if (!merged->source_path)
        merged->source_path = strdup(path);
    sp_run_free(*run);
    *run = merged;
}

int sp__mpi_finalize(sp_run **run, const char *path, bool *verbose, bool want_merged)
{
    sp__mpi_regions_set(false);
    if (!mpi_running())
        return sp__error(SP_ESTATE, "sp_finalize: MPI is already finalized: call sp_finalize "
                                    "before MPI_Finalize (nothing was written)");
    int rc = sp__mpi_comm(); /* collective when MPI started after sp_setup */
    if (rc != 0)
        return rc;
    const int me = sp__mpi.rank;
    if (me != 0)
        *verbose = false; /* one summary per job */
    /* First agreement: matches sp__mpi_finalize_failed on a failing rank. */
    if ((rc = sp__mpi_agree(sp__mpi.comm, 0)) != 0)
        return rc;

    rc = sp__mpi_clock_offset(sp__mpi.comm, me, sp__mpi.size, &sp__mpi.clock.finalize_ns,
                              &sp__mpi.clock.finalize_err_ns);
    if ((rc = sp__mpi_agree(sp__mpi.comm, rc)) != 0)
        return rc;
    if ((rc = sp__mpi_merge_run(*run, sp__mpi.comm, me, sp__mpi.size)) != 0)
        return rc;
    sp_rank_data *rk = &(*run)->ranks[me];
    sp__mpi_clock_combine(&sp__mpi.clock, &rk->clock_offset_ns, &rk->clock_offset_err_ns);
    if ((rc = sp__mpi_agree(sp__mpi.comm, job_metadata(*run, path))) != 0)
        return rc;

    if (path) {
        rc = sp__h5_write_mpi(*run, &sp__mpi.clock, path, sp__mpi.comm, sp__mpi.writer);
        if (rc != 0) {
            if (*verbose)
                printf("scope-profiler: warning: %s\n", sp_last_error());
            return rc;
        }
        (*run)->source_path = strdup(path);
        if (me == 0 && want_merged)
            read_back(run, path);
    }
    return 0;
}

#else
typedef int sp__mpi_session_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
