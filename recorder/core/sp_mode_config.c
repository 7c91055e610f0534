/* SPDX-License-Identifier: MIT */
/*
 * sp_mode_config.c - the options of the recording modes: their
 * SCOPE_PROFILER_* overrides and validation (called by sp__config_resolve).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sp_env.h"
#include "sp_error.h"
#include "sp_modes.h"

static int env_unsigned(const char *name, unsigned lo, unsigned hi, unsigned *out)
{
    const char *v = sp__env(name);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end || errno || n < lo || n > hi)
        return sp__error(SP_EINVAL, "%s='%s': expected a whole number from %u to %u", name, v, lo,
                         hi);
    *out = (unsigned)n;
    return 0;
}

int sp__modes_env(sp_options *o)
{
    int rc;
    if ((rc = sp__env_bool("SCOPE_PROFILER_RECURSIVE", &o->recursive_profile)) ||
        (rc = sp__env_bool("SCOPE_PROFILER_LINE_PROFILER", &o->use_line_profiler)) ||
        (rc = sp__env_bool("SCOPE_PROFILER_LINES", &o->use_line_profiler)) || /* short form */
        (rc = sp__env_bool("SCOPE_PROFILER_LIKWID", &o->use_likwid)) ||
        (rc = sp__env_bool("SCOPE_PROFILER_LIKWID_FALLBACK", &o->likwid_fallback)) ||
        (rc = env_unsigned("SCOPE_PROFILER_MAX_DEPTH", 1, 1u << 20, &o->max_depth)) ||
        (rc = env_unsigned("SCOPE_PROFILER_LINE_HZ", 1, SP__MAX_LINE_HZ, &o->line_hz)))
        return rc;
    /* Set but empty means "off" here (the variable exists to switch it off). */
    const char *pe = getenv("SCOPE_PROFILER_PERF_EVENTS");
    if (pe)
        o->perf_events = pe;
    return 0;
}

int sp__modes_fill(const sp_options *o, sp__config *cfg)
{
    cfg->recursive = o->recursive_profile;
    cfg->likwid_fallback = o->likwid_fallback;
    cfg->max_depth = o->max_depth ? o->max_depth : SP__DEFAULT_MAX_DEPTH;
    cfg->line_hz = o->line_hz ? o->line_hz : SP__DEFAULT_LINE_HZ;
    if (cfg->max_depth > (1u << 20))
        return sp__error(SP_EINVAL, "max_depth=%u: expected 1 to %u", cfg->max_depth, 1u << 20);
    if (cfg->line_hz > SP__MAX_LINE_HZ)
        return sp__error(SP_EINVAL, "line_hz=%u: expected 1 to %u samples per second", cfg->line_hz,
                         SP__MAX_LINE_HZ);
    cfg->perf_events[0] = '\0';
    const char *pe = o->perf_events;
    if (pe && *pe && strcasecmp(pe, "none") != 0 && strcasecmp(pe, "off") != 0) {
        size_t n = strlen(pe);
        if (n >= sizeof cfg->perf_events)
            return sp__error(SP_EINVAL, "perf_events: list longer than %zu characters",
                             sizeof cfg->perf_events - 1);
        memcpy(cfg->perf_events, pe, n + 1);
    }
    return 0;
}
