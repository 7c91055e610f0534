/* SPDX-License-Identifier: MIT */
/*
 * sp_run_read.h - opening a run file aggregate-first (internal API for the
 * CLI, plots, viewer and bindings).
 *
 * A schema v2 file streams: its header is read, its events are replayed
 * once by the aggregate pass (sp_agg.h), and nothing per call is kept; the
 * run that comes back has every summary (regions, tree, figures) and no
 * calls. Files that store calls rather than events (schema v1, the Python
 * package's layouts) are read whole, within the read limit, and go through
 * the same pass from memory (their runs keep their calls).
 *
 * Reading can happen in another process (the guard against libhdf5
 * crashing on a damaged file): the child runs the pass and sends back the
 * header and the aggregates, a few kilobytes to megabytes whatever the
 * number of calls.
 */
#ifndef SP_RUN_READ_H
#define SP_RUN_READ_H

#include "sp_agg.h"
#include "sp_events.h"
#include "sp_h5.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The run file at path as an event source: a v2 file's streaming source,
 * or for other layouts the whole run read into memory behind a memory
 * source (whose header run holds the calls). NULL with sp_last_error() and
 * *status (may be NULL) as sp_h5_read(). Free with sp_event_source_free().
 */
sp_event_source *sp_run_source_open(const char *path, int *status);

/* sp_run_source_open; with SP_AGG_LEAN_HEADER in flags (SP_AGG_*, the other
 * bits ignored) a v2 file's ranks are read without their metadata and
 * thread names (sp_h5_stream_open_ex). */
sp_event_source *sp_run_source_open_ex(const char *path, unsigned flags, int *status);

/*
 * The aggregate pass over src (sp_agg_run) attached to its header run
 * (sp_agg_attach: regions, tree, figures; src->run->agg), with file_state
 * updated for an unfinished run (calls cut, blocks left out). 0 or the
 * pass's error.
 */
int sp_run_aggregate(sp_event_source *src, const sp_agg_opts *opts);

/*
 * Attach agg, the pass's aggregates of run's file (a merge of the shares
 * read apart: sp_agg_merge_ranks), to run as sp_run_aggregate does
 * (sp_agg_attach, and an unfinished run's file_state from the open and
 * torn calls of every rank). agg may already be run->agg. 0, or SP_ENOMEM
 * with agg still the caller's unless it was run->agg.
 */
int sp_run_attach_read(sp_run *run, sp_agg *agg);

/*
 * Open, aggregate and hand back the analysed run (no calls for a v2 file;
 * the source is closed). With isolation (how != NULL, or NULL to use the
 * environment's default: SCOPE_PROFILER_READ_ISOLATION), the pass runs in a
 * child process (sp_h5_isolation: fork, or a helper program that calls
 * sp_run_read_helper_main()) and only the header and the aggregates come
 * back (observers are not called then; progress is called in the forked
 * child, so it may only write to a file descriptor; a helper program reads
 * every rank and reports no progress). NULL with sp_last_error() and
 * *status.
 */
sp_run *sp_run_read(const char *path, const sp_agg_opts *opts, const sp_h5_isolation *how,
                    bool isolate, int *status);

/* The helper program's side of an isolated sp_run_read(): read path with
 * the aggregate flags `flags`, send the outcome to stdout. Returns the exit
 * status for main(). */
int sp_run_read_helper_main(const char *path, unsigned flags);

/* ---- the aggregates on the wire (sp_agg_wire.c) ---- */

/* The aggregate as bytes (malloc'ed into *out, *len). 0 or SP_ENOMEM. */
int sp_agg_encode(const sp_agg *a, uint8_t **out, size_t *len);

/* An aggregate from bytes, checked against run (the header it belongs to:
 * ranks, regions, threads): every id in range, every count consistent.
 * 0 and *out, SP_EFORMAT for damaged bytes, SP_ENOMEM. */
int sp_agg_decode(const uint8_t *buf, size_t len, const sp_run *run, sp_agg **out);

#ifdef __cplusplus
}
#endif

#endif /* SP_RUN_READ_H */
