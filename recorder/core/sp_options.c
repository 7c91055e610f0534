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
#include "sp_stream.h"

void sp_options_init(sp_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->file_path = "profiling_data.h5";
    o->buffer_limit = 1024;
    o->max_depth = SP__DEFAULT_MAX_DEPTH; /* recording modes (sp_mode_config.c) */
    o->line_hz = SP__DEFAULT_LINE_HZ;
    o->memory_limit = SP__DEFAULT_MEMORY_LIMIT;
    o->flush_interval = SP__DEFAULT_FLUSH_INTERVAL;
    o->when_full = SP_FULL_BLOCK;
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
    if (v[0] < '0' || v[0] > '9' || *end || errno || n == 0 || n > (uint64_t)SP__MAX_BUFFER_LIMIT)
        return sp__error(SP_EINVAL, "%s='%s': expected a whole number of calls from 1 to %llu",
                         name, v, (unsigned long long)SP__MAX_BUFFER_LIMIT);
    *out = (size_t)n;
    return 0;
}

/* Bytes, with an optional binary suffix: 1048576, 512K, 64M, 2G. */
static int env_bytes(const char *name, size_t *out)
{
    const char *v = sp__env(name);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end == 'i' || *end == 'B' || *end == 'b') /* "64MiB", "64MB" read as MiB */
        end += end[0] == 'i' && (end[1] == 'B' || end[1] == 'b') ? 2 : 1;
    if (v[0] < '0' || v[0] > '9' || *end || errno || n > (SIZE_MAX >> shift))
        return sp__error(SP_EINVAL, "%s='%s': expected a size in bytes (suffix K, M or G)",
                         name, v);
    *out = (size_t)(n << shift);
    return 0;
}

static int env_seconds(const char *name, double *out)
{
    const char *v = sp__env(name);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !(d > 0))
        return sp__error(SP_EINVAL, "%s='%s': expected a number of seconds", name, v);
    *out = d;
    return 0;
}

static int env_when_full(sp_full_policy *out)
{
    const char *v = sp__env("SCOPE_PROFILER_WHEN_FULL");
    if (!v)
        return 0;
    if (strcasecmp(v, "block") == 0)
        *out = SP_FULL_BLOCK;
    else if (strcasecmp(v, "drop") == 0)
        *out = SP_FULL_DROP;
    else
        return sp__error(SP_EINVAL, "SCOPE_PROFILER_WHEN_FULL='%s': expected block or drop", v);
    return 0;
}

static int env_compression(sp_v2_compress *out)
{
    const char *v = sp__env("SCOPE_PROFILER_COMPRESSION");
    *out = SP_V2_COMPRESS_AUTO;
    if (!v || strcasecmp(v, "auto") == 0)
        return 0;
    if (strcasecmp(v, "lz4") == 0)
        *out = SP_V2_COMPRESS_LZ4;
    else if (strcasecmp(v, "deflate") == 0 || strcasecmp(v, "gzip") == 0)
        *out = SP_V2_COMPRESS_DEFLATE;
    else if (strcasecmp(v, "none") == 0)
        *out = SP_V2_COMPRESS_NONE;
    else
        return sp__error(SP_EINVAL,
                         "SCOPE_PROFILER_COMPRESSION='%s': expected lz4, deflate, none or auto", v);
    return 0;
}

/* The streaming options, validated. */
static int stream_options(const sp_options *o, sp__config *out)
{
    size_t limit = o->memory_limit ? o->memory_limit : SP__DEFAULT_MEMORY_LIMIT;
    double flush = o->flush_interval > 0 ? o->flush_interval : SP__DEFAULT_FLUSH_INTERVAL;
    if (limit < ((size_t)1 << 20) || limit > ((size_t)1 << 40))
        return sp__error(SP_EINVAL, "memory_limit=%zu bytes: expected 1 MiB to 1 TiB", limit);
    if (!(flush >= 0.01 && flush <= 86400.0))
        return sp__error(SP_EINVAL, "flush_interval=%g s: expected 0.01 to 86400 seconds", flush);
    if (o->when_full != SP_FULL_BLOCK && o->when_full != SP_FULL_DROP)
        return sp__error(SP_EINVAL, "when_full=%d: expected SP_FULL_BLOCK or SP_FULL_DROP",
                         (int)o->when_full);
    out->memory_limit = limit;
    out->flush_interval_ns = (int64_t)(flush * 1e9);
    out->when_full = o->when_full;
    sp_v2_compress c;
    int rc = env_compression(&c);
    out->compress = (int)c;
    return rc;
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
        (rc = env_size("SCOPE_PROFILER_BUFFER_LIMIT", &o.buffer_limit)) ||
        (rc = env_bytes("SCOPE_PROFILER_MEMORY_LIMIT", &o.memory_limit)) ||
        (rc = env_seconds("SCOPE_PROFILER_FLUSH_INTERVAL", &o.flush_interval)) ||
        (rc = env_when_full(&o.when_full)))
        return rc;
    if (sp__env("SCOPE_PROFILER_FILE"))
        o.file_path = sp__env("SCOPE_PROFILER_FILE");
    if ((rc = sp__modes_env(&o))) /* recording modes' variables */
        return rc;

    if (o.buffer_limit == 0 || o.buffer_limit > (uint64_t)SP__MAX_BUFFER_LIMIT)
        return sp__error(SP_EINVAL, "buffer_limit=%zu: expected 1 to %llu calls",
                         o.buffer_limit, (unsigned long long)SP__MAX_BUFFER_LIMIT);
    if ((rc = pick_kind(&o, o.deactivate_profiling, &out->kind)))
        return rc;
    if (out->kind != SP_REGION_DISABLED && (rc = pick_clock(&out->clock)))
        return rc;
    if (out->kind == SP_REGION_DISABLED)
        out->clock = SP__CLOCK_MONOTONIC; /* nothing is timed */

    out->buffer_limit = o.buffer_limit;
    if ((rc = sp__modes_fill(&o, out)) || /* recording modes' options */
        (rc = stream_options(&o, out)))
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
