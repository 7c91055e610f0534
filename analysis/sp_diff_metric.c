/* SPDX-License-Identifier: MIT */
/* sp_diff_metric.c - diff metrics, sort keys, verdict names and the budget
 * rule of `check`. */
#include "sp_diff.h"

#include <math.h>
#include <string.h>

#include "sp_error.h"

static const char *const metric_names[SP_METRIC_COUNT] = {
    [SP_METRIC_TOTAL] = "total", [SP_METRIC_OWN] = "own",
    [SP_METRIC_MEAN] = "mean",   [SP_METRIC_MIN] = "min",
    [SP_METRIC_MAX] = "max",     [SP_METRIC_P50] = "p50",
    [SP_METRIC_P95] = "p95",     [SP_METRIC_P99] = "p99",
    [SP_METRIC_CALLS] = "calls", [SP_METRIC_IMBALANCE] = "imbalance",
};

int sp_diff_metric_parse(const char *s, sp_diff_metric *out)
{
    for (int m = 0; s && out && m < SP_METRIC_COUNT; m++) {
        if (strcmp(s, metric_names[m]) == 0) {
            *out = (sp_diff_metric)m;
            return 0;
        }
    }
    return sp__error(SP_EINVAL,
                     "unknown metric '%s' (valid: total, own, mean, min, max, p50, p95, p99, "
                     "calls, imbalance)",
                     s ? s : "(null)");
}

const char *sp_diff_metric_name(sp_diff_metric m)
{
    return (unsigned)m < SP_METRIC_COUNT ? metric_names[m] : "?";
}

bool sp_diff_metric_is_time(sp_diff_metric m)
{
    return m != SP_METRIC_CALLS && m != SP_METRIC_IMBALANCE;
}

double sp_region_imbalance(const sp_run *run, int32_t region)
{
    if (!run || !run->regions || region < 0 || (size_t)region >= run->nregions || run->nranks == 0)
        return 0.0;
    const sp_run_region *reg = &run->regions[region];
    double sum = 0.0, max = 0.0;
    for (size_t r = 0; r < run->nranks; r++) {
        double t = reg->per_rank[r].total_s;
        sum += t;
        if (t > max)
            max = t;
    }
    return sum > 0 ? max / (sum / (double)run->nranks) : 0.0;
}

double sp_diff_region_value(const sp_run *run, int32_t region, sp_diff_metric m)
{
    if (!run || !run->regions || region < 0 || (size_t)region >= run->nregions)
        return 0.0;
    const sp_stats *st = &run->regions[region].all;
    if (st->calls == 0)
        return 0.0;
    switch (m) {
    case SP_METRIC_TOTAL:
        return st->total_s;
    case SP_METRIC_OWN:
        return st->own_s;
    case SP_METRIC_MEAN:
        return st->mean_s;
    case SP_METRIC_MIN:
        return st->min_s;
    case SP_METRIC_MAX:
        return st->max_s;
    case SP_METRIC_P50:
        return st->p50_s;
    case SP_METRIC_P95:
        return st->p95_s;
    case SP_METRIC_P99:
        return st->p99_s;
    case SP_METRIC_CALLS:
        return (double)st->calls;
    case SP_METRIC_IMBALANCE:
        return sp_region_imbalance(run, region);
    }
    return 0.0;
}

int sp_diff_sort_parse(const char *s, sp_diff_sort *out)
{
    static const char *const names[] = {"delta", "percent", "name"};
    for (int k = 0; s && out && k < 3; k++) {
        if (strcmp(s, names[k]) == 0) {
            *out = (sp_diff_sort)k;
            return 0;
        }
    }
    return sp__error(SP_EINVAL, "unknown sort key '%s' (valid: delta, percent, name)",
                     s ? s : "(null)");
}

const char *sp_diff_verdict_name(sp_diff_verdict v)
{
    switch (v) {
    case SP_DIFF_SAME:
        return "within noise";
    case SP_DIFF_SLOWER:
        return "slower";
    case SP_DIFF_FASTER:
        return "faster";
    case SP_DIFF_UP:
        return "up (untested)";
    case SP_DIFF_DOWN:
        return "down (untested)";
    case SP_DIFF_ADDED:
        return "new";
    case SP_DIFF_REMOVED:
        return "removed";
    }
    return "?";
}

void sp_diff_options_init(sp_diff_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->metric = SP_METRIC_TOTAL;
    o->alpha = 0.05;
    o->sort = SP_DIFF_SORT_DELTA;
    o->noise = true;
}

bool sp_diff_entry_violates(const sp_diff_entry *e, double max_regression_pct, bool fail_on_new)
{
    if (!e)
        return false;
    if (e->verdict == SP_DIFF_ADDED)
        return fail_on_new;
    if (e->verdict != SP_DIFF_SLOWER && e->verdict != SP_DIFF_UP)
        return false;
    return e->percent > max_regression_pct;
}
