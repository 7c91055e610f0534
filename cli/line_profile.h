/* SPDX-License-Identifier: MIT */
/* line_profile.h - the per-line table of `scope-profiler line-profile`. */
#ifndef LINE_PROFILE_H
#define LINE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sp_analysis.h"
#include "sp_model.h"

/* One line sample of a rank: sp_rank_data.line_* at one index. */
typedef struct sp__line_row {
    int32_t region;
    const char *file, *function; /* "" when not recorded */
    int32_t lineno;
    uint64_t samples;
    int64_t time_ns;
} sp__line_row;

/* The line samples of rank (-1: every rank) whose region matches f (NULL:
 * all), unsorted and unmerged, in a malloc'ed array of *n rows. NULL when
 * out of memory (sp_last_error() untouched). */
sp__line_row *sp__line_rows_collect(const sp_run *run, long rank, const sp_region_filter *f,
                                    size_t *n);

/* Does any rank of run carry line samples? */
bool sp__run_has_line_data(const sp_run *run);

/* What the counts and times of a run's line table are: samples and times
 * estimated from them (the line sampler), or executions and measured times
 * (a line tracer: the run's "line_tracer" metadata, set by the Python
 * module), in the words line_profile prints. */
typedef struct sp__line_words {
    const char *one, *many;   /* "sample", "samples" / "hit", "hits" */
    const char *column;       /* table heading, line_profiler style */
    const char *time;         /* "estimated" / "measured" */
    const char *intro;        /* heading of the per-function tables */
    const char *footnote;     /* the last line of the listing */
} sp__line_words;
const sp__line_words *sp__line_words_of(const sp_run *run);

/* Print the line samples of rank (-1: all ranks merged) for the regions
 * matching f (NULL: all), at most top lines per region (0: all). 0 or
 * SP_ENOMEM. */
int sp__print_line_profile(const sp_run *run, const char *path, long rank,
                           const sp_region_filter *f, long top, FILE *out);

#endif
