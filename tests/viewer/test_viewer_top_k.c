/* SPDX-License-Identifier: MIT */
/* test_viewer_top_k.c - sp_top_k puts first exactly what a full sort
 * would, in its order: random values with many ties (broken by id), ids
 * in ascending, descending and random order, k of 0, 1, some, n - 1, n
 * and more. No display needed. */
#include <stdlib.h>

#include "sp-top-k.h"
#include "sp_test.h"

static const double *vals; /* by id */

static gint cmp_val(gconstpointer a, gconstpointer b, gpointer data)
{
    (void)data;
    gint x = *(const gint *)a, y = *(const gint *)b;
    if (vals[x] != vals[y])
        return vals[x] > vals[y] ? -1 : 1; /* the most first */
    return x < y ? -1 : x > y;
}

static void check(gsize n, gsize k, int order, guint32 seed)
{
    double *v = g_new(double, n ? n : 1);
    gint *ids = g_new(gint, n ? n : 1), *sorted = g_new(gint, n ? n : 1);
    GRand *rnd = g_rand_new_with_seed(seed);
    for (gsize i = 0; i < n; i++)
        v[i] = (double)g_rand_int_range(rnd, 0, 50); /* many ties */
    vals = v;
    for (gsize i = 0; i < n; i++)
        ids[i] = (gint)(order == 1 ? n - 1 - i : i);
    if (order == 2) /* shuffled */
        for (gsize i = n; i > 1; i--) {
            gsize j = (gsize)g_rand_int_range(rnd, 0, (gint32)i);
            gint t = ids[i - 1];
            ids[i - 1] = ids[j];
            ids[j] = t;
        }
    for (gsize i = 0; i < n; i++)
        sorted[i] = ids[i];
    g_qsort_with_data(sorted, (gint)n, sizeof *sorted, cmp_val, NULL);
    sp_top_k(ids, n, k, cmp_val, NULL);
    gsize m = k < n ? k : n;
    for (gsize i = 0; i < m; i++)
        ASSERT_MSG(ids[i] == sorted[i], "n %zu k %zu order %d: position %zu is %d, not %d", n, k,
                   order, i, ids[i], sorted[i]);
    /* The rest: every other id once. */
    gboolean *seen = g_new0(gboolean, n ? n : 1);
    for (gsize i = 0; i < n; i++) {
        ASSERT(ids[i] >= 0 && (gsize)ids[i] < n && !seen[ids[i]]);
        seen[ids[i]] = TRUE;
    }
    g_free(seen);
    g_rand_free(rnd);
    g_free(v);
    g_free(ids);
    g_free(sorted);
}

static void test_matches_sort(void)
{
    static const gsize ns[] = {0, 1, 2, 7, 100, 5000};
    for (size_t a = 0; a < G_N_ELEMENTS(ns); a++) {
        gsize n = ns[a];
        gsize ks[] = {0, 1, 3, n / 2, n ? n - 1 : 0, n, n + 5, 2000};
        for (size_t b = 0; b < G_N_ELEMENTS(ks); b++)
            for (int order = 0; order < 3; order++)
                check(n, ks[b], order, (guint32)(17 * a + 5 * b + (size_t)order));
    }
}

int main(void)
{
    RUN(test_matches_sort);
    return sp_test_summary();
}
