/* SPDX-License-Identifier: MIT */
/*
 * cmd_plot.c - `scope-profiler plot KIND FILE... -o DIR`: charts of runs as
 * PNG, SVG or PDF files, drawn by plots/ (the same code the viewer uses).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "export.h"
#include "plot_args.h"
#include "sp_compare.h"
#include "plot_charts.h"
#include "timeline_calls.h"
#include "sp_agg.h"
#include "sp_colors.h"
#include "sp_error.h"

#ifdef SP_HAVE_PLOTS
#include "sp_plots.h"
#endif

static const char plot_usage[] =
    "usage: " SP_CLI_NAME " plot KIND FILE... -o DIR [OPTIONS]\n"
    "       " SP_CLI_NAME " plot list\n\n"
    "Draw charts of the runs in FILE... into DIR (created if needed) and print\n"
    "the paths written. KIND is a chart (see `" SP_CLI_NAME " plot list`), or\n"
    "  default   timeline + durations (duration over time of --region)\n"
    "  all       every chart (and compare with two FILEs, scaling with more)\n"
    "Files are named KIND.FORMAT; with several FILEs, STEM-KIND.FORMAT.\n\n"
    "Options:\n"
    "  -o, --output DIR     directory for the charts (default: plots)\n"
    "  -f, --format FMT     png (default), svg or pdf\n"
    "  -s, --size WxH       chart size in pixels / points (default: 1200 wide, up to\n"
    "                       700 high: charts with few rows get just the height\n"
    "                       they need; the timeline and heat map grow to show\n"
    "                       every rank, and say which lanes did not fit otherwise)\n"
    "  -r, --ranks LIST     only these ranks, e.g. 0-3,5\n"
    "  -i, --include RE     only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE     leave out regions whose name matches RE\n"
    "  -n, --top-n N        heatmap / compare: at most N regions (default: what fits)\n"
    "  -R, --region NAME    ranks / histogram / timeseries / durations: the region\n"
    "                       (default: the region with the largest own time)\n"
    "      --weak, --strong scaling: weak or strong (default: detected from the runs'\n"
    "                       problem-size metadata, as `" SP_CLI_NAME " scaling`)\n"
    "      --dark           dark theme\n"
    "      --show           open the charts with the desktop's viewer (xdg-open)\n"
    "  -h, --help           show this help\n";

/* Which charts a KIND argument asks for. */
static int kind_charts(const char *kind, int nfiles, bool *want, bool *durations)
{
    memset(want, 0, SP__CHART_COUNT * sizeof *want);
    *durations = false;
    if (strcmp(kind, "default") == 0) {
        want[SP__CHART_TIMELINE] = true;
        *durations = true;
        return 0;
    }
    if (strcmp(kind, "all") == 0) {
        for (int k = 0; k < SP__CHART_COUNT; k++)
            want[k] = (k != SP__CHART_COMPARE || nfiles == 2) &&
                      (k != SP__CHART_SCALING || nfiles > 2);
        return 0;
    }
    for (int k = 0; k < SP__CHART_COUNT; k++) {
        if (strcmp(kind, sp__chart_name((sp__chart_kind)k)) == 0) {
            want[k] = true;
            return 0;
        }
    }
    return -1;
}

static void list_kinds(void)
{
    printf("%-11s %s\n", "default", "timeline + durations (duration over time of --region)");
    for (int k = 0; k < SP__CHART_COUNT; k++)
        printf("%-11s %s\n", sp__chart_name((sp__chart_kind)k),
               sp__chart_description((sp__chart_kind)k));
    printf("%-11s %s\n", "all",
           "every chart above (compare with two FILEs, scaling with three or more)");
    printf("%-11s %s\n", "list", "this list");
}

#ifdef SP_HAVE_PLOTS
/* What the pass keeps for the charts asked for: duration over time needs
 * the series, the timeline the lanes (its calls are read from the file). */
static unsigned plot_flags(const bool *want, bool durations)
{
    unsigned f = 0;
    if (want[SP__CHART_TIMESERIES] || durations)
        f |= SP_AGG_SERIES;
    if (want[SP__CHART_TIMELINE])
        f |= SP_AGG_LANES;
    if (want[SP__CHART_COMPARE])
        f |= SP_COMPARE_AGG_FLAGS(false);
    return f;
}

/* The stem of a path: base name without the last extension. */
static void stem_of(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

typedef struct draw_ctx {
    sp__chart_kind kind;
    const sp__chart_job *job;
} draw_ctx;

static int draw_cb(cairo_t *cr, double w, double h, void *data)
{
    const draw_ctx *c = data;
    return sp__chart_draw(cr, w, h, c->kind, c->job);
}

#define TALL_MAX_H 6000.0

typedef struct plot_opts {
    const char *dir;
    sp_plot_format fmt;
    double w, h;
    bool fit; /* no --size: shrink the height to the content */
    bool show;
    char **written;
    size_t nwritten;
} plot_opts;

static int write_chart(plot_opts *po, const char *prefix, const char *name, sp__chart_kind kind,
                       const sp__chart_job *job)
{
    char file[512];
    snprintf(file, sizeof file, "%s%s.%s", prefix, name, sp_plot_format_name(po->fmt));
    char *path = sp__path_join(po->dir, file);
    if (!path)
        return sp__error(SP_ENOMEM, "out of memory");
    draw_ctx ctx = {kind, job};
    /* Without --size, charts with a row per rank or lane grow to show every
     * one (up to TALL_MAX_H; beyond, the timeline names what it left out). */
    double max_h = po->h;
    if (po->fit && (kind == SP__CHART_TIMELINE || kind == SP__CHART_HEATMAP))
        max_h = TALL_MAX_H;
    double h = po->fit ? sp__chart_fit_height(kind, job, po->w, max_h) : po->h;
    int rc = sp_plot_export(path, po->fmt, po->w, h, draw_cb, &ctx);
    if (rc) {
        free(path);
        return rc;
    }
    size_t nlanes = 0, hidden = kind == SP__CHART_TIMELINE
                                    ? sp__chart_timeline_hidden(job, po->w, h, &nlanes)
                                    : 0;
    if (hidden) /* never silently: the chart names the ranks too */
        fprintf(stderr,
                SP_CLI_NAME ": plot: %s: %zu of %zu timeline lanes did not fit %.0f px; draw "
                            "taller (--size %.0fxH) or choose ranks (--ranks)\n",
                path, hidden, nlanes, h, po->w);
    printf("%s\n", path);
    char **grown = realloc(po->written, (po->nwritten + 1) * sizeof *grown);
    if (!grown) {
        free(path);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    po->written = grown;
    po->written[po->nwritten++] = path;
    return 0;
}

/* --show: hand the files to the desktop's viewer; without a display say so. */
static void show_files(const plot_opts *po)
{
    if (!po->nwritten)
        return;
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
        fprintf(stderr, SP_CLI_NAME ": note: --show: no display; the charts are in '%s'\n",
                po->dir);
        return;
    }
    fflush(stdout);
    for (size_t i = 0; i < po->nwritten; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setsid();
            execlp("xdg-open", "xdg-open", po->written[i], (char *)NULL);
            _exit(127);
        }
    }
}
#endif

int sp__cmd_plot(int argc, char **argv)
{
    enum { OPT_DARK = 1000, OPT_SHOW, OPT_WEAK, OPT_STRONG };
    static const struct option longopts[] = {
        {"weak", no_argument, NULL, OPT_WEAK},     {"strong", no_argument, NULL, OPT_STRONG},
        {"output", required_argument, NULL, 'o'},  {"format", required_argument, NULL, 'f'},
        {"size", required_argument, NULL, 's'},    {"ranks", required_argument, NULL, 'r'},
        {"include", required_argument, NULL, 'i'}, {"exclude", required_argument, NULL, 'e'},
        {"top-n", required_argument, NULL, 'n'},   {"region", required_argument, NULL, 'R'},
        {"dark", no_argument, NULL, OPT_DARK},     {"show", no_argument, NULL, OPT_SHOW},
        {"help", no_argument, NULL, 'h'},          {0, 0, 0, 0}};
    const char *dir = "plots", *format = "png", *region = NULL;
    sp__selection sel = {0};
    double w = 1200, h = 700;
    long top_n = 0;
    bool dark = false, show = false, fit = true;
    sp_scaling_kind scaling_kind = SP_SCALING_AUTO;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "o:f:s:r:i:e:n:R:h", longopts)) != -1) {
        switch (c) {
        case 'o':
            dir = optarg;
            break;
        case 'f':
            format = optarg;
            break;
        case 's':
            if (sp__size_parse(optarg, &w, &h))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            fit = false;
            break;
        case 'r':
        case 'i':
        case 'e':
            if (sp__selection_option(&sel, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case 'n':
            if (sp__count_parse(optarg, "--top-n", 100000, &top_n))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case 'R':
            region = optarg;
            break;
        case OPT_DARK:
            dark = true;
            break;
        case OPT_SHOW:
            show = true;
            break;
        case OPT_WEAK:
            scaling_kind = SP_SCALING_WEAK;
            break;
        case OPT_STRONG:
            scaling_kind = SP_SCALING_STRONG;
            break;
        case 'h':
            fputs(plot_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    if (argc - optind < 1)
        return sp__cli_usage_error(argv[0], "missing KIND (see '" SP_CLI_NAME " plot list')");
    const char *kind = argv[optind++];
    if (strcmp(kind, "list") == 0) {
        if (argc > optind)
            return sp__cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
        list_kinds();
        return sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    int nfiles = argc - optind;
    bool want[SP__CHART_COUNT], durations;
    if (kind_charts(kind, nfiles, want, &durations))
        return sp__cli_usage_error(argv[0], "unknown kind '%s' (see '" SP_CLI_NAME " plot list')",
                                   kind);
    if (nfiles < 1)
        return sp__cli_usage_error(argv[0], "missing FILE");
    if (want[SP__CHART_COMPARE] && nfiles != 2)
        return sp__cli_usage_error(argv[0], "compare needs two FILEs (base and candidate), got %d",
                                   nfiles);
    if (want[SP__CHART_SCALING] && nfiles < 2)
        return sp__cli_usage_error(argv[0], "scaling needs two or more FILEs (one per rank count)");
#ifndef SP_HAVE_PLOTS
    (void)w, (void)h, (void)fit, (void)top_n, (void)dark, (void)show, (void)format, (void)dir;
    (void)sel, (void)region, (void)durations;
    sp__cli_error("plot: scope-profiler was built without ncurses/cairo (charts need cairo)");
    return SP_CLI_EXIT_USAGE;
#else
    plot_opts po = {.dir = dir, .w = w, .h = h, .fit = fit, .show = show};
    if (sp_plot_format_parse(format, &po.fmt))
        return sp__cli_usage_error(argv[0], "invalid --format '%s' (png, svg or pdf)", format);
    sp_region_filter *filter;
    if (sp__cli_region_filter(argv[0], sel.include, sel.exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    /* Open and check every input before writing anything. */
    sp_run **runs = calloc((size_t)nfiles, sizeof *runs);
    int rc = runs ? SP_CLI_EXIT_OK : SP_CLI_EXIT_FAILURE;
    int32_t *regions = calloc((size_t)nfiles, sizeof *regions);
    bool need_region = durations || want[SP__CHART_RANKS] || want[SP__CHART_HISTOGRAM] ||
                       want[SP__CHART_TIMESERIES];
    for (int i = 0; !rc && i < nfiles; i++) {
        const char *path = argv[optind + i];
        runs[i] = sp__open_selected(path, plot_flags(want, durations), &sel.ranks, filter);
        if (!runs[i]) {
            rc = SP_CLI_EXIT_USAGE;
            break;
        }
        regions[i] = -1;
        if (need_region) {
            regions[i] = sp__pick_region(runs[i], region, path);
            if (regions[i] < 0 && region) { /* a named region must exist */
                sp__cli_error("%s", sp_last_error());
                rc = SP_CLI_EXIT_USAGE;
            }
        }
    }
    if (!rc && sp__mkdir_p(dir)) {
        sp__cli_error("%s", sp_last_error());
        rc = SP_CLI_EXIT_FAILURE;
    }
    char stems[2][256] = {{0}};
    /* One colour map over every file, so a region has the same colour in
     * every file's charts and in compare / scaling; built once (each chart
     * building its own took seconds with 10^6 regions). */
    sp_color_map *colors = NULL;
    if (!rc)
        colors = sp_color_map_new((const sp_run *const *)runs, (size_t)nfiles);
    for (int i = 0; !rc && i < nfiles; i++) {
        char stem[256], prefix[300] = "";
        stem_of(argv[optind + i], stem, sizeof stem);
        if (i < 2)
            snprintf(stems[i], sizeof stems[i], "%s", stem);
        if (nfiles > 1)
            snprintf(prefix, sizeof prefix, "%d-%s-", i + 1, stem);
        sp__chart_job job = {.run = runs[i], .region = regions[i], .top_n = top_n, .dark = dark,
                             .colors = colors};
        /* The timeline draws calls: read from the file (all of a small
         * run, the first window of a long one, said on stderr). */
        sp__timeline_calls tc = {0};
        char note[200];
        if (want[SP__CHART_TIMELINE]) {
            if (sp__timeline_calls_get(runs[i], argv[optind + i], SP__TIMELINE_MAX_CALLS, &tc)) {
                sp__cli_error("%s", sp_last_error());
                rc = SP_CLI_EXIT_FAILURE;
            }
            job.timeline_run = tc.run;
            if (tc.partial) {
                sp__timeline_calls_note(&tc, note, sizeof note);
                job.timeline_note = note;
                job.timeline_t1_ns = tc.shown_ns;
                fprintf(stderr,
                        SP_CLI_NAME ": plot: the timeline of %s shows %s (it reads at most %d "
                                    "calls); the viewer shows the whole run\n",
                        argv[optind + i], note, SP__TIMELINE_MAX_CALLS);
            }
        }
        for (int k = 0; !rc && k < SP__CHART_COUNT; k++) {
            if (!want[k] || k == SP__CHART_COMPARE || k == SP__CHART_SCALING)
                continue;
            if (k == SP__CHART_WAITS && !runs[i]->mpi && strcmp(kind, "all") == 0)
                continue; /* "all" draws it for runs that recorded MPI messages */
            if (k == SP__CHART_TIMELINE) /* fitted, drawn and counted: built once */
                sp__chart_job_keep_timeline(&job);
            if (write_chart(&po, prefix, sp__chart_name((sp__chart_kind)k), (sp__chart_kind)k,
                            &job))
                rc = SP_CLI_EXIT_FAILURE;
            sp__chart_job_drop_timeline(&job);
        }
        if (!rc && durations && write_chart(&po, prefix, "durations", SP__CHART_TIMESERIES, &job))
            rc = SP_CLI_EXIT_FAILURE;
        sp__timeline_calls_free(&tc);
    }
    if (!rc && want[SP__CHART_COMPARE]) {
        sp__chart_job job = {.run = runs[0],
                             .cand = runs[1],
                             .region = -1,
                             .top_n = top_n,
                             .dark = dark,
                             .base_label = stems[0],
                             .cand_label = stems[1],
                             .colors = colors};
        if (write_chart(&po, "", "compare", SP__CHART_COMPARE, &job))
            rc = SP_CLI_EXIT_FAILURE;
    }
    if (!rc && want[SP__CHART_SCALING]) {
        sp__chart_job job = {.run = runs[0], .region = -1, .top_n = top_n, .dark = dark,
                             .runs = (const sp_run *const *)runs, .nruns = (size_t)nfiles,
                             .scaling_kind = scaling_kind,
                             .colors = colors};
        if (write_chart(&po, "", "scaling", SP__CHART_SCALING, &job))
            rc = SP_CLI_EXIT_FAILURE;
    }
    if (rc == SP_CLI_EXIT_FAILURE && *sp_last_error())
        sp__cli_error("%s", sp_last_error());
    if (!rc && show)
        show_files(&po);
    sp_color_map_free(colors);
    for (size_t i = 0; i < po.nwritten; i++)
        free(po.written[i]);
    free(po.written);
    for (int i = 0; runs && i < nfiles; i++)
        sp_run_free(runs[i]);
    free(runs);
    free(regions);
    sp_region_filter_free(filter);
    return rc ? rc : sp__cli_finish_output(SP_CLI_EXIT_OK);
#endif
}
