/* SPDX-License-Identifier: MIT */
/* sp-region-item.h - one region of a run as a list item (rows of the
 * Regions table). */
#ifndef SP_REGION_ITEM_H
#define SP_REGION_ITEM_H

#include "sp-run-document.h"

G_BEGIN_DECLS

#define SP_TYPE_REGION_ITEM (sp_region_item_get_type())
G_DECLARE_FINAL_TYPE(SpRegionItem, sp_region_item, SP, REGION_ITEM, GObject)

SpRegionItem *sp_region_item_new(SpRunDocument *doc, int region);

int sp_region_item_get_id(SpRegionItem *self);
SpRunDocument *sp_region_item_get_document(SpRegionItem *self);
const char *sp_region_item_get_name(SpRegionItem *self);
const sp_stats *sp_region_item_get_stats(SpRegionItem *self);
double sp_region_item_get_imbalance(SpRegionItem *self);

/* A GListStore of every region of doc, in region id order. */
GListModel *sp_region_item_list_new(SpRunDocument *doc);

G_END_DECLS

#endif
