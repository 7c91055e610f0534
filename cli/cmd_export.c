/* SPDX-License-Identifier: MIT */
/* cmd_export.c - `scope-profiler export FORMAT FILE -o OUT`: a run in other
 * tools' formats (writers in export_*.c).
 *
 * The run is read aggregate-first (statistics and tree from one pass, in a
 * child process); formats with a row or event per call then stream the
 * file's events in this process, rank by rank (call_stream.h), so no export
 * holds a run's calls. Formats that a viewer loads whole (chrome-trace,
 * speedscope, JSON) are estimated from the call counts before writing, and
 * the verb says when the file would be too large for its viewer, with the
 * selections that make it smaller (--from/--to, --ranks, --top). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cli_verbs.h"
#include "export.h"
#include "export_select.h"
#include "plot_args.h"
#include "sp_error.h"
#include "sp_run_read.h"

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
    "For the single-file formats OUT may be - (standard output).\n\n"
    "Options:\n"
    "  -o, --output OUT     where to write (required)\n"
    "  -r, --ranks LIST     only these ranks, e.g. 0-3,5\n"
    "  -i, --include RE     only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE     leave out regions whose name matches RE\n"
    "  -n, --top N          only the N regions with the most total time (otf2,\n"
    "                       perfetto: their callees stay, one level up)\n"
    "      --from SEC       calls written: only those still running at SEC seconds\n"
    "                       of run time (since the run's first call) ...\n"
    "      --to SEC         ... and started by SEC (statistics cover the whole run)\n"
    "      --unit ns|us     collapsed: the unit of the values (default ns)\n"
    "  -h, --help           show this help\n"
    "Files with a row or event per call are streamed from FILE, so any run can be\n"
    "written; before writing, the size is estimated and, when a viewer could not\n"
    "load the file whole (chrome-trace past 500 MB, speedscope past 300 MB, JSON\n"
    "past 1 GB), a note on stderr says which selection makes it smaller.\n"
    "The paths written are printed, one per line.\n";

/* The formats: adding one is a writer in export_*.c and a row here. */
static const struct export_format {
    const char *name;
    sp__export_fn write;
    bool dir;                /* OUT is a directory */
    bool per_call;           /* a row or event per call, streamed from the file */
    unsigned bytes_per_call; /* about, measured on typical runs (README "Measured") */
    uint64_t viewer_bytes;   /* 0: no limit; else what its viewer loads at most */
    const char *viewer;
} formats[] = {
    {"csv", sp__export_csv, true, true, 75, 0, NULL},
    {"json", sp__export_json, false, true, 45, (uint64_t)1 << 30,
     "a JSON parser loads the document whole (Python's json needs about 10 times its size)"},
    {"plot-data", sp__export_plot_data, true, true, 95, 0, NULL},
    {"chrome-trace", sp__export_chrome_trace, false, true, 110, (uint64_t)500 << 20,
     "Perfetto and chrome://tracing load the file whole and fail or crawl past a few "
     "hundred MB"},
    {"speedscope", sp__export_speedscope, false, true, 90, (uint64_t)300 << 20,
     "speedscope loads the file whole in the browser"},
    {"collapsed", sp__export_collapsed, false, false, 0, 0, NULL},
};
#define NFORMATS (sizeof formats / sizeof *formats)

static void print_path(const char *path)
{
    printf("%s\n", path);
}

static void format_list(char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NFORMATS && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", formats[i].name);
}

/* Regions written: those the filter keeps, and with --top, the top_n of
 * them with the most total time. NULL when every region is kept. */
static bool *kept_regions(const sp_run *run, const sp_region_filter *filter, long top_n)
{
    if (!filter && top_n <= 0)
        return NULL;
    bool *keep = calloc(run->nregions ? run->nregions : 1, sizeof *keep);
    if (!keep)
        return NULL;
    for (size_t g = 0; g < run->nregions; g++)
        keep[g] = sp_region_filter_match(filter, run->region_names[g]);
    if (top_n > 0) {
        int32_t *ids = NULL;
        long n = sp_run_sorted_regions(run, SP_SORT_TOTAL, filter, &ids);
        for (long i = 0; i < n; i++)
            keep[ids[i]] = i < top_n && run->regions[ids[i]].all.calls > 0;
        free(ids);
        if (n < 0) {
            free(keep);
            return NULL;
        }
    }
    return keep;
}

/* Before writing: the calls the file will hold and, for formats a viewer
 * loads whole, a note when it would be too large. */
static void size_note(const struct export_format *fmt, const sp__export *x, bool window,
                      bool ranks, bool regions)
{
    uint64_t calls = 0;
    for (size_t r = 0; r < x->run->nranks; r++)
        calls += sp__stream_estimate(x->src, x->run->agg, r, &x->calls);
    double bytes = (double)calls * fmt->bytes_per_call;
    if (!fmt->viewer_bytes || bytes <= (double)fmt->viewer_bytes)
        return;
    char how[200] = "";
    snprintf(how, sizeof how, "%s%s%s", window ? "" : " --from/--to (a time window),",
             ranks ? "" : " --ranks (fewer ranks),", regions ? "" : " --top N (the main regions),");
    size_t n = strlen(how);
    if (n && how[n - 1] == ',')
        how[n - 1] = '\0';
    fprintf(stderr,
            SP_CLI_NAME ": note: %s: about %.0f MB (%" PRIu64 " calls x ~%u bytes), more than "
                        "its viewer opens (about %.0f MB): %s.%s%s\n",
            fmt->name, bytes / 1048576.0, calls, fmt->bytes_per_call,
            (double)fmt->viewer_bytes / 1048576.0, fmt->viewer,
            *how ? " Choose a part with" : " Choose a smaller part", how);
}

/* Events the per-call files read: the progress line's total. */
static uint64_t events_to_read(const sp__export *x)
{
    uint64_t n = 0;
    for (size_t r = 0; r < x->src->nranks && r < x->run->nranks; r++) {
        if (x->run->ranks[r].excluded)
            continue;
        for (size_t b = 0; b < x->src->nblocks[r]; b++)
            n += x->src->blocks[r][b].events;
    }
    return n;
}

int sp__cmd_export(int argc, char **argv)
{
    enum { OPT_UNIT = 1000 };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"ranks", required_argument, NULL, 'r'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"top", required_argument, NULL, 'n'},
                                             {"from", required_argument, NULL, SP__OPT_FROM},
                                             {"to", required_argument, NULL, SP__OPT_TO},
                                             {"unit", required_argument, NULL, OPT_UNIT},
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
    char names[200];
    format_list(names, sizeof names);
    if (argc - optind < 1)
        return sp__cli_usage_error(argv[0], "missing FORMAT (%s, " SP__TOOL_FORMATS ")", names);
    const char *fname = argv[optind];
    const struct export_format *fmt = NULL;
    for (size_t k = 0; k < NFORMATS; k++)
        if (strcmp(fname, formats[k].name) == 0)
            fmt = &formats[k];
    int tool = sp__tool_format(fname); /* otf2, perfetto, caliper-json: export_tools.c */
    if (!fmt && tool < 0)
        return sp__cli_usage_error(argv[0], "unknown format '%s' (valid: %s, " SP__TOOL_FORMATS ")",
                                   fname, names);
    optind++;
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    if (rc)
        return rc;
    if (!out)
        return sp__cli_usage_error(argv[0], "missing -o OUT");
    if (tool >= 0)
        return sp__export_tool(tool, argv[0], argv[optind], out, &sel, &win);
    if (fmt->dir && strcmp(out, "-") == 0)
        return sp__cli_usage_error(argv[0], "%s writes a directory; -o - is not possible",
                                   fmt->name);
    sp_region_filter *filter;
    if (sp__cli_region_filter(argv[0], sel.include, sel.exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    const char *path = argv[optind];
    sp_run *run = sp__open_selected(path, fmt->per_call ? SP_AGG_LANES : 0, &sel.ranks, NULL);
    sp__export x = {.run = run, .us = us};
    sp__call_sel_all(&x.calls);
    bool *keep = NULL;
    rc = run ? 0 : SP_CLI_EXIT_USAGE;
    if (rc == 0 && (filter || win.top_n > 0)) {
        keep = kept_regions(run, filter, win.top_n);
        if (!keep || sp__run_keep_region_ids(run, keep)) {
            sp__cli_error("%s", keep ? sp_last_error() : "out of memory");
            rc = SP_CLI_EXIT_FAILURE;
        }
        x.calls.regions = keep;
        x.calls.nregions = run->nregions;
    }
    int64_t t1 = 0;
    if (rc == 0 && sp_run_time_span(run, &x.t0_ns, &t1) != 0)
        x.t0_ns = 0;
    if (rc == 0 && (win.has_from || win.has_to)) {
        x.calls.window = true;
        x.calls.t0_ns = x.t0_ns + (int64_t)(win.from_s * 1e9);
        x.calls.t1_ns = win.has_to ? x.t0_ns + (int64_t)(win.to_s * 1e9) : INT64_MAX;
    }
    sp__progress prog;
    if (rc == 0 && fmt->per_call) {
        /* The pass checked the whole file in a child process; its events are
         * now read here, as that pass read them. */
        int st = 0;
        x.src = sp_run_source_open(path, &st);
        if (!x.src) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_USAGE;
        } else {
            size_note(fmt, &x, win.has_from || win.has_to, sel.ranks.n > 0, keep != NULL);
            sp__progress_init(&prog, "writing", "events", events_to_read(&x));
            x.calls.progress = &prog;
        }
    }
    if (rc == 0) {
        int err = fmt->write(&x, out, print_path);
        if (x.calls.progress)
            sp__progress_end(&prog);
        if (err) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
    }
    sp_event_source_free(x.src);
    free(keep);
    sp_run_free(run);
    sp_region_filter_free(filter);
    return rc;
}
