/* SPDX-License-Identifier: MIT */
/* cmd_report.c - `scope-profiler report FILE [CANDIDATE] -o report.html`:
 * one self-contained HTML page (report_*.c). */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "export.h"
#include "plot_args.h"
#include "report.h"
#include "sp_agg.h"
#include "sp_colors.h"
#include "sp_compare.h"

static const char report_usage[] =
    "usage: " SP_CLI_NAME " report FILE [CANDIDATE | RUN...] [-o report.html] [OPTIONS]\n\n"
    "Write one self-contained HTML file (no network access: styles, script and\n"
    "SVG charts are inline) with an overview (regions, ranks, time span, hot\n"
    "spot by own time, imbalance and chatty-region warnings), charts, a sortable\n"
    "region table, the call tree, a per-rank table and the metadata. With a\n"
    "second file, a comparison of FILE (base) and CANDIDATE is added (the\n"
    "verdicts of `" SP_CLI_NAME " diff`); with three or more, a scaling study of\n"
    "all of them (as `" SP_CLI_NAME " scaling`), the report's body being FILE's.\n\n"
    "Options:\n"
    "  -o, --output PATH   the HTML file (default report.html; - = standard output)\n"
    "  -t, --title TEXT    the page title\n"
    "  -r, --ranks LIST    only these ranks, e.g. 0-3,5\n"
    "  -i, --include RE    only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE    leave out regions whose name matches RE\n"
    "      --weak, --strong  a scaling study's kind (default: detected from the runs'\n"
    "                      problem-size metadata, as `" SP_CLI_NAME " scaling`)\n"
    "  -h, --help          show this help\n";

static int report_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    return sp__report_write((sp__report *)ctx, f);
}

static void print_path(const char *path)
{
    printf("%s\n", path);
}

/* Read one input with the selection, aggregate-first (a comparison's runs
 * with what the comparison model needs); NULL after reporting the error. */
static sp_run *load(const char *path, const sp__rank_list *ranks, const sp_region_filter *filter,
                    int nfiles)
{
    unsigned flags = SP_AGG_SERIES | SP_AGG_LANES;
    if (nfiles == 2)
        flags |= SP_COMPARE_AGG_FLAGS(false);
    return sp__open_selected(path, flags, ranks, filter);
}

int sp__cmd_report(int argc, char **argv)
{
    enum { OPT_WEAK = 1000, OPT_STRONG };
    static const struct option longopts[] = {{"weak", no_argument, NULL, OPT_WEAK},
                                             {"strong", no_argument, NULL, OPT_STRONG},
                                             {"output", required_argument, NULL, 'o'},
                                             {"title", required_argument, NULL, 't'},
                                             {"ranks", required_argument, NULL, 'r'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = "report.html", *title = NULL;
    sp__selection sel = {0};
    sp_scaling_kind kind = SP_SCALING_AUTO;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "o:t:r:i:e:h", longopts)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 't':
            title = optarg;
            break;
        case 'r':
        case 'i':
        case 'e':
            if (sp__selection_option(&sel, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case OPT_WEAK:
            kind = SP_SCALING_WEAK;
            break;
        case OPT_STRONG:
            kind = SP_SCALING_STRONG;
            break;
        case 'h':
            fputs(report_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int nfiles = argc - optind;
    if (nfiles < 1)
        return sp__cli_usage_error(argv[0], "missing FILE");
#ifndef SP_HAVE_PLOTS
    (void)out, (void)title, (void)sel, (void)load, (void)report_body;
    (void)print_path;
    sp__cli_error("report: scope-profiler was built without ncurses/cairo (charts need cairo)");
    return SP_CLI_EXIT_USAGE;
#else
    sp_region_filter *filter;
    if (sp__cli_region_filter(argv[0], sel.include, sel.exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    sp__report r = {.path = argv[optind], .title = title, .scaling_kind = kind};
    sp_color_map *report_colors = NULL;
    sp_run **runs = calloc((size_t)nfiles, sizeof *runs);
    int rc = runs ? SP_CLI_EXIT_OK : SP_CLI_EXIT_FAILURE;
    for (int i = 0; !rc && i < nfiles; i++) {
        runs[i] = load(argv[optind + i], &sel.ranks, filter, nfiles);
        rc = runs[i] ? SP_CLI_EXIT_OK : SP_CLI_EXIT_USAGE;
    }
    sp_run *run = runs ? runs[0] : NULL, *cand = NULL;
    if (!rc) {
        r.run = run;
        if (nfiles == 2) {
            r.cand_path = argv[optind + 1];
            r.cand = cand = runs[1];
        } else if (nfiles > 2) {
            r.runs = (const sp_run *const *)runs;
            r.nruns = (size_t)nfiles;
        }
        /* One colour map over every run of the report, built once for all
         * its charts (each chart building its own took seconds with 10^6
         * regions). */
        r.colors = report_colors = sp_color_map_new((const sp_run *const *)runs, (size_t)nfiles);
        if (sp__write_file(out, report_body, run, &r, print_path)) {
            sp__cli_error("%s", *sp_last_error() ? sp_last_error() : "cannot write the report");
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
    }
    (void)cand;
    sp_color_map_free(report_colors);
    for (int i = 0; runs && i < nfiles; i++)
        sp_run_free(runs[i]);
    free(runs);
    sp_region_filter_free(filter);
    return rc;
#endif
}
