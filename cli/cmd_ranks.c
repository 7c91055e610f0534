/* SPDX-License-Identifier: MIT */
/* cmd_ranks.c - `scope-profiler ranks FILE`: per-region statistics across
 * ranks (who is slow, how imbalanced); definitions in analysis/sp_ranks.h. */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_ranks.h"

static const char ranks_usage[] =
    "usage: " SP_CLI_NAME " ranks [--region RE] [--ranks LIST] [--sort KEY] FILE\n\n"
    "Print one row per region with its per-rank totals across the ranks: how many\n"
    "ranks have it, calls, min / mean / max of the per-rank totals, the slowest and\n"
    "fastest rank, and the imbalance max / mean (1.00 = balanced; +N%: the slowest\n"
    "rank is N% above the mean). Every rank shown counts, a rank without the\n"
    "region as 0 s. With --region, each matching region's per-rank table follows.\n\n"
    "Options:\n"
    "  -r, --region RE    only regions whose name matches RE (POSIX extended regex),\n"
    "                     each followed by its per-rank table\n"
    "  -R, --ranks LIST   only these ranks, e.g. 0-3,5 (statistics over them only)\n"
    "  -s, --sort KEY     order rows by KEY, largest first: max (per-rank total,\n"
    "                     default), imbalance, total; or name (A to Z)\n"
    "  -h, --help         show this help\n";

int sp__cmd_ranks(int argc, char **argv)
{
    static const struct option longopts[] = {{"region", required_argument, NULL, 'r'},
                                             {"ranks", required_argument, NULL, 'R'},
                                             {"sort", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *region = NULL, *ranks = NULL;
    sp_ranks_sort sort = SP_RANKS_SORT_MAX;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "r:R:s:h", longopts)) != -1) {
        switch (c) {
        case 'r':
            region = optarg;
            break;
        case 'R':
            ranks = optarg;
            break;
        case 's':
            if (sp_ranks_sort_parse(optarg, &sort))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case 'h':
            fputs(ranks_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    sp_run *run;
    sp_region_filter *filter;
    /* Regions across ranks: no rank's metadata or thread names are read. */
    if (sp__cli_open_filtered(argv[0], argv[optind], region, NULL, SP_AGG_LEAN_HEADER, &run,
                              &filter))
        return SP_CLI_EXIT_USAGE;
    bool *sel = NULL;
    size_t count = 0;
    /* The list is checked against the file's rank count: parsed after reading. */
    if (ranks && sp_rank_list_parse(ranks, sp_run_num_ranks(run), &sel, &count) != 0) {
        rc = sp__cli_usage_error(argv[0], "%s", sp_last_error());
    } else if (sp_print_ranks(run, filter, sel, sort, region != NULL, stdout) != 0) {
        sp__cli_error("%s", sp_last_error());
        rc = SP_CLI_EXIT_FAILURE;
    } else {
        rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    free(sel);
    sp_run_free(run);
    sp_region_filter_free(filter);
    return rc;
}
