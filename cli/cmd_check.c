/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `scope-profiler check BASE CAND`: the CI performance gate.
 *
 * Exit 1 when a region is "slower" in the comparison model
 * (analysis/sp_compare.h): its interval excludes no change AND the change is
 * beyond the budget (--max-regression) and the floors (--min-time,
 * --min-share). 0 otherwise; 2 for usage or file errors. The header says
 * which mode decided (one run per side, or repeated runs) and how many runs
 * per side; regions one run per side cannot decide are listed with a
 * recommendation to repeat the runs.
 */
#include <math.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "compare_cli.h"
#include "sp_analysis_internal.h"
#include "sp_compare.h"

static const char check_usage[] =
    "usage: " SP_CLI_NAME " check [OPTIONS] BASE CANDIDATE\n"
    "       " SP_CLI_NAME " check [OPTIONS] --base RUN... --cand RUN...\n\n"
    "Performance gate for CI: exit 1 when a region of CANDIDATE is slower than in\n"
    "BASE beyond the budget.\n" SP__CMP_USAGE_INPUTS
    "Regions only in BASE never fail; regions only in CANDIDATE fail with\n"
    "--fail-on-new; regions that cannot be decided (too few calls per run with one\n"
    "run per side) fail with --fail-undecided when their observed change is over\n"
    "the budget. Exit status: 0 pass, 1 regression, 2 usage or file error, 3\n"
    "undecided: the runs were disturbed (other processes took the CPU from the\n"
    "regions over the budget, or every region changed alike): retry.\n\n"
    "Options:\n"
    "  -r, --max-regression PCT  the budget: allowed growth in percent (default 10)\n" SP__CMP_USAGE_OPTIONS
    "      --fail-on-new       a region only in CANDIDATE is a failure too\n"
    "      --fail-undecided    so is an undecidable region over the budget\n"
    "  -h, --help              show this help\n";

#define NAME_COLS 60

static void print_entry(const sp_compare *c, const sp_cmp_entry *e)
{
    char label[4 * NAME_COLS + 8], b[32], d[32], tb[32], td[32], ch[96], tot[96], imp[32],
        why[320], calls[96];
    sp__label_copy(label, sizeof label, e->name, NAME_COLS);
    if (e->verdict == SP_CMP_NEW) {
        printf("  %s: new region, %s per rank in %llu call%s\n", label,
               sp_cmp_fmt_time(e->cand.time_mean_s, d, sizeof d),
               (unsigned long long)e->cand.calls, e->cand.calls == 1 ? "" : "s");
        return;
    }
    /* Each quantity with its own values, change and interval. */
    sp_cmp_fmt_time(e->impact_s, imp, sizeof imp);
    printf("  %s: typical %s -> %s %s; total %s -> %s %s; impact %s%s per rank", label,
           sp_cmp_fmt_time(e->base.typical_time_s, b, sizeof b),
           sp_cmp_fmt_time(e->cand.typical_time_s, d, sizeof d),
           sp_cmp_change_text(e, ch, sizeof ch), sp_cmp_fmt_time(e->base.time_mean_s, tb, sizeof tb),
           sp_cmp_fmt_time(e->cand.time_mean_s, td, sizeof td), sp_cmp_total_text(e, tot, sizeof tot),
           e->impact_s > 0 ? "+" : "", imp);
    const char *w = sp_cmp_why_text(c, e, why, sizeof why), *basis = sp_cmp_basis_text(e);
    if (*sp_cmp_calls_text(e, calls, sizeof calls))
        printf(", %s", calls);
    if (basis)
        printf(" (%s)", basis);
    if (w)
        printf(": %s", w);
    putchar('\n');
}

static size_t count_if(const sp_compare *c, bool (*want)(const sp_compare *, const sp_cmp_entry *))
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += want(c, &c->entries[i]);
    return n;
}

static void print_if(const sp_compare *c, bool (*want)(const sp_compare *, const sp_cmp_entry *))
{
    for (size_t i = 0; i < c->n; i++)
        if (want(c, &c->entries[i]))
            print_entry(c, &c->entries[i]);
}

static bool g_fail_on_new, g_fail_undecided; /* the gate's switches, for the predicates */

static bool fails(const sp_compare *c, const sp_cmp_entry *e)
{
    return sp_cmp_entry_fails(c, e, g_fail_on_new, g_fail_undecided);
}

static bool undecided(const sp_compare *c, const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_NOT_COMPARABLE && !fails(c, e) && !sp_cmp_entry_undecided(c, e);
}

static bool disturbed(const sp_compare *c, const sp_cmp_entry *e)
{
    return sp_cmp_entry_undecided(c, e) && !fails(c, e);
}

/* Undecided, and its observed change would count if it were clear. */
static bool undecided_over_budget(const sp_compare *c, const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_NOT_COMPARABLE && fabs(e->change_pct) > c->opts.min_change_pct &&
           fabs(e->impact_s) >= c->opts.min_time_s &&
           fabs(e->impact_s) >= c->opts.min_share_pct / 100 * c->base_share_s;
}

static bool is_slower(const sp_compare *c, const sp_cmp_entry *e)
{
    (void)c;
    return e->verdict == SP_CMP_SLOWER;
}

/* Clear but under the budget or floors, with a change over the budget's
 * sign: worth a look, not a failure. */
static bool over_budget_not_counted(const sp_compare *c, const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_SAME && e->change_pct > c->opts.min_change_pct;
}

static bool is_new(const sp_compare *c, const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_NEW && !fails(c, e);
}

int sp__cmd_check(int argc, char **argv)
{
    enum { OPT_FAIL_ON_NEW = 1000, OPT_FAIL_UNDECIDED };
    static const struct option longopts[] = {
        SP__CMP_LONG_OPTIONS,
        {"max-regression", required_argument, NULL, 'r'},
        {"fail-on-new", no_argument, NULL, OPT_FAIL_ON_NEW},
        {"fail-undecided", no_argument, NULL, OPT_FAIL_UNDECIDED},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    sp__cmp_cli a;
    sp__cmp_cli_init(&a);
    int rc = sp__cmp_cli_take_lists(&a, &argc, argv);
    g_fail_on_new = g_fail_undecided = false;
    int c;
    sp__cli_getopt_reset();
    while (!rc && (c = sp__cli_getopt(argc, argv, "r:m:a:i:e:h", longopts)) != -1) {
        int handled = sp__cmp_cli_option(&a, c == 'r' ? SP__CMP_OPT_MIN_CHANGE : c, optarg, argv[0]);
        if (handled != 1) {
            rc = handled;
            continue;
        }
        switch (c) {
        case OPT_FAIL_ON_NEW:
            g_fail_on_new = true;
            break;
        case OPT_FAIL_UNDECIDED:
            g_fail_undecided = true;
            break;
        case 'h':
            fputs(check_usage, stdout);
            sp__cmp_cli_free(&a);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            rc = SP_CLI_EXIT_USAGE;
        }
    }
    /* A failed comparison exits 2, not 1: 1 is reserved for regressions. */
    if (!rc)
        rc = sp__cmp_cli_run(&a, argc, argv, SP_CLI_EXIT_USAGE);
    if (!rc) {
        const sp_compare *cmp = a.cmp;
        size_t nfail = count_if(cmp, fails), nund = count_if(cmp, undecided);
        size_t nboth = 0;
        for (size_t i = 0; i < cmp->n; i++)
            nboth += cmp->entries[i].verdict != SP_CMP_NEW &&
                     cmp->entries[i].verdict != SP_CMP_REMOVED;
        printf("check: %zu region%s in both, budget +%g%%, %s\n", nboth, nboth == 1 ? "" : "s",
               cmp->opts.min_change_pct,
               cmp->mode == SP_CMP_MODE_CALLS ? "one run per side" : "repeated runs");
        sp__cmp_cli_print_header(&a, stdout, 10);
        size_t nslower = count_if(cmp, is_slower);
        if (nfail) {
            printf("\nFAIL: %zu region%s %s the +%g%% budget", nfail, nfail == 1 ? "" : "s",
                   nslower == nfail ? "slower beyond" : "over", cmp->opts.min_change_pct);
            if (nslower != nfail)
                printf(" (%zu slower, %zu new or undecided)", nslower, nfail - nslower);
            printf("\n");
            print_if(cmp, fails);
        }
        sp_cmp_gate gate = sp_compare_gate(cmp, g_fail_on_new, g_fail_undecided);
        if (count_if(cmp, disturbed)) {
            printf("\nUndecided: over the budget, but disturbed by other processes (measured):\n");
            print_if(cmp, disturbed);
        }
        if (nund) {
            printf("\nNot comparable (not failures without --fail-undecided):\n");
            print_if(cmp, undecided);
        }
        if (count_if(cmp, over_budget_not_counted)) {
            printf("\nOver budget but not counted (within noise or under the floors):\n");
            print_if(cmp, over_budget_not_counted);
        }
        if (count_if(cmp, is_new)) {
            printf("\nNew in candidate (not failures without --fail-on-new):\n");
            print_if(cmp, is_new);
        }
        bool any_removed = false;
        for (size_t i = 0, k = 0; i < cmp->n; i++) {
            if (cmp->entries[i].verdict != SP_CMP_REMOVED)
                continue;
            char label[4 * NAME_COLS + 8];
            sp__label_copy(label, sizeof label, cmp->entries[i].name, NAME_COLS);
            printf("%s %s", k++ ? "," : "\nOnly in base (not failures):", label);
            any_removed = true;
        }
        if (any_removed)
            putchar('\n');
        size_t nund_big = count_if(cmp, undecided_over_budget);
        if (cmp->mode == SP_CMP_MODE_CALLS && (nund_big || nfail))
            printf("\nRecommendation: one run per side %s. Repeat each side 3 or more times and "
                   "compare directories or lists (--base A1 A2 A3 --cand B1 B2 B3) so that "
                   "run-to-run noise is measured.\n",
                   nund_big ? "cannot decide regions that changed by more than the budget"
                            : "does not see run-to-run noise");
        char sched[400];
        const char *why_undecided =
            cmp->undecided ? "every region changed alike (the common change is beyond the "
                             "budget): the machine ran at another speed, or all the code changed"
                           : "the regions over the budget were disturbed by other processes";
        if (gate == SP_CMP_GATE_UNDECIDED)
            printf("\nUNDECIDED: %s. Interference: %s. Repeat the runs (exit status %d: retry).\n",
                   why_undecided, sp_compare_sched_text(cmp, sched, sizeof sched),
                   SP_CLI_EXIT_UNDECIDED);
        else if (gate == SP_CMP_GATE_FAIL && !nfail) /* undecided, failed by --fail-undecided */
            printf("\nFAIL: undecided (--fail-undecided): %s. Interference: %s.\n", why_undecided,
                   sp_compare_sched_text(cmp, sched, sizeof sched));
        else if (!nfail)
            printf("\nPASS: no region slower beyond the +%g%% budget\n", cmp->opts.min_change_pct);
        rc = gate == SP_CMP_GATE_FAIL        ? SP_CLI_EXIT_FAILURE
             : gate == SP_CMP_GATE_UNDECIDED ? SP_CLI_EXIT_UNDECIDED
                                             : SP_CLI_EXIT_OK;
        if (sp__cli_finish_output(SP_CLI_EXIT_OK) != SP_CLI_EXIT_OK)
            rc = SP_CLI_EXIT_USAGE; /* not 1: that means a regression */
    }
    sp__cmp_cli_free(&a);
    return rc;
}
