/* SPDX-License-Identifier: MIT */
/* sp-region-item.c - a region of a run as a GObject for list models. */
#include "sp-region-item.h"

#include <stdlib.h>
#include <string.h>

#include "sp-top-k.h"

struct _SpRegionItem {
    GObject parent_instance;
    SpRunDocument *doc;
    int id;
};

G_DEFINE_FINAL_TYPE(SpRegionItem, sp_region_item, G_TYPE_OBJECT)

static void sp_region_item_dispose(GObject *object)
{
    g_clear_object(&SP_REGION_ITEM(object)->doc);
    G_OBJECT_CLASS(sp_region_item_parent_class)->dispose(object);
}

static void sp_region_item_class_init(SpRegionItemClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = sp_region_item_dispose;
}

static void sp_region_item_init(SpRegionItem *self) {}

SpRegionItem *sp_region_item_new(SpRunDocument *doc, int region)
{
    SpRegionItem *self = g_object_new(SP_TYPE_REGION_ITEM, NULL);
    self->doc = g_object_ref(doc);
    self->id = region;
    return self;
}

int sp_region_item_get_id(SpRegionItem *self) { return self->id; }
SpRunDocument *sp_region_item_get_document(SpRegionItem *self) { return self->doc; }

const char *sp_region_item_get_name(SpRegionItem *self)
{
    return sp_run_document_get_run(self->doc)->region_names[self->id];
}

const sp_stats *sp_region_item_get_stats(SpRegionItem *self)
{
    return &sp_run_document_get_run(self->doc)->regions[self->id].all;
}

double sp_region_item_get_imbalance(SpRegionItem *self)
{
    return sp_run_document_get_imbalance(self->doc, self->id);
}

/* The table's total of region g (its Total column). */
static double total_of(const sp_run *run, const sp_figures *fg, size_t g)
{
    return fg ? fg->region_total[g].mean_s : run->regions[g].all.total_s;
}

typedef struct by_total {
    const sp_run *run;
    const sp_figures *fg;
} by_total;

static gint cmp_total(gconstpointer a, gconstpointer b, gpointer ud)
{
    const by_total *t = ud;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    double u = total_of(t->run, t->fg, (size_t)x), v = total_of(t->run, t->fg, (size_t)y);
    if (u != v)
        return u > v ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_id(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

GListModel *sp_region_item_list_new(SpRunDocument *doc, const char *needle, size_t max,
                                    size_t *matching)
{
    GListStore *store = g_list_store_new(SP_TYPE_REGION_ITEM);
    if (matching)
        *matching = 0;
    if (!doc)
        return G_LIST_MODEL(store);
    const sp_run *run = sp_run_document_get_run(doc);
    size_t n = run->nregions, m = 0;
    int32_t *ids = g_new(int32_t, n ? n : 1);
    for (size_t g = 0; g < n; g++) {
        if (needle) {
            g_autofree char *name = g_utf8_casefold(run->region_names[g], -1);
            if (!strstr(name, needle))
                continue;
        }
        ids[m++] = (int32_t)g;
    }
    if (matching)
        *matching = m;
    if (m > max) { /* the max with the most time, then back in id order */
        by_total t = {run, sp_run_document_get_figures(doc)};
        sp_top_k(ids, m, max, cmp_total, &t); /* not a sort of 10^6 ids */
        m = max;
        qsort(ids, m, sizeof *ids, cmp_id);
    }
    g_autoptr(GPtrArray) items = g_ptr_array_new_full((guint)m, g_object_unref);
    for (size_t i = 0; i < m; i++)
        g_ptr_array_add(items, sp_region_item_new(doc, ids[i]));
    g_free(ids);
    g_list_store_splice(store, 0, 0, items->pdata, items->len);
    return G_LIST_MODEL(store);
}
