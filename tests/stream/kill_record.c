/* SPDX-License-Identifier: MIT */
/*
 * kill_record.c - a program that records continuously until it is killed:
 * 3 threads (the main thread and 2 workers) run "step" > "work" x 10 >
 * "inner", with 10-30 us of work per call, forever. At 1.5 s of its own
 * time (after sp_setup) it prints how many calls of "work" had ended by
 * then ("checkpoint 1.5 <calls>"); at --kill-after seconds it kills itself
 * with SIGKILL, as a batch system's hard limit would. The test then checks
 * that the file at its path holds at least those calls.
 *
 *     kill_record FILE [--kill-after 2.5]
 *
 * Built against libscope_profiler_mpi (kill_record_mpi, -DKILL_RECORD_MPI)
 * every rank does the same under mpirun, and every rank is killed. Prints
 * "rank <r>: checkpoint 1.5 <calls of work>".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef KILL_RECORD_MPI
#include <mpi.h>
#endif

#include <scope_profiler.h>

#include "busy.h"

static long work_done[3]; /* per thread, atomic */
static double t_start;

static void run(int id)
{
    for (unsigned step = 0;; step++) {
        SP_SCOPE("step")
        {
            for (int k = 0; k < 10; k++) {
                SP_SCOPE("work")
                {
                    spin(10000 + (int)(step * 7919 % 20000)); /* 10-30 us */
                    SP_SCOPE("inner") { spin(2000); }
                }
                __atomic_add_fetch(&work_done[id], 1, __ATOMIC_RELEASE);
            }
        }
    }
}

static void *worker(void *arg)
{
    run((int)(long)arg);
    return NULL;
}

typedef struct clock_arg {
    double kill_after;
    int rank;
} clock_arg;

/* The timekeeper records nothing: it prints the checkpoint, then kills. */
static void *timekeeper(void *p)
{
    const clock_arg *a = p;
    while (now_s() - t_start < 1.5)
        usleep(1000);
    long done = 0;
    for (int i = 0; i < 3; i++)
        done += __atomic_load_n(&work_done[i], __ATOMIC_ACQUIRE);
    printf("rank %d: checkpoint 1.5 %ld\n", a->rank, done);
    fflush(stdout);
    while (now_s() - t_start < a->kill_after)
        usleep(1000);
    kill(getpid(), SIGKILL);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: kill_record FILE [--kill-after S]\n");
        return 2;
    }
    clock_arg arg = {2.5, 0};
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--kill-after") == 0 && i + 1 < argc)
            arg.kill_after = atof(argv[++i]);
#ifdef KILL_RECORD_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &arg.rank);
#endif
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[1];
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "kill_record: sp_setup: %s\n", sp_last_error());
        return 1;
    }
    t_start = now_s();
    pthread_t t[2], tk;
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    pthread_create(&tk, NULL, timekeeper, &arg);
    run(0); /* never returns: the timekeeper kills the process */
    return 0;
}
