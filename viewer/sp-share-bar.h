/* SPDX-License-Identifier: MIT */
/* sp-share-bar.h - a thin horizontal bar for table cells: a share (0..1)
 * filled in a region's chart colour over a faint track. */
#ifndef SP_SHARE_BAR_H
#define SP_SHARE_BAR_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_SHARE_BAR (sp_share_bar_get_type())
G_DECLARE_FINAL_TYPE(SpShareBar, sp_share_bar, SP, SHARE_BAR, GtkWidget)

GtkWidget *sp_share_bar_new(void);
/* fraction is clamped to 0..1; region picks the colour (NULL: accent blue). */
void sp_share_bar_set(SpShareBar *self, double fraction, const char *region);

G_END_DECLS

#endif
