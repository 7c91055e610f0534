/* SPDX-License-Identifier: MIT */
/*
 * cmd_waits.c - `scope-profiler waits RUN`: why ranks wait. The run's MPI
 * messages and collectives matched across ranks, the waiting by pattern,
 * rank and call site, the rank waited for and what it was doing instead
 * (analysis/sp_waits.h); optionally the messages per pair of ranks, and
 * the same rows as CSV.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "export.h"
#include "sp_agg.h"
#include "sp_waits.h"

static const char waits_usage[] =
    "usage: " SP_CLI_NAME " waits [OPTIONS] RUN\n\n"
    "Why the ranks of an MPI run wait, from the messages and collectives the MPI\n"
    "library recorded (use_mpi_regions, or SCOPE_PROFILER_MPI_MESSAGES=1). Sends are\n"
    "matched to receives (communicator, ranks, tag, MPI's order), collectives to\n"
    "each other, with the clocks aligned to rank 0. The time each rank waited, by\n"
    "pattern and by the call path of the MPI call:\n"
    "  late sender      a receive waited for a send started later\n"
    "  late receiver    a synchronous send waited for a receive posted later\n"
    "  wait at barrier, wait at N x N   a rank waited for the last to arrive\n"
    "  late broadcast   a rank waited for the root (Bcast, Scatter)\n"
    "  early reduce     the root waited for the last rank (Reduce, Gather)\n"
    "with the rank waited for, and the cause: the regions where that rank spent\n"
    "more time than the waiting rank since they last synchronised.\n\n"
    "Options:\n"
    "      --pairs       also print the messages per pair of ranks (sent, received,\n"
    "                    bytes, matched)\n"
    "      --csv FILE    also write pattern,rank,call_path,calls,wait_s,uncertain_s,\n"
    "                    late_rank,late_rank_s,cause_rank,cause_region,cause_s,\n"
    "                    cause_excess_s: one line per row and cause (- = stdout,\n"
    "                    instead of the table)\n"
    "  -n, --max N       print at most N rows (default 40)\n"
    "      --all         print every row\n"
    "  -h, --help        show this help\n";

static int write_csv(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    const sp_waits *w = ctx;
    fputs("pattern,rank,call_path,calls,wait_s,uncertain_s,late_rank,late_rank_s,cause_rank,"
          "cause_region,cause_s,cause_excess_s\n",
          f);
    for (size_t i = 0; i < w->nrows; i++) {
        const sp_wait_row *r = &w->rows[i];
        for (size_t k = 0; k < (r->ncauses ? r->ncauses : 1); k++) {
            fprintf(f, "%s,%d,", sp_wait_pattern_name(r->pattern), (int)r->rank);
            sp__csv_str(f, w->paths.s[r->path]);
            fprintf(f, ",%llu,%.9f,%.9f,%d,%.9f,", (unsigned long long)r->count, r->wait_s,
                    r->uncertain_s, (int)r->late_rank, r->late_rank_s);
            if (r->ncauses) {
                const sp_wait_cause *c = &r->causes[k];
                fprintf(f, "%d,", (int)c->rank);
                sp__csv_str(f, w->names.s[c->region]);
                fprintf(f, ",%.9f,%.9f\n", c->charged_s, c->excess_s);
            } else {
                fputs(",,,\n", f);
            }
        }
    }
    return ferror(f) ? SP_EIO : 0;
}

static void print_path(const char *path) { printf("wrote %s\n", path); }

int sp__cmd_waits(int argc, char **argv)
{
    enum { OPT_PAIRS = 1000, OPT_CSV, OPT_ALL };
    static const struct option longopts[] = {{"pairs", no_argument, NULL, OPT_PAIRS},
                                             {"csv", required_argument, NULL, OPT_CSV},
                                             {"max", required_argument, NULL, 'n'},
                                             {"all", no_argument, NULL, OPT_ALL},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    bool pairs = false;
    const char *csv = NULL;
    double max = 40;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "n:h", longopts)) != -1) {
        switch (c) {
        case OPT_PAIRS:
            pairs = true;
            break;
        case OPT_CSV:
            csv = optarg;
            break;
        case 'n':
            if (sp__cli_parse_number(optarg, 1, 0, &max) || max != (double)(size_t)max)
                return sp__cli_usage_error(argv[0], "invalid --max '%s' (a count, 1 or more)",
                                           optarg);
            break;
        case OPT_ALL:
            max = 0;
            break;
        case 'h':
            fputs(waits_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "RUN");
    if (rc)
        return rc;
    /* Aggregate-first: the messages come with the ranks' headers, the
     * causes read the calls of each wait's interval as a window. */
    sp_event_source *src = sp__cli_open_source(argv[optind], SP_AGG_LANES);
    if (!src)
        return SP_CLI_EXIT_USAGE;
    sp_waits *w = NULL;
    if (sp_waits_compute_source(src, &w) != 0) {
        sp__cli_error("%s: %s", argv[optind], sp_last_error());
        sp_event_source_free(src);
        return SP_CLI_EXIT_USAGE;
    }
    bool to_stdout = csv && strcmp(csv, "-") == 0;
    if (!to_stdout && sp_waits_print(w, argv[optind], (size_t)max, pairs, stdout) != 0)
        rc = SP_CLI_EXIT_FAILURE;
    if (!rc && csv && sp__write_file(csv, write_csv, NULL, w, to_stdout ? NULL : print_path)) {
        sp__cli_error("%s", sp_last_error());
        rc = SP_CLI_EXIT_FAILURE;
    }
    if (!rc)
        rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
    sp_waits_free(w);
    sp_event_source_free(src);
    return rc;
}
