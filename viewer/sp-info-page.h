/* SPDX-License-Identifier: MIT */
/* sp-info-page.h - the Info page: the run's file facts and metadata as a
 * two-column list (both runs in a comparison). */
#ifndef SP_INFO_PAGE_H
#define SP_INFO_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_INFO_PAGE (sp_info_page_get_type())
G_DECLARE_FINAL_TYPE(SpInfoPage, sp_info_page, SP, INFO_PAGE, GtkWidget)

G_END_DECLS

#endif
