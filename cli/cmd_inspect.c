/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c - `scope-profiler inspect FILE`: metadata and region table. */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_analysis.h"

static const char inspect_usage[] =
    "usage: " SP_CLI_NAME " inspect [--sort KEY] [--include RE] [--exclude RE] FILE\n\n"
    "Print the run's facts and metadata, then one row per region with its\n"
    "statistics over all ranks and threads (seconds): calls, total, own\n"
    "(exclusive), mean, min, max, std, p95.\n\n"
    "Options:\n"
    "  -s, --sort KEY     order rows by KEY, largest first: total (default), own,\n"
    "                     calls, mean, min, max, std, p95; or name (A to Z)\n"
    "  -i, --include RE   only regions whose name matches RE (POSIX extended regex)\n"
    "  -e, --exclude RE   leave out regions whose name matches RE\n"
    "  -h, --help         show this help\n";

int sp__cmd_inspect(int argc, char **argv)
{
    static const struct option longopts[] = {{"sort", required_argument, NULL, 's'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *include = NULL, *exclude = NULL;
    sp_sort_key key = SP_SORT_TOTAL;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "s:i:e:h", longopts)) != -1) {
        switch (c) {
        case 's':
            if (sp_sort_key_parse(optarg, &key))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case 'i':
            include = optarg;
            break;
        case 'e':
            exclude = optarg;
            break;
        case 'h':
            fputs(inspect_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    /* Usage errors (a bad regex) before touching the file. */
    sp_region_filter *filter = NULL;
    if (include || exclude) {
        filter = sp_region_filter_new(include, exclude);
        if (!filter)
            return sp__cli_usage_error(argv[0], "%s", sp_last_error());
    }
    sp_run *run = sp__cli_open_run(argv[optind]);
    if (!run) {
        sp_region_filter_free(filter);
        return SP_CLI_EXIT_USAGE;
    }
    rc = sp_print_inspect(run, key, filter, stdout);
    sp_run_free(run);
    sp_region_filter_free(filter);
    if (rc) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
