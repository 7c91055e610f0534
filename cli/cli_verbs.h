/* SPDX-License-Identifier: MIT */
/*
 * cli_verbs.h - the verbs of the `scope-profiler` command, in one list.
 *
 * X(name, handler, one-line help). main.c builds its dispatch table and
 * `--help` from this list; this header declares the handlers. To add a verb:
 * one line here and a cmd_<verb>.c defining the handler.
 *
 * A handler gets argv with argv[0] = the verb name, parses its options with
 * sp__cli_getopt(), and returns the process exit status (SP_CLI_EXIT_*).
 */
#ifndef CLI_VERBS_H
#define CLI_VERBS_H

#define SP_CLI_VERBS(X)                                                                            \
    X("summary", sp__cmd_summary, "print the call-tree summary of a run (as at finalize)")         \
    X("inspect", sp__cmd_inspect, "print a run's metadata and per-region statistics")              \
    X("ranks", sp__cmd_ranks, "per-region statistics across MPI ranks: slowest rank, imbalance")   \
    X("waits", sp__cmd_waits, "why MPI ranks wait: late senders, collectives, and the causes")    \
    X("diff", sp__cmd_diff, "compare runs region by region: change per rank, interval, verdict")  \
    X("check", sp__cmd_check, "CI gate: exit 1 when a region regressed beyond budget and noise")   \
    X("scaling", sp__cmd_scaling, "scaling study of runs at several rank counts: speedup, efficiency") \
    X("export", sp__cmd_export,                                                                    \
      "write a run as CSV, JSON, plot data, Chrome trace, speedscope, "                            \
      "folded stacks")                                                                             \
    X("plot", sp__cmd_plot, "draw charts of runs as PNG, SVG or PDF (plot list: the kinds)")       \
    X("report", sp__cmd_report,                                                                    \
      "write a self-contained HTML report (two files: with a comparison)")                         \
    X("tui", sp__cmd_tui, "browse a run in the terminal (regions, call tree, ranks, metadata)")    \
    X("line-profile", sp__cmd_line_profile, "print per-line timings of line-sampled regions")     \
    X("view", sp__cmd_view, "open runs in the desktop viewer (two files: compare them)")         \
    X("run", sp__cmd_run, "profile an unedited program: PROGRAM [ARGS...] (traced or sampled)")

#define SP_CLI_DECLARE_VERB(name, handler, help) int handler(int argc, char **argv);
SP_CLI_VERBS(SP_CLI_DECLARE_VERB)
#undef SP_CLI_DECLARE_VERB

/* cli_main.c: the command (main.c, and rank 0 of the MPI helper): parse
 * the global options, dispatch the verb, return the exit status. */
int sp__cli_main(int argc, char **argv);

/* summary_follow.c: `summary --follow`: redraw the summary of a run that is
 * recording every interval seconds until it completes (or Ctrl-C). */
int sp__summary_follow(const char *path, double interval);

#endif
