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
    /* The unit by the value as printed (999.9996 us is "1.00 ms"). */
    double a = fabs(s) * (1 + 5e-4);
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

/* Whether the common change's allowance is worth a word (it shows as
 * %.1f: under 0.05 it would print 0.0). */
static bool uneven_shown(const sp_compare *c)
{
    return c->uneven_pct >= 0.05;
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
        if (uneven_shown(c))
            snprintf(buf, n, "clear, but within the %g %% budget + %.1f %% for the common change",
                     c->opts.min_change_pct, c->uneven_pct);
        else
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
    case SP_CMP_WHY_COMMON:
        snprintf(buf, n, "clear, but no more than the common change (%+.0f %%)",
                 100 * (c->common_ratio - 1));
        break;
    case SP_CMP_WHY_INTERFERENCE: {
        bool cand = e->cand.preempt_per_call >= e->base.preempt_per_call;
        const sp_sched_summary *s = cand ? &c->cand_sched : &c->base_sched;
        snprintf(buf, n,
                 "%s's calls were preempted %.1f times each (it waited %.0f %% of its run for a "
                 "CPU): repeat the runs",
                 cand ? "candidate" : "base",
                 cand ? e->cand.preempt_per_call : e->base.preempt_per_call, 100 * s->wait_share);
        break;
    }
    case SP_CMP_WHY_CPU_WAIT: {
        bool cand = c->cand_sched.wait_share >= c->base_sched.wait_share;
        snprintf(buf, n,
                 "its total changed, but the waits for a CPU may explain it (%s waited %.0f %% "
                 "of its run for a CPU): repeat the runs",
                 cand ? "candidate" : "base",
                 100 * (cand ? c->cand_sched.wait_share : c->base_sched.wait_share));
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
    char t[32], typical[96], est[256];
    const sp_compare_options *o = &c->opts;
    if (o->estimator == SP_CMP_EST_HL)
        snprintf(typical, sizeof typical, "median");
    else if (o->quantile > 0)
        quantile_name(o->quantile, typical, sizeof typical);
    else
        snprintf(typical, sizeof typical, "low quantile");
    const char *which = o->quantile > 0 || o->estimator == SP_CMP_EST_HL
                            ? ""
                            : " (the lowest with an interval, 1-25 %)";
    if (c->mode == SP_CMP_MODE_CALLS && o->estimator == SP_CMP_EST_HL)
        snprintf(est, sizeof est, "typical: Hodges-Lehmann ratio of call durations x calls per rank");
    else if (c->mode == SP_CMP_MODE_CALLS)
        snprintf(est, sizeof est, "typical: ratio of the %ss of call durations%s x calls per rank",
                 typical, which);
    else
        snprintf(est, sizeof est,
                 "typical: ratio of geometric means of the runs' %s call%s x calls per rank, "
                 "Welch t",
                 typical, which);
    snprintf(buf, n,
             "%s; total: all calls, as measured and net of the measured wait for a CPU, %s; "
             "%s time, %g %% interval (total %g %%); counted when beyond %g %%, %s and %g %% of "
             "the run per rank",
             est, c->mode == SP_CMP_MODE_CALLS ? "within-run noise" : "Welch t",
             o->own ? "own" : "inclusive", 100 * (1 - o->alpha), 100 * (1 - o->alpha / 20),
             o->min_change_pct, sp_cmp_fmt_time(o->min_time_s, t, sizeof t), o->min_share_pct);
    return buf;
}

char *sp_compare_common_text(const sp_compare *c, char *buf, size_t n)
{
    if (c->mode != SP_CMP_MODE_CALLS)
        snprintf(buf, n, "not used (repeated runs measure the run-to-run noise)");
    else if (!c->opts.own)
        snprintf(buf, n, "not used with inclusive time (nested regions share their changes)");
    else if (!c->common_n)
        snprintf(buf, n, "none (fewer than 3 regions with an interval)");
    else {
        char uneven[128] = "";
        if (uneven_shown(c))
            snprintf(uneven, sizeof uneven,
                     ", and its change counts beyond the budget + %.1f %% (a machine at another "
                     "speed does not change all code alike)",
                     c->uneven_pct);
        snprintf(buf, n,
                 "%+.1f %%: the median typical-call change of %zu regions; each region is "
                 "judged against it%s%s",
                 100 * (c->common_ratio - 1), c->common_n, uneven,
                 c->undecided ? ". Beyond the budget: the machine ran at another speed, or all "
                                "the code changed - undecided, repeat the runs"
                              : "");
    }
    return buf;
}

char *sp_compare_sched_text(const sp_compare *c, char *buf, size_t n)
{
    char b[96], d[96];
    sp_sched_text(&c->base_sched, b, sizeof b);
    sp_sched_text(&c->cand_sched, d, sizeof d);
    snprintf(buf, n, "base %s; candidate %s", b, d);
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

/* A change with its interval, or the verdict's word where there is none.
 * From ten times as long, a ratio: "×2710 [×2689, ×2731]" says what
 * "+270865.4 % [+268860.1, +273010.2]" says, in a column's width. */
static char *change_text(const sp_cmp_entry *e, double pct, double lo, double hi, bool tested,
                         char *buf, size_t n)
{
    bool ratio = pct >= SP_CMP_RATIO_FROM_PCT;
    char v[32], vlo[32], vhi[32];
    change_value(pct, ratio, v, sizeof v);
    if (e->verdict == SP_CMP_NEW || e->verdict == SP_CMP_REMOVED)
        snprintf(buf, n, "%s", sp_cmp_verdict_name(e->verdict));
    else if (tested) {
        change_value(lo, ratio, vlo, sizeof vlo);
        change_value(hi, ratio, vhi, sizeof vhi);
        snprintf(buf, n, "%s%s [%s, %s]", v, ratio ? "" : " %", vlo, vhi);
    } else
        snprintf(buf, n, "%s%s", v, ratio ? "" : " %");
    return buf;
}

char *sp_cmp_change_text(const sp_cmp_entry *e, char *buf, size_t n)
{
    return change_text(e, e->change_pct, e->change_lo_pct, e->change_hi_pct, e->tested, buf, n);
}

char *sp_cmp_total_text(const sp_cmp_entry *e, char *buf, size_t n)
{
    return change_text(e, e->total_change_pct, e->total_lo_pct, e->total_hi_pct, e->total_tested,
                       buf, n);
}

void sp_cmp_entry_quantity(const sp_cmp_entry *e, sp_cmp_quantity *q)
{
    bool total = e->basis == SP_CMP_BASIS_TOTAL ||
                 (e->verdict == SP_CMP_NOT_COMPARABLE && e->why == SP_CMP_WHY_CPU_WAIT);
    if (total)
        *q = (sp_cmp_quantity){"total",         e->base.time_mean_s, e->cand.time_mean_s,
                               e->total_change_pct, e->total_lo_pct, e->total_hi_pct,
                               e->total_tested};
    else
        *q = (sp_cmp_quantity){"typical",      e->base.typical_time_s, e->cand.typical_time_s,
                               e->change_pct, e->change_lo_pct,       e->change_hi_pct,
                               e->tested};
}

const char *sp_cmp_basis_text(const sp_cmp_entry *e)
{
    if (e->verdict != SP_CMP_SLOWER && e->verdict != SP_CMP_FASTER)
        return NULL;
    return e->basis == SP_CMP_BASIS_TOTAL ? "tail change, decided by the total: the typical "
                                            "calls do not account for it (waits, stalls, rare "
                                            "slow calls)"
                                          : NULL;
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

/* The rough change (observed) over the budget and floors. */
static bool over_budget(const sp_compare *c, const sp_cmp_entry *e)
{
    double pct = e->why == SP_CMP_WHY_CPU_WAIT ? e->total_change_pct : e->change_pct;
    return pct > c->opts.min_change_pct && e->impact_s >= c->opts.min_time_s &&
           e->impact_s >= c->opts.min_share_pct / 100 * c->base_share_s;
}

bool sp_cmp_entry_undecided(const sp_compare *c, const sp_cmp_entry *e)
{
    return c && e && e->verdict == SP_CMP_NOT_COMPARABLE &&
           (e->why == SP_CMP_WHY_INTERFERENCE || e->why == SP_CMP_WHY_CPU_WAIT) &&
           over_budget(c, e);
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
        return fail_undecided && over_budget(c, e);
    default:
        return false;
    }
}

sp_cmp_gate sp_compare_gate(const sp_compare *c, bool fail_on_new, bool fail_undecided)
{
    bool undecided = c && c->undecided;
    for (size_t i = 0; c && i < c->n; i++) {
        if (sp_cmp_entry_fails(c, &c->entries[i], fail_on_new, fail_undecided))
            return SP_CMP_GATE_FAIL;
        undecided |= sp_cmp_entry_undecided(c, &c->entries[i]);
    }
    if (undecided && fail_undecided)
        return SP_CMP_GATE_FAIL;
    return undecided ? SP_CMP_GATE_UNDECIDED : SP_CMP_GATE_PASS;
}
