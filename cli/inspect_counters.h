/* SPDX-License-Identifier: MIT */
/* inspect_counters.h - `scope-profiler inspect --counters / --likwid`. */
#ifndef INSPECT_COUNTERS_H
#define INSPECT_COUNTERS_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_analysis.h"
#include "sp_model.h"

/* Whether any rank has counter rows of these sources (SP_COUNTER_*). */
bool sp__run_has_counters(const sp_run *run, bool perf, bool likwid);

/* perf_event counters per region (regions matching f; NULL = all): per
 * event the sum over every call, thread and rank, the calls, per call. */
int sp__print_perf_counters(const sp_run *run, const sp_region_filter *f, FILE *out);

/* LIKWID results per region: raw events then derived metrics, one column
 * per (rank,) hardware thread. */
int sp__print_likwid(const sp_run *run, const sp_region_filter *f, FILE *out);

#endif
