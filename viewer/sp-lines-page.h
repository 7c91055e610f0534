/* SPDX-License-Identifier: MIT */
/* sp-lines-page.h - the Lines page: the line samples of a region (function,
 * file:line, samples, time, share of the region, source text), merged over
 * ranks or of one rank; an explanation of how to record them when the run
 * (or the region) has none. */
#ifndef SP_LINES_PAGE_H
#define SP_LINES_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_LINES_PAGE (sp_lines_page_get_type())
G_DECLARE_FINAL_TYPE(SpLinesPage, sp_lines_page, SP, LINES_PAGE, GtkWidget)

/* The table's rows (SpLineItem) in display order. */
GListModel *sp_lines_page_get_rows(SpLinesPage *self);
/* The region shown (id in the base run), or -1. */
int sp_lines_page_get_region(SpLinesPage *self);
/* Show one rank's samples (rank >= 0) or all ranks merged (-1). */
void sp_lines_page_set_rank(SpLinesPage *self, int rank);
/* TRUE while the table (not the empty state) is shown. */
gboolean sp_lines_page_has_table(SpLinesPage *self);

G_END_DECLS

#endif
