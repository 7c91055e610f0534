/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `scope-profiler check BASE CAND`: the CI performance gate.
 *
 * Exit 1 when a region got slower than the budget AND the change is beyond
 * noise; 0 otherwise; 2 for usage or file errors. The decision per region is
 * sp_diff_entry_violates() (analysis/sp_diff.c): noise is judged by a
 * Mann-Whitney U test of the per-call durations where it can be (both runs
 * have >= 2 calls, enough for the test to reach --alpha, same call count
 * for total/own); elsewhere the budget alone decides.
 */
#include "cli_common.h"
#include "cli_verbs.h"
#include "diff_format.h"
#include "diff_runs.h"
#include "plot_args.h"
#include "sp_analysis_internal.h"
#include "sp_diff.h"

#define DEFAULT_BUDGET 10.0

static const char check_usage[] =
    "usage: " SP_CLI_NAME " check [OPTIONS] BASE CANDIDATE\n\n"
    "Performance gate for CI: compare CANDIDATE with BASE region by region and\n"
    "fail (exit 1) when a region's value grew by more than the budget AND the\n"
    "change is beyond noise. Noise is assessed with a Mann-Whitney U test on the\n"
    "per-call durations (p <= alpha). Where it cannot be assessed - a region with\n"
    "a single call in either run, too few calls for the test to reach alpha\n"
    "(fewer than 4 per run at alpha 0.05), a changed call count (total/own), or\n"
    "the metrics calls and imbalance - the budget alone applies.\n"
    "Regions only in BASE never fail; regions only in CANDIDATE fail only with\n"
    "--fail-on-new. Exit status: 0 pass, 1 regression, 2 usage or file error.\n\n"
    "Options:\n"
    "  -r, --max-regression PCT  the budget: allowed growth in percent (default 10)\n"
    "  -m, --metric M            total (default), own, mean, min, max, p50, p95,\n"
    "                            p99, calls, imbalance\n"
    "  -a, --alpha A             significance level (default 0.05)\n"
    "      --fail-on-new         a region only in CANDIDATE is a failure too\n"
    "  -i, --include RE          only regions whose name matches RE\n"
    "  -e, --exclude RE          leave out regions whose name matches RE\n"
    "  -h, --help                show this help\n";

#define NAME_COLS 60

static void print_entry(const sp_diff_entry *e, const sp_diff *d, const char *tail)
{
    char label[4 * NAME_COLS + 8], b[32], c[32], pct[32], p[16], eff[16], why[128];
    sp__label_copy(label, sizeof label, e->name, NAME_COLS);
    const char *unit = sp__diff_unit(d->metric);
    if (e->presence == SP_DIFF_ONLY_CAND) {
        printf("  %s: new region, %s%s in %llu call%s%s\n", label,
               sp__diff_fmt_value(e->cand, d->metric, false, c, sizeof c), unit,
               (unsigned long long)e->cand_calls, e->cand_calls == 1 ? "" : "s", tail);
        return;
    }
    printf("  %s: %s (%s -> %s%s)", label, sp__diff_fmt_percent(e, pct, sizeof pct),
           sp__diff_fmt_value(e->base, d->metric, false, b, sizeof b),
           sp__diff_fmt_value(e->cand, d->metric, false, c, sizeof c), unit);
    const char *reason = sp__diff_untested_reason(e, d->metric, d->alpha, why, sizeof why);
    if (reason)
        printf(", noise not assessed (%s): budget only", reason);
    else
        printf(", p %s %s, effect %s: %s", e->noise.p_value < 0.001 ? "<" : "=",
               e->noise.p_value < 0.001 ? "0.001" : sp__diff_fmt_p(&e->noise, p, sizeof p),
               sp__diff_fmt_effect(&e->noise, eff, sizeof eff),
               e->verdict == SP_DIFF_SLOWER ? "beyond noise" : "within noise");
    printf("%s\n", tail);
}

int sp__cmd_check(int argc, char **argv)
{
    enum { OPT_FAIL_ON_NEW = 1000 };
    static const struct option longopts[] = {{"max-regression", required_argument, NULL, 'r'},
                                             {"metric", required_argument, NULL, 'm'},
                                             {"alpha", required_argument, NULL, 'a'},
                                             {"fail-on-new", no_argument, NULL, OPT_FAIL_ON_NEW},
                                             {"include", required_argument, NULL, 'i'},
                                             {"exclude", required_argument, NULL, 'e'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    sp__diff_runs a;
    sp__diff_runs_init(&a);
    double budget = DEFAULT_BUDGET;
    bool fail_on_new = false;
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "r:m:a:i:e:h", longopts)) != -1) {
        switch (c) {
        case 'r':
            if (sp__cli_parse_number(optarg, 0, 0, &budget))
                return sp__cli_usage_error(
                    argv[0], "invalid --max-regression '%s' (a percentage >= 0)", optarg);
            break;
        case 'm':
        case 'a':
        case 'i':
        case 'e':
            if (sp__diff_runs_option(&a, c, optarg, argv[0]))
                return SP_CLI_EXIT_USAGE;
            break;
        case OPT_FAIL_ON_NEW:
            fail_on_new = true;
            break;
        case 'h':
            fputs(check_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    /* A failed comparison exits 2, not 1: 1 is reserved for regressions. */
    int rc = sp__diff_runs_open(&a, argc, argv, false, SP_CLI_EXIT_USAGE);
    const sp_diff *d = a.d;
    if (!rc) {
        size_t nviol = 0, nnoise = 0, ncompared = 0, nnew = 0, nremoved = 0;
        for (size_t i = 0; i < d->n; i++) {
            const sp_diff_entry *e = &d->entries[i];
            nviol += sp_diff_entry_violates(e, budget, fail_on_new);
            nnoise += e->verdict == SP_DIFF_SAME && e->percent > budget;
            ncompared += e->presence == SP_DIFF_IN_BOTH;
            nnew += e->presence == SP_DIFF_ONLY_CAND;
            nremoved += e->presence == SP_DIFF_ONLY_BASE;
        }
        printf("check: %s%s of %zu region%s in both runs, budget +%g%%, alpha %g "
               "(Mann-Whitney U on per-call durations)\n",
               sp_diff_metric_name(a.o.metric), sp__diff_unit(a.o.metric), ncompared,
               ncompared == 1 ? "" : "s", budget, a.o.alpha);
        printf("base: %s\ncandidate: %s\n", a.bpath, a.cpath);
        if (nviol) {
            printf("\nFAIL: %zu violation%s\n", nviol, nviol == 1 ? "" : "s");
            for (size_t i = 0; i < d->n; i++)
                if (sp_diff_entry_violates(&d->entries[i], budget, fail_on_new))
                    print_entry(&d->entries[i], d, "");
        }
        if (nnoise) {
            printf("\nOver budget but within noise (not failures):\n");
            for (size_t i = 0; i < d->n; i++) {
                const sp_diff_entry *e = &d->entries[i];
                if (e->verdict == SP_DIFF_SAME && e->percent > budget)
                    print_entry(e, d, "");
            }
        }
        if (nnew && !fail_on_new) {
            printf("\nNew in candidate (not failures without --fail-on-new):\n");
            for (size_t i = 0; i < d->n; i++)
                if (d->entries[i].presence == SP_DIFF_ONLY_CAND)
                    print_entry(&d->entries[i], d, "");
        }
        if (nremoved) {
            printf("\nOnly in base (not failures):");
            for (size_t i = 0, k = 0; i < d->n; i++) {
                if (d->entries[i].presence != SP_DIFF_ONLY_BASE)
                    continue;
                char label[4 * NAME_COLS + 8];
                sp__label_copy(label, sizeof label, d->entries[i].name, NAME_COLS);
                printf("%s %s", k++ ? "," : "", label);
            }
            printf("\n");
        }
        if (!nviol)
            printf("\nPASS: no region over the +%g%% budget beyond noise\n", budget);
        rc = nviol ? SP_CLI_EXIT_FAILURE : SP_CLI_EXIT_OK;
        if (sp__cli_finish_output(SP_CLI_EXIT_OK) != SP_CLI_EXIT_OK)
            rc = SP_CLI_EXIT_USAGE; /* not 1: that means a regression */
    }
    sp__diff_runs_free(&a);
    return rc;
}
