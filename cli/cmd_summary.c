/* SPDX-License-Identifier: MIT */
/* cmd_summary.c - `scope-profiler summary FILE`: the boxed call tree (with
 * --ranks, of some ranks; with --follow, of a run while it records:
 * summary_follow.c). */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_agg.h"
#include "sp_analysis.h"

static const char summary_usage[] =
    "usage: " SP_CLI_NAME " summary [--ranks LIST] [--follow [--interval SEC]] FILE\n\n"
    "Print the call tree of the run in FILE with inclusive times (the summary\n"
    "sp_finalize prints), followed by the commands to explore it further.\n"
    "With --follow, FILE may be a run still recording (or not yet created): the\n"
    "summary is redrawn every SEC seconds (on a terminal; otherwise printed again\n"
    "each time the call count changes) until the run completes or Ctrl-C.\n\n"
    "Options:\n"
    "  -R, --ranks LIST    only these MPI ranks, e.g. 0-3,5: every figure covers\n"
    "                      them (\"2 of 8 ranks\")\n"
    "  -f, --follow        follow a run while it records, until it completes\n"
    "  -n, --interval SEC  seconds between refreshes with --follow (default 1)\n"
    "  -h, --help          show this help\n";

int sp__cmd_summary(int argc, char **argv)
{
    static const struct option longopts[] = {{"ranks", required_argument, NULL, 'R'},
                                             {"follow", no_argument, NULL, 'f'},
                                             {"interval", required_argument, NULL, 'n'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    bool follow = false, interval_set = false;
    double interval = 1.0;
    const char *ranks = NULL;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "R:fn:h", longopts)) != -1) {
        switch (c) {
        case 'R':
            ranks = optarg;
            break;
        case 'f':
            follow = true;
            break;
        case 'n':
            if (sp__cli_parse_number(optarg, 0.05, 0, &interval))
                return sp__cli_usage_error(argv[0], "--interval: expected seconds (0.05 or more), "
                                                    "got '%s'", optarg);
            interval_set = true;
            break;
        case 'h':
            fputs(summary_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    if (interval_set && !follow)
        return sp__cli_usage_error(argv[0], "--interval needs --follow");
    if (ranks && follow)
        return sp__cli_usage_error(argv[0], "--ranks and --follow cannot be combined");
    const char *path = argv[optind];
    if (follow)
        return sp__summary_follow(path, interval);
    sp_run *run = sp__cli_open_agg(path, SP_AGG_LEAN_HEADER); /* prints no rank metadata */
    if (!run)
        return SP_CLI_EXIT_USAGE;
    if (ranks) {
        size_t count = 0;
        char list[256];
        if ((rc = sp__cli_keep_ranks(argv[0], run, ranks, list, sizeof list, &count)) != 0) {
            sp_run_free(run);
            return rc;
        }
        printf("Rank selection: %s (%zu of %zu ranks); every figure below covers these ranks "
               "only.\n",
               list, count, sp_run_num_ranks(run));
    }
    rc = sp_print_summary(run, path, stdout);
    sp_run_free(run);
    if (rc) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
