/* SPDX-License-Identifier: MIT */
/* sp-diff-item.h - one region of a comparison as a list item (rows of the
 * Compare page's table). */
#ifndef SP_DIFF_ITEM_H
#define SP_DIFF_ITEM_H

#include <gio/gio.h>

#include "sp_diff.h"

G_BEGIN_DECLS

#define SP_TYPE_DIFF_ITEM (sp_diff_item_get_type())
G_DECLARE_FINAL_TYPE(SpDiffItem, sp_diff_item, SP, DIFF_ITEM, GObject)

/* Copies entry and references the two runs its name may point into. */
SpDiffItem *sp_diff_item_new(const sp_diff_entry *entry, GObject *base, GObject *candidate);
const sp_diff_entry *sp_diff_item_get_entry(SpDiffItem *self);

G_END_DECLS

#endif
