/* SPDX-License-Identifier: MIT */
/* sp_timespan.c - the wall-clock span of a run, ranks aligned to rank 0, and
 * its call counts. */
#include "sp_analysis.h"

#include "sp_agg.h"
#include "sp_error.h"

int sp_run_time_span(const sp_run *run, int64_t *t0_ns, int64_t *t1_ns)
{
    int found = 0;
    int64_t t0 = 0, t1 = 0;
    if (run && run->agg) { /* the pass saw every call of the ranks it read */
        if (!run->agg->has_span)
            return sp__error(SP_ENOENT, "the run has no calls");
        *t0_ns = run->agg->first_ns;
        *t1_ns = run->agg->last_ns;
        return 0;
    }
    for (size_t r = 0; run && r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        /* Calls are ordered by thread first, so every call is looked at. */
        for (size_t i = 0; i < rk->ncalls; i++) {
            int64_t s = rk->start_ns[i] + rk->clock_offset_ns;
            int64_t e = rk->end_ns[i] + rk->clock_offset_ns;
            if (!found || s < t0)
                t0 = s;
            if (!found || e > t1)
                t1 = e;
            found = 1;
        }
    }
    if (!found)
        return sp__error(SP_ENOENT, "the run has no calls");
    *t0_ns = t0;
    *t1_ns = t1;
    return 0;
}

uint64_t sp_run_rank_calls(const sp_run *run, size_t r)
{
    if (!run || r >= run->nranks)
        return 0;
    if (run->agg && r < run->agg->nranks)
        return run->agg->ranks[r].calls;
    return run->ranks[r].ncalls;
}

uint64_t sp_run_total_calls(const sp_run *run)
{
    uint64_t n = 0;
    for (size_t r = 0; run && r < run->nranks; r++)
        n += sp_run_rank_calls(run, r);
    return n;
}
