/* SPDX-License-Identifier: MIT */
/* timeline_calls.c - calls of a run (or of its first window) read from its
 * file for the timeline chart (see timeline_calls.h). */
#include "timeline_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_stream.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_error.h"
#include "sp_run_read.h"

static bool has_calls(const sp_run *run)
{
    for (size_t r = 0; r < run->nranks; r++)
        if (run->ranks[r].ncalls)
            return true;
    return false;
}

/* Calls of one rank into growing columns. */
typedef struct fill {
    sp_rank_data *rk;
    size_t cap;
} fill;

static int add_call(void *ud, const sp__call *c)
{
    fill *f = ud;
    sp_rank_data *rk = f->rk;
    if (rk->ncalls == f->cap) {
        size_t n = f->cap ? 2 * f->cap : 1024;
        int64_t *s = realloc(rk->start_ns, n * sizeof *s);
        if (s)
            rk->start_ns = s;
        int64_t *e = s ? realloc(rk->end_ns, n * sizeof *e) : NULL;
        if (e)
            rk->end_ns = e;
        int32_t *g = e ? realloc(rk->region, n * sizeof *g) : NULL;
        if (g)
            rk->region = g;
        int32_t *t = g ? realloc(rk->thread, n * sizeof *t) : NULL;
        if (t)
            rk->thread = t;
        int64_t *p = t ? realloc(rk->parent, n * sizeof *p) : NULL;
        if (!p)
            return SP_ENOMEM;
        rk->parent = p;
        f->cap = n;
    }
    size_t i = rk->ncalls++;
    rk->start_ns[i] = c->start_ns;
    rk->end_ns[i] = c->end_ns;
    rk->region[i] = c->region;
    rk->thread[i] = c->thread;
    rk->parent[i] = c->parent;
    return 0;
}

/* Calls of every rank in [t0, t1] (whole run: window false). */
static uint64_t estimate(sp_event_source *src, const sp_run *run, const sp__call_sel *sel)
{
    uint64_t n = 0;
    for (size_t r = 0; r < run->nranks; r++)
        n += sp__stream_estimate(src, run->agg, r, sel);
    return n;
}

int sp__timeline_calls_get(const sp_run *run, const char *path, uint64_t max_calls,
                           sp__timeline_calls *out)
{
    memset(out, 0, sizeof *out);
    out->run = run;
    out->total = sp_run_total_calls(run);
    out->shown = out->total;
    int64_t t0 = 0, t1 = 0;
    if (sp_run_time_span(run, &t0, &t1) == 0)
        out->span_s = out->shown_s = (double)(t1 - t0) * 1e-9;
    if (has_calls(run) || !run->agg || out->total == 0)
        return 0;
    int rc = 0;
    sp_event_source *src = sp_run_source_open(path, &rc);
    if (!src)
        return rc ? rc : sp__error(SP_EIO, "cannot read '%s' again", path);
    sp__call_sel sel;
    sp__call_sel_all(&sel);
    if (out->total > max_calls) {
        /* The longest window from the first call that holds about
         * max_calls (the estimate bounds the calls from above). */
        sel.window = true;
        sel.t0_ns = t0;
        int64_t lo = t0, hi = t1;
        for (int i = 0; i < 48 && hi - lo > 1; i++) {
            sel.t1_ns = lo + (hi - lo) / 2;
            if (estimate(src, run, &sel) <= max_calls)
                lo = sel.t1_ns;
            else
                hi = sel.t1_ns;
        }
        sel.t1_ns = lo;
        out->partial = true;
        out->shown_s = (double)(lo - t0) * 1e-9;
        out->shown_ns = lo - t0;
    }
    sp_run *own = sp_run_copy_header(run); /* a header without calls */
    rc = own ? 0 : SP_ENOMEM;
    for (size_t r = 0; rc == 0 && r < run->nranks; r++) {
        fill f = {&own->ranks[r], 0};
        rc = sp__stream_rank_calls(src, run->agg, r, &sel, add_call, &f);
    }
    sp_event_source_free(src);
    out->shown = 0;
    for (size_t r = 0; rc == 0 && r < own->nranks; r++) {
        out->shown += own->ranks[r].ncalls;
        rc = sp_rank_sort_calls(&own->ranks[r]);
    }
    /* Not analyzed: the timeline makes its own pass over the calls (for its
     * lanes), and the charts colour them with the map of the whole run
     * (sp__chart_job.colors); a pass here for statistics nobody reads took
     * a fifth of a report's time on 10^6 regions. */
    if (rc) {
        sp_run_free(own);
        return rc == SP_ENOMEM ? sp__error(SP_ENOMEM, "out of memory reading the timeline's calls")
                               : rc;
    }
    out->own = own;
    out->run = own;
    return 0;
}

void sp__timeline_calls_free(sp__timeline_calls *t)
{
    sp_run_free(t->own);
    memset(t, 0, sizeof *t);
}

static void dur(double s, char *buf, size_t n)
{
    if (s >= 1)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else
        snprintf(buf, n, "%.3g us", s * 1e6);
}

void sp__timeline_calls_note(const sp__timeline_calls *t, char *buf, size_t n)
{
    char a[32], b[32];
    dur(t->shown_s, a, sizeof a);
    dur(t->span_s, b, sizeof b);
    snprintf(buf, n, "the first %s of %s (%llu of %llu calls)", a, b,
             (unsigned long long)t->shown, (unsigned long long)t->total);
}
