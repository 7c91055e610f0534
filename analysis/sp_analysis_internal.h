/* SPDX-License-Identifier: MIT */
/*
 * sp_analysis_internal.h - helpers shared between the analysis files (not
 * part of sp_analysis.h's API; other layers should not need them, except the
 * text helpers, which the CLI and later table printers may reuse).
 */
#ifndef SP_ANALYSIS_INTERNAL_H
#define SP_ANALYSIS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sp_model.h"

/* ---- sp_stats.c ---- */

/* Sort n int64 ascending. tmp (n entries, may be NULL) lets large arrays use
 * an O(n) radix sort; without it a comparison sort is used. */
void sp__sort_i64(int64_t *a, size_t n, int64_t *tmp);

/* Statistics of n durations (ns) already sorted ascending. own_s is left 0. */
void sp__stats_from_sorted(const int64_t *a, size_t n, sp_stats *out);

/* ---- sp_analyze.c ---- */

/* Analyze run if it was not yet (0 or the sp_run_analyze() error). Readers
 * of a const run call this: analysis only fills derived fields, so the const
 * is cast away here, in one place. Not thread-safe on a run that is not yet
 * analyzed (analyze before sharing a run between threads). */
int sp__ensure_analyzed(const sp_run *run);

/* ---- sp_calltree.c ---- */

/* The parent of call i of rk if it is usable (an earlier call of the rank),
 * else -1. Model order puts a parent before its children; anything else is
 * treated as top level so that one pass over the calls suffices. */
static inline int64_t sp__valid_parent(const sp_rank_data *rk, size_t i)
{
    int64_t p = rk->parent[i];
    return (p >= 0 && (uint64_t)p < i) ? p : -1;
}

/* Every rank's depth[] / tree_node[] for runs holding calls, from run->tree
 * (built by the aggregate pass). 0 or SP_ENOMEM (nothing is left allocated
 * on failure). */
int sp__calls_tree_nodes(sp_run *run);

/* ---- sp_summary.c: the caps of the summary tree (see there) ---- */
#define SP__SUMMARY_MAX_ROWS 100    /* node rows */
#define SP__SUMMARY_MAX_CHILDREN 20 /* children shown per node */
#define SP__SUMMARY_MAX_LEVEL 12    /* tree levels shown */
#define SP__SUMMARY_NAME_COLS 60    /* display columns of a region name */

/* ---- sp_text.c: UTF-8 display width and boxes ---- */

/* Display columns of a UTF-8 string (wide East Asian characters count 2,
 * combining marks 0, an invalid byte 1). */
size_t sp__utf8_width(const char *s);

/* Whether s is wider than cols columns (reads no further than it must). */
bool sp__utf8_wider_than(const char *s, size_t cols);

/* Copy src into dst (size dstsize) for display in a table: control
 * characters, bidi controls and invalid UTF-8 become '?', and text wider
 * than max_cols display columns keeps both ends with "…" in the middle
 * (names: "networkx.algo…_weight_function"). Returns the display width. */
size_t sp__label_copy(char *dst, size_t dstsize, const char *src, size_t max_cols);

/* As sp__label_copy(), but text too wide is cut at the end ("…" last): for
 * running text (a source line, a metadata value), whose start says most. */
size_t sp__label_copy_end(char *dst, size_t dstsize, const char *src, size_t max_cols);

/* A malloc'ed printf result, or NULL on out of memory. */
char *sp__strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A malloc'ed copy of s for display: as sp__label_copy() without a width
 * limit (control characters and invalid UTF-8 become '?'). NULL on ENOMEM. */
char *sp__display_dup(const char *s);

/* Write s followed by spaces up to `width` display columns. */
void sp__put_padded(FILE *out, const char *s, size_t width);

/* Write text wrapped at `width` columns (on spaces; "\n" starts a new
 * line), each line ending in "\n". */
void sp__put_wrapped(FILE *out, const char *text, size_t width);

/* Write n copies of the UTF-8 string s. */
void sp__put_repeat(FILE *out, const char *s, size_t n);

/*
 * Print a rounded box around lines (each padded to the widest line):
 *   ╭─ title ───╮      (title may be NULL: a plain top edge)
 *   │ line      │
 *   ├───────────┤      (for a NULL entry of lines)
 *   ╰───────────╯
 */
void sp__print_box(FILE *out, const char *title, const char *const *lines, size_t n);

#endif /* SP_ANALYSIS_INTERNAL_H */
