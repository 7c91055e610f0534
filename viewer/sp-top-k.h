/* SPDX-License-Identifier: MIT */
/* sp-top-k.h - the first k of n ids in an order, without sorting all n
 * (the tables that show 2,000 of 10^6 regions or children). */
#ifndef SP_TOP_K_H
#define SP_TOP_K_H

#include <glib.h>

G_BEGIN_DECLS

/* Reorder ids[0..n) so that ids[0..k) are the k first in cmp's order,
 * sorted by it (the rest: the others, in no order). cmp must be a total
 * order (ties broken, e.g. by id): then ids[0..k) is what sorting all of
 * them would put first. Costs n + k log k comparisons for ids in random
 * order, where a sort costs n log n. k >= n sorts them all. */
void sp_top_k(gint *ids, gsize n, gsize k, GCompareDataFunc cmp, gpointer data);

G_END_DECLS

#endif
