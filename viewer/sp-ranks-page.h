/* SPDX-License-Identifier: MIT */
/* sp-ranks-page.h - the Ranks page: the selected region's per-rank bars
 * (mean line, imbalance) and the rank x region heat map. */
#ifndef SP_RANKS_PAGE_H
#define SP_RANKS_PAGE_H

#include "sp-page.h"

G_BEGIN_DECLS

#define SP_TYPE_RANKS_PAGE (sp_ranks_page_get_type())
G_DECLARE_FINAL_TYPE(SpRanksPage, sp_ranks_page, SP, RANKS_PAGE, GtkWidget)

/* The region id the rank bars show (the selected region, or the one with
 * the most own time), -1 without a run. */
int sp_ranks_page_get_region(SpRanksPage *self);

G_END_DECLS

#endif
