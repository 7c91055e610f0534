/* SPDX-License-Identifier: MIT */
/*
 * cmd_scaling.c - `scope-profiler scaling RUN...`: a scaling study
 * (analysis/sp_scaling.h) as a table, the regions that stop scaling, and
 * optionally a CSV of region,ranks,time_mean_s,time_max_s,speedup,efficiency.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "compare_cli.h"
#include "export.h"
#include "sp_analysis_internal.h"
#include "sp_compare.h"
#include "sp_scaling.h"

static const char scaling_usage[] =
    "usage: " SP_CLI_NAME " scaling [OPTIONS] RUN RUN...\n\n"
    "A scaling study of one program run at different rank counts (or thread\n"
    "counts with --by threads). RUN is a file or a directory (every *.h5 in it).\n"
    "Per region and run: the count, the time per rank (a region's time on a rank\n"
    "per thread that ran it; mean and max over the ranks that ran it), the\n"
    "speedup and the parallel efficiency against the run with the smallest count,\n"
    "both from the max (the slowest rank bounds the wall time):\n"
    "  strong: speedup = T(ref) / T(p), efficiency = speedup x ref / p\n"
    "  weak (problem size grown with p): efficiency = T(ref) / T(p),\n"
    "        scaled speedup = efficiency x p / ref\n"
    "Weak or strong: --weak or --strong, else detected from the runs' metadata\n"
    "(sp_metadata_set): weak when a problem-size key (its name holds size,\n"
    "problem, elem, cell, zone, grid, mesh, dof, points, nx/ny/nz) grows in\n"
    "proportion to the count, or stays the same while named per rank (per_rank,\n"
    "local); the header says which and why.\n"
    "Then it names the regions that stop scaling: efficiency under\n"
    "--min-efficiency at some count, among regions of at least --min-share of\n"
    "the reference run.\n\n"
    "Options:\n"
    "      --by AXIS           ranks (default) or threads: what the runs vary\n"
    "      --weak, --strong    weak or strong scaling (default: detected, see above)\n"
    "      --min-efficiency E  a region stops scaling below E (default 0.6)\n"
    "      --min-share PCT     only regions over PCT % of the run (default 1)\n"
    "      --csv FILE          also write region,ranks,time_mean_s,time_max_s,speedup,\n"
    "                          efficiency, one row per region and run (- = stdout\n"
    "                          instead of the table)\n"
    "      --own               own (exclusive) time instead of inclusive\n"
    "  -i, --include RE        only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE        leave out regions whose name matches RE\n"
    "  -h, --help              show this help\n";

static void fmt_ratio(double v, char *buf, size_t n)
{
    if (isfinite(v))
        snprintf(buf, n, "%.2f", v);
    else
        snprintf(buf, n, "-");
}

static void print_table(const sp_scaling *s)
{
    const char *axis = sp_scaling_axis_name(s->opts.axis);
    size_t nw = strlen("(whole run)");
    for (size_t g = 0; g < s->nregions; g++) {
        char label[4 * 48 + 8];
        size_t w = sp__label_copy(label, sizeof label, s->regions[g].name, 48);
        nw = w > nw ? w : nw;
    }
    sp__put_padded(stdout, "region", nw + 2);
    printf("%7s  %11s  %11s  %14s  %10s\n", axis, "time/rank", "max/rank",
           s->weak ? "scaled speedup" : "speedup", "efficiency");
    for (size_t g = 0; g <= s->nregions; g++) {
        const sp_scaling_point *pt = g == 0 ? s->whole : s->regions[g - 1].pt;
        char label[4 * 48 + 8];
        if (g == 0)
            snprintf(label, sizeof label, "(whole run)");
        else
            sp__label_copy(label, sizeof label, s->regions[g - 1].name, 48);
        for (size_t j = 0; j < s->nruns; j++) {
            char a[32] = "-", b[32] = "-", sp[16], ef[16];
            if (pt[j].present) {
                sp_cmp_fmt_time(pt[j].time_mean_s, a, sizeof a);
                sp_cmp_fmt_time(pt[j].time_max_s, b, sizeof b);
            }
            fmt_ratio(pt[j].speedup, sp, sizeof sp);
            fmt_ratio(pt[j].efficiency, ef, sizeof ef);
            sp__put_padded(stdout, j == 0 ? label : "", nw + 2);
            bool stop = g > 0 && s->regions[g - 1].stops && j == s->regions[g - 1].stop_at;
            printf("%7g  %11s  %11s  %14s  %10s%s\n", s->p[j], a, b, sp, ef,
                   stop ? "  <- stops scaling" : "");
        }
    }
}

static int write_csv(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    const sp_scaling *s = ctx;
    fprintf(f, "region,%s,time_mean_s,time_max_s,speedup,efficiency\n",
            sp_scaling_axis_name(s->opts.axis));
    for (size_t g = 0; g < s->nregions; g++) {
        const sp_scaling_region *r = &s->regions[g];
        for (size_t j = 0; j < s->nruns; j++) {
            const sp_scaling_point *q = &r->pt[j];
            sp__csv_str(f, r->name);
            fprintf(f, ",%g,", s->p[j]);
            if (q->present)
                fprintf(f, "%.9g,%.9g", q->time_mean_s, q->time_max_s);
            else
                fputc(',', f);
            fputc(',', f);
            if (isfinite(q->speedup))
                fprintf(f, "%.6g", q->speedup);
            fputc(',', f);
            if (isfinite(q->efficiency))
                fprintf(f, "%.6g", q->efficiency);
            fputc('\n', f);
        }
    }
    return ferror(f) ? SP_EIO : 0;
}

static void print_path(const char *path)
{
    printf("wrote %s\n", path);
}

int sp__cmd_scaling(int argc, char **argv)
{
    enum { OPT_BY = 1000, OPT_WEAK, OPT_STRONG, OPT_MIN_EFF, OPT_MIN_SHARE, OPT_CSV, OPT_OWN };
    static const struct option longopts[] = {{"by", required_argument, NULL, OPT_BY},
                                             {"weak", no_argument, NULL, OPT_WEAK},
                                             {"strong", no_argument, NULL, OPT_STRONG},
                                             {"min-efficiency", required_argument, NULL, OPT_MIN_EFF},
                                             {"min-share", required_argument, NULL, OPT_MIN_SHARE},
                                             {"csv", required_argument, NULL, OPT_CSV},
                                             {"own", no_argument, NULL, OPT_OWN},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    sp_scaling_options o;
    sp_scaling_options_init(&o);
    const char *include = NULL, *exclude = NULL, *csv = NULL;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "i:e:h", longopts)) != -1) {
        switch (c) {
        case OPT_BY:
            if (sp_scaling_axis_parse(optarg, &o.axis))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case OPT_WEAK:
            o.kind = SP_SCALING_WEAK;
            break;
        case OPT_STRONG:
            o.kind = SP_SCALING_STRONG;
            break;
        case OPT_MIN_EFF:
            if (sp__cli_parse_number(optarg, 0, 0, &o.min_efficiency))
                return sp__cli_usage_error(argv[0], "invalid --min-efficiency '%s' (>= 0)", optarg);
            break;
        case OPT_MIN_SHARE:
            if (sp__cli_parse_number(optarg, 0, 100, &o.min_share_pct))
                return sp__cli_usage_error(argv[0], "invalid --min-share '%s' (a percentage 0-100)",
                                           optarg);
            break;
        case OPT_CSV:
            csv = optarg;
            break;
        case OPT_OWN:
            o.own = true;
            break;
        case 'i':
            include = optarg;
            break;
        case 'e':
            exclude = optarg;
            break;
        case 'h':
            fputs(scaling_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    if (argc - optind < 1)
        return sp__cli_usage_error(argv[0], "missing RUN (two or more runs, or a directory)");
    sp__run_list runs = {0};
    sp_region_filter *filter = NULL;
    int rc = 0;
    for (int i = optind; !rc && i < argc; i++)
        rc = sp__run_list_add(&runs, argv[i], argv[0]);
    if (!rc && runs.n < 2)
        rc = sp__cli_usage_error(argv[0], "a scaling study needs two or more runs, got %zu",
                                 runs.n);
    if (!rc && sp__cli_region_filter(argv[0], include, exclude, &filter))
        rc = SP_CLI_EXIT_USAGE;
    if (!rc)
        rc = sp__run_list_open(&runs, 0);
    sp_scaling *s = NULL;
    if (!rc) {
        o.filter = filter;
        s = sp_scaling_study((const sp_run *const *)runs.runs, runs.n, &o);
        if (!s) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_USAGE;
        }
    }
    bool to_stdout = csv && strcmp(csv, "-") == 0;
    if (!rc && !to_stdout) {
        const char *axis = sp_scaling_axis_name(s->opts.axis);
        printf("scaling: %s, %zu runs, %g to %g %s (reference: %g)\n",
               s->weak ? "weak" : "strong", s->nruns, s->p[0], s->p[s->nruns - 1], axis, s->p[0]);
        printf("%s scaling: %s\n", s->weak ? "weak" : "strong", s->kind_why);
        for (size_t j = 0; j < s->nruns; j++)
            printf("  %g %s: %s\n", s->p[j], s->p[j] == 1 ? (s->opts.axis == SP_SCALING_THREADS ? "thread" : "rank") : axis, runs.paths[s->input_index[j]]);
        printf("time per rank = a region's time on a rank (per thread that ran it), mean and max "
               "over the ranks that ran it;\n%s and efficiency from the max (slowest rank)\n\n",
               s->weak ? "scaled speedup" : "speedup");
        print_table(s);
        char stops[2048];
        sp_scaling_stops_text(s, stops, sizeof stops);
        printf("\n%s (efficiency < %.2f, regions over %g%% of the run): %s\n",
               *stops ? "Stop scaling" : "Every region scales", s->opts.min_efficiency,
               s->opts.min_share_pct, *stops ? stops : "none stops");
    }
    if (!rc && csv) {
        if (sp__write_file(csv, write_csv, NULL, s, to_stdout ? NULL : print_path)) {
            sp__cli_error("%s", sp_last_error());
            rc = SP_CLI_EXIT_FAILURE;
        }
    }
    if (!rc)
        rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
    sp_scaling_free(s);
    sp__run_list_free(&runs);
    sp_region_filter_free(filter);
    return rc;
}
