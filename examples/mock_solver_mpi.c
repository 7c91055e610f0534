/* SPDX-License-Identifier: MIT */
/*
 * mock_solver_mpi.c - the mock solver (mock_solver.c) under MPI: every rank
 * runs the same solver on its share of the work, with a deliberate load
 * imbalance (rank r assembles (r + 1) / P times the work of the slowest),
 * and the ranks agree on a residual with MPI_Allreduce after every solve.
 * The profiling code is the serial example's: nothing MPI-specific but
 * linking -lscope_profiler_mpi, which gives one file with a rank<N> group
 * per rank and times the MPI calls as regions (use_mpi_regions).
 *
 *   mpirun -n 4 mock_solver_mpi [OUTPUT.h5]     (default: profiling_data.h5)
 *   scope-profiler ranks OUTPUT.h5              (who is slow, how imbalanced)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <scope_profiler.h>

#include "mock_work.h" /* work_ms, and sink: the work's result */

static int rank, size;

static void setup(void)
{
    SP_FUNCTION();
    work_ms(2.0);
}

static void assemble_matrix(void)
{
    SP_FUNCTION();
    work_ms(3.0 * (rank + 1) / size); /* the imbalance */
}

static void apply_bc(void)
{
    SP_FUNCTION();
    work_ms(1.0);
}

static double residual(void)
{
    SP_FUNCTION();
    double mine = sink, all = 0.0;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static void solve(void)
{
    SP_FUNCTION();
    assemble_matrix();
    apply_bc();
    residual();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    sp_options opts;
    sp_options_init(&opts);
    if (argc > 1)
        opts.file_path = argv[1];
    opts.use_mpi_regions = true; /* MPI_Allreduce shows as a region */
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "mock_solver_mpi: rank %d: %s\n", rank, sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    sp_metadata_set("problem_size", "128");
    sp_metadata_set("solver", "mock-mpi");

    SP_SCOPE("main")
    {
        setup();
        for (int step = 0; step < 3; step++)
            solve();
    }

    /* Collective: every rank, before MPI_Finalize; rank 0 prints the
     * summary of all ranks. */
    int rc = sp_finalize(true, NULL);
    if (rc != 0)
        fprintf(stderr, "mock_solver_mpi: rank %d: %s\n", rank, sp_last_error());
    MPI_Finalize();
    return rc != 0;
}
