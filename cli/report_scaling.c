/* SPDX-License-Identifier: MIT */
/* report_scaling.c - the scaling section of a report of three or more runs:
 * the study (analysis/sp_scaling.h) as a table and the scaling chart. */
#include "report.h"

#include <math.h>

#include "sp_compare.h"
#include "sp_error.h"
#include "sp_scaling.h"

static void cell_num(FILE *f, double v, const char *fmt)
{
    if (isfinite(v)) {
        fprintf(f, "<td data-v=\"%.6g\">", v);
        fprintf(f, fmt, v);
        fputs("</td>", f);
    } else {
        fputs("<td data-v=\"-1\">&ndash;</td>", f);
    }
}

int sp__report_scaling(sp__report *r, FILE *f)
{
    sp_scaling_options o;
    sp_scaling_options_init(&o);
    o.kind = r->scaling_kind;
    sp_scaling *s = sp_scaling_study(r->runs, r->nruns, &o);
    if (!s) {
        fputs("<section id=\"scaling\"><h2>Scaling</h2>\n<p class=\"note\">", f);
        sp__html(f, sp_last_error());
        fputs("</p></section>\n", f);
        return 0; /* not a scaling study (e.g. equal rank counts): say why */
    }
    const char *axis = sp_scaling_axis_name(s->opts.axis);
    char stops[1024], t1[32], t2[32];
    sp_scaling_stops_text(s, stops, sizeof stops);
    fprintf(f, "<section id=\"scaling\"><h2>Scaling</h2>\n<p>%s scaling over %zu runs (%g to %g %s; ",
            s->weak ? "Weak" : "Strong", s->nruns, s->p[0], s->p[s->nruns - 1], axis);
    sp__html(f, s->kind_why);
    fprintf(f, "). Time per rank: a region's time on a rank (per thread that ran it), mean and "
               "max over the ranks that ran it; %s and efficiency from the max (the slowest "
               "rank), against the run with %g %s.</p>\n",
            s->weak ? "scaled speedup" : "speedup", s->p[0], axis);
    fprintf(f, "<p><b>Stop scaling</b> (efficiency &lt; %.2f, regions over %g %% of the run): ",
            s->opts.min_efficiency, s->opts.min_share_pct);
    sp__html(f, *stops ? stops : "none");
    fputs("</p>\n<table class=\"sortable\" id=\"scaling-table\"><thead><tr>"
          "<th data-type=\"text\">Region</th>",
          f);
    fprintf(f, "<th>%s</th><th>Time / rank (mean)</th><th>Time / rank (max)</th>"
               "<th>%s</th><th>Efficiency</th></tr></thead>\n<tbody>\n",
            axis, s->weak ? "Scaled speedup" : "Speedup");
    for (size_t g = 0; g < s->nregions; g++) {
        const sp_scaling_region *reg = &s->regions[g];
        for (size_t j = 0; j < s->nruns; j++) {
            const sp_scaling_point *q = &reg->pt[j];
            fputs("<tr><td class=\"name\">", f);
            sp__html(f, reg->name);
            fprintf(f, "</td><td data-v=\"%g\">%g</td>", s->p[j], s->p[j]);
            if (q->present)
                fprintf(f, "<td data-v=\"%.9g\">%s</td><td data-v=\"%.9g\">%s</td>", q->time_mean_s,
                        sp_cmp_fmt_time(q->time_mean_s, t1, sizeof t1), q->time_max_s,
                        sp_cmp_fmt_time(q->time_max_s, t2, sizeof t2));
            else
                fputs("<td data-v=\"-1\">&ndash;</td><td data-v=\"-1\">&ndash;</td>", f);
            cell_num(f, q->speedup, "%.2f");
            cell_num(f, q->efficiency, "%.2f");
            fputs("</tr>\n", f);
        }
    }
    fputs("</tbody></table>\n", f);
    sp__chart_job job = {.run = r->run, .region = -1, .runs = r->runs, .nruns = r->nruns,
                         .colors = r->colors, .scaling_kind = r->scaling_kind};
    int rc = sp__report_chart(r, f, SP__CHART_SCALING, &job, 1200, 560);
    fputs("</section>\n", f);
    sp_scaling_free(s);
    return rc;
}
