/* SPDX-License-Identifier: MIT */
/*
 * cli_progress.h - a progress line on stderr for long reads and exports.
 *
 * Shown only when stderr is a terminal and the work has taken more than a
 * second (SCOPE_PROFILER_PROGRESS=1 shows it anyway, =0 never), as one line
 * rewritten in place ("scope-profiler: reading: 42 % of 270 M events") and
 * erased at the end, so the verb's own output is never mixed with it.
 *
 * Under read isolation the aggregate pass runs in a forked child process
 * (sp_run_read.h): the child reports its progress itself, writing to the
 * stderr it inherited. That is why the line is written with write(2) from
 * state that lives in the reporting process only, never through stdio or
 * the caller's memory.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sp__progress {
    bool enabled;    /* decided at init: terminal (or forced) */
    bool shown;      /* a line is on the screen */
    double t0;       /* monotonic seconds at init */
    double last;     /* when the line was last written */
    uint64_t done, total;
    const char *what; /* "reading", "writing" (static text) */
    const char *unit; /* "events", "calls" */
} sp__progress;

/* Start counting (nothing is shown for the first second). */
void sp__progress_init(sp__progress *p, const char *what, const char *unit, uint64_t total);

/* Set how much is done (at most every 0.2 s the line is rewritten). */
void sp__progress_set(sp__progress *p, uint64_t done);

/* Add to what is done. */
void sp__progress_add(sp__progress *p, uint64_t n);

/* Erase the line if one was shown. */
void sp__progress_end(sp__progress *p);

/* An sp_agg_opts.progress callback (ud = an sp__progress): done / total events. */
void sp__progress_pass(void *ud, uint64_t done, uint64_t total);

/* Erase a line a forked reading child may have left (the parent cannot
 * know): when progress is enabled and the read took more than a second. */
void sp__progress_erase_after(const sp__progress *p);

#endif
