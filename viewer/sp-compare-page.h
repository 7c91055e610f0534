/* SPDX-License-Identifier: MIT */
/* sp-compare-page.h - the Compare page (two runs): stacked timelines with a
 * shared time window, and the comparison table with its chart; with more
 * than two runs, a Scaling view (speedup and efficiency of every run). */
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

/* For tests: the summary's tally as plain text (sp_compare_tally_text of
 * the comparison shown), NULL while comparing; the comparison itself; the
 * scaling study (NULL with two runs or fewer). */
const char *sp_compare_page_get_summary(SpComparePage *self);
const struct sp_compare *sp_compare_page_get_compare(SpComparePage *self);
const struct sp_scaling *sp_compare_page_get_scaling(SpComparePage *self);
/* Why the runs open make no scaling study ("No scaling study: runs 2 and 3
 * both have 8 ranks ..."), shown in place of the chart; NULL when there is
 * a study, or fewer than three runs. */
const char *sp_compare_page_get_scaling_error(SpComparePage *self);

/* Show the "comparison" or the "scaling" view. */
void sp_compare_page_show_view(SpComparePage *self, const char *name);

G_END_DECLS

#endif
