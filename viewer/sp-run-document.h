/* SPDX-License-Identifier: MIT */
/*
 * sp-run-document.h - one opened run, read aggregate-first: the run's
 * header with the aggregates of one streaming pass attached (no calls:
 * analysis/sp_run_read.h), what the viewer derives from them once off the
 * main thread (per-region imbalance, figures, escaped names), and the file
 * open in this process for windows of calls (sp-run-source.h), which the
 * timeline loads on demand. Immutable after loading, so pages can share it
 * freely.
 */
#ifndef SP_RUN_DOCUMENT_H
#define SP_RUN_DOCUMENT_H

#include <gio/gio.h>

#include "sp-run-source.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_figures.h"
#include "sp_model.h"
#include "sp_plots.h"

G_BEGIN_DECLS

#define SP_TYPE_RUN_DOCUMENT (sp_run_document_get_type())
G_DECLARE_FINAL_TYPE(SpRunDocument, sp_run_document, SP, RUN_DOCUMENT, GObject)

/* What the viewer asks of the aggregate pass: the timeline's lanes and
 * level-of-detail index, each region's duration over time, and what the
 * Compare page's comparison needs (SP_COMPARE_AGG_FLAGS(false): segments
 * and waits), so that comparing runs never reads their files again (it
 * read both in the helper, twice a load's time on 10^6 regions). */
#define SP_VIEWER_AGG_FLAGS (SP_AGG_LANES | SP_AGG_LOD | SP_AGG_SERIES | SP_AGG_SEGMENTS)

/* How documents read their files. With a helper program set (the viewer
 * sets itself), every file's pass runs in a helper process
 * (`scope-profiler-viewer --read-helper FLAGS FILE`: sp_run_read() with
 * isolation, only the header and the aggregates come back): a file that
 * crashes or hangs libhdf5 becomes a load error. Then the file is opened in
 * this process for windows of calls (the helper validated it). Without a
 * helper (tests that link the viewer library), or with
 * SCOPE_PROFILER_READ_ISOLATION=0, the pass runs in the loading thread. */
#define SP_VIEWER_READ_HELPER_OPTION "--read-helper"
void sp_run_document_set_read_helper(const char *program);

/* Read the file at path aggregate-first and open it for windows (blocking). */
SpRunDocument *sp_run_document_load(const char *path, GError **error);

/* The same in a worker thread (GTask); the callback runs on the caller's
 * main context. */
void sp_run_document_load_async(GFile *file, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
SpRunDocument *sp_run_document_load_finish(GAsyncResult *result, GError **error);

/* Wrap an in-memory run with its calls (takes ownership): its pass runs in
 * memory, and windows come from its calls. */
SpRunDocument *sp_run_document_new_for_run(sp_run *run, const char *display_name,
                                           GError **error);

/* A state of a run being followed (sp-viewer-follow.c): run has its
 * aggregates attached (taken), src is the file open in this process
 * (referenced), read_s what the refresh took. */
SpRunDocument *sp_run_document_new_followed(sp_run *run, SpRunSource *src, const char *path,
                                            double read_s, GError **error);

const sp_run *sp_run_document_get_run(SpRunDocument *self);
/* The file's path, or NULL for an in-memory run. */
const char *sp_run_document_get_path(SpRunDocument *self);
/* The file name shown in titles ("run.h5"), escaped for display
 * (sp-viewer-text.h). */
const char *sp_run_document_get_display_name(SpRunDocument *self);
/* Wall time spent loading, seconds. */
double sp_run_document_get_load_seconds(SpRunDocument *self);
/* Of which: the pass (reading every event, in the helper process when
 * isolated), deriving the viewer's figures; and opening the file for
 * windows (header, block tables, their index), which happens on first use
 * (sp_run_document_get_source; 0 before) and is not part of the load. */
void sp_run_document_get_load_breakdown(SpRunDocument *self, double *pass_s, double *open_s,
                                        double *prepare_s);
guint64 sp_run_document_get_total_calls(SpRunDocument *self);

/* The aggregates (run->agg). */
const sp_agg *sp_run_document_get_agg(SpRunDocument *self);

/* The file open for windows of calls, or NULL (it could not be opened, or
 * it changed since the pass): the timeline then draws from the index only.
 * A document loaded from a file opens it on the first call (which then
 * takes as long as reading the file's header; from any thread, once). */
SpRunSource *sp_run_document_get_source(SpRunDocument *self);

/* Whether windows of calls may be read: the source is open, or will be
 * tried on first use (sp_run_document_get_source), without opening it. */
gboolean sp_run_document_may_have_source(SpRunDocument *self);

/* The run read anew aggregate-first with the SP_AGG_* extras flags (in
 * the helper process when isolated), no calls: for aggregates the viewer's
 * own read leaves out (a comparison's segments and waits). A new run the
 * caller frees; NULL with error. Any thread. */
sp_run *sp_run_document_read_aggregates(SpRunDocument *self, unsigned flags, GError **error);

/* Run time span (all ranks, clock offsets applied), ns. Both 0 without calls. */
gint64 sp_run_document_get_t0_ns(SpRunDocument *self);
gint64 sp_run_document_get_t1_ns(SpRunDocument *self);

/* The region with the most own time, the run's hot spot (what charts show
 * until a region is selected), or -1 for a run without calls. */
int sp_run_document_get_top_region(SpRunDocument *self);

/* The run's figures under the rank rule (sp_figures.h): per-rank means and
 * maxima of every region and call path, the wall-clock span, which figures
 * are estimates. Computed while loading. */
const sp_figures *sp_run_document_get_figures(SpRunDocument *self);

/* Why ranks wait (analysis/sp_waits.h), computed while loading for a run
 * that recorded MPI messages; NULL otherwise. Owned by the document. For
 * the timeline's message lines, sp_waits_messages_in(waits, t0, t1, ...)
 * gives the matched messages of a window (rank 0's clock, as the
 * timeline's). */
struct sp_waits;
const struct sp_waits *sp_run_document_get_waits(SpRunDocument *self);

/* Region id by name, or -1. */
int sp_run_document_find_region(SpRunDocument *self, const char *name);
/* max / mean over ranks of the region's per-rank total (1.0 on one rank; 0
 * for an unknown region). */
double sp_run_document_get_imbalance(SpRunDocument *self, int region);

/* A region's name as the viewer shows it (sp-viewer-text.h): the name
 * itself when it needs no escaping, else its escaped form, computed once at
 * load. Owned by the document; NULL for an unknown region. Match and select
 * by the raw name (run->region_names), show this. */
const char *sp_run_document_get_region_label(SpRunDocument *self, int region);

/* The path of names (as shown, escaped) from the root to a call-tree node:
 * "main › solve › x". Newly allocated. */
char *sp_run_document_tree_path(SpRunDocument *self, int node);

G_END_DECLS

#endif
