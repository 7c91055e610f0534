/* SPDX-License-Identifier: MIT */
/* sp-top-k.c - the first k of n ids in an order (see sp-top-k.h). */
#include "sp-top-k.h"

/* A heap of the k first so far, the last in order at its root: an id
 * later than the root is not among them (one comparison for most ids). */
static gboolean later(const gint *a, const gint *b, GCompareDataFunc cmp, gpointer data)
{
    return cmp(a, b, data) > 0;
}

static void sift_down(gint *h, gsize k, gsize i, GCompareDataFunc cmp, gpointer data)
{
    for (;;) {
        gsize l = 2 * i + 1, r = l + 1, top = i;
        if (l < k && later(&h[l], &h[top], cmp, data))
            top = l;
        if (r < k && later(&h[r], &h[top], cmp, data))
            top = r;
        if (top == i)
            return;
        gint t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

void sp_top_k(gint *ids, gsize n, gsize k, GCompareDataFunc cmp, gpointer data)
{
    if (k > n)
        k = n;
    if (k > 0 && k < n) {
        for (gsize i = k / 2; i-- > 0;)
            sift_down(ids, k, i, cmp, data);
        for (gsize j = k; j < n; j++) {
            if (!later(&ids[0], &ids[j], cmp, data))
                continue;
            gint t = ids[0]; /* the root leaves the k first: swap it out */
            ids[0] = ids[j];
            ids[j] = t;
            sift_down(ids, k, 0, cmp, data);
        }
    }
    g_qsort_with_data(ids, (gint)k, sizeof *ids, cmp, data);
}
