/* SPDX-License-Identifier: MIT */
/*
 * report_warnings.c - the report's warnings, ranked by their time impact:
 * how many seconds per rank (under the rank rule, sp_figures.h) each finding
 * accounts for, largest first, each with the number that justifies it.
 *
 * - Time in MPI calls (regions MPI_* recorded with use_mpi_regions): impact =
 *   the call's own time per rank (the mean over the ranks); said with its
 *   share of the wall-clock span and the slowest rank.
 * - Imbalance weighted by time (every other region): impact = the slowest
 *   rank's own time minus the mean rank's, the time the other ranks wait for
 *   it at the next synchronisation; said with max / mean.
 * - Regions dominated by a few slow calls: the slowest 1 % of the calls (at
 *   least one; regions of >= FEW_MIN_CALLS calls) take >= half of the time;
 *   impact = that time per rank.
 * - Chatty regions (more than SP__REPORT_CHATTY_CALLS calls under 1 us):
 *   impact = the calls per rank times the cost of recording a call.
 * - Waiting (runs with MPI messages): the largest waits by pattern, rank and
 *   call path, with the rank waited for and the cause (report_waits.c);
 *   impact = the wait over the ranks.
 * Findings under MIN_SHARE of the span are left out; at most MAX_SHOWN are
 * listed, the count of the rest follows.
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_figures.h"

#define MAX_SHOWN 10
#define MIN_SHARE 0.005     /* of the wall-clock span */
#define FEW_MIN_CALLS 20    /* "a few slow calls" needs enough calls */
#define FEW_SHARE 0.5       /* ... and the slowest 1 % to take half the time */
#define RECORD_COST_S 20e-9 /* per recorded call (README: ~21 ns) */

typedef struct warning {
    double impact_s; /* per rank */
    char *html;
} warning;

typedef struct warnings {
    warning *w;
    size_t n, cap;
    bool oom;
} warnings;

/* Append a finding; html is built with open_memstream by the caller. */
static void add(warnings *ws, double impact_s, char *html)
{
    if (!html) {
        ws->oom = true;
        return;
    }
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? 2 * ws->cap : 16;
        warning *w = realloc(ws->w, cap * sizeof *w);
        if (!w) {
            free(html);
            ws->oom = true;
            return;
        }
        ws->w = w;
        ws->cap = cap;
    }
    ws->w[ws->n++] = (warning){impact_s, html};
}

static int cmp_impact(const void *pa, const void *pb)
{
    const warning *a = pa, *b = pb;
    return a->impact_s > b->impact_s ? -1 : a->impact_s < b->impact_s;
}

/* A string builder on a memory stream. */
typedef struct sb {
    char *buf;
    size_t len;
    FILE *f;
} sb;

static FILE *sb_open(sb *s)
{
    s->buf = NULL;
    s->len = 0;
    s->f = open_memstream(&s->buf, &s->len);
    return s->f;
}

static char *sb_close(sb *s)
{
    if (!s->f)
        return NULL;
    if (fclose(s->f) != 0) {
        free(s->buf);
        return NULL;
    }
    return s->buf;
}

static bool is_mpi(const char *name)
{
    return strncmp(name, "MPI_", 4) == 0;
}

/* The considered rank with the largest own time of region g. */
static size_t slowest_own_rank(const sp_run *run, size_t g)
{
    size_t best = 0;
    bool found = false;
    for (size_t r = 0; r < run->nranks; r++) {
        if (run->ranks[r].excluded)
            continue;
        if (!found || run->regions[g].per_rank[r].own_s > run->regions[g].per_rank[best].own_s)
            best = r;
        found = true;
    }
    return best;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static void mpi_and_imbalance(const sp_run *run, const sp_figures *fg, warnings *ws)
{
    char a[32], b[32], c[32];
    for (size_t g = 0; g < run->nregions; g++) {
        if (!run->regions[g].all.calls || sp_region_fig_kind(run, (int32_t)g) == SP_FIG_ESTIMATE)
            continue;
        const char *name = run->region_names[g];
        const sp_fig *own = &fg->region_own[g];
        size_t slow = slowest_own_rank(run, g);
        sb s;
        if (is_mpi(name)) {
            double impact = own->mean_s;
            if (impact < MIN_SHARE * fg->span_s || !sb_open(&s))
                continue;
            fputs("<li class=\"mpi\"><b>Time in MPI</b> <code>", s.f);
            sp__html(s.f, name);
            fprintf(s.f, "</code>: %s per rank, %.1f%% of the %s wall-clock span",
                    sp__fmt_dur(impact, a, sizeof a), pct(impact, fg->span_s),
                    sp__fmt_dur(fg->span_s, b, sizeof b));
            if (fg->nranks > 1)
                fprintf(s.f, " (slowest rank %zu: %s)", slow, sp__fmt_dur(own->max_s, c, sizeof c));
            fputs("; a rank waiting here could not compute: look at the imbalance of the work "
                  "before the call</li>\n",
                  s.f);
            add(ws, impact, sb_close(&s));
        } else if (fg->nranks > 1 && own->mean_s > 0) {
            double impact = own->max_s - own->mean_s, ratio = own->max_s / own->mean_s;
            if (impact < MIN_SHARE * fg->span_s || ratio <= 1.05 || !sb_open(&s))
                continue;
            fputs("<li class=\"imbalance\"><b>Imbalance</b> in <code>", s.f);
            sp__html(s.f, name);
            fprintf(s.f,
                    "</code>: the slowest rank (%zu) spends %s in it, the mean rank %s: %s per "
                    "rank (%.1f%% of the wall-clock span) waiting for it (max / mean of the own "
                    "time %.2f&times;)</li>\n",
                    slow, sp__fmt_dur(own->max_s, a, sizeof a),
                    sp__fmt_dur(own->mean_s, b, sizeof b), sp__fmt_dur(impact, c, sizeof c),
                    pct(impact, fg->span_s), ratio);
            add(ws, impact, sb_close(&s));
        }
    }
}

/* The sum of the k largest values of h (ns), from its buckets (within
 * 0.8 %; the largest value is exact). */
static double top_sum_ns(const sp_hist *h, uint64_t k)
{
    uint32_t idx[SP_HIST_NBUCKETS];
    uint64_t cnt[SP_HIST_NBUCKETS];
    size_t n = 0, it = 0;
    while (n < SP_HIST_NBUCKETS && sp_hist_next(h, &it, &idx[n], &cnt[n]))
        n++;
    double sum = 0;
    while (n-- && k) {
        uint64_t take = cnt[n] < k ? cnt[n] : k;
        sum += (double)take * (double)sp_hist_bucket_value(h, idx[n]);
        k -= take;
    }
    return sum;
}

/* Regions whose slowest 1 % of calls take at least half of the time (from
 * the histograms of the call durations: within 0.8 %). */
static int few_slow_calls(const sp_run *run, const sp_figures *fg, warnings *ws)
{
    char a[32], b[32], c[32], d[32];
    for (size_t g = 0; g < run->nregions; g++) {
        uint64_t n = run->regions[g].all.calls;
        if (n < FEW_MIN_CALLS || sp_region_fig_kind(run, (int32_t)g) == SP_FIG_ESTIMATE)
            continue;
        sp_hist h;
        if (sp_agg_region_hist(run->agg, (int32_t)g, -1, false, &h))
            return SP_ENOMEM;
        uint64_t k = n / 100 ? n / 100 : 1;
        double top = top_sum_ns(&h, k) * 1e-9, all = run->regions[g].all.mean_s * (double)n;
        double median = sp_hist_quantile(&h, 0.5) * 1e-9, slowest = (double)h.max * 1e-9;
        sp_hist_free(&h);
        double impact = top / (double)(fg->nranks ? fg->nranks : 1);
        if (all <= 0 || top < FEW_SHARE * all || impact < MIN_SHARE * fg->span_s)
            continue;
        sb s;
        if (!sb_open(&s))
            break;
        fputs("<li class=\"slowcalls\"><b>A few slow calls</b> in <code>", s.f);
        sp__html(s.f, run->region_names[g]);
        fprintf(s.f,
                "</code>: the slowest %" PRIu64 " of %" PRIu64 " calls (%.1f%%) take %.0f%% of its "
                "time (%s of %s, sums over %zu rank%s); the median call takes %s, the slowest "
                "%s</li>\n",
                k, n, 100.0 * (double)k / (double)n, pct(top, all), sp__fmt_dur(top, a, sizeof a),
                sp__fmt_dur(all, b, sizeof b), fg->nranks, fg->nranks == 1 ? "" : "s",
                sp__fmt_dur(median, c, sizeof c), sp__fmt_dur(slowest, d, sizeof d));
        add(ws, impact, sb_close(&s));
    }
    return 0;
}

static void chatty(const sp_run *run, const sp_figures *fg, warnings *ws)
{
    char a[32];
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_stats *st = &run->regions[g].all;
        if (st->calls <= SP__REPORT_CHATTY_CALLS || st->mean_s >= SP__REPORT_CHATTY_MEAN_S)
            continue;
        sb s;
        if (!sb_open(&s))
            return;
        fputs("<li class=\"chatty\"><b>Chatty region</b> <code>", s.f);
        sp__html(s.f, run->region_names[g]);
        fprintf(s.f,
                "</code>: %" PRIu64 " calls with a mean of %s; the cost of recording each "
                "call is of the same order, so consider a coarser region</li>\n",
                st->calls, sp__fmt_dur(st->mean_s, a, sizeof a));
        add(ws, fg->region_calls[g].mean * RECORD_COST_S, sb_close(&s));
    }
}

static void add_finding(void *arg, double impact_s, char *html) { add(arg, impact_s, html); }

int sp__report_warnings(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    sp_figures *own = NULL, *fg = sp__report_figures(r, &own);
    if (!fg)
        return SP_ENOMEM;
    warnings ws = {0};
    mpi_and_imbalance(run, fg, &ws);
    sp__report_waits_findings(r, 3, add_finding, &ws);
    int rc = few_slow_calls(run, fg, &ws);
    chatty(run, fg, &ws);
    if (ws.oom && !rc)
        rc = sp__error(SP_ENOMEM, "out of memory writing the warnings");
    if (ws.n) /* qsort with a NULL array is undefined even for 0 elements */
        qsort(ws.w, ws.n, sizeof *ws.w, cmp_impact);
    fputs("<h3>Warnings</h3>\n<p class=\"hint\">Ranked by time impact: the time per rank each "
          "finding accounts for, largest first.</p>\n<ul class=\"warnings\">\n",
          f);
    for (size_t i = 0; i < ws.n && i < MAX_SHOWN; i++)
        fputs(ws.w[i].html, f);
    if (ws.n > MAX_SHOWN)
        fprintf(f, "<li>&hellip; and %zu more findings with less impact</li>\n", ws.n - MAX_SHOWN);
    if (ws.n == 0)
        fputs("<li class=\"ok\">None: no MPI call, imbalance or slow call accounts for 0.5% of "
              "the wall-clock span, no region with more than 100000 calls under 1 &micro;s "
              "each.</li>\n",
              f);
    fputs("</ul>\n", f);
    for (size_t i = 0; i < ws.n; i++)
        free(ws.w[i].html);
    free(ws.w);
    sp_figures_free(own);
    return rc;
}
