/* SPDX-License-Identifier: MIT */
/* report_compare.c - the comparison section of a two-file report: the
 * comparison model (analysis/sp_compare.h) with its header, the sortable
 * table of verdicts, and the comparison chart drawn from the same model. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "sp_compare.h"
#include "sp_error.h"

static const char *verdict_class(sp_cmp_verdict v)
{
    switch (v) {
    case SP_CMP_SLOWER:
    case SP_CMP_NEW:
        return "bad";
    case SP_CMP_FASTER:
    case SP_CMP_REMOVED:
        return "good";
    case SP_CMP_NOT_COMPARABLE:
        return "warn";
    default:
        return "";
    }
}

static void para(FILE *f, const char *label, const char *text)
{
    fprintf(f, "<li><b>%s</b> ", label);
    sp__html(f, text);
    fputs("</li>\n", f);
}

/* A time cell sortable by its value; "-" for a side without the region. */
static void time_cell(FILE *f, bool dash, double v)
{
    char t[32];
    if (dash)
        fputs("<td data-v=\"-1\">&ndash;</td>", f);
    else
        fprintf(f, "<td data-v=\"%.12g\">%s</td>", v, sp_cmp_fmt_time(v, t, sizeof t));
}

static void change_cell(FILE *f, double sort, const char *text)
{
    fprintf(f, "<td data-v=\"%.6f\">", isfinite(sort) ? sort : 1e300);
    sp__html(f, text);
    fputs("</td>", f);
}

/* One region: the typical and the total time per rank, each with both
 * sides, its change and interval; impact, verdict, note. */
static void row(FILE *f, const sp_compare *c, const sp_cmp_entry *e)
{
    char ch[96], imp[32], why[320], calls[96];
    bool is_new = e->verdict == SP_CMP_NEW, gone = e->verdict == SP_CMP_REMOVED;
    fputs("<tr><td class=\"name\">", f);
    sp__html(f, e->name);
    fputs("</td>", f);
    time_cell(f, is_new, e->base.typical_time_s);
    time_cell(f, gone, e->cand.typical_time_s);
    change_cell(f, e->change_pct, sp_cmp_change_text(e, ch, sizeof ch));
    time_cell(f, is_new, e->base.time_mean_s);
    time_cell(f, gone, e->cand.time_mean_s);
    change_cell(f, is_new ? INFINITY : gone ? -100 : e->total_change_pct,
                sp_cmp_total_text(e, ch, sizeof ch));
    sp_cmp_fmt_time(e->impact_s, imp, sizeof imp);
    fprintf(f, "<td data-v=\"%.12g\">%s%s</td>", e->impact_s, e->impact_s > 0 ? "+" : "", imp);
    fprintf(f, "<td class=\"%s\">%s</td><td class=\"note\">", verdict_class(e->verdict),
            sp_cmp_verdict_name(e->verdict));
    const char *w = sp_cmp_why_text(c, e, why, sizeof why), *basis = sp_cmp_basis_text(e);
    sp_cmp_calls_text(e, calls, sizeof calls);
    const char *parts[3] = {basis, w, *calls ? calls : NULL};
    for (int i = 0, k = 0; i < 3; i++)
        if (parts[i]) {
            if (k++)
                fputs("; ", f);
            sp__html(f, parts[i]);
        }
    fputs("</td></tr>\n", f);
}

int sp__report_compare(sp__report *r, FILE *f)
{
    const sp_run *b = r->run, *c = r->cand;
    sp_compare *cmp = sp_compare_runs(&b, 1, &c, 1, NULL);
    if (!cmp)
        return SP_ENOMEM;
    char buf[512];
    sp_cmp_tally t;
    sp_compare_tally(cmp, &t);
    fputs("<section id=\"compare\"><h2>Comparison</h2>\n<p>Base <code>", f);
    sp__html(f, r->path);
    fputs("</code> against candidate <code>", f);
    sp__html(f, r->cand_path);
    fputs("</code>.</p>\n<ul class=\"compare-method\">\n", f);
    para(f, "Summary:", sp_compare_tally_text(&t, buf, sizeof buf));
    para(f, "Mode:", sp_compare_mode_text(cmp, buf, sizeof buf));
    para(f, "Method:", sp_compare_method_text(cmp, buf, sizeof buf));
    para(f, "Per rank:", sp_compare_ranks_text(cmp, buf, sizeof buf));
    para(f, "CPU wait:", sp_compare_sched_text(cmp, buf, sizeof buf));
    para(f, "Common change:", sp_compare_common_text(cmp, buf, sizeof buf));
    fputs("</ul>\n", f);
    if (cmp->n) {
        fprintf(f,
                "<table class=\"sortable\" id=\"compare-table\"><thead>"
                "<tr><th></th><th colspan=\"3\">Typical time per rank (typical call &times; "
                "calls)</th><th colspan=\"3\">Total time per rank</th><th colspan=\"3\"></th></tr>"
                "<tr><th data-type=\"text\">Region</th><th>Base</th><th>Candidate</th>"
                "<th>Change [%g %% CI]</th><th>Base</th><th>Candidate</th>"
                "<th>Change [%g %% CI]</th><th>Impact / rank</th>"
                "<th data-type=\"text\">Verdict</th><th data-type=\"text\">Note</th>"
                "</tr></thead>\n<tbody>\n",
                100 * (1 - cmp->opts.alpha), 100 * (1 - cmp->opts.alpha / 20));
        for (size_t i = 0; i < cmp->n; i++)
            row(f, cmp, &cmp->entries[i]);
        fputs("</tbody></table>\n", f);
    } else {
        fputs("<p class=\"note\">No regions to compare.</p>\n", f);
    }
    sp__chart_job job = {.colors = r->colors,
                         .run = r->run,
                         .cand = r->cand,
                         .cmp = cmp,
                         .region = -1,
                         .top_n = 25,
                         .base_label = "base",
                         .cand_label = "candidate"};
    int rc = sp__report_chart(r, f, SP__CHART_COMPARE, &job, 1200,
                              sp__chart_fit_height(SP__CHART_COMPARE, &job, 1200, 900));
    fputs("</section>\n", f);
    sp_compare_free(cmp);
    return rc;
}
