/* SPDX-License-Identifier: MIT */
/*
 * late_sender_mpi.c - an MPI program whose waiting is known in advance, for
 * `scope-profiler waits` (issue 23): every step, each rank computes for one
 * unit of time in region "compute", except the slow rank (2), which
 * computes three units; then the slow rank sends to rank 0 (which waits
 * for it in MPI_Recv: a late sender), and all call MPI_Allreduce (where
 * the others wait for the slow rank). Each step begins with a message
 * passed round a ring, while the ranks are in step (MPI_Irecv from
 * MPI_ANY_SOURCE with MPI_ANY_TAG, MPI_Isend, MPI_Waitall; rank r sends
 * 1000 (r + 1) bytes with tag 100 + r).
 * With --compute-after the slow rank computes again after sending, so rank
 * 0 waits for it in the MPI_Allreduce too.
 *
 *   mpirun -n 4 late_sender_mpi [OUT.h5] [--steps N] [--unit-ms MS]
 *                               [--compute-after] [--slow-rank R] [--factor F]
 *   scope-profiler waits OUT.h5
 *
 * "compute" sleeps until its deadline (--spin: a busy loop on the clock),
 * so it lasts its time even on a loaded or oversubscribed machine. The
 * program measures the waiting itself, by the definitions `waits` uses,
 * with CLOCK_MONOTONIC (the ranks run on one host, so they share it): the
 * slow rank puts the time it entered MPI_Send into the message, rank 0
 * compares it with the time it entered MPI_Recv; every rank notes when it
 * entered and left each MPI_Allreduce, and after sp_finalize (nothing is
 * recorded any more) rank 0 gathers them and prints per rank the time it
 * waited for the last one to arrive. Rank 0 also prints the messages each
 * pair of ranks exchanged. The test compares both with the profile.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scope_profiler.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int spin; /* --spin: compute is a busy loop, else a sleep */

/* Work for `seconds` of wall-clock time. */
static double compute(double seconds)
{
    SP_SCOPE("compute")
    {
        double end = now_s() + seconds, x = 1.0;
        struct timespec ts = {(time_t)end, (long)((end - (double)(time_t)end) * 1e9)};
        while (!spin && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
        while (now_s() < end)
            for (int i = 0; i < 1000; i++)
                x = x * 1.0000001 + 1e-9;
        return x;
    }
    return 0.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *out = NULL;
    int steps = 3, slow = 2, after = 0;
    double unit = 0.1, factor = 3.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--unit-ms") && i + 1 < argc)
            unit = atof(argv[++i]) / 1000.0;
        else if (!strcmp(argv[i], "--slow-rank") && i + 1 < argc)
            slow = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--factor") && i + 1 < argc)
            factor = atof(argv[++i]);
        else if (!strcmp(argv[i], "--compute-after"))
            after = 1;
        else if (!strcmp(argv[i], "--spin"))
            spin = 1;
        else
            out = argv[i];
    }
    if (size < 2 || slow <= 0 || slow >= size) {
        if (rank == 0)
            fprintf(stderr, "late_sender_mpi: needs 2 or more ranks and 0 < slow rank < ranks\n");
        MPI_Finalize();
        return 2;
    }
    sp_options opts;
    sp_options_init(&opts);
    opts.use_mpi_regions = true;
    if (out)
        opts.file_path = out;
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "late_sender_mpi: rank %d: %s\n", rank, sp_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    char *buf = calloc(1, 64 * 1024), *ring_in = calloc(1, 1000 * (size_t)size);
    double late_wait = 0, sink = 0;
    double *ar_in = calloc((size_t)steps, sizeof *ar_in);
    double *ar_out = calloc((size_t)steps, sizeof *ar_out);
    const int late_bytes = 8192;
    SP_SCOPE("main")
    {
        MPI_Barrier(MPI_COMM_WORLD); /* start together (rank 0 wrote the main file at setup) */
        for (int s = 0; s < steps; s++) {
            SP_SCOPE("step")
            {
                SP_SCOPE("ring")
                {
                    MPI_Request req[2];
                    int next = (rank + 1) % size;
                    MPI_Irecv(ring_in, 1000 * size, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &req[0]);
                    MPI_Isend(buf, 1000 * (rank + 1), MPI_BYTE, next, 100 + rank,
                              MPI_COMM_WORLD, &req[1]);
                    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
                }
                sink += compute(rank == slow ? factor * unit : unit);
                SP_SCOPE("exchange")
                {
                    if (rank == slow) {
                        double t = now_s(); /* the message carries when its send began */
                        memcpy(buf, &t, sizeof t);
                        MPI_Send(buf, late_bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
                    } else if (rank == 0) {
                        double t = now_s(), sent;
                        MPI_Recv(buf, late_bytes, MPI_BYTE, slow, 7, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                        double done = now_s(), until;
                        memcpy(&sent, buf, sizeof sent);
                        until = sent < done ? sent : done;
                        late_wait += until > t ? until - t : 0;
                    }
                }
                if (after && rank == slow)
                    sink += compute(factor * unit);
                else if (after)
                    sink += compute(unit);
                SP_SCOPE("reduce")
                {
                    double v = sink, all = 0;
                    ar_in[s] = now_s();
                    MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                    ar_out[s] = now_s();
                }
            }
        }
    }
    int rc = sp_finalize(false, NULL);
    if (rc != 0)
        fprintf(stderr, "late_sender_mpi: rank %d: %s\n", rank, sp_last_error());
    /* What the program measured, gathered now that nothing is recorded. */
    double *in_all = calloc((size_t)steps * size, sizeof *in_all);
    double *out_all = calloc((size_t)steps * size, sizeof *out_all);
    double *late_all = calloc((size_t)size, sizeof *late_all);
    MPI_Gather(ar_in, steps, MPI_DOUBLE, in_all, steps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(ar_out, steps, MPI_DOUBLE, out_all, steps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&late_wait, 1, MPI_DOUBLE, late_all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        /* Each rank's wait in MPI_Allreduce: from its enter to the last
         * rank's enter (at most its own exit), summed over the steps. */
        for (int r = 0; r < size; r++) {
            double wait = 0;
            for (int st = 0; st < steps; st++) {
                double last = 0, in = in_all[r * steps + st], leave = out_all[r * steps + st];
                for (int q = 0; q < size; q++)
                    last = in_all[q * steps + st] > last ? in_all[q * steps + st] : last;
                wait += (last < leave ? last : leave) > in ? (last < leave ? last : leave) - in : 0;
            }
            printf("rank %d: waited in MPI_Recv %.6f s, in MPI_Allreduce %.6f s\n", r,
                   late_all[r], wait);
        }
        /* The messages of each pair of ranks: the late message and the ring's. */
        long long *msgs = calloc((size_t)size * size, sizeof *msgs);
        long long *bytes = calloc((size_t)size * size, sizeof *bytes);
        msgs[slow * size] += steps;
        bytes[slow * size] += (long long)steps * late_bytes;
        for (int r = 0; r < size; r++) {
            msgs[r * size + (r + 1) % size] += steps;
            bytes[r * size + (r + 1) % size] += (long long)steps * 1000 * (r + 1);
        }
        for (int i = 0; i < size * size; i++)
            if (msgs[i])
                printf("sent %d -> %d: %lld messages, %lld bytes\n", i / size, i % size, msgs[i],
                       bytes[i]);
        fflush(stdout);
        free(msgs);
        free(bytes);
    }
    free(in_all);
    free(out_all);
    free(late_all);
    free(ar_in);
    free(ar_out);
    free(buf);
    free(ring_in);
    MPI_Finalize();
    return rc != 0 || sink < 0;
}
