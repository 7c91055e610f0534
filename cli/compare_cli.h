/* SPDX-License-Identifier: MIT */
/*
 * compare_cli.h - what `diff`, `check` and `scaling` share: the runs of each
 * side (files, directories of *.h5, or --base/--cand lists), the options of
 * the comparison model, and the header lines that say how it compared.
 */
#ifndef COMPARE_CLI_H
#define COMPARE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_compare.h"

/* A list of run files and, once opened, the runs. */
typedef struct sp__run_list {
    size_t n, cap;
    char **paths; /* owned copies */
    sp_run **runs;
} sp__run_list;

/* Add path; a directory adds every *.h5 in it (sorted by name). 0, or
 * SP_CLI_EXIT_USAGE after reporting (an empty directory, unreadable). */
int sp__run_list_add(sp__run_list *l, const char *path, const char *verb);

/* Open every run aggregate-first (no calls: sp__cli_open_agg) with the
 * SP_AGG_* extras flags; 0 or SP_CLI_EXIT_USAGE after reporting the file
 * that failed. */
int sp__run_list_open(sp__run_list *l, unsigned flags);

void sp__run_list_free(sp__run_list *l);

typedef struct sp__cmp_cli {
    sp_compare_options o;
    const char *include, *exclude;
    sp__run_list base, cand;
    bool lists;            /* --base / --cand were given */
    sp_region_filter *filter;
    sp_compare *cmp;
} sp__cmp_cli;

void sp__cmp_cli_init(sp__cmp_cli *a);

/*
 * Take "--base A [B...]" and "--cand A [B...]" (also --candidate, and the
 * --base=A form; repeatable) out of argv before getopt sees it: the files
 * run until the next argument that starts with '-'. *argc shrinks. 0 or
 * SP_CLI_EXIT_USAGE after reporting.
 */
int sp__cmp_cli_take_lists(sp__cmp_cli *a, int *argc, char **argv);

/* The long options every comparing verb accepts (merge into the verb's
 * table) and their handler. Short options: a (alpha), i, e, m. */
#define SP__CMP_OPT_MIN_TIME 2001
#define SP__CMP_OPT_MIN_SHARE 2002
#define SP__CMP_OPT_OWN 2003
#define SP__CMP_OPT_MIN_CHANGE 2004
#define SP__CMP_OPT_INCLUSIVE 2005
#define SP__CMP_OPT_ESTIMATOR 2006
#define SP__CMP_OPT_QUANTILE 2007
#define SP__CMP_LONG_OPTIONS                                                                       \
    {"alpha", required_argument, NULL, 'a'}, {"include", required_argument, NULL, 'i'},            \
        {"exclude", required_argument, NULL, 'e'}, {"metric", required_argument, NULL, 'm'},       \
        {"min-time", required_argument, NULL, SP__CMP_OPT_MIN_TIME},                               \
        {"min-share", required_argument, NULL, SP__CMP_OPT_MIN_SHARE},                             \
        {"own", no_argument, NULL, SP__CMP_OPT_OWN},                                               \
        {"inclusive", no_argument, NULL, SP__CMP_OPT_INCLUSIVE},                                   \
        {"estimator", required_argument, NULL, SP__CMP_OPT_ESTIMATOR},                             \
        {"quantile", required_argument, NULL, SP__CMP_OPT_QUANTILE}

/* Handle option c with arg: 1 when c is not a comparison option, 0 when
 * handled, SP_CLI_EXIT_USAGE after reporting a bad value. */
int sp__cmp_cli_option(sp__cmp_cli *a, int c, const char *arg, const char *verb);

/* The usage lines of those options. */
#define SP__CMP_USAGE_OPTIONS                                                                      \
    "      --min-time SEC      ignore changes under SEC per rank (default 0.0001)\n"               \
    "      --min-share PCT     ignore changes under PCT % of the run's time (default 1)\n"        \
    "  -a, --alpha A           1 - confidence of the intervals (default 0.05: 95 %)\n"            \
    "      --estimator E       the typical call: quantile (default: a quantile of the\n"      \
    "                          call durations, robust to preempted calls) or hl\n"            \
    "                          (Hodges-Lehmann: all calls, best with symmetric noise)\n"      \
    "      --quantile Q        which quantile (default 0.25, the lower quartile)\n"          \
    "      --inclusive         compare inclusive time (default: own time, so a slowdown\n"       \
    "                          is reported in the region where it happens, not again in\n"   \
    "                          every enclosing one; --own says so explicitly)\n"              \
    "  -i, --include RE        only regions whose name matches RE (POSIX extended)\n"             \
    "  -e, --exclude RE        leave out regions whose name matches RE\n"

/* The usage text on inputs and method, shared by diff and check. */
#define SP__CMP_USAGE_INPUTS                                                                       \
    "BASE and CANDIDATE are run files or directories (every *.h5 in them), or\n"               \
    "lists: --base A1 A2 A3 --cand B1 B2 B3. Per region the time per rank is\n"               \
    "compared (per thread that ran it; mean and max over ranks, never sums), own\n"           \
    "time by default. One run per side: the change is the ratio of the lower\n"               \
    "quartiles of the call durations (noise only adds time; the fastest calls\n"             \
    "move with the code) times the ratio of calls per rank, with a distribution-\n"          \
    "free 95 % interval. Several runs on a side: the ratio of the runs' robust\n"            \
    "times per rank with a Welch t interval, so run-to-run noise is measured - use\n"        \
    "this for CI gates (3 or more interleaved runs per side). A change counts\n"              \
    "(slower / faster) only when its interval excludes no change AND it is beyond\n"         \
    "the budget, --min-time and --min-share.\n"

/* After the options: resolve the operands (BASE CAND, or none with
 * lists), compile the filter, open the runs (analyzed when tree) and
 * compare. 0 when a->cmp is ready; else the exit status after reporting:
 * SP_CLI_EXIT_USAGE for usage and unreadable files, fail_status when the
 * comparison itself fails. */
int sp__cmp_cli_run(sp__cmp_cli *a, int argc, char **argv, int fail_status);

void sp__cmp_cli_free(sp__cmp_cli *a);

/* Header lines: "base: ...", "candidate: ...", "mode: ...", "method: ...",
 * "per rank: ...", "summary: ..." with labels padded to label_w. */
void sp__cmp_cli_print_header(const sp__cmp_cli *a, FILE *out, int label_w);

/* "base.h5 (2 ranks, 6 regions)" or "3 runs: dir/a.h5, dir/b.h5, ..." */
void sp__cmp_cli_describe_side(const sp__run_list *l, FILE *out);

#endif
