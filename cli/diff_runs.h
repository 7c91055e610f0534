/* SPDX-License-Identifier: MIT */
/*
 * diff_runs.h - what `diff` and `check` share: their common options
 * (--metric, --alpha, --include, --exclude) and opening BASE and CANDIDATE
 * and comparing them.
 */
#ifndef DIFF_RUNS_H
#define DIFF_RUNS_H

#include <stdbool.h>

#include "sp_diff.h"

typedef struct sp__diff_runs {
    sp_diff_options o;            /* o.filter is set by sp__diff_runs_open */
    const char *include, *exclude; /* --include / --exclude (NULL: unset) */
    /* Set by sp__diff_runs_open; released by sp__diff_runs_free. */
    const char *bpath, *cpath;
    sp_run *base, *cand;
    sp_region_filter *filter;
    sp_diff *d;
} sp__diff_runs;

/* Defaults (sp_diff_options_init) and nothing opened. */
void sp__diff_runs_init(sp__diff_runs *r);

/* Option c (one of 'm', 'a', 'i', 'e') with its value arg. 0, or
 * SP_CLI_EXIT_USAGE after reporting a bad value as a usage error of verb. */
int sp__diff_runs_option(sp__diff_runs *r, int c, const char *arg, const char *verb);

/* After the options: check that the operands are BASE and CANDIDATE,
 * compile the region filter, open and analyze both runs, and diff them
 * (call tree when tree, else by region). 0 when r->d is ready; otherwise
 * the exit status after reporting the error: SP_CLI_EXIT_USAGE for usage
 * and unreadable files, diff_failed when the comparison itself fails. Call
 * sp__diff_runs_free either way. */
int sp__diff_runs_open(sp__diff_runs *r, int argc, char **argv, bool tree, int diff_failed);

void sp__diff_runs_free(sp__diff_runs *r);

#endif
