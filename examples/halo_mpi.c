/* SPDX-License-Identifier: MIT */
/*
 * halo_mpi.c - a mini-app shaped like a real MPI stencil code: a 2-D Jacobi
 * sweep on a strip of rows per rank, halo rows exchanged with MPI_Isend /
 * MPI_Irecv / MPI_Waitall, a global residual with MPI_Allreduce every few
 * steps and a checkpoint by rank 0. The domain is split unevenly (rank r gets
 * 1 + r / (2 P) times the rows of rank 0), so the fast ranks wait in
 * MPI_Waitall and MPI_Allreduce for the slow ones: the imbalance a profiler
 * should point at.
 *
 *   mpirun -n 4 halo_mpi [OUTPUT.h5] [STEPS]   (default profiling_data.h5, 60)
 *   scope-profiler summary OUTPUT.h5
 *
 * MPI calls are timed as regions (use_mpi_regions), nested in the regions
 * that make them.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scope_profiler.h>

#define NX 256 /* columns, the same on every rank */

static int rank, size;
static int rows;            /* rows owned by this rank */
static double *u, *unew;    /* (rows + 2) x NX, with one halo row each side */
static double *sendbuf[2], *recvbuf[2];

#define AT(a, i, j) ((a)[(size_t)(i) * NX + (j)])

static void init_grid(void)
{
    SP_FUNCTION();
    rows = (int)(96 * (1.0 + 0.5 * rank / (double)size));
    size_t n = (size_t)(rows + 2) * NX;
    u = calloc(n, sizeof *u);
    unew = calloc(n, sizeof *unew);
    for (int k = 0; k < 2; k++) {
        sendbuf[k] = malloc(NX * sizeof(double));
        recvbuf[k] = malloc(NX * sizeof(double));
    }
    if (!u || !unew || !sendbuf[0] || !sendbuf[1] || !recvbuf[0] || !recvbuf[1]) {
        fprintf(stderr, "halo_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i <= rows + 1; i++)
        for (int j = 0; j < NX; j++)
            AT(u, i, j) = sin(0.01 * (i + rank * 96)) * cos(0.02 * j);
}

static void apply_boundary(void)
{
    SP_FUNCTION();
    for (int i = 0; i <= rows + 1; i++)
        AT(u, i, 0) = AT(u, i, NX - 1) = 0.0;
    if (rank == 0)
        memset(&AT(u, 0, 0), 0, NX * sizeof(double));
    if (rank == size - 1)
        memset(&AT(u, rows + 1, 0), 0, NX * sizeof(double));
}

static void pack_halo(void)
{
    SP_FUNCTION();
    memcpy(sendbuf[0], &AT(u, 1, 0), NX * sizeof(double));
    memcpy(sendbuf[1], &AT(u, rows, 0), NX * sizeof(double));
}

static void unpack_halo(void)
{
    SP_FUNCTION();
    if (rank > 0)
        memcpy(&AT(u, 0, 0), recvbuf[0], NX * sizeof(double));
    if (rank < size - 1)
        memcpy(&AT(u, rows + 1, 0), recvbuf[1], NX * sizeof(double));
}

static void halo_exchange(void)
{
    SP_FUNCTION();
    MPI_Request req[4];
    int n = 0;
    pack_halo();
    if (rank > 0) {
        MPI_Irecv(recvbuf[0], NX, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, &req[n++]);
        MPI_Isend(sendbuf[0], NX, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, &req[n++]);
    }
    if (rank < size - 1) {
        MPI_Irecv(recvbuf[1], NX, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD, &req[n++]);
        MPI_Isend(sendbuf[1], NX, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    unpack_halo();
}

/* One Jacobi update of rows [lo, hi]. */
static double sweep_rows(int lo, int hi)
{
    double diff = 0.0;
    for (int i = lo; i <= hi; i++)
        for (int j = 1; j < NX - 1; j++) {
            double v = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                               AT(u, i, j + 1));
            diff += fabs(v - AT(u, i, j));
            AT(unew, i, j) = v;
        }
    return diff;
}

static double compute_interior(void)
{
    SP_FUNCTION();
    double d = 0.0;
    for (int rep = 0; rep < 24; rep++) /* more work per row than a plain sweep */
        d = sweep_rows(2, rows - 1);
    return d;
}

static double compute_boundary(void)
{
    SP_FUNCTION();
    return sweep_rows(1, 1) + sweep_rows(rows, rows);
}

static double residual_norm(double local)
{
    SP_FUNCTION();
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

static void swap_grids(void)
{
    SP_FUNCTION();
    double *t = u;
    u = unew;
    unew = t;
}

static void checkpoint(int step)
{
    SP_FUNCTION();
    double local = 0.0, sum = 0.0;
    for (int i = 1; i <= rows; i++)
        local += AT(u, i, NX / 2);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && step < 0)
        printf("checkpoint %d: %g\n", step, sum); /* never: keeps sum alive */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 2 ? atoi(argv[2]) : 60;

    sp_options opts;
    sp_options_init(&opts);
    if (argc > 1)
        opts.file_path = argv[1];
    opts.use_mpi_regions = true;
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "halo_mpi: rank %d: %s\n", rank, sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    sp_metadata_set("app", "halo_mpi");

    double res = 0.0;
    SP_SCOPE("main")
    {
        init_grid();
        SP_SCOPE("timestep_loop")
        {
            for (int step = 0; step < steps; step++) {
                apply_boundary();
                halo_exchange();
                double d = compute_interior() + compute_boundary();
                swap_grids();
                if (step % 5 == 0)
                    res = residual_norm(d);
                if (step % 20 == 19)
                    checkpoint(step);
            }
        }
        SP_SCOPE("finalize_stats") { MPI_Barrier(MPI_COMM_WORLD); }
    }
    if (rank == 0 && res < 0)
        printf("%g\n", res);

    int rc = sp_finalize(true, NULL);
    if (rc != 0)
        fprintf(stderr, "halo_mpi: rank %d: %s\n", rank, sp_last_error());
    free(u);
    free(unew);
    for (int k = 0; k < 2; k++) {
        free(sendbuf[k]);
        free(recvbuf[k]);
    }
    MPI_Finalize();
    return rc != 0;
}
