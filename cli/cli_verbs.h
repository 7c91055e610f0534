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
    X("inspect", sp__cmd_inspect, "print a run's metadata and per-region statistics")

#define SP_CLI_DECLARE_VERB(name, handler, help) int handler(int argc, char **argv);
SP_CLI_VERBS(SP_CLI_DECLARE_VERB)
#undef SP_CLI_DECLARE_VERB

#endif
