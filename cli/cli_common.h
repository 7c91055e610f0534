/* SPDX-License-Identifier: MIT */
/*
 * cli_common.h - helpers shared by the verbs: exit codes, one-line errors,
 * option parsing and opening a run.
 *
 * Every error is one line on stderr starting with "scope-profiler: ".
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "scope_profiler.h"
#include "sp_analysis.h"
#include "sp_events.h"

#define SP_CLI_NAME "scope-profiler"

enum {
    SP_CLI_EXIT_OK = 0,      /* success */
    SP_CLI_EXIT_FAILURE = 1, /* a runtime failure: out of memory, cannot write output */
    SP_CLI_EXIT_USAGE = 2,   /* bad usage, or a file that cannot be read */
    SP_CLI_EXIT_UNDECIDED = 3, /* check: disturbed runs could not decide: retry */
};

/* Print "scope-profiler: " + the formatted message + "\n" to stderr. */
void sp__cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report a usage error of verb (one line, with a pointer to its --help) and
 * return SP_CLI_EXIT_USAGE. */
int sp__cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* getopt_long for a verb. Call sp__cli_getopt_reset() before the first call.
 * Returns the option (as getopt_long does), -1 at the end, or '?' after it
 * has already reported an unknown option or a missing argument. shortopts
 * need not start with ':' (this adds it). */
void sp__cli_getopt_reset(void);
int sp__cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Check that exactly `want` operands remain after the options (argv[optind]
 * onward). 0 if so, else reports "missing FILE" / "unexpected argument" for
 * verb and returns SP_CLI_EXIT_USAGE. `what` names the operands ("FILE"). */
int sp__cli_expect_operands(int argc, char **argv, int want, const char *verb, const char *what);

/* For a verb whose only option is -h/--help and whose only operand is FILE
 * (summary, tui): parse argv. -1 when argv[optind] is the FILE; otherwise
 * the exit status to return (after printing usage for --help, or after
 * reporting a usage error). */
int sp__cli_parse_file_only(int argc, char **argv, const char *usage);

/* Parse a number option >= lo (and < hi when hi > lo). 0 or -1. */
int sp__cli_parse_number(const char *s, double lo, double hi, double *out);

/* Compile --include / --exclude (either may be NULL) into *out, NULL when
 * both are. 0, or SP_CLI_EXIT_USAGE after reporting the bad pattern as a
 * usage error of verb. Verbs call it before opening any file, so a bad
 * regex is reported as usage, not after reading a large run. */
int sp__cli_region_filter(const char *verb, const char *include, const char *exclude,
                          sp_region_filter **out);

/* Report that path could not be read (one line, naming the file once,
 * with sp_last_error()'s reason). */
void sp__cli_report_open_error(const char *path);

/* The run at path read aggregate-first (sp_run_read.h): every summary, no
 * calls; flags are SP_AGG_* extras. On failure report one line naming the
 * file and return NULL. */
sp_run *sp__cli_open_agg(const char *path, unsigned flags);

/* The same with every option of the pass (flags, rank selection): read in a
 * child process unless SCOPE_PROFILER_READ_ISOLATION=0, with a progress
 * line on stderr (cli_progress.h). NULL after printing the error. */
struct sp_agg_opts;
sp_run *sp__cli_read(const char *path, const struct sp_agg_opts *opts);

/* Who reads for sp__cli_read: NULL = sp_run_read() in this process or a
 * child. The MPI helper (cli/mpi/) sets it to spread the ranks over its
 * processes. Same contract as sp_run_read(). */
extern sp_run *(*sp__cli_reader)(const char *path, const struct sp_agg_opts *opts, int *status);

/* The run at path as an aggregated source (sp_run_source_open, then
 * sp_run_aggregate with flags), read in this process, for verbs that load
 * windows of calls afterwards; NULL after printing why. Free with
 * sp_event_source_free() (it frees src->run). */
sp_event_source *sp__cli_open_source(const char *path, unsigned flags);

/* sp__cli_region_filter, then sp__cli_open_agg(path, flags): the pattern is
 * checked before the file is read. 0 with *run (and *filter, NULL when
 * include and exclude are both NULL) set, or SP_CLI_EXIT_USAGE after
 * reporting the error, with nothing left to free. */
int sp__cli_open_filtered(const char *verb, const char *path, const char *include,
                          const char *exclude, unsigned flags, sp_run **run,
                          sp_region_filter **filter);

/* --ranks LIST (sp_ranks.h): check it against the run's rank count, then
 * drop the other ranks' calls so every statistic covers these only; the
 * selection, canonical ("0-3,5"), goes to list. 0 with *count ranks kept;
 * SP_CLI_EXIT_USAGE (bad list) or SP_CLI_EXIT_FAILURE after reporting. */
int sp__cli_keep_ranks(const char *verb, sp_run *run, const char *spec, char *list,
                       size_t size, size_t *count);

/* Where a private file of the installation is (the preload libraries, the
 * MPI helper): $env_name when set, else next to this program: <bindir>/../lib,
 * ../lib64, ../lib/<multiarch>, ../lib/scope-profiler (installed), or the
 * build tree's lib/. 0 with the real path in out, or -1 after reporting
 * (in the name of verb; nothing when quiet and it is simply not there). */
int sp__cli_find_private(const char *name, const char *env_name, const char *verb, bool quiet,
                         char *out, size_t size);

/* Flush stdout; on a write error report it and return SP_CLI_EXIT_FAILURE,
 * else `status`. */
int sp__cli_finish_output(int status);

/* ---- output safety (cli_output.c) ----
 * main() calls sp__cli_protect_output() before any verb runs: from then on
 * stderr (and stdout, unless the verb draws with ncurses) escape every control
 * character but newline and tab, C1 controls, bidi overrides and invalid
 * UTF-8 (sp_display.h), so no name, path or message from a run file can send
 * a sequence to the terminal. Verbs print as usual. */
void sp__cli_protect_output(bool protect_stdout);


#endif
