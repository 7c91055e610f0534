/* SPDX-License-Identifier: MIT */
/* cmd_summary.c - `scope-profiler summary FILE`: the boxed call tree. */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_analysis.h"

static const char summary_usage[] =
    "usage: " SP_CLI_NAME " summary FILE\n\n"
    "Print the call tree of the run in FILE with inclusive times (the summary\n"
    "sp_finalize prints), followed by the commands to explore it further.\n\n"
    "Options:\n"
    "  -h, --help  show this help\n";

int sp__cmd_summary(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "h", longopts)) != -1) {
        switch (c) {
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
    const char *path = argv[optind];
    sp_run *run = sp__cli_open_run(path);
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
