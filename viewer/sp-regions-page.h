/* SPDX-License-Identifier: MIT */
/* sp-regions-page.h - the Regions page: a sortable, searchable table of the
 * regions' statistics and the selected region's duration charts. */
#ifndef SP_REGIONS_PAGE_H
#define SP_REGIONS_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_REGIONS_PAGE (sp_regions_page_get_type())
G_DECLARE_FINAL_TYPE(SpRegionsPage, sp_regions_page, SP, REGIONS_PAGE, GtkWidget)

/* For tests: the search entry, the rows shown (after filter and sort), and
 * the selection model of the table. */
GtkEditable *sp_regions_page_get_search_entry(SpRegionsPage *self);
GListModel *sp_regions_page_get_rows(SpRegionsPage *self);
GtkSingleSelection *sp_regions_page_get_selection(SpRegionsPage *self);

G_END_DECLS

#endif
