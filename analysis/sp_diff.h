/* SPDX-License-Identifier: MIT */
/*
 * sp_diff.h - per-region imbalance across ranks (used by the listings,
 * exports and report). Comparing runs lives in sp_compare.h.
 */
#ifndef SP_DIFF_H
#define SP_DIFF_H

#include <stdint.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The imbalance of a region: max / mean of its per-rank total times over all
 * run->nranks ranks (ranks without calls count as 0). 1 on one rank; 0 when
 * the region has no time. */
double sp_region_imbalance(const sp_run *run, int32_t region);

#ifdef __cplusplus
}
#endif

#endif /* SP_DIFF_H */
