/* SPDX-License-Identifier: MIT */
/* sp_options.c - option defaults, SCOPE_PROFILER_* overrides, validation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sp_env.h"
#include "sp_error.h"
#include "sp_modes.h"
#include "sp_recorder.h"

void sp_options_init(sp_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->file_path = "profiling_data.h5";
    o->buffer_limit = 1024;
    o->max_depth = SP__DEFAULT_MAX_DEPTH; /* recording modes (sp_mode_config.c) */
    o->line_hz = SP__DEFAULT_LINE_HZ;
}

const char *sp__env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int sp__env_bool(const char *name, bool *out)
{
    const char *v = sp__env(name);
    if (!v)
        return 0;
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = true, 0;
        if (strcasecmp(v, no[i]) == 0)
            return *out = false, 0;
    }
    return sp__error(SP_EINVAL, "%s='%s': expected 1/true/yes/on or 0/false/no/off", name, v);
}

static int env_size(const char *name, size_t *out)
{
    const char *v = sp__env(name);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end || errno || n == 0 || n > (uint64_t)SP__IDX_MASK)
        return sp__error(SP_EINVAL, "%s='%s': expected a whole number of calls from 1 to %llu",
                         name, v, (unsigned long long)SP__IDX_MASK);
    *out = (size_t)n;
    return 0;
}

static int pick_clock(sp__clock_source *out)
{
    const char *v = sp__env("SCOPE_PROFILER_CLOCK");
    if (!v) {
        *out = sp__clock_default();
        return 0;
    }
    if (strcasecmp(v, "monotonic") == 0) {
        *out = SP__CLOCK_MONOTONIC;
        return 0;
    }
    if (strcasecmp(v, "tsc") == 0) {
        if (!SP__HAVE_TSC || !sp__tsc_invariant())
            return sp__error(SP_ENOTSUP,
                             "SCOPE_PROFILER_CLOCK=tsc: this CPU has no invariant TSC "
                             "(use monotonic)");
        *out = SP__CLOCK_TSC;
        return 0;
    }
    return sp__error(SP_EINVAL, "SCOPE_PROFILER_CLOCK='%s': expected tsc or monotonic", v);
}

/* The kind of region the options ask for. deactivate_profiling wins over
 * everything, use_line_profiler over use_likwid (as in the Python package).
 * recursive_profile and perf_events add to any kind (sp_mode_config.c);
 * whether LIKWID can measure is found out by sp_setup (sp_likwid.c). */
static int pick_kind(const sp_options *o, bool disabled, sp_region_kind *out)
{
    if (disabled)
        *out = SP_REGION_DISABLED;
    else if (o->use_line_profiler)
        *out = SP_REGION_LINE_PROFILER;
    else if (o->use_likwid)
        *out = SP_REGION_FULL;
    else
        *out = SP_REGION_TIME_ONLY;
    return 0;
}

int sp__config_resolve(const sp_options *user, sp__config *out)
{
    sp_options o;
    if (user)
        o = *user;
    else
        sp_options_init(&o);
    memset(out, 0, sizeof *out);

    int rc;
    if ((rc = sp__env_bool("SCOPE_PROFILER_DISABLE", &o.deactivate_profiling)) ||
        (rc = sp__env_bool("SCOPE_PROFILER_NO_FILE", &o.deactivate_file_output)) ||
        (rc = env_size("SCOPE_PROFILER_BUFFER_LIMIT", &o.buffer_limit)))
        return rc;
    if (sp__env("SCOPE_PROFILER_FILE"))
        o.file_path = sp__env("SCOPE_PROFILER_FILE");
    if ((rc = sp__modes_env(&o))) /* recording modes' variables */
        return rc;

    if (o.buffer_limit == 0 || o.buffer_limit > (uint64_t)SP__IDX_MASK)
        return sp__error(SP_EINVAL, "buffer_limit=%zu: expected 1 to %llu calls",
                         o.buffer_limit, (unsigned long long)SP__IDX_MASK);
    if ((rc = pick_kind(&o, o.deactivate_profiling, &out->kind)))
        return rc;
    if (out->kind != SP_REGION_DISABLED && (rc = pick_clock(&out->clock)))
        return rc;
    if (out->kind == SP_REGION_DISABLED)
        out->clock = SP__CLOCK_MONOTONIC; /* nothing is timed */

    out->buffer_limit = o.buffer_limit;
    if ((rc = sp__modes_fill(&o, out))) /* recording modes' options */
        return rc;
    out->file_output = !o.deactivate_profiling && !o.deactivate_file_output;
    if (out->file_output) {
        if (!o.file_path || !*o.file_path)
            return sp__error(SP_EINVAL, "file_path is %s (set it, or deactivate_file_output)",
                             o.file_path ? "empty" : "NULL");
        out->file_path = strdup(o.file_path);
        if (!out->file_path)
            return sp__error(SP_ENOMEM, "out of memory copying file_path");
    }
    return 0;
}
