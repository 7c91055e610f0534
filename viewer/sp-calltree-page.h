/* SPDX-License-Identifier: MIT */
/* sp-calltree-page.h - the Call tree page: an expandable, sortable tree of
 * call paths (inclusive, own, calls, percent) beside its icicle / flame
 * graph. */
#ifndef SP_CALLTREE_PAGE_H
#define SP_CALLTREE_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_CALLTREE_PAGE (sp_calltree_page_get_type())
G_DECLARE_FINAL_TYPE(SpCalltreePage, sp_calltree_page, SP, CALLTREE_PAGE, GtkWidget)

/* The tree's rows (GtkTreeListRow items) with the selected one (borrowed). */
GtkSingleSelection *sp_calltree_page_get_selection(SpCalltreePage *self);

G_END_DECLS

#endif
