/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_session.c - the MPI hooks of sp_setup() and sp_finalize() (see
 * sp_mpi.h): notice MPI, measure clock offsets, merge every rank's run into
 * one file, agree on the outcome.
 *
 * sp_finalize() under MPI, rank by rank:
 *   agree that every rank gathered its run (a rank that could not joins
 *   through sp__mpi_finalize_failed) -> measure the clock offset again ->
 *   job metadata (mpi_size, num_threads over all ranks) -> a session with a
 *   file joins every rank's streamed part into the finished file
 *   (sp_mpi_stream.c); one kept in memory merges the region tables and
 *   places the rank's data at its index (sp_mpi_merge.c).
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
#include "sp_mpi_msg.h"
#include "sp_recorder.h"
#include "sp_schema.h"

sp__mpi_state sp__mpi = {.clock = {0, -1, 0, -1}};
int sp__mpi_fail_rank = -1;

bool sp__mpi_running(void)
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

/* SCOPE_PROFILER_MPI_WRITER chose between two writers of the one-file
 * layout of schema 1. Every rank now streams its own part and the parts
 * are joined rank by rank: the variable is still checked (a typo stays an
 * error) but no longer changes anything. */
static int env_writer(void)
{
    const char *v = getenv("SCOPE_PROFILER_MPI_WRITER");
    if (!v || !*v || strcasecmp(v, "auto") == 0 || strcasecmp(v, "token") == 0 ||
        strcasecmp(v, "parallel") == 0)
        return 0;
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

int sp__mpi_setup(const sp_options *o, bool recording, bool file_output,
                  sp__clock_source clock)
{
    bool regions;
    int rc;
    sp__mpi_calls_set(false);
    if ((rc = env_writer()) != 0 || (rc = env_regions(o, &regions)) != 0 ||
        (rc = sp__mpi_msg_setup(regions && recording, file_output && recording, clock)) != 0)
        return rc;
    sp__mpi.at_setup = false;
    sp__mpi.clock = (sp_v2_mpi_clock){0, -1, 0, -1};
    if (!recording)
        return 0; /* a deactivated session does no MPI work at all */
    if (sp__mpi_running()) {
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
    /* Also before MPI_Init: the calls made after it are timed (and their
     * messages recorded, SCOPE_PROFILER_MPI_MESSAGES: sp_mpi_msg.c). */
    if (regions)
        sp__mpi_regions_resolve();
    sp__mpi_calls_set(true);
    return 0;
}

/* ---------------------------------------------------------------- finalize */

bool sp__mpi_session(void)
{
    return sp__mpi.at_setup || sp__mpi_running();
}

void sp__mpi_finalize_failed(int rc)
{
    sp__mpi_calls_set(false);
    if (rc >= 0 || !sp__mpi_session() || !sp__mpi_running() || sp__mpi_comm() != 0)
        return;
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", sp_last_error());
    sp__mpi_agree(sp__mpi.comm, rc); /* the other ranks are in sp__mpi_finalize */
    sp__error(rc, "%s", reason);     /* this rank keeps its own reason */
}

/* mpi_size and num_threads (all ranks) in the run metadata; collective (a
 * sum of threads). idx: where this rank's data is in run. */
int sp__mpi_job_metadata(sp_run *run, size_t idx)
{
    long long mine = (long long)run->ranks[idx].nthreads, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, sp__mpi.comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "sp_finalize: MPI_Allreduce of the thread counts failed");
    char v[32];
    snprintf(v, sizeof v, "%d", sp__mpi.size);
    int rc = sp_kvlist_set(&run->meta, SP_META_KEY(MPI_SIZE), v);
    snprintf(v, sizeof v, "%lld", all);
    if (rc == 0)
        rc = sp_kvlist_set(&run->meta, SP_META_KEY(NUM_THREADS), v);
    return rc ? sp__error(SP_ENOMEM, "sp_finalize: out of memory recording the job metadata") : 0;
}

int sp__mpi_finalize_begin(bool *verbose)
{
    sp__mpi_calls_set(false);
    if (!sp__mpi_running())
        return sp__error(SP_ESTATE, "sp_finalize: MPI is already finalized: call sp_finalize "
                                    "before MPI_Finalize (nothing was written)");
    int rc = sp__mpi_comm(); /* collective when MPI started after sp_setup */
    if (rc != 0)
        return rc;
    if (sp__mpi.rank != 0)
        *verbose = false; /* one summary per job */
    /* First agreement: matches sp__mpi_finalize_failed on a failing rank. */
    if ((rc = sp__mpi_agree(sp__mpi.comm, 0)) != 0)
        return rc;
    rc = sp__mpi_clock_offset(sp__mpi.comm, sp__mpi.rank, sp__mpi.size,
                              &sp__mpi.clock.finalize_ns, &sp__mpi.clock.finalize_err_ns);
    return sp__mpi_agree(sp__mpi.comm, rc);
}

int sp__mpi_finalize(sp_run **run, const char *path, bool *verbose, bool want_merged)
{
    (void)want_merged;
    if (path)
        return sp__error(SP_EINVAL, "sp_finalize: internal: a run kept in memory has no file");
    int rc = sp__mpi_finalize_begin(verbose);
    if (rc != 0)
        return rc;
    const int me = sp__mpi.rank;
    if ((rc = sp__mpi_merge_run(*run, sp__mpi.comm, me, sp__mpi.size)) != 0)
        return rc;
    sp_rank_data *rk = &(*run)->ranks[me];
    sp__mpi_clock_combine(&sp__mpi.clock, &rk->clock_offset_ns, &rk->clock_offset_err_ns);
    return sp__mpi_agree(sp__mpi.comm, sp__mpi_job_metadata(*run, (size_t)me));
}

#else
typedef int sp__mpi_session_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
