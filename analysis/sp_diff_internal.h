/* SPDX-License-Identifier: MIT */
/* sp_diff_internal.h - helpers shared by sp_diff.c and sp_diff_tree.c. */
#ifndef SP_DIFF_INTERNAL_H
#define SP_DIFF_INTERNAL_H

#include "sp_diff.h"

/* Per-call durations (ns) of a run grouped by key (region id or tree node):
 * the values of key k are val[off[k] .. off[k + 1]). */
typedef struct sp__diff_samples {
    size_t nkeys;
    size_t *off;
    int64_t *val;
} sp__diff_samples;

/* Group every call's duration (own = exclusive duration) by region id, or by
 * tree node when by_node. The run must be analyzed. 0 or SP_ENOMEM. */
int sp__diff_samples_collect(const sp_run *run, bool by_node, bool own, sp__diff_samples *s);
void sp__diff_samples_free(sp__diff_samples *s);

/* Fill delta, percent, noise (samples of key base_id / cand_id, or no test
 * when sb or sc is NULL) and verdict of e from base, cand, presence and the
 * call counts. 0 or SP_ENOMEM. */
int sp__diff_entry_finish(sp_diff_entry *e, const sp_diff_options *o, sp__diff_samples *sb,
                          sp__diff_samples *sc);

/* qsort_r comparator of entries by the sp_diff_sort pointed to by arg. */
int sp__diff_entry_cmp(const void *a, const void *b, void *arg);

/* Check the arguments shared by both diffs. 0 or SP_EINVAL. */
int sp__diff_check_args(const sp_run *base, const sp_run *cand, const sp_diff_options *o);

#endif
