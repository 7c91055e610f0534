/* SPDX-License-Identifier: MIT */
/* sp-timeline-page.h - the Timeline page: the run's lanes with zoom buttons,
 * scrollbars and the selected call's details. */
#ifndef SP_TIMELINE_PAGE_H
#define SP_TIMELINE_PAGE_H

#include "sp-page.h"
#include "sp-timeline-chart.h"

G_BEGIN_DECLS

#define SP_TYPE_TIMELINE_PAGE (sp_timeline_page_get_type())
G_DECLARE_FINAL_TYPE(SpTimelinePage, sp_timeline_page, SP, TIMELINE_PAGE, GtkWidget)

SpTimelineChart *sp_timeline_page_get_chart(SpTimelinePage *self);
/* Zoom the timeline around its centre by factor (> 1 in); 0 shows the run. */
void sp_timeline_page_zoom(SpTimelinePage *self, double factor);
/* Draw the run's MPI messages as lines between the lanes (the toolbar's
 * messages button; on by default; runs without messages have no button). */
void sp_timeline_page_set_show_messages(SpTimelinePage *self, gboolean show);

G_END_DECLS

#endif
