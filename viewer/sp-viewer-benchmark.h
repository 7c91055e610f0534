/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-benchmark.h - `--benchmark FILE`: load a run (timed), show it on
 * the timeline page, zoom from the whole run down to single calls and pan at
 * every level, and print the load time and its parts, the peak resident
 * memory (viewer and reading helper) and the median / p95 / max frame time
 * per zoom level and over all (snapshot + render of the timeline widget
 * through the window's GSK renderer).
 */
#ifndef SP_VIEWER_BENCHMARK_H
#define SP_VIEWER_BENCHMARK_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*SpBenchmarkDone)(int status, gpointer user_data);

/* Start the benchmark; done(status) runs when it has printed its figures
 * (status 0) or failed (1: the file did not load, no frames). */
void sp_viewer_benchmark_start(GtkApplication *app, const char *path, SpBenchmarkDone done,
                               gpointer user_data);

G_END_DECLS

#endif
