/* SPDX-License-Identifier: MIT */
/* sp-lines-page.h - the Lines page: line-level samples of a region (file,
 * line, samples, time, percent, source). Files carry no line data yet, so it
 * explains how to record it. */
#ifndef SP_LINES_PAGE_H
#define SP_LINES_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_LINES_PAGE (sp_lines_page_get_type())
G_DECLARE_FINAL_TYPE(SpLinesPage, sp_lines_page, SP, LINES_PAGE, GtkWidget)

G_END_DECLS

#endif
