/* SPDX-License-Identifier: MIT */
/*
 * sp_run_state.c - whether a run is whole, and what an unfinished one lost,
 * in one sentence every view shows (summary, ranks, inspect, the report,
 * the viewer's header). The reader of a schema v2 file that was never
 * finished (killed, or still recording) puts `file_state` and
 * `incomplete_ranks` in the run's metadata (h5schema/SCHEMA.md).
 */
#include <stdio.h>
#include <string.h>

#include "sp_analysis.h"

bool sp_run_is_incomplete(const sp_run *run)
{
    return run && sp_kvlist_get(&run->meta, "file_state") != NULL;
}

const char *sp_run_incomplete_text(const sp_run *run, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    buf[0] = '\0';
    const char *state = run ? sp_kvlist_get(&run->meta, "file_state") : NULL;
    if (!state)
        return buf;
    const char *ranks = sp_kvlist_get(&run->meta, "incomplete_ranks");
    snprintf(buf, n,
             "Incomplete run: %s%s%s%s; calls that ended after the recorder's last flush "
             "(by default 1 s before the end) are not in the file.",
             state, ranks ? "; rank(s) " : "", ranks ? ranks : "",
             ranks ? " left no data" : "");
    return buf;
}
