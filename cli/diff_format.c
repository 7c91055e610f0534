/* SPDX-License-Identifier: MIT */
/* diff_format.c - text of diff values (see diff_format.h). */
#include "diff_format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

char *sp__diff_fmt_value(double v, sp_diff_metric m, bool sign, char *buf, size_t n)
{
    const char *fmt = m == SP_METRIC_CALLS       ? (sign ? "%+.0f" : "%.0f")
                      : m == SP_METRIC_IMBALANCE ? (sign ? "%+.3f" : "%.3f")
                                                 : (sign ? "%+.6f" : "%.6f");
    snprintf(buf, n, fmt, v);
    return buf;
}

char *sp__diff_fmt_percent(const sp_diff_entry *e, char *buf, size_t n)
{
    if (isinf(e->percent))
        snprintf(buf, n, "new");
    else
        snprintf(buf, n, "%+.1f%%", e->percent);
    return buf;
}

char *sp__diff_fmt_p(const sp_noise_test *t, char *buf, size_t n)
{
    if (!t->tested)
        snprintf(buf, n, "-");
    else if (t->p_value < 0.001)
        snprintf(buf, n, "<0.001");
    else
        snprintf(buf, n, "%.3f", t->p_value);
    return buf;
}

char *sp__diff_fmt_effect(const sp_noise_test *t, char *buf, size_t n)
{
    if (!t->tested)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.2f", t->effect);
    return buf;
}

const char *sp__diff_unit(sp_diff_metric m)
{
    return m == SP_METRIC_CALLS ? "" : m == SP_METRIC_IMBALANCE ? " (max/mean)" : " [s]";
}

const char *sp__diff_untested_reason(const sp_diff_entry *e, sp_diff_metric m, double alpha,
                                     char *buf, size_t n)
{
    if (e->presence != SP_DIFF_IN_BOTH)
        return NULL;
    if (!sp_diff_metric_is_time(m))
        snprintf(buf, n, "metric %s is not noise-tested", sp_diff_metric_name(m));
    else if ((m == SP_METRIC_TOTAL || m == SP_METRIC_OWN) && e->base_calls != e->cand_calls)
        snprintf(buf, n, "call count changed (%" PRIu64 " -> %" PRIu64 ")", e->base_calls,
                 e->cand_calls);
    else if (e->base_calls < 2 || e->cand_calls < 2)
        snprintf(buf, n, "single call in %s", e->base_calls < 2 ? "base" : "candidate");
    else if (!e->noise.conclusive)
        snprintf(buf, n, "too few calls (%" PRIu64 " vs %" PRIu64 ") for alpha %g", e->base_calls,
                 e->cand_calls, alpha);
    else
        return NULL;
    return buf;
}
