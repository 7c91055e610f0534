/* SPDX-License-Identifier: MIT */
/*
 * benchmark_mpi_finalize.c - how long sp_finalize() takes under MPI: each
 * rank records N calls (default 1,000,000: "step" calls each holding a
 * "kernel" call, two regions), then all ranks finalize together and the
 * slowest rank's time is reported. Each rank has streamed its calls into
 * its part file while it recorded; finalize writes what is left, and rank 0
 * copies the parts into the one file, rank by rank (SCHEMA.md, "MPI").
 * With SCOPE_PROFILER_NO_FILE=1 nothing is written: the ranks' calls are
 * gathered and merged in memory only. Several rounds in one job (a session
 * per round, the same file overwritten); median and best.
 *
 *   mpirun -n P benchmark_mpi_finalize OUT.h5 [CALLS_PER_RANK] [ROUNDS]
 *
 * Prints one line on rank 0:
 *   benchmark_mpi_finalize: ranks=4 output=file calls_per_rank=1000000
 *     data_mb=128.0 file_mb=1.2 finalize_s=0.112 (best 0.098) mb_per_s=1143
 * data_mb counts the 32 bytes of call data per call (all ranks); mb_per_s is
 * data_mb over the median finalize time. examples/run_benchmark_mpi_finalize.sh
 * runs it for 2, 4 and 8 ranks, with and without the file, and prints the
 * table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include <scope_profiler.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: benchmark_mpi_finalize OUT.h5 [CALLS_PER_RANK] [ROUNDS]\n");
        MPI_Finalize();
        return 2;
    }
    long calls = argc > 2 ? atol(argv[2]) : 1000000;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    if (calls < 2 || rounds < 1 || rounds > 100)
        calls = 1000000, rounds = 3;

    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[1];
    double t[100];
    if (rank == 0)
        remove(argv[1]); /* file_mb must describe this job's file (none without output) */
    for (int k = 0; k < rounds; k++) {
        if (sp_setup(&o) != 0) {
            fprintf(stderr, "rank %d: sp_setup: %s\n", rank, sp_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        sp_region *step = sp_region_get("step"), *kernel = sp_region_get("kernel");
        for (long i = 0; i < calls / 2; i++) {
            sp_region_begin(step);
            sp_region_begin(kernel);
            sp_region_end(kernel);
            sp_region_end(step);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_s();
        int rc = sp_finalize(false, NULL);
        double mine = now_s() - t0, slowest = 0;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        t[k] = slowest;
        if (rc != 0) {
            fprintf(stderr, "rank %d: sp_finalize: %s\n", rank, sp_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (rank == 0) {
        const char *nofile = getenv("SCOPE_PROFILER_NO_FILE");
        const char *output = nofile && *nofile && *nofile != '0' ? "none" : "file";
        qsort(t, (size_t)rounds, sizeof *t, cmp_double);
        double median = t[rounds / 2], best = t[0];
        struct stat st;
        double file_mb = stat(argv[1], &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
        double data_mb = 32.0 * (double)calls * size / 1e6;
        printf("benchmark_mpi_finalize: ranks=%d output=%s calls_per_rank=%ld data_mb=%.1f "
               "file_mb=%.1f finalize_s=%.3f (best %.3f) mb_per_s=%.0f\n",
               size, output, calls, data_mb, file_mb, median, best, data_mb / median);
    }
    MPI_Finalize();
    return 0;
}
