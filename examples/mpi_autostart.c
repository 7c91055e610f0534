/* SPDX-License-Identifier: MIT */
/*
 * mpi_autostart.c - profile the MPI calls of a program whose code you do
 * not edit: link this file and libscope_profiler_mpi into it, and a session
 * starts when the program initialises MPI (MPI calls timed as regions,
 * their messages recorded) and is written when it finalizes MPI (the
 * library's MPI_Finalize finalizes a session left open).
 *
 *   mpicxx app.o mpi_autostart.c $(pkg-config --cflags --libs scope-profiler-mpi) -o app
 *   SCOPE_PROFILER_FILE=run.h5 mpirun -n 8 ./app
 *
 * The options come from the environment (SCOPE_PROFILER_FILE,
 * SCOPE_PROFILER_MPI_MESSAGES=0 to time the calls without their messages,
 * ...). examples/run_lulesh_waits.sh links LULESH this way.
 */
#include <mpi.h>
#include <stdio.h>

#include <scope_profiler.h>

static void start(void)
{
    sp_options o;
    sp_options_init(&o);
    o.use_mpi_regions = true;
    if (sp_setup(&o) != 0)
        fprintf(stderr, "mpi_autostart: %s\n", sp_last_error());
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}
