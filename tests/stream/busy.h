/* SPDX-License-Identifier: MIT */
/* busy.h - the clock and the busy work of the kill tests' recording programs. */
#ifndef STREAM_BUSY_H
#define STREAM_BUSY_H

#include <time.h>

static volatile double busy_sink;

/* CLOCK_MONOTONIC in seconds. */
static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* n dependent multiply-adds (about 2 ns each): CPU time, nothing else. */
static inline void spin(int n)
{
    double x = 1.0;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    busy_sink = x;
}

#endif
