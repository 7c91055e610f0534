/* SPDX-License-Identifier: MIT */
/* A downstream MPI program built against the installed libscope_profiler_mpi. */
#include <mpi.h>
#include <stdio.h>

#include <scope_profiler.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "consumer_mpi.h5";
    if (sp_setup(&o) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < 5; i++)
        SP_SCOPE("consumer_loop") {}
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    if (rank == 0 && rc == 0)
        printf("consumer_mpi: %zu ranks, %llu calls\n", sp_run_num_ranks(run),
               (unsigned long long)sp_run_region_num_calls(sp_run_find(run, "consumer_loop")));
    sp_run_free(run);
    MPI_Finalize();
    return rc != 0;
}
