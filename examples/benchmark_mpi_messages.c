/* SPDX-License-Identifier: MIT */
/*
 * benchmark_mpi_messages.c - what recording MPI messages costs per call:
 * a rank exchanges small messages with itself (MPI_Irecv + MPI_Isend +
 * MPI_Waitall, then an MPI_Allreduce every 16 exchanges; --pingpong on 2
 * ranks: with the other rank) under three settings:
 *
 *   off       no session (the wrappers' load and branch)
 *   regions   the MPI calls timed as regions (SCOPE_PROFILER_MPI_MESSAGES=0)
 *   messages  timed and their messages recorded (the default)
 *
 * and prints the time per exchange, best (min) and median of the batches,
 * and the difference messages - regions per record (a message side or a
 * collective).
 *
 *   mpirun -n 1 benchmark_mpi_messages [--exchanges N] [--batches K] [--pingpong]
 *
 * Messages to itself measure the library's own cost per call (the wrappers,
 * the request table, the records) without a second process that may wait
 * for a core; --pingpong adds the other rank's latency, and on a machine
 * whose cores are all taken, the writer thread's wake-ups. Many short
 * batches (by default 101 of 1,000 exchanges): on a machine shared with
 * other work, the best batch is one nobody interrupted.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One batch: n exchanges; seconds per exchange. */
static double batch(int n, int peer)
{
    double in[4], out[4] = {1, 2, 3, 4}, v = 1, all;
    MPI_Request r[2];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        MPI_Irecv(in, 4, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, 4, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        if (i % 16 == 15)
            MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return (now_s() - t0) / n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n = 1000, k = 101, pingpong = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exchanges") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            k = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pingpong"))
            pingpong = 1;
    }
    if (pingpong && size != 2) {
        if (rank == 0)
            fprintf(stderr, "benchmark_mpi_messages: --pingpong runs on 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = pingpong ? 1 - rank : rank;
    static const char *const names[3] = {"off", "regions", "messages"};
    double *t = calloc((size_t)k, sizeof *t), best[3], median[3];
    char path[64];
    int pid = (int)getpid(); /* rank 0's: one file for the job */
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/benchmark_mpi_messages.%d.h5", pid);
    for (int mode = 0; mode < 3; mode++) {
        /* Settings in the order: a session per batch, so each starts fresh. */
        for (int b = 0; b < k; b++) {
            if (mode > 0) {
                setenv("SCOPE_PROFILER_MPI_MESSAGES", mode == 2 ? "1" : "0", 1);
                sp_options o;
                sp_options_init(&o);
                o.use_mpi_regions = true;
                o.file_path = path;
                if (sp_setup(&o) != 0) {
                    fprintf(stderr, "sp_setup: %s\n", sp_last_error());
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
            t[b] = batch(n, peer);
            if (mode > 0 && sp_finalize(false, NULL) != 0)
                fprintf(stderr, "sp_finalize: %s\n", sp_last_error());
        }
        qsort(t, (size_t)k, sizeof *t, cmp_double);
        best[mode] = t[0];
        median[mode] = t[k / 2];
    }
    if (rank == 0) {
        remove(path);
        printf("%d exchanges x %d batches per setting (Irecv + Isend + Waitall %s, an "
               "Allreduce every 16; %d rank%s)\n",
               n, k, pingpong ? "with the other rank" : "with itself", size, size > 1 ? "s" : "");
        for (int m = 0; m < 3; m++)
            printf("  %-9s %8.0f ns per exchange (best)  %8.0f (median)\n", names[m],
                   1e9 * best[m], 1e9 * median[m]);
        /* An exchange records two message sides (+ 1/16 of a collective);
         * the best batches are the ones nobody interrupted. */
        double sides = 2 + 1.0 / 16;
        printf("  messages - regions: %.0f ns per exchange (best), %.0f (median): %.0f ns (best) "
               "and %.0f ns (median) per record\n",
               1e9 * (best[2] - best[1]), 1e9 * (median[2] - median[1]),
               1e9 * (best[2] - best[1]) / sides, 1e9 * (median[2] - median[1]) / sides);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
