/* SPDX-License-Identifier: MIT */
/*
 * cmd_line_profile.c - `scope-profiler line-profile FILE`: per-line timings
 * of regions recorded with line sampling (line_profile_print.c). A file
 * without line samples gets a one-line explanation and exit status 2.
 */
#include <errno.h>
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "line_profile.h"
#include "plot_args.h"

static const char line_profile_usage[] =
    "usage: " SP_CLI_NAME " line-profile [--region RE] [--rank N] [--top N] FILE\n\n"
    "Print the per-line timings of the regions recorded with line sampling\n"
    "(use_line_profiler = true, or SCOPE_PROFILER_LINES=1): per region, its\n"
    "source lines by estimated time (samples x sampling period), merged over\n"
    "all ranks unless --rank is given.\n\n"
    "Options:\n"
    "  -R, --region RE  only regions whose name matches RE (POSIX extended regex)\n"
    "  -r, --rank N     only rank N\n"
    "  -n, --top N      at most N lines per region (default 20)\n"
    "  -h, --help       show this help\n"
    "Exit status 2 when FILE has no line-level data.\n";

int sp__cmd_line_profile(int argc, char **argv)
{
    static const struct option longopts[] = {{"region", required_argument, NULL, 'R'},
                                             {"rank", required_argument, NULL, 'r'},
                                             {"top", required_argument, NULL, 'n'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *region = NULL;
    long rank = -1, top = 20;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "R:r:n:h", longopts)) != -1) {
        switch (c) {
        case 'R':
            region = optarg;
            break;
        case 'r': {
            char *end;
            errno = 0;
            rank = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || rank < 0 || rank > INT32_MAX)
                return sp__cli_usage_error(argv[0], "invalid --rank '%s' (a rank number >= 0)",
                                           optarg);
            break;
        }
        case 'n':
            if (sp__count_parse(optarg, "--top", 1000000, &top))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case 'h':
            fputs(line_profile_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    sp_region_filter *filter = NULL;
    if (region) {
        filter = sp_region_filter_new(region, NULL);
        if (!filter)
            return sp__cli_usage_error(argv[0], "invalid --region regex '%s'", region);
    }
    const char *path = argv[optind];
    sp_run *run = sp__open_analyzed(path);
    rc = SP_CLI_EXIT_USAGE;
    if (run && rank >= 0 && (size_t)rank >= run->nranks) {
        sp__cli_error("line-profile: rank %ld is not in '%s' (%zu rank%s)", rank, path, run->nranks,
                      run->nranks == 1 ? "" : "s");
    } else if (run && !sp__run_has_line_data(run)) {
        sp__cli_error("%s has no line-level data; record it with use_line_profiler = true "
                      "(SCOPE_PROFILER_LINES=1)",
                      path);
    } else if (run) {
        if (sp__print_line_profile(run, path, rank, filter, top, stdout)) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
    }
    sp_run_free(run);
    sp_region_filter_free(filter);
    return rc;
}
