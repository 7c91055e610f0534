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
 * end so that the events stay balanced. With --from/--to, calls are cut at
 * the window's edges. Events stream from the file thread by thread (each
 * thread's profile is one read of its rank's blocks).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "scope_profiler.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_error.h"

typedef struct open_call {
    int32_t region;
    int64_t end;
} open_call;

/* One profile's events: calls of one (rank, thread) in begin order, clipped
 * to the window, shifted to run time. */
typedef struct profile_out {
    FILE *f;
    bool first;
    int64_t shift;           /* rank clock -> run time */
    int64_t lo, hi;          /* the window in run time (or the lane's span) */
    open_call *stack;
    size_t top, cap;
    int oom;
} profile_out;

static void event(profile_out *p, char type, int32_t frame, int64_t at)
{
    fprintf(p->f, "%s{\"type\": \"%c\", \"frame\": %d, \"at\": %" PRId64 "}",
            p->first ? "" : ", ", type, (int)frame, at);
    p->first = false;
}

static int profile_call(void *ud, const sp__call *c)
{
    profile_out *p = ud;
    int64_t s = c->start_ns + p->shift, e = c->end_ns + p->shift;
    s = s < p->lo ? p->lo : s;
    e = e > p->hi ? p->hi : e;
    e = e < s ? s : e;
    while (p->top && p->stack[p->top - 1].end <= s) {
        p->top--;
        event(p, 'C', p->stack[p->top].region, p->stack[p->top].end);
    }
    if (p->top && e > p->stack[p->top - 1].end)
        e = p->stack[p->top - 1].end; /* keep the events nested */
    event(p, 'O', c->region, s);
    if (p->top == p->cap) {
        size_t n = p->cap ? 2 * p->cap : 64;
        open_call *st = realloc(p->stack, n * sizeof *st);
        if (!st)
            return sp__error(SP_ENOMEM, "out of memory");
        p->stack = st;
        p->cap = n;
    }
    p->stack[p->top++] = (open_call){c->region, e};
    return 0;
}

/* The name of a thread inside an already open JSON string. */
static void thread_label(FILE *f, const sp_rank_data *rk, int32_t t)
{
    const char *tn = (t >= 0 && (size_t)t < rk->nthreads) ? rk->threads[t].name : NULL;
    if (!tn) {
        fprintf(f, "thread %d", (int)t);
        return;
    }
    /* escape, then drop the quotes */
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
}

static int speedscope_body(const sp_run *run, FILE *f, const void *ctx)
{
    const sp__export *x = ctx;
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
    profile_out p = {.f = f};
    int rc = 0;
    for (size_t r = 0; r < run->nranks && rc == 0; r++) {
        const sp_agg_rank *o = run->agg && r < run->agg->nranks ? &run->agg->ranks[r] : NULL;
        int64_t shift = run->ranks[r].clock_offset_ns - x->t0_ns;
        /* One profile per thread with calls: its events stream from the
         * rank's blocks of that thread. */
        for (size_t l = 0; o && l < o->nlanes && rc == 0; l++) {
            const sp_agg_lane *lane = &o->lanes[l];
            sp__call_sel sel = x->calls;
            sel.thread = lane->thread;
            if (!lane->calls || sp__stream_estimate(x->src, run->agg, r, &sel) == 0)
                continue;
            p.lo = lane->first_ns - x->t0_ns;
            p.hi = lane->last_ns - x->t0_ns;
            if (sel.window) {
                p.lo = sel.t0_ns - x->t0_ns > p.lo ? sel.t0_ns - x->t0_ns : p.lo;
                p.hi = sel.t1_ns - x->t0_ns < p.hi ? sel.t1_ns - x->t0_ns : p.hi;
            }
            if (p.hi < p.lo)
                continue;
            p.shift = shift;
            p.first = true;
            p.top = 0;
            fprintf(f, "%s\n{\"type\": \"evented\", \"name\": \"rank %zu / ", firstp ? "" : ",", r);
            thread_label(f, &run->ranks[r], lane->thread);
            fprintf(f,
                    "\", \"unit\": \"nanoseconds\", \"startValue\": %" PRId64
                    ", \"endValue\": %" PRId64 ",\n \"events\": [",
                    p.lo, p.hi);
            rc = sp__stream_rank_calls(x->src, run->agg, r, &sel, profile_call, &p);
            while (p.top) {
                p.top--;
                event(&p, 'C', p.stack[p.top].region, p.stack[p.top].end);
            }
            fputs("]}", f);
            firstp = false;
        }
    }
    fputs("\n]\n}\n", f);
    free(p.stack);
    return rc;
}

int sp__export_speedscope(const sp__export *x, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, speedscope_body, x->run, x, wrote);
}
