/* SPDX-License-Identifier: MIT */
/* report_sections.c - overview with warnings, the region table, the
 * per-rank table and the metadata of the report. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_error.h"

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

/* The slowest rank of a region (by total). */
static size_t slowest_rank(const sp_run *run, size_t g)
{
    size_t best = 0;
    for (size_t r = 1; r < run->nranks; r++)
        if (run->regions[g].per_rank[r].total_s > run->regions[g].per_rank[best].total_s)
            best = r;
    return best;
}

static void warnings(const sp_run *run, const int32_t *ids, long n, FILE *f)
{
    size_t shown = 0, more = 0;
    fputs("<h3>Warnings</h3>\n<ul class=\"warnings\">\n", f);
    for (long i = 0; run->nranks > 1 && i < n; i++) {
        size_t g = (size_t)ids[i];
        double imb = sp_region_imbalance(run, ids[i]);
        if (!run->regions[g].all.calls || imb <= SP__REPORT_IMBALANCE_WARN)
            continue;
        if (shown >= 10) {
            more++;
            continue;
        }
        char t[32];
        fputs("<li class=\"imbalance\"><b>Imbalance</b> in <code>", f);
        sp__html(f, run->region_names[g]);
        fprintf(f,
                "</code>: %.2f&times; (max / mean of the per-rank totals over %zu ranks; "
                "slowest rank %zu with %s)</li>\n",
                imb, run->nranks, slowest_rank(run, g),
                sp__fmt_dur(run->regions[g].per_rank[slowest_rank(run, g)].total_s, t, sizeof t));
        shown++;
    }
    if (more)
        fprintf(f, "<li>&hellip; and %zu more imbalanced regions (see the region table)</li>\n",
                more);
    for (long i = 0; i < n; i++) {
        const sp_stats *st = &run->regions[ids[i]].all;
        if (st->calls <= SP__REPORT_CHATTY_CALLS || st->mean_s >= SP__REPORT_CHATTY_MEAN_S)
            continue;
        char t[32];
        fputs("<li class=\"chatty\"><b>Chatty region</b> <code>", f);
        sp__html(f, run->region_names[ids[i]]);
        fprintf(f,
                "</code>: %" PRIu64 " calls with a mean of %s; the cost of recording each "
                "call is of the same order, so consider a coarser region</li>\n",
                st->calls, sp__fmt_dur(st->mean_s, t, sizeof t));
        shown++;
    }
    if (!shown && !more)
        fputs("<li class=\"ok\">None: no region above an imbalance of 1.2, no region with more "
              "than 100000 calls under 1 &micro;s each.</li>\n",
              f);
    fputs("</ul>\n", f);
}

int sp__report_overview(sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(run, SP_SORT_OWN, NULL, &ids);
    if (n < 0)
        return sp__error(SP_ENOMEM, "out of memory");
    size_t threads = 0, calls = 0;
    for (size_t k = 0; k < run->nranks; k++) {
        threads += run->ranks[k].nthreads;
        calls += run->ranks[k].ncalls;
    }
    int64_t t0 = 0, t1 = 0;
    bool has_span = sp_run_time_span(run, &t0, &t1) == 0;
    char a[64], b[64], c[160];
    fputs("<section id=\"overview\"><h2>Overview</h2>\n<div class=\"cards\">\n", f);
    snprintf(a, sizeof a, "%zu", regions_with_calls(run));
    card(f, "Regions", a, NULL);
    snprintf(a, sizeof a, "%zu", run->nranks);
    card(f, "Ranks", a, NULL);
    snprintf(a, sizeof a, "%zu", threads);
    card(f, "Threads", a, NULL);
    snprintf(a, sizeof a, "%zu", calls);
    card(f, "Calls", a, NULL);
    card(f, "Time span", has_span ? sp__fmt_dur((double)(t1 - t0) * 1e-9, b, sizeof b) : "-",
         "first call to last end, all ranks");
    if (n > 0 && run->regions[ids[0]].all.calls) {
        double own_all = 0;
        for (size_t g = 0; g < run->nregions; g++)
            own_all += run->regions[g].all.own_s;
        const sp_stats *st = &run->regions[ids[0]].all;
        snprintf(c, sizeof c, "%s own time (%.1f%% of all own time)",
                 sp__fmt_dur(st->own_s, b, sizeof b), own_all > 0 ? 100 * st->own_s / own_all : 0);
        card(f, "Hot spot (own time)", run->region_names[ids[0]], c);
    } else {
        card(f, "Hot spot (own time)", "-", "no calls recorded");
    }
    fputs("</div>\n", f);
    warnings(run, ids, n, f);
    fputs("</section>\n", f);
    free(ids);
    return 0;
}

static void num_cell(FILE *f, double v, const char *text)
{
    fprintf(f, "<td data-v=\"%.12g\">", v);
    sp__html(f, text);
    fputs("</td>", f);
}

static void dur_cell(FILE *f, double s)
{
    char b[32];
    num_cell(f, s, sp__fmt_dur(s, b, sizeof b));
}

void sp__report_regions(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(run, SP_SORT_TOTAL, NULL, &ids);
    fputs("<section id=\"regions\"><h2>Regions</h2>\n"
          "<p class=\"hint\">All ranks and threads. Click a column heading to sort. Own = "
          "exclusive time (without the calls nested inside). Imbalance = max / mean of the "
          "per-rank totals.</p>\n"
          "<table class=\"sortable\" id=\"region-table\"><thead><tr>"
          "<th data-type=\"text\">Region</th><th>Calls</th><th>Total</th><th>Own</th>"
          "<th>Mean</th><th>Min</th><th>Max</th><th>Std</th><th>p50</th><th>p95</th>"
          "<th>p99</th><th>Imbalance</th></tr></thead>\n<tbody>\n",
          f);
    for (long i = 0; i < n; i++) {
        const sp_stats *st = &run->regions[ids[i]].all;
        if (!st->calls)
            continue;
        double imb = sp_region_imbalance(run, ids[i]);
        fputs("<tr><td class=\"name\">", f);
        sp__html(f, run->region_names[ids[i]]);
        fputs("</td>", f);
        char b[32];
        snprintf(b, sizeof b, "%" PRIu64, st->calls);
        num_cell(f, (double)st->calls, b);
        dur_cell(f, st->total_s);
        dur_cell(f, st->own_s);
        dur_cell(f, st->mean_s);
        dur_cell(f, st->min_s);
        dur_cell(f, st->max_s);
        dur_cell(f, st->std_s);
        dur_cell(f, st->p50_s);
        dur_cell(f, st->p95_s);
        dur_cell(f, st->p99_s);
        snprintf(b, sizeof b, "%.2f", imb);
        fprintf(f, "<td data-v=\"%.6f\"%s>%s</td></tr>\n", imb,
                run->nranks > 1 && imb > SP__REPORT_IMBALANCE_WARN ? " class=\"bad\"" : "", b);
    }
    fputs("</tbody></table></section>\n", f);
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
    for (size_t k = 0; k < run->nranks; k++) {
        const sp_rank_data *rk = &run->ranks[k];
        int64_t busy = 0, first = INT64_MAX, last = INT64_MIN;
        for (size_t i = 0; i < rk->ncalls; i++) {
            if (rk->depth && rk->depth[i] == 0)
                busy += rk->end_ns[i] - rk->start_ns[i];
            first = rk->start_ns[i] < first ? rk->start_ns[i] : first;
            last = rk->end_ns[i] > last ? rk->end_ns[i] : last;
        }
        const char *host = sp_kvlist_get(&rk->meta, "hostname");
        if (!host)
            host = sp_kvlist_get(&run->meta, "hostname");
        char b[32];
        fprintf(f, "<tr><td data-v=\"%zu\">%zu</td><td>", k, k);
        sp__html(f, host ? host : "-");
        fprintf(f, "</td><td data-v=\"%zu\">%zu</td><td data-v=\"%zu\">%zu</td>", rk->nthreads,
                rk->nthreads, rk->ncalls, rk->ncalls);
        dur_cell(f, (double)busy * 1e-9);
        if (rk->ncalls) {
            dur_cell(f, (double)(first + rk->clock_offset_ns - t0) * 1e-9);
            dur_cell(f, (double)(last + rk->clock_offset_ns - t0) * 1e-9);
        } else {
            fputs("<td data-v=\"0\">-</td><td data-v=\"0\">-</td>", f);
        }
        num_cell(f, (double)rk->clock_offset_ns * 1e-9,
                 sp__fmt_dur((double)rk->clock_offset_ns * 1e-9, b, sizeof b));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></section>\n", f);
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
