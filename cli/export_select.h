/* SPDX-License-Identifier: MIT */
/*
 * export_select.h - what the timeline exports (otf2, perfetto) take from a
 * run: a rank selection, regions by name (--include / --exclude) or the N
 * regions with the most time (--top-n), and a time window (--from / --to,
 * seconds from the run's first call). The run is opened in this process as
 * an event source with the aggregate pass (lanes kept, for windows), and
 * its calls are streamed through sp_trace_stream.h: nothing per call is
 * held.
 */
#ifndef EXPORT_SELECT_H
#define EXPORT_SELECT_H

#include <stdbool.h>

#include "plot_args.h"
#include "sp_agg.h"
#include "sp_events.h"
#include "sp_trace_stream.h"

/* --from / --to / --top as given (the same options, with the same meaning,
 * as the other timeline exports: calls still running at --from and started
 * by --to; the N regions with the most total time). */
typedef struct sp__window_opts {
    bool has_from, has_to;
    double from_s, to_s; /* seconds after the run's first call */
    long top_n;          /* 0: every region */
} sp__window_opts;

/* Option ids of the long options --from and --to in a verb's option table
 * (values outside any short option); --top is 'n'. */
enum { SP__OPT_FROM = 1100, SP__OPT_TO };

/* Option c (SP__OPT_FROM, SP__OPT_TO or 'n') with its value arg into w. 0,
 * or SP_CLI_EXIT_USAGE after reporting a bad value as a usage error of
 * verb. */
int sp__window_option(sp__window_opts *w, int c, const char *arg, const char *verb);

/* A run opened for a timeline export. */
typedef struct sp__trace_input {
    sp_event_source *src;
    sp_run *run;          /* = src->run, with its aggregates (run->agg) */
    bool *ranks;          /* selected ranks (run->nranks entries) */
    bool *regions;        /* shown regions (run->nregions entries), or NULL: all */
    sp_trace_select sel;  /* what sp_trace_stream() is given */
    int64_t origin_ns;    /* the run's first call (aligned): where --from counts from */
    size_t nregions_shown;
} sp__trace_input;

/*
 * Open path for a timeline export with the selection of sel and w: the
 * source, the aggregate pass over the selected ranks (SP_AGG_LANES), the
 * region and window selection. 0, or an exit status (SP_CLI_EXIT_USAGE
 * for an unreadable file, a rank the run does not have or a bad pattern)
 * after reporting the error; nothing is left to close then.
 */
int sp__trace_input_open(const char *verb, const char *path, const sp__selection *sel,
                         const sp__window_opts *w, sp__trace_input *in);

void sp__trace_input_close(sp__trace_input *in);

/* ---- the formats other tools read (export_tools.c) ---- */

#define SP__TOOL_FORMATS "otf2, perfetto, caliper-json"

/* The index of one of those format names, or -1. */
int sp__tool_format(const char *name);

/* `export FORMAT path -o out` for such a format with the selection sel and
 * w (caliper-json takes --ranks only). Returns the exit status, after
 * printing the path written or one line of error. */
int sp__export_tool(int format, const char *verb, const char *path, const char *out,
                    const sp__selection *sel, const sp__window_opts *w);

#endif
