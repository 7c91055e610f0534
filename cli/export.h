/* SPDX-License-Identifier: MIT */
/*
 * export.h - the writers of `scope-profiler export` (and the escaping and
 * output-file helpers the report shares). Every writer takes an export (the
 * run's aggregates and its events, sp__export), returns 0 or a negative
 * SP_E* code with sp_last_error() set, and names what it wrote through the
 * `wrote` callback (one call per file).
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "call_stream.h"
#include "sp_model.h"
#include "sp_outfile.h"

/* Called once per file written (path as given or joined). */
typedef void (*sp__wrote_fn)(const char *path);

/* ---- output files (export_util.c) ---- */

/* An output written to an exclusive temporary file next to path and renamed
 * into place on success (devices such as /dev/null are written in place; see
 * sp_outfile.h); path "-" is stdout. */
typedef struct sp__out {
    FILE *f;
    sp_outfile file;
} sp__out;

/* 0 or SP_EIO ("cannot write 'path': reason"). */
int sp__out_open(sp__out *o, const char *path);
/* Close, check every write, rename. ok = false discards the file. 0 or SP_EIO. */
int sp__out_close(sp__out *o, bool ok);

/* A file body writer: write run's data to f; 0 or a negative SP_E* code. */
typedef int (*sp__body_fn)(const sp_run *run, FILE *f, const void *ctx);

/* Write path (or stdout for "-") with body through sp__out, then report it
 * to wrote (may be NULL; not called for stdout). 0 or SP_E*. */
int sp__write_file(const char *path, sp__body_fn body, const sp_run *run, const void *ctx,
                   sp__wrote_fn wrote);

/* The same for dir/name. */
int sp__write_in_dir(const char *dir, const char *name, sp__body_fn body, const sp_run *run,
                     const void *ctx, sp__wrote_fn wrote);

/* Create directory path (and missing parents); fine if it exists. 0 or SP_EIO. */
int sp__mkdir_p(const char *path);

/* dir + "/" + name, malloc'ed (NULL on ENOMEM). */
char *sp__path_join(const char *dir, const char *name);

/* ---- escaping (export_util.c) ---- */

/* Length of the valid UTF-8 sequence at s (1..4; 1 for ASCII), or 0 when
 * the bytes there are not valid UTF-8 (overlong, surrogate, truncated). */
size_t sp__utf8_seq(const unsigned char *s);

/* Write s as a JSON string literal (with quotes): ", \ and control characters
 * (C0, DEL, C1) escaped, invalid UTF-8 bytes replaced by U+FFFD. NULL writes
 * null. */
void sp__json_str(FILE *f, const char *s);

/* Write a finite double (%.12g; integers exactly), or null when not finite. */
void sp__json_num(FILE *f, double v);

/* Write ",%.{prec}f" of v (0 <= prec <= 17), as printf would, without it
 * (common/sp_numfmt.h: exports of 10^6 regions or calls print tens of
 * millions of numbers). */
void sp__csv_fixed(FILE *f, double v, int prec);

/* Write v in decimal ("%" PRIu64, without printf). */
void sp__put_u64(FILE *f, uint64_t v);

/* Write s, a text cell, as one CSV field (RFC 4180: quoted when it holds , "
 * CR LF or leading/trailing spaces; quotes doubled). Control characters but
 * line breaks and tabs are written as visible escapes (\x1b); a cell that a
 * spreadsheet would take for a formula (starting with = + - @, tab or CR, and
 * not a plain number) gets a leading apostrophe. Numbers are not text cells:
 * write them with fprintf. */
void sp__csv_str(FILE *f, const char *s);

/* ---- what the writers read ---- */

/*
 * One export: the run read aggregate-first with the selection (statistics,
 * tree and figures come from its aggregates), and its events for the files
 * with a row per call, streamed rank by rank (call_stream.h) so that no
 * export holds the calls of a run.
 */
typedef struct sp__export {
    const sp_run *run;        /* analysed, aggregates with lanes (SP_AGG_LANES) */
    sp_event_source *src;     /* the run's events (the same file, read in this process) */
    sp__call_sel calls;       /* the calls per-call files write: regions, time window */
    int64_t t0_ns;            /* run time 0: the run's first call, clocks aligned */
    bool us;                  /* collapsed: microseconds (else ns) */
} sp__export;

/* Hand every selected call of every rank read to fn, rank by rank. 0, fn's
 * status or the source's error. */
int sp__export_each_call(const sp__export *x, sp__call_fn fn, void *ud);

/* ---- writers: int fn(const sp__export *x, const char *out, sp__wrote_fn wrote) ---- */

typedef int (*sp__export_fn)(const sp__export *x, const char *out, sp__wrote_fn wrote);

/* Call paths in the collapsed export and in plot-data's flame.csv keep the
 * innermost frames only, after "…;": a deep recursion must not make the
 * output quadratic in its depth. The collapsed export is a stack format
 * (flamegraph.pl, speedscope): 256 frames; flame.csv has one row per call
 * tree node with its parent, so its path column is a label: 16 frames keep
 * 2^20 nested calls at ~200 MB and seconds (256 frames: 2 GB, 46 s). */
#define SP__EXPORT_MAX_FRAMES 256
#define SP__EXPORT_PATH_FRAMES 16

/* OUT is a directory: regions.csv, per_rank.csv, calls.csv, call_tree.csv,
 * metadata.csv (export_csv.c). */
int sp__export_csv(const sp__export *x, const char *dir, sp__wrote_fn wrote);

/* One JSON document (export_json.c). */
int sp__export_json(const sp__export *x, const char *path, sp__wrote_fn wrote);

/* The data behind each chart, CSV files plus summary.json in dir
 * (export_plotdata.c). */
int sp__export_plot_data(const sp__export *x, const char *dir, sp__wrote_fn wrote);

/* Trace Event Format, "X" events (export_trace.c). */
int sp__export_chrome_trace(const sp__export *x, const char *path, sp__wrote_fn wrote);

/* speedscope file format, evented profiles (export_speedscope.c). */
int sp__export_speedscope(const sp__export *x, const char *path, sp__wrote_fn wrote);

/* Folded stacks "a;b;c VALUE" of own time; x->us: whole microseconds, else
 * nanoseconds (export_collapsed.c). */
int sp__export_collapsed(const sp__export *x, const char *path, sp__wrote_fn wrote);

/* Caliper json-split (export_caliper.c): the call tree with per-rank time
 * and calls; ranks (NULL: all) selects the ranks written. */
int sp__export_caliper(const sp_run *run, const bool *ranks, const char *path,
                       sp__wrote_fn wrote);

struct sp__trace_input;

/* Perfetto's protobuf trace format, gzip-compressed (export_perfetto.c):
 * the selected calls of in, streamed. *calls (may be NULL) gets the calls
 * written, *raw_bytes (may be NULL) the size before compression. */
int sp__export_perfetto(struct sp__trace_input *in, const char *path, sp__wrote_fn wrote,
                        uint64_t *calls, unsigned long long *raw_bytes);

#endif
