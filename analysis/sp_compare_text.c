/* SPDX-License-Identifier: MIT */
/*
 * sp_compare_text.c - the tally, the gate rule and the words of the
 * comparison model, shared by every surface so that they say the same.
 */
#include "sp_compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sp_compare_tally(const sp_compare *c, sp_cmp_tally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; c && i < c->n; i++) {
        if ((unsigned)c->entries[i].verdict < SP_CMP_NVERDICTS)
            t->n[c->entries[i].verdict]++;
        t->total++;
    }
}

const char *sp_cmp_verdict_name(sp_cmp_verdict v)
{
    switch (v) {
    case SP_CMP_SLOWER:
        return "slower";
    case SP_CMP_FASTER:
        return "faster";
    case SP_CMP_SAME:
        return "within noise";
    case SP_CMP_NEW:
        return "new";
    case SP_CMP_REMOVED:
        return "removed";
    case SP_CMP_NOT_COMPARABLE:
        return "not comparable";
    }
    return "?";
}

char *sp_compare_tally_text(const sp_cmp_tally *t, char *buf, size_t n)
{
    static const sp_cmp_verdict order[] = {SP_CMP_SLOWER, SP_CMP_FASTER, SP_CMP_SAME,
                                           SP_CMP_NEW,    SP_CMP_REMOVED, SP_CMP_NOT_COMPARABLE};
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        size_t k = t->n[order[i]];
        if (i >= 3 && k == 0)
            continue;
        int w = snprintf(buf + o, o < n ? n - o : 0, "%s%zu %s", o ? " · " : "", k,
                         sp_cmp_verdict_name(order[i]));
        if (w > 0)
            o += (size_t)w;
    }
    return buf;
}

char *sp_cmp_fmt_time(double s, char *buf, size_t n)
{
    double a = fabs(s);
    const char *unit = "s";
    double v = s;
    if (a < 1e-6) {
        v = s * 1e9, unit = "ns";
    } else if (a < 1e-3) {
        v = s * 1e6, unit = "µs";
    } else if (a < 1) {
        v = s * 1e3, unit = "ms";
    }
    double av = fabs(v);
    if (a == 0)
        snprintf(buf, n, "0 s");
    else
        snprintf(buf, n, av >= 99.95 ? "%.0f %s" : av >= 9.995 ? "%.1f %s" : "%.2f %s", v, unit);
    return buf;
}

const char *sp_cmp_why_text(const sp_compare *c, const sp_cmp_entry *e, char *buf, size_t n)
{
    char t[32];
    switch (e->why) {
    case SP_CMP_WHY_NONE:
        return NULL;
    case SP_CMP_WHY_NOT_CLEAR:
        snprintf(buf, n, "interval includes no change");
        break;
    case SP_CMP_WHY_SMALL_CHANGE:
        snprintf(buf, n, "clear, but within the %g %% budget", c->opts.min_change_pct);
        break;
    case SP_CMP_WHY_SMALL_TIME:
        snprintf(buf, n, "clear, but under %s per rank", sp_cmp_fmt_time(c->opts.min_time_s, t, sizeof t));
        break;
    case SP_CMP_WHY_SMALL_SHARE:
        snprintf(buf, n, "clear, but under %g %% of the run", c->opts.min_share_pct);
        break;
    case SP_CMP_WHY_FEW_CALLS: {
        uint64_t a = e->base.calls, b = e->cand.calls;
        if (a == 1 && b == 1)
            snprintf(buf, n, "1 call per run: repeat the runs");
        else
            snprintf(buf, n, "%llu and %llu calls: too few for a %g %% interval, repeat the runs",
                     (unsigned long long)a, (unsigned long long)b, 100 * (1 - c->opts.alpha));
        break;
    }
    case SP_CMP_WHY_MISSING_RUNS:
        if (e->base.runs < c->nbase)
            snprintf(buf, n, "in %u of %zu base runs", e->base.runs, c->nbase);
        else
            snprintf(buf, n, "in %u of %zu candidate runs", e->cand.runs, c->ncand);
        break;
    }
    return buf;
}

char *sp_compare_mode_text(const sp_compare *c, char *buf, size_t n)
{
    if (c->mode == SP_CMP_MODE_CALLS)
        snprintf(buf, n, "one run per side (per-call durations)");
    else
        snprintf(buf, n, "%zu base run%s, %zu candidate run%s (run-to-run variation)", c->nbase,
                 c->nbase == 1 ? "" : "s", c->ncand, c->ncand == 1 ? "" : "s");
    return buf;
}

/* "the 25th percentile" / "the median" / "the 10th percentile" */
static void quantile_name(double q, char *buf, size_t n)
{
    if (fabs(q - 0.5) < 1e-9) {
        snprintf(buf, n, "median");
        return;
    }
    double pc = 100 * q;
    long r = lround(pc);
    const char *suf = (r % 100 >= 11 && r % 100 <= 13) ? "th"
                      : r % 10 == 1                    ? "st"
                      : r % 10 == 2                    ? "nd"
                      : r % 10 == 3                    ? "rd"
                                                       : "th";
    if (fabs(pc - (double)r) < 1e-9)
        snprintf(buf, n, "%ld%s percentile", r, suf);
    else
        snprintf(buf, n, "%g%% quantile", pc);
}

char *sp_compare_method_text(const sp_compare *c, char *buf, size_t n)
{
    char t[32], typical[64], est[160];
    const sp_compare_options *o = &c->opts;
    if (o->estimator == SP_CMP_EST_HL)
        snprintf(typical, sizeof typical, "median");
    else
        quantile_name(o->quantile, typical, sizeof typical);
    if (c->mode == SP_CMP_MODE_CALLS && o->estimator == SP_CMP_EST_HL)
        snprintf(est, sizeof est, "Hodges-Lehmann ratio of call durations x calls per rank");
    else if (c->mode == SP_CMP_MODE_CALLS)
        snprintf(est, sizeof est, "ratio of the %ss of call durations x calls per rank", typical);
    else
        snprintf(est, sizeof est,
                 "ratio of geometric means of the runs' times per rank (%s call x calls), Welch t",
                 typical);
    snprintf(buf, n,
             "%s, %s time, %g %% interval; counted when beyond %g %%, %s and %g %% of the "
             "run per rank",
             est, o->own ? "own" : "inclusive", 100 * (1 - o->alpha), o->min_change_pct,
             sp_cmp_fmt_time(o->min_time_s, t, sizeof t), o->min_share_pct);
    return buf;
}

static void ranks_of(size_t lo, size_t hi, size_t threads, char *buf, size_t n)
{
    int w = lo == hi ? snprintf(buf, n, "%zu rank%s", lo, lo == 1 ? "" : "s")
                     : snprintf(buf, n, "%zu-%zu ranks", lo, hi);
    if (threads > 1 && w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " x %zu threads", threads);
}

char *sp_compare_ranks_text(const sp_compare *c, char *buf, size_t n)
{
    char b[64], d[64];
    ranks_of(c->base_ranks_min, c->base_ranks_max, c->base_threads_max, b, sizeof b);
    ranks_of(c->cand_ranks_min, c->cand_ranks_max, c->cand_threads_max, d, sizeof d);
    snprintf(buf, n,
             "time per rank = a region's time on a rank (per thread that ran it), mean and max "
             "over the ranks that ran it; base %s, candidate %s",
             b, d);
    return buf;
}

/* One end of a change: "+12.3", or as a ratio "×2709.7" (as_ratio). */
static void change_value(double pct, bool as_ratio, char *buf, size_t n)
{
    if (as_ratio)
        snprintf(buf, n, "\xc3\x97%.*f", 1 + pct / 100 >= 100 ? 0 : 1, 1 + pct / 100);
    else
        snprintf(buf, n, "%+.1f", pct);
}

char *sp_cmp_change_text(const sp_cmp_entry *e, char *buf, size_t n)
{
    /* From ten times as long, a ratio: "×2710 [×2689, ×2731]" says what
     * "+270865.4 % [+268860.1, +273010.2]" says, in a column's width. */
    bool ratio = e->change_pct >= SP_CMP_RATIO_FROM_PCT;
    char v[32], lo[32], hi[32];
    change_value(e->change_pct, ratio, v, sizeof v);
    if (e->verdict == SP_CMP_NEW)
        snprintf(buf, n, "new");
    else if (e->verdict == SP_CMP_REMOVED)
        snprintf(buf, n, "removed");
    else if (e->tested) {
        change_value(e->change_lo_pct, ratio, lo, sizeof lo);
        change_value(e->change_hi_pct, ratio, hi, sizeof hi);
        snprintf(buf, n, "%s%s [%s, %s]", v, ratio ? "" : " %", lo, hi);
    } else
        snprintf(buf, n, "%s%s", v, ratio ? "" : " %");
    return buf;
}

/* A call count for text: integers plain, fractions with one decimal. */
static void fmt_calls(double v, char *buf, size_t n)
{
    if (fabs(v - round(v)) < 0.05)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.1f", v);
}

char *sp_cmp_calls_text(const sp_cmp_entry *e, char *buf, size_t n)
{
    if (!e->calls_changed) {
        if (n)
            buf[0] = '\0';
        return buf;
    }
    char a[32], b[32];
    fmt_calls(e->base.calls_per_rank, a, sizeof a);
    fmt_calls(e->cand.calls_per_rank, b, sizeof b);
    snprintf(buf, n, "calls %s -> %s per rank", a, b);
    return buf;
}

bool sp_cmp_entry_fails(const sp_compare *c, const sp_cmp_entry *e, bool fail_on_new,
                        bool fail_undecided)
{
    if (!c || !e)
        return false;
    switch (e->verdict) {
    case SP_CMP_SLOWER:
        return true;
    case SP_CMP_NEW:
        return fail_on_new;
    case SP_CMP_NOT_COMPARABLE:
        /* The rough change (observed times) over the budget and floors. */
        return fail_undecided && e->change_pct > c->opts.min_change_pct &&
               e->impact_s >= c->opts.min_time_s &&
               e->impact_s >= c->opts.min_share_pct / 100 * c->base_share_s;
    default:
        return false;
    }
}
