/* SPDX-License-Identifier: MIT */
/* sp-diff-item.h - one entry of a comparison (analysis/sp_compare.h) as a
 * list item (rows of the Compare page's table). */
#ifndef SP_DIFF_ITEM_H
#define SP_DIFF_ITEM_H

#include <gio/gio.h>

#include "sp_compare.h"

G_BEGIN_DECLS

/* A comparison shared by the page and its rows: a GRcBox holding the
 * sp_compare pointer (freed with the last reference). */
typedef sp_compare *SpCompareBox;
SpCompareBox *sp_compare_box_new(sp_compare *cmp); /* takes ownership */
SpCompareBox *sp_compare_box_ref(SpCompareBox *box);
void sp_compare_box_unref(SpCompareBox *box);

#define SP_TYPE_DIFF_ITEM (sp_diff_item_get_type())
G_DECLARE_FINAL_TYPE(SpDiffItem, sp_diff_item, SP, DIFF_ITEM, GObject)

/* Entry `index` of the comparison in box (referenced). */
SpDiffItem *sp_diff_item_new(SpCompareBox *box, size_t index);
const sp_cmp_entry *sp_diff_item_get_entry(SpDiffItem *self);
size_t sp_diff_item_get_index(SpDiffItem *self);
const sp_compare *sp_diff_item_get_compare(SpDiffItem *self);

G_END_DECLS

#endif
