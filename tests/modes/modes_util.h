/* SPDX-License-Identifier: MIT */
/*
 * modes_util.h - helpers shared by the recording-mode tests (modes_util.c is
 * compiled without -finstrument-functions, so calling them is never traced).
 */
#ifndef MODES_UTIL_H
#define MODES_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "scope_profiler.h"
#include "sp_model.h"

/* No SCOPE_PROFILER_* variable that changes a session. */
void modes_clear_env(void);

/* Defaults, in memory (no file). */
sp_options modes_mem_options(void);

/* "a, b, c": the run's region names (static buffer), for messages. */
const char *modes_region_list(const sp_run *run);

/* Name of the parent region of the first call of `name` in rank 0:
 * "(top)" at top level, "(none)" when the region has no call. */
const char *modes_parent_name(const sp_run *run, const char *name);

/* The SP_REGION_FLAG_* bits of a region (0 when absent). */
int32_t modes_region_flags(const sp_run *run, const char *name);

/* A path in a fresh directory under the test's binary dir. */
void modes_tmp_path(char *out, size_t size, const char *file);

/* Remove a file and its directory (made by modes_tmp_path). */
void modes_rm(const char *path);

/* Counter value of (region, counter name, source) summed over rank 0's rows;
 * *rows receives how many rows matched (may be NULL). */
double modes_counter(const sp_run *run, const char *region, const char *name, int source,
                     size_t *rows);

/* Line samples of a region: total, and those on (file ending in `file`, line). */
uint64_t modes_line_samples(const sp_run *run, const char *region, const char *file, int line,
                            uint64_t *total);

#endif
