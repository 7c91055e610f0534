/* SPDX-License-Identifier: MIT */
/* rec_util.h - helpers shared by the recorder tests. */
#ifndef REC_UTIL_H
#define REC_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_model.h"

/* Tests start from a clean environment: no SCOPE_PROFILER_* overrides. */
static inline void rec_clear_env(void)
{
    unsetenv("SCOPE_PROFILER_DISABLE");
    unsetenv("SCOPE_PROFILER_NO_FILE");
    unsetenv("SCOPE_PROFILER_FILE");
    unsetenv("SCOPE_PROFILER_BUFFER_LIMIT");
    unsetenv("SCOPE_PROFILER_CLOCK");
}

/* A fresh directory under the test binary dir (or /tmp). */
static inline const char *rec_tmpdir(void)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/rec-XXXXXX", SP_TEST_BINARY_DIR);
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "/tmp/rec-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

static inline int rec_exists(const char *path) { return access(path, F_OK) == 0; }

/* Options writing the run to path. */
static inline sp_options rec_file_options(const char *path)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    return o;
}

/* n calls of region r, one after the other. */
static inline void rec_record_calls(sp_region *r, int n)
{
    for (int i = 0; i < n; i++) {
        sp_region_begin(r);
        sp_region_end(r);
    }
}

/* Options with every recording in memory. */
static inline sp_options rec_mem_options(void)
{
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    return o;
}

/* Index of the k-th call (model order) of region `name` in rank 0, or -1. */
static inline long rec_call(const sp_run *run, const char *name, size_t k)
{
    int32_t id = sp_run_region_id(run, name);
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; id >= 0 && i < rk->ncalls; i++)
        if (rk->region[i] == id && k-- == 0)
            return (long)i;
    return -1;
}

static inline size_t rec_count(const sp_run *run, const char *name)
{
    int32_t id = sp_run_region_id(run, name);
    size_t n = 0;
    for (size_t i = 0; id >= 0 && i < run->ranks[0].ncalls; i++)
        n += run->ranks[0].region[i] == id;
    return n;
}

/* Run fn with stdout captured into buf (NUL-terminated). */
static inline void rec_capture_stdout(void (*fn)(void *), void *arg, char *buf, size_t size)
{
    char path[] = "/tmp/rec-stdout-XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    fn(arg);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

#endif
