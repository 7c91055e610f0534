/* SPDX-License-Identifier: MIT */
/* sp_diff_metric.c - per-region imbalance across ranks (see sp_diff.h). */
#include "sp_diff.h"

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
