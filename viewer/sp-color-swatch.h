/* SPDX-License-Identifier: MIT */
/* sp-color-swatch.h - a small rounded square in a region's colour (the same
 * colour as in every chart: the window's colour map, sp_chart_style_for_widget()). */
#ifndef SP_COLOR_SWATCH_H
#define SP_COLOR_SWATCH_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_COLOR_SWATCH (sp_color_swatch_get_type())
G_DECLARE_FINAL_TYPE(SpColorSwatch, sp_color_swatch, SP, COLOR_SWATCH, GtkWidget)

GtkWidget *sp_color_swatch_new(void);
/* The region whose colour to show; NULL shows nothing. */
void sp_color_swatch_set_region(SpColorSwatch *self, const char *name);

G_END_DECLS

#endif
