/* SPDX-License-Identifier: MIT */
/* sp-region-item.c - a region of a run as a GObject for list models. */
#include "sp-region-item.h"

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

GListModel *sp_region_item_list_new(SpRunDocument *doc)
{
    GListStore *store = g_list_store_new(SP_TYPE_REGION_ITEM);
    if (!doc)
        return G_LIST_MODEL(store);
    size_t n = sp_run_document_get_run(doc)->nregions;
    g_autoptr(GPtrArray) items = g_ptr_array_new_full((guint)n, g_object_unref);
    for (size_t i = 0; i < n; i++)
        g_ptr_array_add(items, sp_region_item_new(doc, (int)i));
    g_list_store_splice(store, 0, 0, items->pdata, items->len);
    return G_LIST_MODEL(store);
}
