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
    int rc = sp__cli_parse_file_only(argc, argv, summary_usage);
    if (rc >= 0)
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
