/* SPDX-License-Identifier: MIT */
/* sp_plot_stats.c - per-thread layout counters, so tests can check what a
 * chart did (e.g. that no legend label was ellipsized) without pixels. */
#include "sp_plot_internal.h"

/* Thread-local: the viewer draws charts from several worker threads. */
static _Thread_local sp__plot_stats *g_stats;

void sp__plot_stats_capture(sp__plot_stats *st)
{
    g_stats = st;
}

sp__plot_stats *sp__plot_stats_active(void)
{
    return g_stats;
}
