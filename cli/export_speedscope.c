/* SPDX-License-Identifier: MIT */
/*
 * export_speedscope.c - `export speedscope`: the speedscope file format
 * (https://www.speedscope.app/file-format-schema.json). Frames are shared
 * (one per region, index = region id); one "evented" profile per (rank,
 * thread) with calls, unit nanoseconds, times relative to the run's first
 * call after clock offsets, open ("O") / close ("C") events in time order.
 *
 * Speedscope requires strictly nested events. Calls of a thread nest by
 * construction; a call that would end after its enclosing call (possible
 * in files that were not written by the recorder) is cut at its parent's
 * end so that the events stay balanced.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "scope_profiler.h"
#include "sp_analysis.h"
#include "sp_error.h"

typedef struct open_call {
    int32_t region;
    int64_t end;
} open_call;

static void event(FILE *f, bool *first, char type, int32_t frame, int64_t at)
{
    fprintf(f, "%s{\"type\": \"%c\", \"frame\": %d, \"at\": %" PRId64 "}", *first ? "" : ", ", type,
            (int)frame, at);
    *first = false;
}

/* Events of one thread: calls [i0, i1) of rk (model order: by start,
 * longer first). stack has room for i1 - i0 entries. */
static void thread_events(FILE *f, const sp_rank_data *rk, size_t i0, size_t i1, int64_t shift,
                          open_call *stack)
{
    size_t top = 0;
    bool first = true;
    for (size_t i = i0; i < i1; i++) {
        int64_t s = rk->start_ns[i] + shift, e = rk->end_ns[i] + shift;
        while (top && stack[top - 1].end <= s) {
            top--;
            event(f, &first, 'C', stack[top].region, stack[top].end);
        }
        if (top && e > stack[top - 1].end)
            e = stack[top - 1].end; /* keep the events nested */
        event(f, &first, 'O', rk->region[i], s);
        stack[top++] = (open_call){rk->region[i], e};
    }
    while (top) {
        top--;
        event(f, &first, 'C', stack[top].region, stack[top].end);
    }
}

static int speedscope_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    int64_t t0 = 0, t1 = 0;
    sp_run_time_span(run, &t0, &t1);
    size_t maxcalls = 0;
    for (size_t r = 0; r < run->nranks; r++)
        maxcalls = run->ranks[r].ncalls > maxcalls ? run->ranks[r].ncalls : maxcalls;
    open_call *stack = malloc((maxcalls ? maxcalls : 1) * sizeof *stack);
    if (!stack)
        return sp__error(SP_ENOMEM, "out of memory");

    fputs("{\n\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
          "\"exporter\": \"scope-profiler ",
          f);
    fputs(sp_version(), f);
    fputs("\",\n\"name\": ", f);
    sp__json_str(f, run->source_path ? run->source_path : "scope-profiler run");
    fputs(",\n\"activeProfileIndex\": 0,\n\"shared\": {\"frames\": [", f);
    for (size_t g = 0; g < run->nregions; g++) {
        fputs(g ? ", {\"name\": " : "{\"name\": ", f);
        sp__json_str(f, run->region_names[g]);
        fputc('}', f);
    }
    fputs("]},\n\"profiles\": [", f);
    bool firstp = true;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        int64_t shift = rk->clock_offset_ns - t0;
        for (size_t i0 = 0; i0 < rk->ncalls;) {
            int32_t t = rk->thread[i0];
            size_t i1 = i0;
            int64_t last = 0;
            while (i1 < rk->ncalls && rk->thread[i1] == t) {
                last = rk->end_ns[i1] + shift > last ? rk->end_ns[i1] + shift : last;
                i1++;
            }
            const char *tn = (t >= 0 && (size_t)t < rk->nthreads) ? rk->threads[t].name : NULL;
            fprintf(f, "%s\n{\"type\": \"evented\", \"name\": \"rank %zu / ", firstp ? "" : ",", r);
            if (tn) {
                /* the name goes inside an already open string: escape, drop quotes */
                char *buf = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&buf, &len);
                if (m) {
                    sp__json_str(m, tn);
                    fclose(m);
                    if (buf && len >= 2)
                        fwrite(buf + 1, 1, len - 2, f);
                    free(buf);
                }
            } else {
                fprintf(f, "thread %d", (int)t);
            }
            fprintf(f,
                    "\", \"unit\": \"nanoseconds\", \"startValue\": %" PRId64
                    ", \"endValue\": %" PRId64 ",\n \"events\": [",
                    rk->start_ns[i0] + shift, last);
            thread_events(f, rk, i0, i1, shift, stack);
            fputs("]}", f);
            firstp = false;
            i0 = i1;
        }
    }
    fputs("\n]\n}\n", f);
    free(stack);
    return 0;
}

int sp__export_speedscope(const sp_run *run, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, speedscope_body, run, NULL, wrote);
}
