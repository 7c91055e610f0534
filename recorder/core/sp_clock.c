/* SPDX-License-Identifier: MIT */
/* sp_clock.c - invariant TSC detection, calibration points, tick conversion. */
#include "sp_clock.h"

#include <stdio.h>
#include <string.h>

#if SP__HAVE_TSC
#include <cpuid.h>
#endif

static bool cpuinfo_has_flags(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[8192];
    bool ok = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        /* Match whole words: " constant_tsc " within the flag list. */
        ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
        break;
    }
    fclose(f);
    return ok;
}

static int invariant_cache = -1; /* -1 unknown, 0 no, 1 yes */

bool sp__tsc_invariant(void)
{
    int v = __atomic_load_n(&invariant_cache, __ATOMIC_RELAXED);
    if (v >= 0)
        return v;
    bool inv = false;
#if SP__HAVE_TSC
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
        __get_cpuid(0x80000007u, &a, &b, &c, &d))
        inv = (d >> 8) & 1;
    if (!inv)
        inv = cpuinfo_has_flags(); /* some hypervisors hide the cpuid bit */
#else
    (void)cpuinfo_has_flags;
#endif
    __atomic_store_n(&invariant_cache, inv ? 1 : 0, __ATOMIC_RELAXED);
    return inv;
}

sp__clock_source sp__clock_default(void)
{
    return SP__HAVE_TSC && sp__tsc_invariant() ? SP__CLOCK_TSC : SP__CLOCK_MONOTONIC;
}

const char *sp__clock_name(sp__clock_source s)
{
    return s == SP__CLOCK_TSC ? "tsc" : "monotonic";
}

int64_t sp__clock_ticks(sp__clock_source s)
{
    return s == SP__CLOCK_TSC ? sp__tsc_ticks() : sp__mono_ns();
}

sp__clock_point sp__clock_sample(sp__clock_source s)
{
    sp__clock_point best = {0, 0};
    if (s == SP__CLOCK_MONOTONIC) {
        best.ns = sp__mono_ns();
        best.ticks = best.ns;
        return best;
    }
    /* An interrupt between the reads widens the bracket: keep the tightest. */
    int64_t best_width = INT64_MAX;
    for (int i = 0; i < 16; i++) {
        int64_t a = sp__tsc_ticks();
        int64_t ns = sp__mono_ns();
        int64_t b = sp__tsc_ticks();
        if (b - a < best_width) {
            best_width = b - a;
            best.ticks = a + (b - a) / 2;
            best.ns = ns;
        }
    }
    return best;
}

void sp__clock_calib_start(sp__clock_calib *c, sp__clock_source s)
{
    c->source = s;
    c->p0 = sp__clock_sample(s);
    c->p1 = c->p0;
}

int64_t sp__clock_to_ns(const sp__clock_calib *c, int64_t ticks)
{
    if (c->source == SP__CLOCK_MONOTONIC)
        return ticks;
    __int128 dt = (__int128)c->p1.ticks - c->p0.ticks;
    __int128 dns = (__int128)c->p1.ns - c->p0.ns;
    if (dt <= 0)
        return c->p0.ns;
    __int128 off = ((__int128)ticks - c->p0.ticks) * dns;
    /* Round to the nearest ns, symmetrically for ticks before p0. */
    __int128 q = off >= 0 ? (off + dt / 2) / dt : -((-off + dt / 2) / dt);
    return (int64_t)(c->p0.ns + q);
}

double sp__clock_hz(const sp__clock_calib *c)
{
    if (c->source == SP__CLOCK_MONOTONIC)
        return 1e9;
    int64_t dns = c->p1.ns - c->p0.ns;
    if (dns <= 0)
        return 0.0;
    return (double)(c->p1.ticks - c->p0.ticks) * 1e9 / (double)dns;
}
