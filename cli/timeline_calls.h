/* SPDX-License-Identifier: MIT */
/*
 * timeline_calls.h - the calls the timeline chart of `plot` and the report
 * draws, for a run read aggregate-first (which holds none).
 *
 * The timeline of plots/ still draws from calls in memory (the viewer's
 * level-of-detail timeline will replace it). Until then a run of at most
 * SP__TIMELINE_MAX_CALLS calls has them all read from its file (streamed,
 * call_stream.h) into a run of its own; a longer run shows the window from
 * its first call that holds about that many, and says so.
 */
#ifndef TIMELINE_CALLS_H
#define TIMELINE_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#define SP__TIMELINE_MAX_CALLS 1000000

typedef struct sp__timeline_calls {
    const sp_run *run;   /* what the timeline draws: the run itself, or `own` */
    sp_run *own;         /* calls read from the file, sorted, not analyzed (freed
                            by _free), or NULL */
    bool partial;        /* only a window of the run */
    double shown_s, span_s; /* the window's length and the run's, seconds */
    int64_t shown_ns;       /* the window's length, ns */
    uint64_t shown, total;  /* calls shown and in the run */
} sp__timeline_calls;

/*
 * Fill *out for run (analysed; read aggregate-first with SP_AGG_LANES from
 * path, or holding its calls). 0, or a negative SP_E* code with
 * sp_last_error() (the file cannot be read again, out of memory).
 */
int sp__timeline_calls_get(const sp_run *run, const char *path, uint64_t max_calls,
                           sp__timeline_calls *out);

void sp__timeline_calls_free(sp__timeline_calls *t);

/* "the first 1.20 s of 30.0 s (1,000,000 of 25,000,000 calls)" */
void sp__timeline_calls_note(const sp__timeline_calls *t, char *buf, size_t n);

#endif
