/* SPDX-License-Identifier: MIT */
/* sp_timespan.c - the wall-clock span of a run, ranks aligned to rank 0. */
#include "sp_analysis.h"

#include "sp_error.h"

int sp_run_time_span(const sp_run *run, int64_t *t0_ns, int64_t *t1_ns)
{
    int found = 0;
    int64_t t0 = 0, t1 = 0;
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
