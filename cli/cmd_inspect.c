/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c - `scope-profiler inspect FILE`: metadata and region table. */
#include <stdlib.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "inspect_counters.h"
#include "sp_analysis.h"
#include "sp_ranks.h"

static const char inspect_usage[] =
    "usage: " SP_CLI_NAME " inspect [--sort KEY] [--include RE] [--exclude RE] [--ranks LIST]\n"
    "       FILE\n\n"
    "Print the run's facts and metadata, then one row per region with its\n"
    "statistics over all ranks and threads (seconds): calls, total, own\n"
    "(exclusive), mean, min, max, std, p95.\n\n"
    "Options:\n"
    "  -s, --sort KEY     order rows by KEY, largest first: total (default), own,\n"
    "                     calls, mean, min, max, std, p95; or name (A to Z)\n"
    "  -i, --include RE   only regions whose name matches RE (POSIX extended regex)\n"
    "  -e, --exclude RE   leave out regions whose name matches RE\n"
    "  -R, --ranks LIST   only these MPI ranks, e.g. 0-3,5: every statistic is\n"
    "                     recomputed over them (the other ranks count no calls)\n"
    "  -c, --counters     instead of the region table: the perf_event counters per\n"
    "                     region (recorded with perf_events / SCOPE_PROFILER_PERF_EVENTS)\n"
    "  -L, --likwid       instead of the region table: LIKWID's raw events and derived\n"
    "                     metrics per region and hardware thread (use_likwid)\n"
    "  -h, --help         show this help\n";

int sp__cmd_inspect(int argc, char **argv)
{
    static const struct option longopts[] = {{"sort", required_argument, NULL, 's'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"ranks", required_argument, NULL, 'R'},
                                             {"counters", no_argument, NULL, 'c'},
                                             {"likwid", no_argument, NULL, 'L'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *include = NULL, *exclude = NULL, *ranks = NULL;
    sp_sort_key key = SP_SORT_TOTAL;
    bool counters = false, likwid = false; /* recording modes' tables */
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "s:i:e:R:cLh", longopts)) != -1) {
        switch (c) {
        case 'c':
            counters = true;
            break;
        case 'L':
            likwid = true;
            break;
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
        case 'R':
            ranks = optarg;
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
    sp_run *run;
    sp_region_filter *filter;
    if (sp__cli_open_filtered(argv[0], argv[optind], include, exclude, 0, &run, &filter))
        return SP_CLI_EXIT_USAGE;
    /* --ranks (sp_ranks.h): checked against the file's rank count, then the
     * other ranks lose their calls so every statistic covers these only. */
    if (ranks) {
        size_t count = 0;
        char list[256];
        if ((rc = sp__cli_keep_ranks(argv[0], run, ranks, list, sizeof list, &count)) != 0) {
            sp_run_free(run);
            sp_region_filter_free(filter);
            return rc;
        }
        printf("Rank selection: %s (%zu of %zu ranks); every statistic below covers these "
               "ranks only.\n",
               list, count, sp_run_num_ranks(run));
    }
    if (rc == 0 && (counters || likwid)) {
        /* --counters / --likwid: the recording modes' tables instead. */
        if (!sp__run_has_counters(run, counters, likwid)) {
            sp__cli_error("%s has no %s; record %s", argv[optind],
                          counters && likwid ? "perf_event or LIKWID counters"
                          : counters         ? "perf_event counters"
                                             : "LIKWID results",
                          counters ? "with perf_events (SCOPE_PROFILER_PERF_EVENTS=task-clock,...)"
                                   : "with use_likwid under likwid-perfctr -m");
            sp_run_free(run);
            sp_region_filter_free(filter);
            return SP_CLI_EXIT_USAGE;
        }
        if (counters)
            rc = sp__print_perf_counters(run, filter, stdout);
        if (rc == 0 && likwid) {
            if (counters)
                putchar('\n');
            rc = sp__print_likwid(run, filter, stdout);
        }
    } else if (rc == 0) {
        rc = sp_print_inspect(run, key, filter, stdout);
    }
    sp_run_free(run);
    sp_region_filter_free(filter);
    if (rc) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
