/* SPDX-License-Identifier: MIT */
/* cmd_summary.c - `scope-profiler summary FILE`: the boxed call tree (with
 * --follow, of a run while it records: summary_follow.c). */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_analysis.h"

static const char summary_usage[] =
    "usage: " SP_CLI_NAME " summary [--follow [--interval SEC]] FILE\n\n"
    "Print the call tree of the run in FILE with inclusive times (the summary\n"
    "sp_finalize prints), followed by the commands to explore it further.\n"
    "With --follow, FILE may be a run still recording (or not yet created): the\n"
    "summary is redrawn every SEC seconds (on a terminal; otherwise printed again\n"
    "each time the call count changes) until the run completes or Ctrl-C.\n\n"
    "Options:\n"
    "  -f, --follow        follow a run while it records, until it completes\n"
    "  -n, --interval SEC  seconds between refreshes with --follow (default 1)\n"
    "  -h, --help          show this help\n";

int sp__cmd_summary(int argc, char **argv)
{
    static const struct option longopts[] = {{"follow", no_argument, NULL, 'f'},
                                             {"interval", required_argument, NULL, 'n'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    bool follow = false, interval_set = false;
    double interval = 1.0;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "fn:h", longopts)) != -1) {
        switch (c) {
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
    const char *path = argv[optind];
    if (follow)
        return sp__summary_follow(path, interval);
    sp_run *run = sp__cli_open_agg(path, 0);
    if (!run)
        return SP_CLI_EXIT_USAGE;
    rc = sp_print_summary(run, path, stdout);
    sp_run_free(run);
    if (rc) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
