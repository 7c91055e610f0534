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

static const char report_usage[] =
    "usage: " SP_CLI_NAME " report FILE [CANDIDATE] [-o report.html] [OPTIONS]\n\n"
    "Write one self-contained HTML file (no network access: styles, script and\n"
    "SVG charts are inline) with an overview (regions, ranks, time span, hot\n"
    "spot by own time, imbalance and chatty-region warnings), charts, a sortable\n"
    "region table, the call tree, a per-rank table and the metadata. With a\n"
    "second file, a comparison of FILE (base) and CANDIDATE is added.\n\n"
    "Options:\n"
    "  -o, --output PATH   the HTML file (default report.html; - = standard output)\n"
    "  -t, --title TEXT    the page title\n"
    "  -r, --ranks LIST    only these ranks, e.g. 0-3,5\n"
    "  -i, --include RE    only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE    leave out regions whose name matches RE\n"
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

/* Open, analyze and filter one input; NULL after reporting the error. */
static sp_run *load(const char *path, const sp__rank_list *ranks, const sp_region_filter *filter)
{
    sp_run *run = sp__open_analyzed(path);
    if (!run || (!ranks->n && !filter))
        return run;
    sp_run *sub = sp__run_subset(run, ranks, filter);
    if (!sub)
        sp__cli_error("%s", sp_last_error());
    sp_run_free(run);
    return sub;
}

int sp__cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"title", required_argument, NULL, 't'},
                                             {"ranks", required_argument, NULL, 'r'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = "report.html", *title = NULL;
    sp__selection sel = {0};
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
    if (nfiles > 2)
        return sp__cli_usage_error(argv[0], "unexpected argument '%s' (at most two FILEs)",
                                   argv[optind + 2]);
#ifndef SP_HAVE_PLOTS
    (void)out, (void)title, (void)sel, (void)load, (void)report_body;
    (void)print_path;
    sp__cli_error("report: scope-profiler was built without ncurses/cairo (charts need cairo)");
    return SP_CLI_EXIT_USAGE;
#else
    sp_region_filter *filter;
    if (sp__cli_region_filter(argv[0], sel.include, sel.exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    sp__report r = {.path = argv[optind], .title = title};
    sp_run *run = load(r.path, &sel.ranks, filter), *cand = NULL;
    int rc = run ? SP_CLI_EXIT_OK : SP_CLI_EXIT_USAGE;
    if (!rc && nfiles == 2) {
        r.cand_path = argv[optind + 1];
        cand = load(r.cand_path, &sel.ranks, filter);
        rc = cand ? SP_CLI_EXIT_OK : SP_CLI_EXIT_USAGE;
    }
    if (!rc) {
        r.run = run;
        r.cand = cand;
        if (sp__write_file(out, report_body, run, &r, print_path)) {
            sp__cli_error("%s", *sp_last_error() ? sp_last_error() : "cannot write the report");
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
    }
    sp_run_free(run);
    sp_run_free(cand);
    sp_region_filter_free(filter);
    return rc;
#endif
}
