/* SPDX-License-Identifier: MIT */
/*
 * mock_work.h - the busy work of the mock solvers (mock_solver.c and
 * mock_solver_mpi.c): real arithmetic, not sleeping, so a sampling profiler
 * would see it too. Included by exactly one file of each program, hence the
 * static definitions.
 */
#ifndef MOCK_WORK_H
#define MOCK_WORK_H

#include <math.h>
#include <time.h>

static volatile double sink; /* keeps the optimiser from deleting the work */

/* Spin on floating-point work for about `ms` milliseconds. */
static void work_ms(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double acc = 0.0;
    long i = 0;
    do {
        for (int k = 0; k < 1000; k++, i++)
            acc += sqrt((double)i) * 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
    sink += acc;
}

#endif
