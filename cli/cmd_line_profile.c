/* SPDX-License-Identifier: MIT */
/*
 * cmd_line_profile.c - `scope-profiler line-profile FILE`: per-line timings
 * of regions recorded with line sampling: the ranking of the hottest lines
 * per region (line_profile_print.c), then, as line_profiler prints it, every
 * sampled function with its source lines, samples, time and % time (unless
 * --brief). A file without line samples gets a one-line explanation and exit
 * status 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "line_profile.h"
#include "plot_args.h"
#include "report.h"
#include "sp_analysis_internal.h"
#include "sp_source.h"

static const char line_profile_usage[] =
    "usage: " SP_CLI_NAME " line-profile [--region RE] [--rank N] [--top N] [--brief] FILE\n\n"
    "Print the per-line timings of the regions recorded with line sampling\n"
    "(use_line_profiler = true, or SCOPE_PROFILER_LINES=1): per region, its\n"
    "source lines by estimated time (samples x sampling period), merged over\n"
    "all ranks unless --rank is given; then, per region and function, the table\n"
    "line_profiler prints: line, samples (hits), time, % time of the function\n"
    "and the source line when the source file is readable.\n\n"
    "Options:\n"
    "  -R, --region RE  only regions whose name matches RE (POSIX extended regex)\n"
    "  -r, --rank N     only rank N\n"
    "  -n, --top N      at most N lines per region (default 20)\n"
    "  -b, --brief      only the ranking, no per-function source tables\n"
    "  -s, --source-dir DIR  show source files below DIR too (repeatable; also\n"
    "                   SCOPE_PROFILER_SOURCE_DIR=DIR1:DIR2). Without it, only files\n"
    "                   below the run's working directory are shown, and only when\n"
    "                   the run file lies there too; others show \"not shown\"\n"
    "                   and the reason\n"
    "  -h, --help       show this help\n"
    "Exit status 2 when FILE has no line-level data.\n";

/* ---- per-function tables (line_profiler's layout) ---- */

typedef sp__line_row fline;

static int fline_order(const void *pa, const void *pb)
{
    const fline *a = pa, *b = pb;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    int c = strcmp(a->function, b->function);
    if (c)
        return c;
    if ((c = strcmp(a->file, b->file)))
        return c;
    return a->lineno < b->lineno ? -1 : a->lineno > b->lineno;
}

/* The source file of a sample, under the policy of sp_source.h (below the
 * run's working directory or a --source-dir, a regular file, bounded, never
 * blocking). NULL with *why set when it is not shown. *text keeps the bytes
 * the returned stream reads (free both). */
static FILE *open_source(const sp_source_policy *policy, const char *file, char **text,
                         const char **why)
{
    size_t len = 0;
    *text = NULL;
    if (sp_source_read(policy, file, text, &len, why) != 0)
        return NULL;
    FILE *f = len ? fmemopen(*text, len, "r") : NULL;
    if (!f) {
        *why = len ? "cannot be read" : "empty";
        free(*text);
        *text = NULL;
    }
    return f;
}

/* Print lines [from, to] of the source (NULL: numbers only) with the
 * samples of v[0..n) on their lines. */
static void print_function_table(const sp__line_words *w, const fline *v, size_t n, FILE *src,
                                 const char *why, FILE *out)
{
    uint64_t samples = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        samples += v[i].samples, total += v[i].time_ns;
    char b[32];
    fprintf(out, "\nFunction: %s at %s\n", v[0].function, *v[0].file ? v[0].file : "?");
    fprintf(out, "Total time: %s (%" PRIu64 " %s)\n\n", sp__fmt_dur(total * 1e-9, b, sizeof b),
            samples, samples == 1 ? w->one : w->many);
    fprintf(out, "%8s %10s %12s %8s  %s\n", "Line #", w->column, "Time", "% Time", "Line Contents");
    fprintf(out, "==============================================================\n");
    int32_t lo = v[0].lineno, hi = v[n - 1].lineno;
    if (!src || lo <= 0) { /* only what was sampled */
        for (size_t i = 0; i < n; i++)
            fprintf(out, "%8d %10" PRIu64 " %12s %8.1f\n", (int)v[i].lineno, v[i].samples,
                    sp__fmt_dur(v[i].time_ns * 1e-9, b, sizeof b),
                    total ? 100.0 * (double)v[i].time_ns / (double)total : 0.0);
        if (!src && *v[0].file)
            fprintf(out, "(source not shown: %s: %s)\n", v[0].file, why ? why : "not found");
        return;
    }
    /* int64: the context around line INT32_MAX must not overflow. */
    int64_t from = lo > 3 ? (int64_t)lo - 2 : 1; /* a little context, as the function's start is unknown */
    int64_t to = (int64_t)hi + 2;
    char line[4096];
    size_t k = 0;
    for (int64_t no = 1; no <= to && fgets(line, sizeof line, src); no++) {
        size_t len = strcspn(line, "\n");
        if (!line[len]) { /* longer than the buffer: the rest of it is not shown */
            int ch;
            while ((ch = fgetc(src)) != EOF && ch != '\n')
                ;
        }
        line[len] = '\0';
        if (no < from)
            continue;
        char text[600];
        sp__label_copy_end(text, sizeof text, line, 120);
        while (k < n && v[k].lineno < no)
            k++;
        if (k < n && v[k].lineno == no) {
            uint64_t s = 0;
            int64_t t = 0;
            for (; k < n && v[k].lineno == no; k++)
                s += v[k].samples, t += v[k].time_ns;
            fprintf(out, "%8" PRId64 " %10" PRIu64 " %12s %8.1f  %s\n", no, s,
                    sp__fmt_dur(t * 1e-9, b, sizeof b),
                    total ? 100.0 * (double)t / (double)total : 0.0, text);
        } else {
            fprintf(out, "%8" PRId64 " %10s %12s %8s  %s\n", no, "", "", "", text);
        }
    }
}

static int print_functions(const sp_run *run, long rank, const sp_region_filter *f,
                           const sp_source_policy *policy, FILE *out)
{
    size_t n = 0;
    fline *v = sp__line_rows_collect(run, rank, f, &n);
    if (!v)
        return SP_ENOMEM;
    qsort(v, n, sizeof *v, fline_order);
    const sp__line_words *w = sp__line_words_of(run);
    fprintf(out, "\n%s\n", w->intro);
    int32_t region = -1;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && v[j].region == v[i].region && strcmp(v[j].function, v[i].function) == 0 &&
               strcmp(v[j].file, v[i].file) == 0)
            j++;
        if (v[i].region != region) {
            region = v[i].region;
            char name[256];
            sp__label_copy(name, sizeof name, run->region_names[region], 60);
            fprintf(out, "\n=== Region: %s ===\n", name);
        }
        char *text = NULL;
        const char *why = NULL;
        FILE *src = open_source(policy, v[i].file, &text, &why);
        print_function_table(w, v + i, j - i, src, why, out);
        if (src)
            fclose(src);
        free(text);
        i = j;
    }
    free(v);
    return 0;
}

int sp__cmd_line_profile(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"region", required_argument, NULL, 'R'}, {"rank", required_argument, NULL, 'r'},
        {"top", required_argument, NULL, 'n'},    {"brief", no_argument, NULL, 'b'},
        {"source-dir", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},         {0, 0, 0, 0}};
    const char *region = NULL;
    const char *dirs[16];
    size_t ndirs = 0;
    long rank = -1, top = 20;
    bool brief = false;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "R:r:n:s:bh", longopts)) != -1) {
        switch (c) {
        case 's':
            if (ndirs == sizeof dirs / sizeof *dirs)
                return sp__cli_usage_error(argv[0], "at most %zu --source-dir options",
                                           sizeof dirs / sizeof *dirs);
            dirs[ndirs++] = optarg;
            break;
        case 'b':
            brief = true;
            break;
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
        sp_source_policy policy;
        if (sp_source_policy_init(&policy, path, sp_run_metadata(run, "working_directory"), dirs,
                                  ndirs) != 0) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        } else if (sp__print_line_profile(run, path, rank, filter, top, stdout) ||
                   (!brief && print_functions(run, rank, filter, &policy, stdout))) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        } else {
            rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
        }
        sp_source_policy_free(&policy);
    }
    sp_run_free(run);
    sp_region_filter_free(filter);
    return rc;
}
