/* SPDX-License-Identifier: MIT */
/* report_compare.c - the comparison section of a two-file report: the
 * per-region diff (analysis/sp_diff.h) as a sortable table with the noise
 * verdict, regions found in one run only, and the comparison chart. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "diff_format.h"
#include "sp_diff.h"
#include "sp_error.h"

static const char *verdict_class(sp_diff_verdict v)
{
    switch (v) {
    case SP_DIFF_SLOWER:
        return "bad";
    case SP_DIFF_FASTER:
        return "good";
    case SP_DIFF_UP:
        return "warn";
    default:
        return "";
    }
}

static void only_list(FILE *f, const sp_diff *d, sp_diff_presence which, const char *title)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += d->entries[i].presence == which;
    if (!n)
        return;
    fprintf(f, "<h3>%s (%zu)</h3>\n<ul class=\"only\">\n", title, n);
    for (size_t i = 0; i < d->n; i++) {
        const sp_diff_entry *e = &d->entries[i];
        if (e->presence != which)
            continue;
        char t[32];
        double v = which == SP_DIFF_ONLY_BASE ? e->base : e->cand;
        uint64_t calls = which == SP_DIFF_ONLY_BASE ? e->base_calls : e->cand_calls;
        fputs("<li><code>", f);
        sp__html(f, e->name);
        fprintf(f, "</code> %s in %" PRIu64 " call%s</li>\n", sp__fmt_dur(v, t, sizeof t), calls,
                calls == 1 ? "" : "s");
    }
    fputs("</ul>\n", f);
}

int sp__report_compare(sp__report *r, FILE *f)
{
    sp_diff *d = sp_diff_regions(r->run, r->cand, NULL);
    if (!d)
        return SP_ENOMEM;
    fputs("<section id=\"compare\"><h2>Comparison</h2>\n<p>Base <code>", f);
    sp__html(f, r->path);
    fputs("</code> against candidate <code>", f);
    sp__html(f, r->cand_path);
    fprintf(f,
            "</code>: total time per region. Noise: Mann-Whitney U test on the per-call "
            "durations (alpha %g); effect = Cliff's delta (-1..+1, positive when the "
            "candidate's calls tend to be longer). &ldquo;untested&rdquo;: too few calls, "
            "or a changed call count.</p>\n",
            d->alpha);
    size_t both = 0;
    for (size_t i = 0; i < d->n; i++)
        both += d->entries[i].presence == SP_DIFF_IN_BOTH;
    if (both) {
        fputs("<table class=\"sortable\" id=\"compare-table\"><thead><tr>"
              "<th data-type=\"text\">Region</th><th>Base</th><th>Candidate</th><th>Delta</th>"
              "<th>Change</th><th>p-value</th><th>Effect</th><th data-type=\"text\">Verdict</th>"
              "</tr></thead>\n<tbody>\n",
              f);
        for (size_t i = 0; i < d->n; i++) {
            const sp_diff_entry *e = &d->entries[i];
            if (e->presence != SP_DIFF_IN_BOTH)
                continue;
            char a[32], b[32], c[32], p[16], eff[16];
            fputs("<tr><td class=\"name\">", f);
            sp__html(f, e->name);
            fprintf(f,
                    "</td><td data-v=\"%.12g\">%s</td><td data-v=\"%.12g\">%s</td>"
                    "<td data-v=\"%.12g\">%s%s</td><td data-v=\"%.6f\">%+.1f%%</td>",
                    e->base, sp__fmt_dur(e->base, a, sizeof a), e->cand,
                    sp__fmt_dur(e->cand, b, sizeof b), e->delta, e->delta > 0 ? "+" : "",
                    sp__fmt_dur(e->delta, c, sizeof c), e->percent, e->percent);
            /* "<0.001" is text: escaped like every other cell */
            fprintf(f, "<td data-v=\"%.6g\">", e->noise.tested ? e->noise.p_value : 2.0);
            sp__html(f, sp__diff_fmt_p(&e->noise, p, sizeof p));
            fprintf(f, "</td><td data-v=\"%.4f\">", e->noise.tested ? e->noise.effect : 0);
            sp__html(f, sp__diff_fmt_effect(&e->noise, eff, sizeof eff));
            fputs("</td>", f);
            fprintf(f, "<td class=\"%s\">%s</td></tr>\n", verdict_class(e->verdict),
                    sp_diff_verdict_name(e->verdict));
        }
        fputs("</tbody></table>\n", f);
    } else {
        fputs("<p class=\"note\">No region is in both runs.</p>\n", f);
    }
    only_list(f, d, SP_DIFF_ONLY_BASE, "Only in base");
    only_list(f, d, SP_DIFF_ONLY_CAND, "Only in candidate");
    sp_diff_free(d);
    sp__chart_job job = {.run = r->run,
                         .cand = r->cand,
                         .region = -1,
                         .top_n = 25,
                         .base_label = "base",
                         .cand_label = "candidate"};
    int rc = sp__report_chart(r, f, SP__CHART_COMPARE, &job, 1200,
                              sp__chart_fit_height(SP__CHART_COMPARE, &job, 1200, 900));
    fputs("</section>\n", f);
    return rc;
}
