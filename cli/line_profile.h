/* SPDX-License-Identifier: MIT */
/* line_profile.h - the per-line table of `scope-profiler line-profile`. */
#ifndef LINE_PROFILE_H
#define LINE_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_analysis.h"
#include "sp_model.h"

/* Does any rank of run carry line samples? */
bool sp__run_has_line_data(const sp_run *run);

/* Print the line samples of rank (-1: all ranks merged) for the regions
 * matching f (NULL: all), at most top lines per region (0: all). 0 or
 * SP_ENOMEM. */
int sp__print_line_profile(const sp_run *run, const char *path, long rank,
                           const sp_region_filter *f, long top, FILE *out);

#endif
