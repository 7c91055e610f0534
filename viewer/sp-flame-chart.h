/* SPDX-License-Identifier: MIT */
/*
 * sp-flame-chart.h - the call tree as an icicle or flame graph (plots/
 * sp_plot_calltree), with hover tooltips, click to select a node and
 * double-click to zoom into it (click an ancestor bar to zoom back out).
 */
#ifndef SP_FLAME_CHART_H
#define SP_FLAME_CHART_H

#include "sp-chart.h"
#include "sp-run-document.h"

G_BEGIN_DECLS

#define SP_TYPE_FLAME_CHART (sp_flame_chart_get_type())
G_DECLARE_FINAL_TYPE(SpFlameChart, sp_flame_chart, SP, FLAME_CHART, GtkWidget)

GtkWidget *sp_flame_chart_new(void);
void sp_flame_chart_set_document(SpFlameChart *self, SpRunDocument *doc);
/* TRUE: root at the bottom (flame graph); FALSE: root at the top (icicle). */
void sp_flame_chart_set_flame(SpFlameChart *self, gboolean flame);
void sp_flame_chart_set_highlight_region(SpFlameChart *self, int region);
void sp_flame_chart_set_selected_node(SpFlameChart *self, int node);
/* Draw node full width (0 = the root). */
void sp_flame_chart_set_root(SpFlameChart *self, int node);
int sp_flame_chart_get_root(SpFlameChart *self);
/* The hover tooltip of a call-tree node (node > 0), as Pango markup with the
 * names escaped for display; NULL without a document or for an unknown
 * node. Newly allocated. */
char *sp_flame_chart_describe_node(SpFlameChart *self, int node);

/*
 * Signals:
 *   "node-activated" (int node): a node was clicked (-1: empty space).
 *   "root-changed": the zoom root changed.
 */

G_END_DECLS

#endif
