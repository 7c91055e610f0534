/* SPDX-License-Identifier: MIT */
/*
 * benchmark_traced.c - the traced functions of benchmark_overhead: this file
 * alone is compiled with -finstrument-functions, so each call of
 * bench_traced_leaf() goes through __cyg_profile_func_enter/exit.
 */
#include <stdint.h>

void bench_traced_leaf(void);
void bench_traced_leaf_slow(void);

void bench_traced_leaf(void)
{
    __asm__ __volatile__("" ::: "memory");
}

/* ~2 us of work: never throttled (the throttle stops functions under 1 us). */
void bench_traced_leaf_slow(void)
{
    volatile uint64_t x = 0;
    for (int i = 0; i < 2000; i++)
        x += (uint64_t)i;
}
