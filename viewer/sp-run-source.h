/* SPDX-License-Identifier: MIT */
/*
 * sp-run-source.h - a run file open in the viewer's process for windows of
 * calls (analysis/sp_window.h) and, while a run records, for following it
 * (sp_agg_follow). Shared by the documents of one file (a follow refresh
 * makes a new document on the same source) and by the timeline charts'
 * loader threads: reads are serialised (one at a time), the block tables
 * and their index may grow only under the write side of a second lock, so
 * estimates on the main thread never wait for a read.
 */
#ifndef SP_RUN_SOURCE_H
#define SP_RUN_SOURCE_H

#include <glib.h>

#include "sp_agg.h"
#include "sp_events.h"
#include "sp_window.h"

G_BEGIN_DECLS

typedef struct SpRunSource SpRunSource;

/* Open path's event source (sp_run_source_open) and index its blocks. NULL
 * with *status (an SP_E* code) and sp_last_error() on failure. */
SpRunSource *sp_run_source_new(const char *path, int *status);
/* Wrap an open source (taken). NULL on SP_ENOMEM (src freed). */
SpRunSource *sp_run_source_new_for(sp_event_source *src);

/* The run whose calls a memory source reads (sp_source_mem_new): taken,
 * freed after the source. */
void sp_run_source_keep_run(SpRunSource *self, sp_run *calls);

SpRunSource *sp_run_source_ref(SpRunSource *self);
void sp_run_source_unref(SpRunSource *self);

/* Whether agg was computed from this source's blocks (same ranks, no more
 * blocks than it knows): else its lanes do not fit the blocks (the file was
 * replaced between the pass and the opening) and no window may be read. */
gboolean sp_run_source_matches(SpRunSource *self, const sp_agg *agg);

/* The calls of (rank, thread) in [t0, t1] (aligned ns), at most max_calls
 * (0: all) (sp_window_load). Blocks while another read runs. 0 and *out,
 * or an SP_E* code with sp_last_error(). Any thread. */
int sp_run_source_load_window(SpRunSource *self, const sp_agg *agg, size_t rank, int32_t thread,
                              gint64 t0_ns, gint64 t1_ns, size_t max_calls, sp_window **out);

/* An upper bound of that window's calls from the block index (never waits
 * for a read). Any thread. */
guint64 sp_run_source_estimate(SpRunSource *self, size_t rank, int32_t thread, gint64 t0_ns,
                               gint64 t1_ns);

/* ---- following a recording run (the follow thread only) ---- */

/*
 * Start a pass that stays open on the source (sp_agg_follow_new with
 * flags) if there is none, else take in what was appended
 * (sp_event_source_refresh, the block index updated) and update it; either
 * way hand back the run so far: a copy of the header with the new
 * aggregates attached, its file_state noted (open calls cut, torn blocks).
 * NULL with *status and sp_last_error() on failure.
 */
sp_run *sp_run_source_follow(SpRunSource *self, unsigned flags, int *status);

/* Whether the source's file says the run finished. */
gboolean sp_run_source_complete(SpRunSource *self);

G_END_DECLS

#endif
