/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `scope-profiler diff BASE CAND`: per-region comparison of two
 * runs with a noise verdict per region (analysis/sp_diff.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "diff_format.h"
#include "diff_runs.h"
#include "plot_args.h"
#include "sp_analysis_internal.h"
#include "sp_diff.h"

static const char diff_usage[] =
    "usage: " SP_CLI_NAME " diff [OPTIONS] BASE CANDIDATE\n\n"
    "Compare two runs region by region (matched by name): base value, candidate\n"
    "value, delta, change in percent, and whether the change is beyond noise.\n"
    "Noise: a Mann-Whitney U test on the per-call durations of the region in\n"
    "both runs (two-sided p-value; effect = Cliff's delta, -1..+1, > 0 when the\n"
    "candidate's calls tend to be longer). Regions with a single call in a run,\n"
    "too few calls to reach --alpha, a changed call count (for total/own) or the\n"
    "metrics calls and imbalance are not tested: their verdict is \"up\" or \"down\"\n"
    "(untested). Regions found in only one run are listed separately.\n\n"
    "Options:\n"
    "  -m, --metric M       total (default), own, mean, min, max, p50, p95, p99,\n"
    "                       calls, imbalance (max/mean of the per-rank totals)\n"
    "  -t, --threshold PCT  hide regions whose value changed by less than PCT %\n"
    "  -s, --sort KEY       delta (|delta|, default), percent (|change|), name\n"
    "  -a, --alpha A        significance level of the noise test (default 0.05)\n"
    "      --tree           compare the call trees path by path instead\n"
    "  -i, --include RE     only regions whose name matches RE (POSIX extended)\n"
    "  -e, --exclude RE     leave out regions whose name matches RE\n"
    "  -h, --help           show this help\n";

#define NAME_COLS 48

typedef struct row {
    char name[4 * NAME_COLS + 64];
    char base[32], cand[32], delta[32], pct[32], p[16], eff[16];
    const char *verdict;
} row;

static void fill_row(row *r, const sp_diff_entry *e, sp_diff_metric m, bool tree)
{
    char label[4 * NAME_COLS + 8];
    sp__label_copy(label, sizeof label, e->name, NAME_COLS);
    if (tree && e->depth > 1) {
        size_t o = 0;
        for (int32_t d = 2; d < e->depth && o + 8 < sizeof r->name; d++)
            o += (size_t)snprintf(r->name + o, sizeof r->name - o, "│ ");
        snprintf(r->name + o, sizeof r->name - o, "└─ %s", label);
    } else {
        snprintf(r->name, sizeof r->name, "%s", label);
    }
    if (e->presence == SP_DIFF_ONLY_CAND)
        snprintf(r->base, sizeof r->base, "-");
    else
        sp__diff_fmt_value(e->base, m, false, r->base, sizeof r->base);
    if (e->presence == SP_DIFF_ONLY_BASE)
        snprintf(r->cand, sizeof r->cand, "-");
    else
        sp__diff_fmt_value(e->cand, m, false, r->cand, sizeof r->cand);
    sp__diff_fmt_value(e->delta, m, true, r->delta, sizeof r->delta);
    sp__diff_fmt_percent(e, r->pct, sizeof r->pct);
    sp__diff_fmt_p(&e->noise, r->p, sizeof r->p);
    sp__diff_fmt_effect(&e->noise, r->eff, sizeof r->eff);
    r->verdict = sp_diff_verdict_name(e->verdict);
}

static void print_table(const sp_diff *d, bool tree, bool (*want)(const sp_diff_entry *))
{
    const char *unit = sp__diff_unit(d->metric);
    char hb[48], hc[48], hd[48];
    snprintf(hb, sizeof hb, "base%s", unit);
    snprintf(hc, sizeof hc, "candidate%s", unit);
    snprintf(hd, sizeof hd, "delta%s", unit);
    const char *heads[] = {"region", hb, hc, hd, "change", "p-value", "effect", "verdict"};
    size_t w[8];
    for (int c = 0; c < 8; c++)
        w[c] = sp__utf8_width(heads[c]);
    row *rows = calloc(d->n ? d->n : 1, sizeof *rows);
    if (!rows)
        return;
    for (size_t i = 0; i < d->n; i++) {
        if (!want(&d->entries[i]))
            continue;
        row *r = &rows[i];
        fill_row(r, &d->entries[i], d->metric, tree);
        const char *cols[] = {r->name, r->base, r->cand, r->delta,
                              r->pct,  r->p,    r->eff,  r->verdict};
        for (int c = 0; c < 8; c++)
            if (sp__utf8_width(cols[c]) > w[c])
                w[c] = sp__utf8_width(cols[c]);
    }
    for (int c = 0; c < 8; c++) {
        sp__put_padded(stdout, heads[c], c == 7 ? 0 : w[c] + 2);
    }
    putchar('\n');
    for (size_t i = 0; i < d->n; i++) {
        if (!want(&d->entries[i]))
            continue;
        row *r = &rows[i];
        const char *cols[] = {r->name, r->base, r->cand, r->delta,
                              r->pct,  r->p,    r->eff,  r->verdict};
        for (int c = 0; c < 8; c++)
            sp__put_padded(stdout, cols[c], c == 7 ? 0 : w[c] + 2);
        putchar('\n');
    }
    free(rows);
}

static bool in_both(const sp_diff_entry *e)
{
    return e->presence == SP_DIFF_IN_BOTH;
}

static bool any_entry(const sp_diff_entry *e)
{
    (void)e;
    return true;
}

static void print_only(const sp_diff *d, sp_diff_presence which, const char *title)
{
    size_t n = 0, w = 0;
    char label[4 * NAME_COLS + 8], v[32];
    for (size_t i = 0; i < d->n; i++) {
        if (d->entries[i].presence != which)
            continue;
        n++;
        size_t lw = sp__label_copy(label, sizeof label, d->entries[i].name, NAME_COLS);
        w = lw > w ? lw : w;
    }
    if (!n)
        return;
    printf("\n%s (%zu region%s):\n", title, n, n == 1 ? "" : "s");
    const char *unit = sp_diff_metric_is_time(d->metric) ? " s" : "";
    for (size_t i = 0; i < d->n; i++) {
        const sp_diff_entry *e = &d->entries[i];
        if (e->presence != which)
            continue;
        sp__label_copy(label, sizeof label, e->name, NAME_COLS);
        double val = which == SP_DIFF_ONLY_BASE ? e->base : e->cand;
        uint64_t calls = which == SP_DIFF_ONLY_BASE ? e->base_calls : e->cand_calls;
        fputs("  ", stdout);
        sp__put_padded(stdout, label, w + 2);
        printf("%s%s  (%llu call%s)\n", sp__diff_fmt_value(val, d->metric, false, v, sizeof v),
               unit, (unsigned long long)calls, calls == 1 ? "" : "s");
    }
}

static void describe(const char *role, const char *path, const sp_run *run)
{
    size_t nreg = 0;
    for (size_t g = 0; g < run->nregions; g++)
        nreg += run->regions[g].all.calls > 0;
    printf("%-10s %s (%zu rank%s, %zu region%s)\n", role, path, run->nranks,
           run->nranks == 1 ? "" : "s", nreg, nreg == 1 ? "" : "s");
}

int sp__cmd_diff(int argc, char **argv)
{
    enum { OPT_TREE = 1000 };
    static const struct option longopts[] = {{"metric", required_argument, NULL, 'm'},
                                             {"threshold", required_argument, NULL, 't'},
                                             {"sort", required_argument, NULL, 's'},
                                             {"alpha", required_argument, NULL, 'a'},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"tree", no_argument, NULL, OPT_TREE},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    sp__diff_runs a;
    sp__diff_runs_init(&a);
    bool tree = false;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "m:t:s:a:i:e:h", longopts)) != -1) {
        switch (c) {
        case 'm':
        case 'a':
        case 'i':
        case 'e':
            if (sp__diff_runs_option(&a, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case 't':
            if (sp__cli_parse_number(optarg, 0, 0, &a.o.threshold_pct))
                return sp__cli_usage_error(argv[0], "invalid --threshold '%s' (a percentage >= 0)",
                                           optarg);
            break;
        case 's':
            if (sp_diff_sort_parse(optarg, &a.o.sort))
                return sp__cli_usage_error(argv[0], "%s", sp_last_error());
            break;
        case OPT_TREE:
            tree = true;
            break;
        case 'h':
            fputs(diff_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__diff_runs_open(&a, argc, argv, tree, SP_CLI_EXIT_FAILURE);
    const sp_diff *d = a.d;
    if (!rc) {
        describe("base:", a.bpath, a.base);
        describe("candidate:", a.cpath, a.cand);
        printf("%-10s %s%s; noise: Mann-Whitney U on per-call durations, alpha %g\n\n",
               "metric:", sp_diff_metric_name(a.o.metric), sp__diff_unit(a.o.metric), a.o.alpha);
        size_t both = 0;
        for (size_t i = 0; i < d->n; i++)
            both += in_both(&d->entries[i]);
        if (tree)
            print_table(d, true, any_entry);
        else if (both)
            print_table(d, false, in_both);
        else
            printf("No region is in both runs.\n");
        if (!tree) {
            print_only(d, SP_DIFF_ONLY_BASE, "Only in base");
            print_only(d, SP_DIFF_ONLY_CAND, "Only in candidate");
        }
        if (d->n_filtered)
            printf("\n%zu region%s not shown (below the %g%% threshold or filtered).\n",
                   d->n_filtered, d->n_filtered == 1 ? "" : "s", a.o.threshold_pct);
        rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    sp__diff_runs_free(&a);
    return rc;
}
