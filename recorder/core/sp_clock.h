/* SPDX-License-Identifier: MIT */
/*
 * sp_clock.h - timestamps for the hot path, and their conversion to ns.
 *
 * On x86-64 with an invariant TSC, regions store raw TSC ticks (rdtsc, ~10 ns)
 * and ticks become CLOCK_MONOTONIC nanoseconds only at finalize, through a
 * linear map between two calibration points (setup and finalize) that each
 * pair a TSC reading with a clock_gettime() reading. Elsewhere, or with
 * SCOPE_PROFILER_CLOCK=monotonic, regions store CLOCK_MONOTONIC ns directly
 * and the map is the identity.
 */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SP__HAVE_TSC 1
#else
#define SP__HAVE_TSC 0
#endif

#pragma GCC visibility push(hidden)

typedef enum sp__clock_source { SP__CLOCK_TSC, SP__CLOCK_MONOTONIC } sp__clock_source;

/* One calibration point: a tick reading and the CLOCK_MONOTONIC ns at the
 * same instant. */
typedef struct sp__clock_point {
    int64_t ticks;
    int64_t ns;
} sp__clock_point;

typedef struct sp__clock_calib {
    sp__clock_source source;
    sp__clock_point p0, p1; /* p1.ticks == p0.ticks until the second point */
} sp__clock_calib;

static inline int64_t sp__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t sp__tsc_ticks(void)
{
#if SP__HAVE_TSC
    return (int64_t)__rdtsc();
#else
    return sp__mono_ns();
#endif
}

/* Whether this CPU has an invariant TSC (cpuid 0x80000007 EDX bit 8, or
 * constant_tsc + nonstop_tsc in /proc/cpuinfo). Cached after the first call. */
bool sp__tsc_invariant(void);

/* The clock chosen when the user does not force one. */
sp__clock_source sp__clock_default(void);

/* "tsc" or "monotonic". */
const char *sp__clock_name(sp__clock_source s);

/* A raw reading of the source (ticks for TSC, ns for monotonic). */
int64_t sp__clock_ticks(sp__clock_source s);

/* A calibration point: the tick reading bracketing clock_gettime() most
 * tightly among a few tries, taken at the bracket's midpoint. */
sp__clock_point sp__clock_sample(sp__clock_source s);

/* Start a calibration (p0 = p1 = now). */
void sp__clock_calib_start(sp__clock_calib *c, sp__clock_source s);

/* Convert ticks to CLOCK_MONOTONIC ns through the line p0 -> p1 (identity
 * for monotonic; 128-bit arithmetic, exact to 1 ns). If p1 == p0 (no second
 * point yet), the tick rate measured so far is not known: the caller must
 * set p1 first. */
int64_t sp__clock_to_ns(const sp__clock_calib *c, int64_t ticks);

/* Ticks per second implied by the calibration (1e9 for monotonic). */
double sp__clock_hz(const sp__clock_calib *c);

#pragma GCC visibility pop

#endif
