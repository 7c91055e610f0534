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

/* The Regions table shows at most this many rows (the report's 2,000):
 * GTK's list models took tens of seconds over 10^6 rows. */
#define SP_REGION_ITEMS_MAX 2000

/* A GListStore (new reference) of doc's regions whose casefolded name
 * contains needle (casefolded; NULL: every region), in region id order:
 * all of them when at most max match, else the max with the most total
 * time (per rank or thread as the table shows it; ties: the lower id).
 * *matching (may be NULL) gets how many regions matched. */
GListModel *sp_region_item_list_new(SpRunDocument *doc, const char *needle, size_t max,
                                    size_t *matching);

G_END_DECLS

#endif
