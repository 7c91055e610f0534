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

static void row(FILE *f, const sp_compare *c, const sp_cmp_entry *e)
{
    char a[32], b[32], ch[96], imp[32], why[160], calls[96];
    fputs("<tr><td class=\"name\">", f);
    sp__html(f, e->name);
    fprintf(f, "</td><td data-v=\"%.12g\">%s</td><td data-v=\"%.12g\">%s</td>",
            e->verdict == SP_CMP_NEW ? -1 : e->base.time_mean_s,
            e->verdict == SP_CMP_NEW ? "&ndash;" : sp_cmp_fmt_time(e->base.time_mean_s, a, sizeof a),
            e->verdict == SP_CMP_REMOVED ? -1 : e->cand.time_mean_s,
            e->verdict == SP_CMP_REMOVED ? "&ndash;"
                                         : sp_cmp_fmt_time(e->cand.time_mean_s, b, sizeof b));
    double sort_change = isfinite(e->change_pct) ? e->change_pct : 1e300;
    fprintf(f, "<td data-v=\"%.6f\">", sort_change);
    sp__html(f, sp_cmp_change_text(e, ch, sizeof ch));
    sp_cmp_fmt_time(e->impact_s, imp, sizeof imp);
    fprintf(f, "</td><td data-v=\"%.12g\">%s%s</td>", e->impact_s, e->impact_s > 0 ? "+" : "",
            imp);
    fprintf(f, "<td class=\"%s\">%s</td><td class=\"note\">", verdict_class(e->verdict),
            sp_cmp_verdict_name(e->verdict));
    const char *w = sp_cmp_why_text(c, e, why, sizeof why);
    sp_cmp_calls_text(e, calls, sizeof calls);
    if (w)
        sp__html(f, w);
    if (w && *calls)
        fputs("; ", f);
    sp__html(f, calls);
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
    fputs("</ul>\n", f);
    if (cmp->n) {
        fprintf(f,
                "<table class=\"sortable\" id=\"compare-table\"><thead><tr>"
                "<th data-type=\"text\">Region</th><th>Base / rank</th><th>Candidate / rank</th>"
                "<th>Change [%g %% CI]</th><th>Impact / rank</th>"
                "<th data-type=\"text\">Verdict</th><th data-type=\"text\">Note</th>"
                "</tr></thead>\n<tbody>\n",
                100 * (1 - cmp->opts.alpha));
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
