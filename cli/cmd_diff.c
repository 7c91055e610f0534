/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `scope-profiler diff BASE CAND`: the comparison model
 * (analysis/sp_compare.h) as a table: per region two column groups, the
 * typical and the total time per rank, each with both sides, its change
 * and interval; the impact per rank and the verdict.
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
    "Compare runs region by region (matched by name), in two column groups: the\n"
    "typical time per rank (typical call x calls) and the total time per rank,\n"
    "each on both sides with its change and interval; then the impact per rank\n"
    "and a verdict: slower, faster, within noise, new, removed, or not comparable\n"
    "(with why).\n" SP__CMP_USAGE_INPUTS
    "\nOptions:\n"
    "  -r, --min-change PCT    a smaller change is within noise (default 10; the\n"
    "                          same as check's --max-regression)\n" SP__CMP_USAGE_OPTIONS
    "  -t, --threshold PCT     hide regions whose change is under PCT %\n"
    "  -s, --sort KEY          impact (default), change, name\n"
    "      --tree              compare call paths instead of region names\n"
    "      --tsv               print tab-separated values instead (for scripts): region,\n"
    "                          typical_{base_s,cand_s,change_pct,lo_pct,hi_pct},\n"
    "                          total_{base_s,cand_s,change_pct,lo_pct,hi_pct},\n"
    "                          impact_s, verdict, decided_by (typical, total), note\n"
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

/* Two labelled column groups, each in one quantity: the typical time per
 * rank (typical call x calls) and the total time per rank, each with its
 * base, candidate, change and interval. */
enum {
    C_NAME,
    C_TBASE, C_TCAND, C_TCHANGE,              /* typical */
    C_BASE, C_CAND, C_BMAX, C_CMAX, C_CHANGE, /* total */
    C_IMPACT, C_VERDICT, C_NOTE, NCOLS
};

typedef struct row {
    char cell[NCOLS][4 * NAME_COLS + 400];
} row;

static void fmt_or_dash(bool dash, double v, char *cell, size_t n)
{
    if (dash)
        snprintf(cell, n, "-");
    else
        sp_cmp_fmt_time(v, cell, n);
}

/* The note: why the verdict, what decided it, changed calls. */
static void note_of(const sp_compare *c, const sp_cmp_entry *e, char *buf, size_t n)
{
    char why[320], calls[96];
    const char *w = sp_cmp_why_text(c, e, why, sizeof why), *basis = sp_cmp_basis_text(e);
    sp_cmp_calls_text(e, calls, sizeof calls);
    const char *parts[3] = {basis, w, calls[0] ? calls : NULL};
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < 3; i++)
        if (parts[i] && o < n)
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? "; " : "", parts[i]);
}

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
    bool is_new = e->verdict == SP_CMP_NEW, gone = e->verdict == SP_CMP_REMOVED;
    size_t cw = sizeof r->cell[0];
    fmt_or_dash(is_new, e->base.typical_time_s, r->cell[C_TBASE], cw);
    fmt_or_dash(gone, e->cand.typical_time_s, r->cell[C_TCAND], cw);
    fmt_or_dash(is_new, e->base.time_mean_s, r->cell[C_BASE], cw);
    fmt_or_dash(is_new, e->base.time_max_s, r->cell[C_BMAX], cw);
    fmt_or_dash(gone, e->cand.time_mean_s, r->cell[C_CAND], cw);
    fmt_or_dash(gone, e->cand.time_max_s, r->cell[C_CMAX], cw);
    sp_cmp_change_text(e, r->cell[C_TCHANGE], cw);
    sp_cmp_total_text(e, r->cell[C_CHANGE], cw);
    char t[32];
    sp_cmp_fmt_time(e->impact_s, t, sizeof t);
    snprintf(r->cell[C_IMPACT], cw, "%s%s", e->impact_s > 0 ? "+" : "", t);
    snprintf(r->cell[C_VERDICT], cw, "%s", sp_cmp_verdict_name(e->verdict));
    note_of(c, e, r->cell[C_NOTE], cw);
}

/* A field for TSV: tabs and newlines would break the row. */
static void tsv_field(const char *s)
{
    for (; *s; s++)
        putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void tsv_num(bool have, double v)
{
    if (have && isfinite(v))
        printf("%.9g", v);
}

static void print_tsv(const sp_compare *c, const sp_cmp_entry *const *rows, size_t n)
{
    printf("region\ttypical_base_s\ttypical_cand_s\ttypical_change_pct\ttypical_lo_pct\t"
           "typical_hi_pct\ttotal_base_s\ttotal_cand_s\ttotal_change_pct\ttotal_lo_pct\t"
           "total_hi_pct\timpact_s\tverdict\tdecided_by\tnote\n");
    for (size_t i = 0; i < n; i++) {
        const sp_cmp_entry *e = rows[i];
        bool is_new = e->verdict == SP_CMP_NEW, gone = e->verdict == SP_CMP_REMOVED;
        tsv_field(e->name);
        const double typ[5] = {e->base.typical_time_s, e->cand.typical_time_s, e->change_pct,
                               e->change_lo_pct, e->change_hi_pct};
        const bool have_typ[5] = {!is_new, !gone, !is_new && !gone, e->tested, e->tested};
        const double tot[5] = {e->base.time_mean_s, e->cand.time_mean_s, e->total_change_pct,
                               e->total_lo_pct, e->total_hi_pct};
        const bool have_tot[5] = {!is_new, !gone, !is_new && !gone, e->total_tested,
                                  e->total_tested};
        for (int k = 0; k < 5; k++) {
            putchar('\t');
            tsv_num(have_typ[k], typ[k]);
        }
        for (int k = 0; k < 5; k++) {
            putchar('\t');
            tsv_num(have_tot[k], tot[k]);
        }
        printf("\t%.9g\t%s\t%s\t", e->impact_s, sp_cmp_verdict_name(e->verdict),
               e->verdict != SP_CMP_SLOWER && e->verdict != SP_CMP_FASTER ? ""
               : e->basis == SP_CMP_BASIS_TOTAL                          ? "total"
                                                                          : "typical");
        char note[800];
        note_of(c, e, note, sizeof note);
        tsv_field(note);
        putchar('\n');
    }
}

static void print_table(const sp_compare *c, const sp_cmp_entry *const *rows_in, size_t n,
                        bool tree, bool show_max)
{
    char ci_typ[48], ci_tot[48];
    snprintf(ci_typ, sizeof ci_typ, "change [%g %% CI]", 100 * (1 - c->opts.alpha));
    snprintf(ci_tot, sizeof ci_tot, "change [%g %% CI]", 100 * (1 - c->opts.alpha / 20));
    const char *heads[NCOLS] = {"region", "base",   "cand",        ci_typ,    "base",
                                "cand",   "base max", "cand max", ci_tot,    "impact/rank",
                                "verdict", "note"};
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
    /* The group labels over their columns. */
    size_t pos = w[C_NAME] + 2, typ_w = 0, tot_w = 0;
    for (int k = C_TBASE; k <= C_TCHANGE; k++)
        typ_w += w[k] + 2;
    for (int k = C_BASE; k <= C_CHANGE; k++)
        if (show_max || (k != C_BMAX && k != C_CMAX))
            tot_w += w[k] + 2;
    const char *labels[2] = {"typical time per rank (typical call x calls)", "total time per rank"};
    size_t widths[2] = {typ_w, tot_w};
    printf("%*s", (int)pos, "");
    for (int g = 0; g < 2; g++) {
        size_t lw = sp__utf8_width(labels[g]);
        printf("%s", labels[g]);
        for (size_t x = lw; x < widths[g]; x++)
            putchar(x + 2 >= widths[g] ? ' ' : '-');
        if (lw >= widths[g])
            putchar(' ');
    }
    putchar('\n');
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
