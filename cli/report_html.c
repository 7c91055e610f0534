/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - the report document: head with inline CSS and the table
 * sorting script, then the sections in order (overview, comparison, charts,
 * regions, call tree, ranks, metadata). Everything is inline; the page
 * loads nothing (no fonts, scripts, styles or images from anywhere).
 */
#include "report.h"
#include "timeline_calls.h"

#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_diff.h"
#include "sp_error.h"
#include "sp_figures.h"
#include "sp_waits.h"

static const char css[] =
    ":root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;"
    "--bad:#c62828;--good:#2e7d32;--warn:#b26a00}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:var(--fg);background:var(--bg)}"
    "header{padding:18px 28px;background:var(--panel);border-bottom:1px solid var(--line)}"
    "header h1{margin:0 0 4px;font-size:22px}header p{margin:0;color:var(--muted)}"
    "nav{padding:8px 28px;border-bottom:1px solid var(--line);position:sticky;top:0;"
    "background:var(--bg);z-index:1}nav a{margin-right:16px;color:#0969da;text-decoration:none}"
    "main{padding:0 28px 40px;max-width:1400px}"
    "h2{margin:28px 0 10px;font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px}"
    "h3{font-size:15px;margin:18px 0 6px}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:10px 14px;min-width:140px;"
    "background:var(--panel)}.card .k{color:var(--muted);font-size:12px}"
    ".card .v{font-size:20px;font-weight:600;word-break:break-all}.card .s{color:var(--muted);"
    "font-size:12px}"
    "ul.warnings{padding-left:20px}ul.warnings li{margin:3px 0}li.imbalance b,li.chatty b,"
    "li.mpi b,li.slowcalls b,li.waits b{color:var(--warn)}li.ok{color:var(--good)}"
    ".est{font-style:italic;color:var(--muted)}.lb{font-style:italic}"
    /* A wide table fits the page: headings wrap, long names wrap, and what
     * still does not fit scrolls inside its box, whose scroll bar stays in
     * view (at most 85 % of the window high, headings pinned). At 1400 px
     * the regions table of a multi-rank run lost its last column. */
    "p.rule{margin:8px 0;max-width:1100px}"
    "div.tw{overflow:auto;max-width:100%;max-height:85vh}"
    "table{border-collapse:collapse;margin:6px 0}th,td{padding:4px 10px;border-bottom:1px solid "
    "var(--line);text-align:right;white-space:nowrap}th{background:var(--panel);"
    "position:relative;white-space:normal;vertical-align:bottom}"
    "div.tw th{position:sticky;top:0;z-index:1}"
    "td.name{white-space:normal;overflow-wrap:anywhere;min-width:12ch;max-width:40ch}"
    "td.name,th:first-child{text-align:left}"
    "table.sortable th{cursor:pointer;user-select:none}"
    "table.sortable th[aria-sort=ascending]::after{content:' \\25B2';font-size:10px}"
    "table.sortable th[aria-sort=descending]::after{content:' \\25BC';font-size:10px}"
    "table.kv th{text-align:left}table.kv td{text-align:left;white-space:normal;"
    "word-break:break-all}"
    "td.bad{color:var(--bad);font-weight:600}td.good{color:var(--good);font-weight:600}"
    "td.warn{color:var(--warn)}"
    ".hint,.note{color:var(--muted)}"
    "p.incomplete{border:1px solid var(--bad);border-radius:6px;padding:8px 12px;"
    "background:var(--panel)}p.incomplete b{color:var(--bad)}"
    "figure{margin:12px 0 22px;border:1px solid var(--line);border-radius:6px;padding:6px}"
    "svg.chart{display:block;height:auto}"
    ".tree{font-size:13px}.tree details{margin-left:18px}.tree>details,.tree>.leaf{margin-left:0}"
    ".tree .leaf{margin-left:36px;padding:1px 0}.tree summary{cursor:pointer;padding:1px 0}"
    ".tree .name{font-weight:600}.tree .t{margin-left:8px}.tree .pct,.tree .calls,.tree .own"
    "{color:var(--muted);margin-left:8px}"
    "code{background:var(--panel);padding:0 3px;border-radius:3px}";

/* Sort a table by a clicked column (of its last header row; a row above it
 * may label groups of columns): numbers by data-v (largest first on the
 * first click), text columns (data-type="text") alphabetically. */
static const char js[] =
    "(function(){\n"
    "function sortBy(t,i,th){\n"
    " var text=th.getAttribute('data-type')==='text';\n"
    " var cur=th.getAttribute('aria-sort');\n"
    " var asc=cur?cur!=='ascending':text;\n"
    " var tb=t.tBodies[0];var rows=Array.prototype.slice.call(tb.rows);\n"
    " rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];\n"
    "  var c=text?x.textContent.localeCompare(y.textContent):\n"
    "   (parseFloat(x.getAttribute('data-v'))-parseFloat(y.getAttribute('data-v')));\n"
    "  return asc?c:-c;});\n"
    " rows.forEach(function(r){tb.appendChild(r);});\n"
    " Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h){h.removeAttribute('aria-sort')"
    ";});\n"
    " th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    "}\n"
    "Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(t){\n"
    " Array.prototype.forEach.call(t.tHead.rows[t.tHead.rows.length-1].cells,function(th,i){\n"
    "  th.tabIndex=0;\n"
    "  th.addEventListener('click',function(){sortBy(t,i,th);});\n"
    "  th.addEventListener('keydown',function(e){if(e.key==='Enter')sortBy(t,i,th);});\n"
    " });\n"
    "});\n"
    "})();\n";

/* The region the per-rank charts show: the one whose imbalance costs the
 * most time (slowest rank's own time minus the mean rank's; MPI calls are
 * waits, the effect rather than the cause, so they come last), else the one
 * with the most own time. */
static int32_t imbalance_region(const sp_run *run, const sp_figures *fg)
{
    int32_t best = -1, hot = -1;
    double best_cost = 0;
    for (size_t g = 0; g < run->nregions; g++) {
        if (!run->regions[g].all.calls)
            continue;
        if (hot < 0 || fg->region_own[g].mean_s > fg->region_own[hot].mean_s)
            hot = (int32_t)g;
        double cost = fg->region_own[g].max_s - fg->region_own[g].mean_s;
        if (strncmp(run->region_names[g], "MPI_", 4) == 0)
            cost *= 1e-3;
        if (fg->nranks > 1 && cost > best_cost) {
            best_cost = cost;
            best = (int32_t)g;
        }
    }
    return best >= 0 ? best : hot;
}

/* The region of the duration charts: among regions with enough calls for
 * a histogram (HIST_MIN_CALLS), the most own time per rank; without any,
 * the region with the most calls. */
#define HIST_MIN_CALLS 50
static int32_t durations_region(const sp_run *run, const sp_figures *fg, bool *enough)
{
    int32_t best = -1, most = -1;
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_stats *st = &run->regions[g].all;
        if (!st->calls || sp_region_fig_kind(run, (int32_t)g) == SP_FIG_ESTIMATE)
            continue;
        if (most < 0 || st->calls > run->regions[most].all.calls)
            most = (int32_t)g;
        if (st->calls >= HIST_MIN_CALLS &&
            (best < 0 || fg->region_own[g].mean_s > fg->region_own[best].mean_s))
            best = (int32_t)g;
    }
    *enough = best >= 0;
    return best >= 0 ? best : most;
}

static int charts(sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    sp_figures *own = NULL, *fg = sp__report_figures(r, &own);
    if (!fg)
        return SP_ENOMEM;
    bool enough = false;
    int32_t region = imbalance_region(run, fg), hot = durations_region(run, fg, &enough);
    sp__chart_job job = {.run = run, .region = region, .colors = r->colors};
    /* The timeline draws calls: read from the file (all of a small run,
     * the first window of a long one, and the page says so). */
    sp__timeline_calls tc;
    if (sp__timeline_calls_get(run, r->path, SP__TIMELINE_MAX_CALLS, &tc)) {
        sp_figures_free(own);
        return SP_EIO;
    }
    char note[200];
    job.timeline_run = tc.run;
    if (tc.partial) {
        sp__timeline_calls_note(&tc, note, sizeof note);
        job.timeline_note = note;
        job.timeline_t1_ns = tc.shown_ns;
    }
    fputs("<section id=\"charts\"><h2>Charts</h2>\n<h3>Timeline</h3>\n", f);
    if (tc.partial) {
        fputs("<p class=\"note\">The timeline shows ", f);
        sp__html(f, note);
        fprintf(f, ": a report reads at most %d calls for it; the viewer shows the whole run.</p>\n",
                SP__TIMELINE_MAX_CALLS);
    }
    /* Tall enough for every lane of every rank; if a run has more lanes
     * than that, say which are left out and how to see them. */
    sp__chart_job_keep_timeline(&job); /* fitted, counted and drawn: built once */
    double th = sp__chart_fit_height(SP__CHART_TIMELINE, &job, 1200, 6000);
    size_t nlanes = 0, hidden = sp__chart_timeline_hidden(&job, 1200, th, &nlanes);
    if (hidden)
        fprintf(f,
                "<p class=\"note\">%zu of %zu lanes (rank, thread) did not fit the chart; "
                "its last line names their ranks: write a report of those ranks with "
                "<code>--ranks</code>, or see every lane in the viewer.</p>\n",
                hidden, nlanes);
    else
        fprintf(f,
                "<p class=\"hint\">All %zu rank%s, %zu lane%s (one per rank and "
                "thread).</p>\n",
                fg->nranks, fg->nranks == 1 ? "" : "s", nlanes, nlanes == 1 ? "" : "s");
    int rc = sp__report_chart(r, f, SP__CHART_TIMELINE, &job, 1200, th);
    sp__chart_job_drop_timeline(&job);
    if (!rc) {
        fputs("<h3>Flame graph of the call tree</h3>\n", f);
        rc = sp__report_chart(r, f, SP__CHART_FLAME, &job, 1200,
                              sp__chart_fit_height(SP__CHART_FLAME, &job, 1200, 700));
    }
    if (!rc && fg->nranks > 1) {
        fputs("<h3>Per rank</h3>\n<p class=\"hint\">The region whose imbalance costs the most "
              "time: <code>",
              f);
        sp__html(f, region >= 0 ? run->region_names[region] : "-");
        fputs("</code>.</p>\n", f);
        rc = sp__report_chart(r, f, SP__CHART_RANKS, &job, 1200, 420);
        if (!rc)
            rc = sp__report_chart(r, f, SP__CHART_HEATMAP, &job, 1200,
                                  sp__chart_fit_height(SP__CHART_HEATMAP, &job, 1200, 6000));
    }
    job.region = hot;
    if (!rc) {
        fputs("<h3>Call durations</h3>\n<p class=\"hint\"><code>", f);
        sp__html(f, hot >= 0 ? run->region_names[hot] : "-");
        if (enough)
            fprintf(f,
                    "</code>: the region with the most own time among those with at least %d "
                    "calls.</p>\n",
                    HIST_MIN_CALLS);
        else
            fprintf(f, "</code>: no region has %d calls; this one has the most.</p>\n",
                    HIST_MIN_CALLS);
        rc = sp__report_chart(r, f, SP__CHART_HISTOGRAM, &job, 1200, 420);
    }
    if (!rc)
        rc = sp__report_chart(r, f, SP__CHART_TIMESERIES, &job, 1200, 420);
    fputs("</section>\n", f);
    sp__timeline_calls_free(&tc);
    sp_figures_free(own);
    return rc;
}

int sp__report_write(sp__report *r, FILE *f)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"scope-profiler ",
          f);
    fputs(sp_version(), f);
    fputs("\">\n<title>", f);
    if (r->title)
        sp__html(f, r->title);
    else {
        fputs("scope-profiler report: ", f);
        sp__html(f, r->path);
    }
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", css);
    sp__html(f, r->title ? r->title : "scope-profiler report");
    fputs("</h1><p>", f);
    sp__html(f, r->path);
    if (r->cand) {
        fputs(" compared with ", f);
        sp__html(f, r->cand_path);
    }
    if (r->nruns > 2)
        fprintf(f, " and %zu more runs (scaling study)", r->nruns - 1);
    fputs(" &middot; scope-profiler ", f);
    fputs(sp_version(), f);
    fputs("</p></header>\n<nav><a href=\"#overview\">Overview</a>", f);
    if (r->cand)
        fputs("<a href=\"#compare\">Comparison</a>", f);
    if (r->nruns > 2)
        fputs("<a href=\"#scaling\">Scaling</a>", f);
    /* Why ranks wait: only for a run with MPI messages (and it is not fatal
     * when it cannot be computed: the rest of the report stands). */
    r->waits = NULL;
    if (r->run->mpi && sp_waits_compute_for(r->run, r->path, &r->waits) != 0)
        r->waits = NULL;
    fputs("<a href=\"#charts\">Charts</a><a href=\"#regions\">Regions</a>"
          "<a href=\"#calltree\">Call tree</a>",
          f);
    if (r->waits)
        fputs("<a href=\"#waits\">Waits</a>", f);
    fputs("<a href=\"#ranks\">Ranks</a><a href=\"#metadata\">Metadata</a></nav>\n<main>\n", f);
    r->fg = sp_figures_new(r->run); /* NULL: each section makes its own */
    int rc = sp__report_overview(r, f);
    if (!rc && r->cand)
        rc = sp__report_compare(r, f);
    if (!rc && r->nruns > 2)
        rc = sp__report_scaling(r, f);
    if (!rc)
        rc = charts(r, f);
    if (!rc) {
        sp__report_regions(r, f);
        rc = sp__report_tree(r, f);
    }
    if (!rc) {
        sp__report_waits(r, f);
        sp__report_ranks(r, f);
        sp__report_metadata(r, f);
    }
    fprintf(f, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", js);
    sp_waits_free(r->waits);
    r->waits = NULL;
    sp_figures_free(r->fg);
    r->fg = NULL;
    return rc;
}

sp_figures *sp__report_figures(const sp__report *r, sp_figures **own)
{
    *own = NULL;
    return r->fg ? r->fg : (*own = sp_figures_new(r->run));
}
