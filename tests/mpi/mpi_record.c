/* SPDX-License-Identifier: MIT */
/*
 * mpi_record.c - the MPI program of the tests/mpi cases: records the
 * pattern of mpi_case.h on every rank, then finalizes (or not).
 *
 *   mpirun -n 4 mpi_record OUT.h5 [options]
 *     --mpi-regions         use_mpi_regions = true (else SCOPE_PROFILER_MPI_REGIONS)
 *     --no-finalize         never call sp_finalize: MPI_Finalize must write the file
 *     --setup-before-init   call sp_setup before MPI_Init
 *     --no-mpi              never initialise MPI (the library must work serially)
 *     --fail-rank R         make rank R's part of the write fail (test hook)
 *     --expect-fail         succeed only if sp_finalize returns SP_EIO with a reason
 *     --abort-rank R        rank R calls MPI_Abort after recording (no finalize
 *                           anywhere: the job dies, the parts stay)
 *     --hold S              wait S seconds before sp_finalize (a job still
 *                           recording while another starts)
 *
 * Each rank prints one line "rank R: ..." and exits 0 when everything it can
 * check itself held (the file is checked by check_mpi_file and h5py).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scope_profiler.h>

#include "mpi_case.h"

/* Test hook of the MPI join (recorder/mpi/sp_mpi_stream.c): the rank whose
 * write fails on purpose, -1 for none. */
extern int sp__mpi_fail_rank;

typedef struct worker {
    int rank, thread;
} worker;

static void *work(void *arg)
{
    const worker *w = arg;
    long n = sp_case_work_calls(w->rank, w->thread);
    for (long i = 0; i < n; i++) {
        SP_SCOPE("work")
        {
            SP_SCOPE("inner") {}
        }
    }
    return NULL;
}

static void record(int rank)
{
    pthread_t tid[SP_CASE_THREADS];
    worker w[SP_CASE_THREADS];
    for (int t = 1; t < SP_CASE_THREADS; t++) {
        w[t] = (worker){rank, t};
        pthread_create(&tid[t], NULL, work, &w[t]);
    }
    w[0] = (worker){rank, 0};
    work(&w[0]);
    for (int t = 1; t < SP_CASE_THREADS; t++)
        pthread_join(tid[t], NULL);

    char only[64];
    sp_case_only_name(rank, only, sizeof only);
    for (int i = 0; sp_case_records(rank) && i <= rank; i++)
        SP_SCOPE(only) {}
}

static void steps(int rank, bool mpi)
{
    for (int s = 0; s < SP_CASE_STEPS; s++) {
        int one = 1, sum = 0;
        if (!sp_case_records(rank)) {
            if (mpi) {
                MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            continue;
        }
        SP_SCOPE("step")
        {
            if (mpi) {
                MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
    }
}

/* What this rank can check in the run sp_finalize handed back. */
static bool check_results(sp_run *run, int rank, int size)
{
    if (!run)
        return false;
    long mine = 0, all = 0;
    for (int r = 0; r < size; r++)
        for (int t = 0; t < SP_CASE_THREADS; t++) {
            all += sp_case_work_calls(r, t);
            if (r == rank)
                mine += sp_case_work_calls(r, t);
        }
    const sp_run_region *work_region = sp_run_find(run, "work");
    long got = work_region ? (long)sp_run_region_num_calls(work_region) : 0;
    /* Rank 0 gets the merged file back, the others their own part. */
    long want = rank == 0 ? all : mine;
    if ((int)sp_run_num_ranks(run) != size || got != want) {
        printf("rank %d: results: %zu ranks, %ld calls of work (want %d, %ld)\n", rank,
               sp_run_num_ranks(run), got, size, want);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mpi_record OUT.h5 [options]\n");
        return 2;
    }
    bool no_finalize = false, before_init = false, no_mpi = false, expect_fail = false;
    int abort_rank = -1;
    double hold_s = 0;
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[1];
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--mpi-regions") == 0)
            o.use_mpi_regions = true;
        else if (strcmp(argv[i], "--no-finalize") == 0)
            no_finalize = true;
        else if (strcmp(argv[i], "--setup-before-init") == 0)
            before_init = true;
        else if (strcmp(argv[i], "--no-mpi") == 0)
            no_mpi = true;
        else if (strcmp(argv[i], "--fail-rank") == 0 && i + 1 < argc)
            sp__mpi_fail_rank = atoi(argv[++i]);
        else if (strcmp(argv[i], "--expect-fail") == 0)
            expect_fail = true;
        else if (strcmp(argv[i], "--abort-rank") == 0 && i + 1 < argc)
            abort_rank = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc)
            hold_s = atof(argv[++i]);
        else {
            fprintf(stderr, "mpi_record: unknown option %s\n", argv[i]);
            return 2;
        }
    }

    int rank = 0, size = 1;
    if (before_init && sp_setup(&o) != 0) {
        fprintf(stderr, "mpi_record: sp_setup: %s\n", sp_last_error());
        return 1;
    }
    if (!no_mpi) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    if (!before_init && sp_setup(&o) != 0) {
        fprintf(stderr, "mpi_record: rank %d: sp_setup: %s\n", rank, sp_last_error());
        return 1;
    }
    record(rank);
    steps(rank, !no_mpi);
    if (abort_rank >= 0 && !no_mpi) {
        MPI_Barrier(MPI_COMM_WORLD); /* every rank's part exists */
        if (rank == abort_rank) {
            printf("rank %d: MPI_Abort\n", rank);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        for (;;)
            MPI_Barrier(MPI_COMM_WORLD); /* until the abort ends the job */
    }

    if (hold_s > 0) {
        struct timespec t = {(time_t)hold_s, (long)((hold_s - (double)(time_t)hold_s) * 1e9)};
        nanosleep(&t, NULL);
    }
    int status = 0;
    if (no_finalize) {
        printf("rank %d: leaving sp_finalize to MPI_Finalize\n", rank);
    } else {
        sp_run *run = NULL;
        int rc = sp_finalize(false, &run);
        if (expect_fail) {
            bool ok = rc == SP_EIO && *sp_last_error();
            printf("rank %d: sp_finalize failed as expected: %s: %s\n", rank, ok ? "ok" : "WRONG",
                   sp_last_error());
            status = ok ? 0 : 1;
        } else if (rc != 0) {
            printf("rank %d: sp_finalize: %s\n", rank, sp_last_error());
            status = 1;
        } else {
            bool ok = check_results(run, rank, size);
            printf("rank %d: finalized, results %s\n", rank, ok ? "ok" : "WRONG");
            status = ok ? 0 : 1;
        }
        sp_run_free(run);
    }
    if (!no_mpi)
        MPI_Finalize();
    return status;
}
