/* SPDX-License-Identifier: MIT */
/*
 * solver_workload.h - the realistic workload of the benchmarks (a mock
 * solver: timestep > assemble > element x 50-100, solve > iteration x
 * 10-30 > matvec / dot / axpy, io every tenth step; real arithmetic, calls
 * from 0.1 us to 0.2 ms, about 160 calls a step), shared by
 * benchmark_stream.c and read/gen_big_run.c. Header-only: static functions.
 */
#ifndef SOLVER_WORKLOAD_H
#define SOLVER_WORKLOAD_H

#include <stdint.h>

#include <scope_profiler.h>

#define SOLVER_CALLS_PER_STEP 160 /* about: for sizing runs */

static volatile double solver_sink;

static void solver_spin(int n)
{
    double x = 1.0;
    for (int i = 0; i < n; i++) {
        x = x * 1.0000001 + 1e-9;
        __asm__ __volatile__("" ::: "memory");
    }
    solver_sink = x;
}

static uint32_t solver_lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A thread of the solver: arg = steps << 8 | thread index (the seed). */
static void *solver_thread(void *arg)
{
    uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
    long steps = (long)((uintptr_t)arg >> 8);
    for (long s = 0; s < steps; s++) {
        SP_SCOPE("timestep")
        {
            SP_SCOPE("assemble")
            {
                int k = 50 + (int)(solver_lcg(&seed) % 50);
                for (int e = 0; e < k; e++)
                    SP_SCOPE("element") { solver_spin(100 + (int)(solver_lcg(&seed) % 900)); }
            }
            SP_SCOPE("solve")
            {
                int it = 10 + (int)(solver_lcg(&seed) % 20);
                for (int i = 0; i < it; i++)
                    SP_SCOPE("iteration")
                    {
                        SP_SCOPE("matvec") { solver_spin(2000 + (int)(solver_lcg(&seed) % 8000)); }
                        SP_SCOPE("dot") { solver_spin(300 + (int)(solver_lcg(&seed) % 1000)); }
                        SP_SCOPE("axpy") { solver_spin(50 + (int)(solver_lcg(&seed) % 200)); }
                    }
            }
            if (solver_lcg(&seed) % 10 == 0)
                SP_SCOPE("io") { solver_spin(200000); }
        }
    }
    return NULL;
}

#endif
