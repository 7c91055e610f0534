/* SPDX-License-Identifier: MIT */
/* report_sections.c - overview with warnings, the region table, the
 * per-rank table and the metadata of the report. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_error.h"
#include "sp_figures.h"
#include "sp_sched.h"

static void card(FILE *f, const char *k, const char *v, const char *sub)
{
    fputs("<div class=\"card\"><div class=\"k\">", f);
    sp__html(f, k);
    fputs("</div><div class=\"v\">", f);
    sp__html(f, v);
    fputs("</div>", f);
    if (sub) {
        fputs("<div class=\"s\">", f);
        sp__html(f, sub);
        fputs("</div>", f);
    }
    fputs("</div>\n", f);
}

static size_t regions_with_calls(const sp_run *run)
{
    size_t n = 0;
    for (size_t g = 0; g < run->nregions; g++)
        n += run->regions[g].all.calls > 0;
    return n;
}

int sp__report_overview(sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(run, SP_SORT_OWN, NULL, &ids);
    if (n < 0)
        return sp__error(SP_ENOMEM, "out of memory");
    sp_figures *own = NULL, *fg = sp__report_figures(r, &own);
    if (!fg) {
        free(ids);
        return SP_ENOMEM;
    }
    size_t threads = 0;
    uint64_t calls = sp_run_total_calls(run);
    for (size_t k = 0; k < run->nranks; k++)
        threads += run->ranks[k].excluded ? 0 : run->ranks[k].nthreads;
    char a[64], b[64], c[200], rule[512];
    fputs("<section id=\"overview\"><h2>Overview</h2>\n", f);
    if (sp_run_is_incomplete(run)) { /* killed, or still recording: what is missing */
        char lost[1024];
        fputs("<p class=\"incomplete\"><b>Incomplete run.</b> ", f);
        sp__html(f, sp_run_incomplete_text(run, lost, sizeof lost) + strlen("Incomplete run: "));
        fputs("</p>\n", f);
    }
    fputs("<div class=\"cards\">\n", f);
    /* the headline of a run: its wall-clock span */
    snprintf(c, sizeof c, "first call to last end%s", fg->nranks > 1 ? ", all ranks" : "");
    card(f, "Wall-clock span", fg->has_span ? sp__fmt_dur(fg->span_s, b, sizeof b) : "-", c);
    if (fg->nranks == fg->nranks_file)
        snprintf(a, sizeof a, "%zu", fg->nranks);
    else
        snprintf(a, sizeof a, "%zu of %zu", fg->nranks, fg->nranks_file);
    card(f, "Ranks", a, fg->nranks == fg->nranks_file ? NULL : "a selection (--ranks)");
    snprintf(a, sizeof a, "%zu", regions_with_calls(run));
    card(f, "Regions", a, NULL);
    snprintf(a, sizeof a, "%zu", threads);
    card(f, "Threads", a, NULL);
    snprintf(a, sizeof a, "%" PRIu64, calls);
    card(f, "Calls", a, NULL);
    if (n > 0 && run->regions[ids[0]].all.calls) {
        double own_all = 0;
        for (size_t g = 0; g < run->nregions; g++)
            own_all += run->regions[g].all.own_s;
        const sp_stats *st = &run->regions[ids[0]].all;
        if (fg->two_columns)
            snprintf(c, sizeof c, "%s own time per rank (%.1f%% of all own time)",
                     sp__fmt_dur(fg->region_own[ids[0]].mean_s, b, sizeof b),
                     own_all > 0 ? 100 * st->own_s / own_all : 0);
        else
            snprintf(c, sizeof c, "%s own time (%.1f%% of all own time)",
                     sp__fmt_dur(st->own_s, b, sizeof b),
                     own_all > 0 ? 100 * st->own_s / own_all : 0);
        card(f, "Hot spot (own time)", run->region_names[ids[0]], c);
    } else {
        card(f, "Hot spot (own time)", "-", "no calls recorded");
    }
    /* How disturbed the run was: its threads' waits for a CPU. */
    sp_sched_summary sched;
    sp_sched_run_summary(run, &sched, NULL);
    if (sched.measured) {
        snprintf(a, sizeof a, "%.0f %%", 100 * sched.wait_share);
        card(f, "Waited for a CPU", a, sp_sched_run_text(run, c, sizeof c));
    } else {
        card(f, "Waited for a CPU", "-", "not measured (file of an older build)");
    }
    fputs("</div>\n", f);
    if (fg->two_columns) {
        fputs("<p class=\"rule\">", f);
        sp__html(f, sp_figures_rule_text(fg, rule, sizeof rule));
        fprintf(f,
                " A sum over ranks appears only where it says &ldquo;sum over %zu "
                "ranks&rdquo;.</p>\n",
                fg->nranks);
    }
    if (fg->nsampled) {
        fprintf(f,
                "<p class=\"rule\"><span class=\"est\">~</span> marks estimates: %zu "
                "region%s recorded by call-stack sampling",
                fg->nsampled, fg->nsampled == 1 ? "" : "s");
        if (fg->sample_period_s > 0)
            fprintf(f, " (one sample every %s of CPU time)",
                    sp__fmt_dur(fg->sample_period_s, b, sizeof b));
        fputs("; their per-call min, max, std and percentiles are not shown.</p>\n", f);
    }
    if (fg->nthrottled)
        fprintf(f,
                "<p class=\"rule\">&ge; marks lower bounds: tracing stopped for %zu very "
                "short, very frequent function%s.</p>\n",
                fg->nthrottled, fg->nthrottled == 1 ? "" : "s");
    int rc = sp__report_warnings(r, f);
    fputs("</section>\n", f);
    sp_figures_free(own);
    free(ids);
    return rc;
}


/* A duration cell of a region of kind k: "~12.3 ms" (estimate, italic, with
 * a tooltip) or ">=12.3 ms" (lower bound). */
static void fig_cell(FILE *f, double s, sp_fig_kind k)
{
    char b[32], t[40];
    sp__fmt_dur(s, b, sizeof b);
    if (k == SP_FIG_EXACT) {
        sp__td_num(f, s, b);
        return;
    }
    snprintf(t, sizeof t, "%s%s", k == SP_FIG_ESTIMATE ? "~" : "\xe2\x89\xa5", b);
    fprintf(f, "<td data-v=\"%.12g\" class=\"%s\" title=\"%s\">", s,
            k == SP_FIG_ESTIMATE ? "est" : "lb",
            k == SP_FIG_ESTIMATE ? "estimated from call-stack samples"
                                 : "a lower bound: tracing was throttled");
    sp__html(f, t);
    fputs("</td>", f);
}

static void calls_cell(FILE *f, double v, const char *text, sp_fig_kind k)
{
    char t[64];
    snprintf(t, sizeof t, "%s%s",
             k == SP_FIG_ESTIMATE      ? "~"
             : k == SP_FIG_LOWER_BOUND ? "\xe2\x89\xa5"
                                       : "",
             text);
    if (k == SP_FIG_EXACT)
        fprintf(f, "<td data-v=\"%.12g\">", v);
    else
        fprintf(f, "<td data-v=\"%.12g\" class=\"%s\" title=\"%s\">", v,
                k == SP_FIG_ESTIMATE ? "est" : "lb",
                k == SP_FIG_ESTIMATE ? "estimated from call-stack samples"
                                     : "a lower bound: tracing was throttled");
    sp__html(f, t);
    fputs("</td>", f);
}

void sp__report_regions(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(run, SP_SORT_TOTAL, NULL, &ids);
    sp_figures *own = NULL, *fg = sp__report_figures(r, &own);
    if (n < 0 || !fg) {
        free(ids);
        sp_figures_free(own);
        return;
    }
    char rule[512];
    bool two = fg->two_columns;
    fputs("<section id=\"regions\"><h2>Regions</h2>\n<p class=\"hint\">", f);
    if (two) {
        sp__html(f, sp_figures_rule_text(fg, rule, sizeof rule));
        fprintf(f,
                " Calls, Total and Own are per rank (Total: the mean, Slowest: the largest "
                "rank's); Mean, Min, Max, Std and the percentiles are of one call, over every "
                "call. Imbalance = max / mean of the per-rank totals. The last column is the "
                "sum over %zu ranks.",
                fg->nranks);
    } else {
        fputs("Own = exclusive time (without the calls nested inside); Mean, Min, Max, Std and "
              "the percentiles are of one call.",
              f);
    }
    fputs(" Click a column heading to sort.</p>\n<div class=\"tw\"><table class=\"sortable\" "
          "id=\"region-table\">"
          "<thead><tr><th data-type=\"text\">Region</th>",
          f);
    if (two)
        fputs("<th>Calls/rank</th><th>Total/rank</th><th>Slowest rank</th><th>Own/rank</th>", f);
    else
        fputs("<th>Calls</th><th>Total</th><th>Own</th>", f);
    fputs("<th>Mean</th><th>Min</th><th>Max</th><th>Std</th><th>p50</th><th>p95</th><th>p99</th>"
          "<th>Imbalance</th>",
          f);
    if (two)
        fprintf(f, "<th>Total, sum over %zu ranks</th>", fg->nranks);
    fputs("</tr></thead>\n<tbody>\n", f);
    long shown = 0, more = 0;
    for (long i = 0; i < n; i++) {
        int32_t g = ids[i];
        const sp_stats *st = &run->regions[g].all;
        if (!st->calls)
            continue;
        if (shown == SP__REPORT_MAX_REGION_ROWS) {
            more++;
            continue;
        }
        shown++;
        sp_fig_kind k = sp_region_fig_kind(run, g);
        double imb = sp_region_imbalance(run, g);
        fputs(k == SP_FIG_ESTIMATE ? "<tr class=\"est-row\"><td class=\"name\">"
                                   : "<tr><td class=\"name\">",
              f);
        sp__html(f, run->region_names[g]);
        fputs("</td>", f);
        char b[48];
        if (two) {
            sp_fig_format_calls_range(&fg->region_calls[g], SP_FIG_EXACT, b, sizeof b);
            calls_cell(f, fg->region_calls[g].mean, b, k);
            fig_cell(f, fg->region_total[g].mean_s, k);
            fig_cell(f, fg->region_total[g].max_s, k);
            fig_cell(f, fg->region_own[g].mean_s, k);
        } else {
            snprintf(b, sizeof b, "%" PRIu64, st->calls);
            calls_cell(f, (double)st->calls, b, k);
            fig_cell(f, st->total_s, k);
            fig_cell(f, st->own_s, k);
        }
        fig_cell(f, st->mean_s, k);
        const double per_call[6] = {st->min_s, st->max_s, st->std_s,
                                    st->p50_s, st->p95_s, st->p99_s};
        for (int c = 0; c < 6; c++) {
            if (k == SP_FIG_ESTIMATE) /* resolution: the sampling period */
                fputs("<td data-v=\"0\" class=\"est\" title=\"not shown for sampled regions: "
                      "the resolution is the sampling period\">-</td>",
                      f);
            else
                sp__td_dur(f, per_call[c]);
        }
        snprintf(b, sizeof b, "%.2f", imb);
        fprintf(f, "<td data-v=\"%.6f\"%s>%s</td>", imb,
                fg->nranks > 1 && imb > SP__REPORT_IMBALANCE_WARN ? " class=\"bad\"" : "", b);
        if (two)
            fig_cell(f, fg->region_total[g].sum_s, k);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (more)
        fprintf(f,
                "<p class=\"note\">&hellip; %ld more regions with less time are not shown (the "
                "table shows the %d with the most); <code>scope-profiler inspect</code> or "
                "<code>export csv</code> lists every region.</p>\n",
                more, SP__REPORT_MAX_REGION_ROWS);
    fputs("</section>\n", f);
    sp_figures_free(own);
    free(ids);
}

void sp__report_ranks(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    int64_t t0 = 0, t1 = 0;
    sp_run_time_span(run, &t0, &t1);
    fputs("<section id=\"ranks\"><h2>Ranks</h2>\n"
          "<p class=\"hint\">Busy = the summed duration of the top-level calls of every thread. "
          "First / last: run time of the rank's first call and last end.</p>\n"
          "<table class=\"sortable\"><thead><tr><th>Rank</th><th data-type=\"text\">Host</th>"
          "<th>Threads</th><th>Calls</th><th>Busy</th><th>First call</th><th>Last end</th>"
          "<th>Clock offset</th></tr></thead>\n<tbody>\n",
          f);
    size_t left_out = 0;
    for (size_t k = 0; k < run->nranks; k++) {
        const sp_rank_data *rk = &run->ranks[k];
        if (rk->excluded) { /* not selected (--ranks): counted below the table */
            left_out++;
            continue;
        }
        /* From the aggregates: busy is the top-level paths' inclusive
         * time, first and last the rank's span (clocks aligned). */
        const sp_agg_rank *o = run->agg && k < run->agg->nranks ? &run->agg->ranks[k] : NULL;
        int64_t busy = 0;
        for (size_t i = 0; o && i < o->nnode_cells; i++) {
            int32_t node = o->node_cells[i].key;
            if (node > 0 && (size_t)node < o->nnodes && o->nodes[node].parent == 0)
                busy += o->node_cells[i].incl_ns;
        }
        uint64_t ncalls = sp_run_rank_calls(run, k);
        const char *host = sp_kvlist_get(&rk->meta, "hostname");
        if (!host)
            host = sp_kvlist_get(&run->meta, "hostname");
        char b[32];
        fprintf(f, "<tr><td data-v=\"%zu\">%zu</td><td>", k, k);
        sp__html(f, host ? host : "-");
        fprintf(f, "</td><td data-v=\"%zu\">%zu</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>",
                rk->nthreads, rk->nthreads, ncalls, ncalls);
        sp__td_dur(f, (double)busy * 1e-9);
        if (o && o->has_span) {
            sp__td_dur(f, (double)(o->first_ns - t0) * 1e-9);
            sp__td_dur(f, (double)(o->last_ns - t0) * 1e-9);
        } else {
            fputs("<td data-v=\"0\">-</td><td data-v=\"0\">-</td>", f);
        }
        sp__td_num(f, (double)rk->clock_offset_ns * 1e-9,
                 sp__fmt_dur((double)rk->clock_offset_ns * 1e-9, b, sizeof b));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (left_out)
        fprintf(f,
                "<p class=\"note\">%zu of %zu ranks left out by the rank selection "
                "(--ranks); every figure of this report covers the %zu shown.</p>\n",
                left_out, run->nranks, run->nranks - left_out);
    fputs("</section>\n", f);
}

static void kv_row(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th>", f);
    sp__html(f, k);
    fputs("</th><td>", f);
    sp__html(f, v);
    fputs("</td></tr>\n", f);
}

void sp__report_metadata(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    char b[32];
    fputs("<section id=\"metadata\"><h2>Metadata</h2>\n<table class=\"kv\"><tbody>\n", f);
    kv_row(f, "file", r->path);
    kv_row(f, "layout", run->layout ? run->layout : "-");
    snprintf(b, sizeof b, "%d", run->schema_version);
    kv_row(f, "schema version", b);
    for (size_t i = 0; i < run->meta.n; i++)
        kv_row(f, run->meta.items[i].key, run->meta.items[i].value);
    fputs("</tbody></table></section>\n", f);
}
