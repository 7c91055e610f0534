/* SPDX-License-Identifier: MIT */
/* modes_util.c - helpers of the recording-mode tests (see modes_util.h). */
#include "modes_util.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void modes_clear_env(void)
{
    static const char *const vars[] = {
        "SCOPE_PROFILER_DISABLE",     "SCOPE_PROFILER_NO_FILE",
        "SCOPE_PROFILER_FILE",        "SCOPE_PROFILER_BUFFER_LIMIT",
        "SCOPE_PROFILER_CLOCK",       "SCOPE_PROFILER_RECURSIVE",
        "SCOPE_PROFILER_MAX_DEPTH",   "SCOPE_PROFILER_LINE_PROFILER",
        "SCOPE_PROFILER_LINE_HZ",     "SCOPE_PROFILER_LINE_SAMPLER",
        "SCOPE_PROFILER_LIKWID",      "SCOPE_PROFILER_LIKWID_FALLBACK",
        "SCOPE_PROFILER_PERF_EVENTS", "SCOPE_PROFILER_THROTTLE_CALLS",
        "SCOPE_PROFILER_THROTTLE_NS",
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}

sp_options modes_mem_options(void)
{
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    return o;
}

const char *modes_region_list(const sp_run *run)
{
    static char buf[4096];
    buf[0] = '\0';
    for (size_t i = 0; run && i < run->nregions; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", run->region_names[i]);
    }
    return buf;
}

const char *modes_parent_name(const sp_run *run, const char *name)
{
    int32_t id = sp_run_region_id(run, name);
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; id >= 0 && i < rk->ncalls; i++) {
        if (rk->region[i] != id)
            continue;
        int64_t p = rk->parent[i];
        return p < 0 ? "(top)" : run->region_names[rk->region[p]];
    }
    return "(none)";
}

int32_t modes_region_flags(const sp_run *run, const char *name)
{
    int32_t id = sp_run_region_id(run, name);
    if (id < 0 || (size_t)id >= run->nregion_flags || !run->region_flags)
        return 0;
    return run->region_flags[id];
}

void modes_tmp_path(char *out, size_t size, const char *file)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/modes-XXXXXX", SP_TEST_BINARY_DIR);
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "/tmp/modes-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(out, size, "%s/%s", dir, file);
}

void modes_rm(const char *path)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    unlink(path);
    rmdir(dirname(copy));
}

double modes_counter(const sp_run *run, const char *region, const char *name, int source,
                     size_t *rows)
{
    int32_t id = sp_run_region_id(run, region);
    const sp_rank_data *rk = &run->ranks[0];
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; id >= 0 && i < rk->ncounters; i++) {
        if (rk->counter_region[i] == id && rk->counter_source[i] == source &&
            strcmp(rk->counter_name[i], name) == 0) {
            sum += rk->counter_value[i];
            n++;
        }
    }
    if (rows)
        *rows = n;
    return sum;
}

uint64_t modes_line_samples(const sp_run *run, const char *region, const char *file, int line,
                            uint64_t *total)
{
    int32_t id = sp_run_region_id(run, region);
    const sp_rank_data *rk = &run->ranks[0];
    uint64_t on = 0, all = 0;
    size_t fl = strlen(file);
    for (size_t i = 0; id >= 0 && i < rk->nlines; i++) {
        if (rk->line_region[i] != id)
            continue;
        all += rk->line_samples[i];
        size_t l = strlen(rk->line_file[i]);
        if (rk->line_lineno[i] == line && l >= fl && strcmp(rk->line_file[i] + l - fl, file) == 0)
            on += rk->line_samples[i];
    }
    if (total)
        *total = all;
    return on;
}
