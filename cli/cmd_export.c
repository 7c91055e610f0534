/* SPDX-License-Identifier: MIT */
/* cmd_export.c - `scope-profiler export FORMAT FILE -o OUT`: a run in other
 * tools' formats (writers in export_*.c). */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "export.h"
#include "export_select.h"
#include "plot_args.h"

static const char export_usage[] =
    "usage: " SP_CLI_NAME " export FORMAT FILE -o OUT [OPTIONS]\n\n"
    "Write the run in FILE in another format. FORMAT is one of:\n"
    "  csv           OUT is a directory (created if needed) with regions.csv,\n"
    "                per_rank.csv, calls.csv, call_tree.csv, metadata.csv\n"
    "  json          OUT is one JSON file: metadata, region statistics (all ranks\n"
    "                and per rank), call tree, and every call (columnar per rank)\n"
    "  plot-data     OUT is a directory with the data behind each chart of\n"
    "                `" SP_CLI_NAME " plot`: timeline.csv, flame.csv, ranks.csv,\n"
    "                heatmap.csv, histogram.csv, timeseries.csv, summary.json\n"
    "  chrome-trace  OUT is Trace Event Format JSON (Perfetto, chrome://tracing):\n"
    "                \"X\" events, pid = rank, tid = thread, ts/dur in microseconds\n"
    "  speedscope    OUT is a speedscope JSON file: one evented profile per rank\n"
    "                and thread (https://www.speedscope.app)\n"
    "  collapsed     OUT is folded stacks \"a;b;c VALUE\" for flamegraph.pl, VALUE =\n"
    "                own time of the call path in ns (--unit us: microseconds)\n"
    "  otf2          OUT is a directory (new or empty) holding an OTF2 archive\n"
    "                (Vampir, Scalasca, Pipit): OUT/traces.otf2, a location group\n"
    "                per rank, a location per thread, Enter/Leave per call\n"
    "  perfetto      OUT is a gzip-compressed Perfetto protobuf trace (open it in\n"
    "                ui.perfetto.dev): a process track per rank, a thread track\n"
    "                per thread, a slice per call\n"
    "  caliper-json  OUT is Caliper's json-split (Hatchet, Thicket): the call tree\n"
    "                with time (inc), time and Calls per rank (mpi.rank)\n"
    "For the single-file formats OUT may be - (standard output). otf2 and\n"
    "perfetto stream the calls from FILE, so any run can be written.\n\n"
    "Options:\n"
    "  -o, --output OUT     where to write (required)\n"
    "  -r, --ranks LIST     only these ranks, e.g. 0-3,5\n"
    "  -i, --include RE     only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE     leave out regions whose name matches RE\n"
    "  -n, --top N          otf2, perfetto: only the N regions with the most total\n"
    "                       time (their callees stay, one level up)\n"
    "      --from SEC       otf2, perfetto: only calls still running at SEC seconds\n"
    "                       of run time (since the run's first call) ...\n"
    "      --to SEC         ... and started by SEC\n"
    "      --unit ns|us     collapsed: the unit of the values (default ns)\n"
    "  -h, --help           show this help\n"
    "The paths written are printed, one per line.\n";

typedef enum { F_CSV, F_JSON, F_PLOT_DATA, F_CHROME, F_SPEEDSCOPE, F_COLLAPSED } export_format;
static const char *const format_names[] = {"csv",          "json",       "plot-data",
                                           "chrome-trace", "speedscope", "collapsed"};

static void print_path(const char *path)
{
    printf("%s\n", path);
}

int sp__cmd_export(int argc, char **argv)
{
    enum { OPT_UNIT = 1000 };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"ranks", required_argument, NULL, 'r'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"unit", required_argument, NULL, OPT_UNIT},
                                             {"top", required_argument, NULL, 'n'},
                                             {"from", required_argument, NULL, SP__OPT_FROM},
                                             {"to", required_argument, NULL, SP__OPT_TO},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = NULL;
    sp__selection sel = {0};
    sp__window_opts win = {0};
    bool us = false;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "o:r:i:e:n:h", longopts)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'r':
        case 'i':
        case 'e':
            if (sp__selection_option(&sel, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case 'n':
        case SP__OPT_FROM:
        case SP__OPT_TO:
            if (sp__window_option(&win, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case OPT_UNIT:
            if (strcmp(optarg, "ns") && strcmp(optarg, "us"))
                return sp__cli_usage_error(argv[0], "invalid --unit '%s' (ns or us)", optarg);
            us = strcmp(optarg, "us") == 0;
            break;
        case 'h':
            fputs(export_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    if (argc - optind < 1)
        return sp__cli_usage_error(argv[0], "missing FORMAT (csv, json, plot-data, chrome-trace, "
                                            "speedscope, collapsed, " SP__TOOL_FORMATS ")");
    const char *fname = argv[optind];
    int tool = sp__tool_format(fname); /* otf2, perfetto, caliper-json: export_tools.c */
    int fmt = -1;
    for (int k = 0; k < (int)(sizeof format_names / sizeof *format_names); k++)
        if (strcmp(fname, format_names[k]) == 0)
            fmt = k;
    if (fmt < 0 && tool < 0)
        return sp__cli_usage_error(
            argv[0],
            "unknown format '%s' (valid: csv, json, plot-data, chrome-trace, "
            "speedscope, collapsed, " SP__TOOL_FORMATS ")",
            fname);
    optind++;
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    if (!out)
        return sp__cli_usage_error(argv[0], "missing -o OUT");
    if (tool >= 0)
        return sp__export_tool(tool, argv[0], argv[optind], out, &sel, &win);
    if (win.has_from || win.has_to || win.top_n)
        return sp__cli_usage_error(argv[0], "--from, --to and --top go with otf2 and perfetto");
    if ((fmt == F_CSV || fmt == F_PLOT_DATA) && strcmp(out, "-") == 0)
        return sp__cli_usage_error(argv[0], "%s writes a directory; -o - is not possible",
                                   format_names[fmt]);
    sp_region_filter *filter;
    if (sp__cli_region_filter(argv[0], sel.include, sel.exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    const char *path = argv[optind];
    sp_run *run = sp__open_analyzed(path);
    sp_run *sub = NULL;
    rc = SP_CLI_EXIT_USAGE;
    if (run) {
        sub = (sel.ranks.n || filter) ? sp__run_subset(run, &sel.ranks, filter) : run;
        if (!sub)
            sp__cli_error("%s", sp_last_error());
    }
    if (sub) {
        int err = 0;
        switch ((export_format)fmt) {
        case F_CSV:
            err = sp__export_csv(sub, out, print_path);
            break;
        case F_JSON:
            err = sp__export_json(sub, out, print_path);
            break;
        case F_PLOT_DATA:
            err = sp__export_plot_data(sub, out, print_path);
            break;
        case F_CHROME:
            err = sp__export_chrome_trace(sub, out, print_path);
            break;
        case F_SPEEDSCOPE:
            err = sp__export_speedscope(sub, out, print_path);
            break;
        case F_COLLAPSED:
            err = sp__export_collapsed(sub, out, us, print_path);
            break;
        }
        if (err) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
    }
    if (sub != run)
        sp_run_free(sub);
    sp_run_free(run);
    sp_region_filter_free(filter);
    return rc;
}
