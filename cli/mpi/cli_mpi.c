/* SPDX-License-Identifier: MIT */
/*
 * cli_mpi.c - scope-profiler-mpi, the command's MPI helper.
 *
 * `mpirun -n N scope-profiler summary|inspect|ranks|report|check RUN ...`
 * execs this program (cli/main.c finds it next to the preload libraries),
 * so the command itself never links MPI. Rank 0 runs the verb exactly as
 * the command does (cli_main.c); each time the verb reads a run
 * aggregate-first (sp__cli_read), every process reads its share of the
 * run's ranks (sp_agg_opts.part/nparts: consecutive ranks of about equal
 * events) in a child process, as the serial command does (the guard
 * against libhdf5 crashing), and sends the aggregates (sp_agg_encode) to
 * rank 0, which merges them (sp_agg_merge_ranks) into the run the verb
 * prints. Only rank 0 prints; the output is the serial command's, byte for
 * byte. A failure in any process is reported once, by rank 0 (the first
 * process's in rank order), and every process exits with rank 0's status.
 * check reads each of its runs so too (the comparisons read aggregate-first,
 * SP_COMPARE_AGG_FLAGS, and what they keep is per rank). Whatever a verb
 * reads otherwise, rank 0 reads alone while the others wait.
 */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_agg.h"
#include "sp_error.h"
#include "sp_h5.h"
#include "sp_run_read.h"

enum { OP_STOP = 0, OP_READ = 1 };

/* What rank 0 asks for, broadcast before the path and the selection; the
 * stop carries the exit status. */
typedef struct request {
    int32_t op;
    int32_t status;     /* OP_STOP: what every process returns */
    uint32_t flags;
    int32_t has_sel;    /* a rank selection follows (nsel entries) */
    int64_t series_bins;
    uint64_t path_len;
    uint64_t nsel;
} request;

/* What each process sends back: aggregates (len bytes), or a failure
 * (status < 0) whose bytes are the message. */
typedef struct reply {
    int64_t len;
    int32_t status;
    int32_t pad;
} reply;

static int me, nprocs;
static unsigned pass_threads; /* this node's cores shared by its processes */

/* This process's share of one read: the run (header and the aggregates of
 * its ranks) and its aggregates encoded into *bytes, or a failure with its
 * message as the bytes. */
static sp_run *read_share(const char *path, const sp_agg_opts *asked, uint8_t **bytes,
                          reply *rep)
{
    sp_agg_opts o = *asked;
    o.part = (unsigned)me;
    o.nparts = (unsigned)nprocs;
    o.observer = NULL;
    if (!o.threads)
        o.threads = pass_threads;
    if (me != 0) /* the progress line on stderr is rank 0's */
        o.progress = NULL;
    int rc = 0;
    sp_run *run = sp_run_read(path, &o, NULL, sp_h5_isolation_enabled(), &rc);
    size_t len = 0;
    *bytes = NULL;
    if (run && me != 0 && (rc = sp_agg_encode(run->agg, bytes, &len)) != 0) {
        sp_run_free(run);
        run = NULL;
    }
    if (!run) {
        const char *msg = sp_last_error();
        *bytes = (uint8_t *)strdup(*msg ? msg : "reading failed");
        len = *bytes ? strlen((char *)*bytes) : 0;
        rc = rc < 0 ? rc : SP_EIO;
    }
    *rep = (reply){.len = (int64_t)len, .status = rc};
    return run;
}

/* Every process's reply and bytes to rank 0 (all take part). On rank 0,
 * *all, *data and *displs are allocated (NULL elsewhere); 0, or SP_ENOMEM
 * / SP_EINVAL (more than an int of bytes) with nothing gathered. */
static int gather(const reply *mine, const uint8_t *bytes, reply **all, uint8_t **data,
                  int **displs)
{
    *all = NULL;
    *data = NULL;
    *displs = NULL;
    reply *r = me == 0 ? calloc((size_t)nprocs, sizeof *r) : NULL;
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, r, (int)sizeof *mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    /* Rank 0 says whether the bytes can come (all wait for its word). */
    int *counts = NULL;
    int ok = 1;
    if (me == 0) {
        counts = calloc((size_t)nprocs, sizeof *counts);
        *displs = calloc((size_t)nprocs, sizeof **displs);
        int64_t total = 0;
        bool fits = r && counts && *displs;
        for (int i = 0; fits && i < nprocs; i++) {
            fits = r[i].len >= 0 && total + r[i].len <= INT_MAX; /* MPI counts are int */
            if (fits) {
                (*displs)[i] = (int)total;
                counts[i] = (int)r[i].len;
                total += r[i].len;
            }
        }
        *data = fits ? malloc(total > 0 ? (size_t)total : 1) : NULL;
        ok = *data != NULL;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (ok)
        MPI_Gatherv(bytes, (int)mine->len, MPI_BYTE, *data, counts, *displs, MPI_BYTE, 0,
                    MPI_COMM_WORLD);
    else if (me == 0)
        rc = sp__error(SP_ENOMEM, "out of memory gathering the aggregates");
    free(counts);
    if (me == 0 && rc == 0)
        *all = r;
    else {
        free(r);
        free(*data);
        free(*displs);
        *data = NULL;
        *displs = NULL;
    }
    return rc;
}

/* Rank 0: the other processes' aggregates merged into run's (its own
 * share); the first failure in rank order wins. 0 or its status. */
static int merge_replies(const char *path, sp_run *run, int own_status, const reply *all,
                         const uint8_t *data, const int *displs)
{
    if (own_status)
        return own_status; /* its message is already the last error */
    for (int i = 1; i < nprocs; i++) {
        const uint8_t *bytes = data + displs[i];
        if (all[i].status) {
            int k = all[i].len < 1000 ? (int)all[i].len : 1000;
            return sp__error(all[i].status, "%.*s", k, (const char *)bytes);
        }
        sp_agg *a = NULL;
        int rc = sp_agg_decode(bytes, (size_t)all[i].len, run, &a);
        if (rc)
            return sp__error(rc, "%s: MPI process %d sent back damaged aggregates", path, i);
        rc = sp_agg_merge_ranks(run->agg, a);
        sp_agg_free(a);
        if (rc)
            return rc;
    }
    return sp_run_attach_read(run, run->agg);
}

/* Rank 0's reader (sp__cli_reader): every process reads its share, rank 0
 * merges. Same contract as sp_run_read(). */
static sp_run *mpi_read(const char *path, const sp_agg_opts *opts, int *status)
{
    sp_agg_opts asked = opts ? *opts : (sp_agg_opts){0};
    request q = {.op = OP_READ,
                 .flags = asked.flags,
                 .series_bins = asked.series_bins,
                 .path_len = strlen(path),
                 .has_sel = asked.ranks != NULL,
                 .nsel = asked.ranks ? asked.nranks_sel : 0};
    if (q.has_sel && !q.nsel) /* one entry per rank of a run not read yet: unknown length */
        q.has_sel = 0, asked.ranks = NULL;
    MPI_Bcast(&q, (int)sizeof q, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast((void *)path, (int)q.path_len, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (q.has_sel)
        MPI_Bcast((void *)asked.ranks, (int)(q.nsel * sizeof(bool)), MPI_BYTE, 0,
                  MPI_COMM_WORLD);

    uint8_t *bytes;
    reply rep;
    sp_run *run = read_share(path, &asked, &bytes, &rep);
    reply *all;
    uint8_t *data;
    int *displs;
    int rc = gather(&rep, bytes, &all, &data, &displs);
    free(bytes);
    if (rc == 0)
        rc = merge_replies(path, run, rep.status, all, data, displs);
    else if (rep.status)
        rc = rep.status;
    free(all);
    free(data);
    free(displs);
    if (rc) {
        sp_run_free(run);
        run = NULL;
    }
    if (status)
        *status = rc;
    return run;
}

/* The other processes: read what rank 0 asks until it stops; its status. */
static int serve(void)
{
    for (;;) {
        request q;
        MPI_Bcast(&q, (int)sizeof q, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (q.op != OP_READ)
            return q.status;
        char *path = calloc(q.path_len + 1, 1);
        bool *sel = q.has_sel ? calloc(q.nsel ? q.nsel : 1, sizeof *sel) : NULL;
        char dummy[1];
        /* Out of memory here still takes part in every collective step. */
        MPI_Bcast(path ? path : dummy, path ? (int)q.path_len : 0, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (q.has_sel)
            MPI_Bcast(sel ? (void *)sel : dummy, sel ? (int)(q.nsel * sizeof(bool)) : 0,
                      MPI_BYTE, 0, MPI_COMM_WORLD);
        uint8_t *bytes = NULL;
        reply rep = {.status = SP_ENOMEM};
        sp_run *run = NULL;
        if (path && (sel || !q.has_sel)) {
            sp_agg_opts o = {.flags = q.flags,
                             .series_bins = q.series_bins,
                             .ranks = sel,
                             .nranks_sel = (size_t)q.nsel};
            run = read_share(path, &o, &bytes, &rep);
        }
        sp_run_free(run);
        reply *all;
        uint8_t *data;
        int *displs;
        gather(&rep, bytes, &all, &data, &displs);
        free(bytes);
        free(path);
        free(sel);
    }
}

int main(int argc, char **argv)
{
    int provided;
    /* The pass's threads never call MPI. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* Processes on one node share its cores: each pass gets its part. */
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cores = cores < 1 ? 1 : cores > 8 ? 8 : cores;
    pass_threads = cores / local >= 1 ? (unsigned)(cores / local) : 1u;
    int rc;
    if (me == 0) {
        sp__cli_reader = mpi_read;
        rc = sp__cli_main(argc, argv);
        fflush(stdout);
        fflush(stderr);
        request stop = {.op = OP_STOP, .status = rc};
        MPI_Bcast(&stop, (int)sizeof stop, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
        rc = serve();
    }
    MPI_Finalize();
    return rc;
}
