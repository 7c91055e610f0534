/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `scope-profiler diff BASE CAND`: the comparison model
 * (analysis/sp_compare.h) as a table: per region the time per rank on each
 * side, the change with its interval, the impact per rank and the verdict.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "compare_cli.h"
#include "sp_analysis_internal.h"
#include "sp_compare.h"

static const char diff_usage[] =
    "usage: " SP_CLI_NAME " diff [OPTIONS] BASE CANDIDATE\n"
    "       " SP_CLI_NAME " diff [OPTIONS] --base RUN... --cand RUN...\n\n"
    "Compare runs region by region (matched by name): time per rank on each side,\n"
    "the change with its 95 % interval, the impact per rank, and a verdict:\n"
    "slower, faster, within noise, new, removed, or not comparable (with why).\n" SP__CMP_USAGE_INPUTS
    "\nOptions:\n"
    "  -r, --min-change PCT    a smaller change is within noise (default 10; the\n"
    "                          same as check's --max-regression)\n" SP__CMP_USAGE_OPTIONS
    "  -t, --threshold PCT     hide regions whose change is under PCT %\n"
    "  -s, --sort KEY          impact (default), change, name\n"
    "      --tree              compare call paths instead of region names\n"
    "      --tsv               print tab-separated values instead (for scripts): region,\n"
    "                          base_s, cand_s (time per rank), change_pct, ci_lo_pct,\n"
    "                          ci_hi_pct, impact_s, verdict, note\n"
    "  -h, --help              show this help\n";

#define NAME_COLS 48

typedef enum { SORT_IMPACT, SORT_CHANGE, SORT_NAME } sort_key;

static int cmp_change(const void *pa, const void *pb)
{
    const sp_cmp_entry *a = *(const sp_cmp_entry *const *)pa, *b = *(const sp_cmp_entry *const *)pb;
    double x = fabs(a->change_pct), y = fabs(b->change_pct);
    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_name(const void *pa, const void *pb)
{
    const sp_cmp_entry *a = *(const sp_cmp_entry *const *)pa, *b = *(const sp_cmp_entry *const *)pb;
    return strcmp(a->name, b->name);
}

enum { C_NAME, C_BASE, C_CAND, C_BMAX, C_CMAX, C_CHANGE, C_IMPACT, C_VERDICT, C_NOTE, NCOLS };

typedef struct row {
    char cell[NCOLS][4 * NAME_COLS + 96];
} row;

static void fill_row(row *r, const sp_compare *c, const sp_cmp_entry *e, bool tree)
{
    char label[4 * NAME_COLS + 8];
    sp__label_copy(label, sizeof label, e->name, NAME_COLS);
    if (tree && e->depth > 1) {
        size_t o = 0;
        for (int32_t d = 2; d < e->depth && o + 8 < sizeof r->cell[C_NAME]; d++)
            o += (size_t)snprintf(r->cell[C_NAME] + o, sizeof r->cell[C_NAME] - o, "│ ");
        snprintf(r->cell[C_NAME] + o, sizeof r->cell[C_NAME] - o, "└─ %s", label);
    } else {
        snprintf(r->cell[C_NAME], sizeof r->cell[C_NAME], "%s", label);
    }
    if (e->verdict == SP_CMP_NEW) {
        strcpy(r->cell[C_BASE], "-");
        strcpy(r->cell[C_BMAX], "-");
    } else {
        sp_cmp_fmt_time(e->base.time_mean_s, r->cell[C_BASE], sizeof r->cell[C_BASE]);
        sp_cmp_fmt_time(e->base.time_max_s, r->cell[C_BMAX], sizeof r->cell[C_BMAX]);
    }
    if (e->verdict == SP_CMP_REMOVED) {
        strcpy(r->cell[C_CAND], "-");
        strcpy(r->cell[C_CMAX], "-");
    } else {
        sp_cmp_fmt_time(e->cand.time_mean_s, r->cell[C_CAND], sizeof r->cell[C_CAND]);
        sp_cmp_fmt_time(e->cand.time_max_s, r->cell[C_CMAX], sizeof r->cell[C_CMAX]);
    }
    sp_cmp_change_text(e, r->cell[C_CHANGE], sizeof r->cell[C_CHANGE]);
    char t[32];
    sp_cmp_fmt_time(e->impact_s, t, sizeof t);
    snprintf(r->cell[C_IMPACT], sizeof r->cell[C_IMPACT], "%s%s", e->impact_s > 0 ? "+" : "", t);
    snprintf(r->cell[C_VERDICT], sizeof r->cell[C_VERDICT], "%s", sp_cmp_verdict_name(e->verdict));
    char why[160], calls[96];
    const char *w = sp_cmp_why_text(c, e, why, sizeof why);
    sp_cmp_calls_text(e, calls, sizeof calls);
    snprintf(r->cell[C_NOTE], sizeof r->cell[C_NOTE], "%s%s%s", w ? w : "",
             w && *calls ? "; " : "", calls);
}

/* A field for TSV: tabs and newlines would break the row. */
static void tsv_field(const char *s)
{
    for (; *s; s++)
        putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void print_tsv(const sp_compare *c, const sp_cmp_entry *const *rows, size_t n)
{
    printf("region\tbase_s\tcand_s\tchange_pct\tci_lo_pct\tci_hi_pct\timpact_s\tverdict\tnote\n");
    for (size_t i = 0; i < n; i++) {
        const sp_cmp_entry *e = rows[i];
        char why[160], calls[96];
        tsv_field(e->name);
        printf("\t%.9g\t%.9g\t", e->verdict == SP_CMP_NEW ? 0 : e->base.time_mean_s,
               e->verdict == SP_CMP_REMOVED ? 0 : e->cand.time_mean_s);
        if (isfinite(e->change_pct))
            printf("%.4f", e->change_pct);
        putchar('\t');
        if (e->tested)
            printf("%.4f\t%.4f", e->change_lo_pct, e->change_hi_pct);
        else
            putchar('\t');
        printf("\t%.9g\t%s\t", e->impact_s, sp_cmp_verdict_name(e->verdict));
        const char *w = sp_cmp_why_text(c, e, why, sizeof why);
        sp_cmp_calls_text(e, calls, sizeof calls);
        if (w)
            tsv_field(w);
        if (w && *calls)
            fputs("; ", stdout);
        tsv_field(calls);
        putchar('\n');
    }
}

static void print_table(const sp_compare *c, const sp_cmp_entry *const *rows_in, size_t n,
                        bool tree, bool show_max)
{
    const char *heads[NCOLS] = {"region", "base/rank", "cand/rank", "base max", "cand max",
                                "change [95 % CI]", "impact/rank", "verdict", "note"};
    char ci_head[48];
    snprintf(ci_head, sizeof ci_head, "change [%g %% CI]", 100 * (1 - c->opts.alpha));
    heads[C_CHANGE] = ci_head;
    size_t w[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        w[k] = sp__utf8_width(heads[k]);
    row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++) {
        fill_row(&rows[i], c, rows_in[i], tree);
        for (int k = 0; k < NCOLS; k++) {
            size_t cw = sp__utf8_width(rows[i].cell[k]);
            w[k] = cw > w[k] ? cw : w[k];
        }
    }
    int last = NCOLS - 1;
    for (size_t i = 0; i <= n; i++) {
        for (int k = 0; k < NCOLS; k++) {
            if (!show_max && (k == C_BMAX || k == C_CMAX))
                continue;
            const char *s = i == 0 ? heads[k] : rows[i - 1].cell[k];
            bool last_cell = k == last || (k == C_VERDICT && i > 0 && !rows[i - 1].cell[C_NOTE][0]);
            if (last_cell && k != last) {
                fputs(s, stdout);
                break;
            }
            if (k == last)
                fputs(s, stdout);
            else
                sp__put_padded(stdout, s, w[k] + 2);
        }
        putchar('\n');
    }
    free(rows);
}

int sp__cmd_diff(int argc, char **argv)
{
    enum { OPT_TREE = 1000, OPT_TSV };
    static const struct option longopts[] = {
        SP__CMP_LONG_OPTIONS,
        {"min-change", required_argument, NULL, 'r'},
        {"max-regression", required_argument, NULL, 'r'},
        {"threshold", required_argument, NULL, 't'},
        {"sort", required_argument, NULL, 's'},
        {"tree", no_argument, NULL, OPT_TREE},
        {"tsv", no_argument, NULL, OPT_TSV},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    sp__cmp_cli a;
    sp__cmp_cli_init(&a);
    int rc = sp__cmp_cli_take_lists(&a, &argc, argv);
    double threshold = 0;
    sort_key sort = SORT_IMPACT;
    bool tsv = false;
    int c;
    sp__cli_getopt_reset();
    while (!rc && (c = sp__cli_getopt(argc, argv, "r:m:t:s:a:i:e:h", longopts)) != -1) {
        int handled = sp__cmp_cli_option(&a, c == 'r' ? SP__CMP_OPT_MIN_CHANGE : c, optarg, argv[0]);
        if (handled != 1) {
            rc = handled;
            continue;
        }
        switch (c) {
        case 't':
            if (sp__cli_parse_number(optarg, 0, 0, &threshold))
                rc = sp__cli_usage_error(argv[0], "invalid --threshold '%s' (a percentage >= 0)",
                                         optarg);
            break;
        case 's':
            if (strcmp(optarg, "impact") == 0 || strcmp(optarg, "delta") == 0)
                sort = SORT_IMPACT;
            else if (strcmp(optarg, "change") == 0 || strcmp(optarg, "percent") == 0)
                sort = SORT_CHANGE;
            else if (strcmp(optarg, "name") == 0)
                sort = SORT_NAME;
            else
                rc = sp__cli_usage_error(argv[0],
                                         "unknown sort key '%s' (valid: impact, change, name)",
                                         optarg);
            break;
        case OPT_TREE:
            a.o.tree = true;
            break;
        case OPT_TSV:
            tsv = true;
            break;
        case 'h':
            fputs(diff_usage, stdout);
            sp__cmp_cli_free(&a);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            rc = SP_CLI_EXIT_USAGE;
        }
    }
    if (!rc)
        rc = sp__cmp_cli_run(&a, argc, argv, SP_CLI_EXIT_FAILURE);
    if (!rc) {
        const sp_compare *cmp = a.cmp;
        if (!tsv) {
            sp__cmp_cli_print_header(&a, stdout, 10);
            putchar('\n');
        }
        const sp_cmp_entry **rows = calloc(cmp->n ? cmp->n : 1, sizeof *rows);
        size_t n = 0, hidden = 0;
        bool show_max = false;
        for (size_t i = 0; rows && i < cmp->n; i++) {
            const sp_cmp_entry *e = &cmp->entries[i];
            if (threshold > 0 && !a.o.tree && fabs(e->change_pct) < threshold) {
                hidden++;
                continue;
            }
            rows[n++] = e;
            show_max |= fabs(e->base.time_max_s - e->base.time_mean_s) > 1e-12 ||
                        fabs(e->cand.time_max_s - e->cand.time_mean_s) > 1e-12;
        }
        if (!a.o.tree && sort == SORT_CHANGE)
            qsort(rows, n, sizeof *rows, cmp_change);
        else if (!a.o.tree && sort == SORT_NAME)
            qsort(rows, n, sizeof *rows, cmp_name);
        if (tsv)
            print_tsv(cmp, rows, n);
        else if (n)
            print_table(cmp, rows, n, a.o.tree, show_max);
        else
            printf("No regions to compare.\n");
        free(rows);
        if (!tsv && (hidden || cmp->n_filtered))
            printf("\n%zu region%s not shown (change under the %g%% threshold, or filtered).\n",
                   hidden + cmp->n_filtered, hidden + cmp->n_filtered == 1 ? "" : "s", threshold);
        rc = sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    sp__cmp_cli_free(&a);
    return rc;
}
