/* SPDX-License-Identifier: MIT */
/* sp-compare-page.h - the Compare page (two runs): stacked timelines with a
 * shared time window, and the per-region diff table with its bars. */
#ifndef SP_COMPARE_PAGE_H
#define SP_COMPARE_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_COMPARE_PAGE (sp_compare_page_get_type())
G_DECLARE_FINAL_TYPE(SpComparePage, sp_compare_page, SP, COMPARE_PAGE, GtkWidget)

/* Zoom both timelines by factor around the centre; 0 shows both whole. */
void sp_compare_page_zoom(SpComparePage *self, double factor);

/* For tests: the rows shown in the diff table (SpDiffItem, filtered and
 * sorted). */
GListModel *sp_compare_page_get_rows(SpComparePage *self);

G_END_DECLS

#endif
