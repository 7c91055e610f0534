/* SPDX-License-Identifier: MIT */
/*
 * scaling_mpi.c - an MPI program for strong-scaling studies with known
 * answers: per iteration,
 *   divided     a fixed total amount of work split evenly over the ranks
 *               (each rank does 1/N of it): efficiency ~1 at N ranks;
 *   replicated  the same work on every rank whatever N (not parallelised):
 *               efficiency ~1/N;
 *   compute     (only with --compute) CPU arithmetic split over the ranks.
 *
 * The work of divided and replicated is waiting (nanosleep), not
 * arithmetic: on a 2-core machine 4 ranks must oversubscribe, and CPU-bound
 * work would then measure the core count instead of the program (with
 * --compute, that is exactly what `compute` shows). Waiting work divides
 * perfectly however many cores there are, like I/O or a remote service.
 * No MPI call sits inside the timed loop, so busy-polling ranks cannot
 * delay a sleeping rank's wake-up.
 *
 *   mpirun -n N scaling_mpi OUT.h5 [--work-ms W] [--iters K] [--compute]
 * W: total work of `divided` over all ranks and iterations (default 480 ms);
 * `replicated` does W/4 on every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <scope_profiler.h>

static volatile double sink;

static void wait_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void spin_units(long units)
{
    double acc = 0;
    for (long i = 0; i < units * 1000; i++)
        acc += sqrt((double)i) * 1e-9;
    sink += acc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *out = NULL;
    double work_ms = 480;
    int iters = 12, compute = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--work-ms") == 0 && i + 1 < argc)
            work_ms = atof(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--compute") == 0)
            compute = 1;
        else if (!out && argv[i][0] != '-')
            out = argv[i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: scaling_mpi OUT.h5 [--work-ms W] [--iters K] [--compute]\n");
            MPI_Finalize();
            return 2;
        }
    }
    sp_options opts;
    sp_options_init(&opts);
    opts.file_path = out ? out : "scaling.h5";
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "scaling_mpi: %s\n", sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double per_iter = work_ms / iters;
    for (int it = 0; it < iters; it++) {
        SP_SCOPE("iteration")
        {
            SP_SCOPE("divided") wait_ms(per_iter / nranks);
            SP_SCOPE("replicated") wait_ms(per_iter / 4);
            if (compute)
                SP_SCOPE("compute") spin_units(4000 / nranks);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = sp_finalize(false, NULL);
    if (rc != 0)
        fprintf(stderr, "scaling_mpi: %s\n", sp_last_error());
    MPI_Finalize();
    return rc ? 1 : 0;
}
