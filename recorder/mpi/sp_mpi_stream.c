/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_stream.c - streaming under MPI: where a rank's part goes while the
 * job runs, and sp_finalize() joining every rank's part into one finished
 * file.
 *
 * While the job runs, every rank streams into its own part
 * ("<path>.rank<N>.part"), independently, and rank 0 wrote the file at
 * path with one external link per rank into those parts: a job killed
 * (one rank, or all) leaves a file every reader opens, with every rank's
 * flushed calls (SCHEMA.md). At sp_finalize a token passes from rank to
 * rank: rank 0 creates the finished file under an exclusive temporary name
 * with the job's metadata, and each rank in turn adds its group (its part's
 * event tables copied as they are, plus its final tables); the ranks agree
 * on success, rank 0 renames the file over path, and every rank removes
 * its part. On failure the temporary file goes and the streamed file stays.
 *
 * The parts and the finished file are written with the serial, thread-safe
 * HDF5 (the writer threads need it; Debian versions the symbols of its
 * serial and Open MPI builds, so a program may use parallel HDF5 itself).
 */
#ifdef SP_WITH_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5.h"
#include "sp_mpi_internal.h"
#include "sp_recorder.h"
#include "sp_stream.h"

#define TAG_TOKEN 0x5350 /* "SP" */
#define SP__MPI_PATH_MAX 4200 /* a path broadcast between ranks */

static bool env_long(const char *name, long *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return false;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0)
        return false;
    *out = n;
    return true;
}

void sp__mpi_place(int32_t *rank, size_t *size, int64_t *offset_ns, int64_t *err_ns)
{
    *rank = 0;
    *size = 1;
    *offset_ns = *err_ns = 0;
    if (sp__mpi.at_setup && sp__mpi.have_comm) {
        *rank = sp__mpi.rank;
        *size = (size_t)sp__mpi.size;
        if (sp__mpi.clock.setup_err_ns >= 0) {
            *offset_ns = sp__mpi.clock.setup_ns;
            *err_ns = sp__mpi.clock.setup_err_ns;
        }
        return;
    }
    /* sp_setup before MPI_Init: the launcher says where this process is. */
    static const char *const vars[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                          {"PMI_RANK", "PMI_SIZE"},
                                          {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        long r, n;
        if (env_long(vars[i][0], &r) && env_long(vars[i][1], &n) && r < n && n < INT32_MAX) {
            *rank = (int32_t)r;
            *size = (size_t)n;
            return;
        }
    }
}

/* Rank 0's path, to every rank (a fixed buffer: every rank takes part in
 * the broadcast whatever happens to it). Empty: rank 0 has none. */
static int bcast_path(MPI_Comm comm, int me, char **s)
{
    char buf[SP__MPI_PATH_MAX];
    memset(buf, 0, sizeof buf);
    if (me == 0 && *s && strlen(*s) < sizeof buf)
        strcpy(buf, *s);
    if (PMPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "MPI_Bcast of the file name failed");
    if (me == 0 || !buf[0])
        return 0;
    char *p = strdup(buf);
    if (!p)
        return sp__error(SP_ENOMEM, "sp_setup: out of memory");
    free(*s);
    *s = p;
    return 0;
}

int sp__mpi_share_path(char **path)
{
    if (!sp__mpi.at_setup || !sp__mpi.have_comm)
        return 0; /* before MPI_Init: each rank keeps its own */
    return bcast_path(sp__mpi.comm, sp__mpi.rank, path);
}

/* Ranks but 0 keep only their own calls of the run read back. */
static void keep_only(sp_run *run, int me)
{
    for (size_t r = 0; r < run->nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        if ((int)r == me)
            continue;
        sp_rank_free_calls(rk);
    }
}

/* This rank's turn: add its group to tmp (rank 0 first creates the file). */
static int write_my_group(const sp_run *skel, const char *tmp, const char *path,
                          const char *part_path, const struct sp_v2_events *extra,
                          const sp__clock_calib *calib, int me, int size)
{
    int rc = 0;
    if (me == 0)
        rc = sp_v2_final_root(tmp, path, (size_t)size, &skel->meta);
    if (rc == 0 && me == sp__mpi_fail_rank)
        rc = sp__error(SP_EIO, "cannot write '%s': injected failure on rank %d (test hook)", path,
                       me);
    if (rc)
        return rc;
    int64_t ticks[2] = {calib->p0.ticks, calib->p1.ticks};
    int64_t ns[2] = {calib->p0.ns, calib->p1.ns};
    sp_v2_rank_source src = {.run = skel, .r = 0, .part_path = part_path, .extra = extra,
                             .clock_ticks = ticks, .clock_ns = ns, .nclock = 2,
                             .mpi_clock = &sp__mpi.clock, .compress = SP_V2_COMPRESS_AUTO};
    sp__mpi_msg_counts(&src.mpi_records_dropped, &src.mpi_untracked);
    src.mpi_records_dropped += sp__stream_mpi_lost();
    return sp_v2_final_rank(tmp, path, &src);
}

int sp__mpi_finalize_stream(sp_run **run, const char *path, const char *part_path,
                            const struct sp_v2_events *extra, const sp__clock_calib *calib,
                            bool *verbose, bool want_merged)
{
    int rc = sp__mpi_finalize_begin(verbose);
    if (rc != 0)
        return rc;
    const int me = sp__mpi.rank, size = sp__mpi.size;
    MPI_Comm comm = sp__mpi.comm;
    sp_run *skel = *run;
    sp_rank_data *rk = &skel->ranks[0];
    rk->rank = me;
    sp__mpi_clock_combine(&sp__mpi.clock, &rk->clock_offset_ns, &rk->clock_offset_err_ns);
    if ((rc = sp__mpi_agree(comm, sp__mpi_job_metadata(skel, 0))) != 0)
        return rc;

    /* One unpredictable temporary name for all (rank 0's). */
    char tmp[SP__MPI_PATH_MAX] = "";
    if (me == 0) {
        sp_v2_remove_stale_tmps(path); /* left by an earlier run killed here */
        char *t = sp_v2_tmp_name(path);
        if (t && strlen(t) < sizeof tmp)
            strcpy(tmp, t);
        free(t);
    }
    if (PMPI_Bcast(tmp, (int)sizeof tmp, MPI_CHAR, 0, comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "sp_finalize: MPI_Bcast of the file name failed");
    if (!tmp[0])
        return sp__mpi_agree(comm, sp__error(SP_ENOMEM, "cannot write '%s': no temporary "
                                                        "name", path));

    /* The token: 0 while every rank before wrote its group. */
    int before = 0, mine = 0;
    if (me > 0 &&
        PMPI_Recv(&before, 1, MPI_INT, me - 1, TAG_TOKEN, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        before = SP_EIO;
    if (before == 0)
        mine = write_my_group(skel, tmp, path, part_path, extra, calib, me, size);
    int pass = before ? before : mine;
    if (me + 1 < size)
        PMPI_Send(&pass, 1, MPI_INT, me + 1, TAG_TOKEN, comm);
    if ((rc = sp__mpi_agree(comm, mine)) != 0) {
        if (me == 0)
            unlink(tmp); /* the streamed file stays as it was */
        return rc;
    }
    if (me == 0)
        rc = sp_v2_final_publish(tmp, path); /* removes tmp if it fails */
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        return rc;
    if (part_path)
        unlink(part_path); /* its events are in the finished file now */

    /* The file rank 0 published (a rank that set up before MPI_Init may
     * have had another path: rank 0 took another name when its path was
     * in use by another run). */
    char *published = strdup(path);
    int brc = bcast_path(comm, me, &published);
    if (want_merged && brc == 0 && published) {
        sp_run *back = sp_h5_read(published, NULL);
        if (back) {
            if (me != 0)
                keep_only(back, me);
            if (!back->source_path)
                back->source_path = strdup(published);
            sp_run_free(*run);
            *run = back;
        }
    }
    free(published);
    return 0;
}

#else
typedef int sp__mpi_stream_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
