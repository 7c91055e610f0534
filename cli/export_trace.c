/* SPDX-License-Identifier: MIT */
/*
 * export_trace.c - `export chrome-trace`: Trace Event Format JSON (loads in
 * Perfetto and chrome://tracing). One "X" (complete) event per call with
 * pid = rank, tid = thread index, ts / dur in microseconds with the
 * nanoseconds as three decimals (exact: printed from the integer ns), ts
 * relative to the run's first call after clock offsets. "M" metadata events
 * name the processes ("rank N") and threads. The events are streamed from
 * the file rank by rank; a viewer loads the whole document, so the verb
 * says when it would be too large for one (--from/--to, --ranks, --top).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "sp_analysis.h"

/* ns as microseconds with three decimals, exactly. */
static void put_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

typedef struct trace_out {
    FILE *f;
    const sp__export *x;
} trace_out;

static int trace_event(void *ud, const sp__call *c)
{
    const trace_out *o = ud;
    FILE *f = o->f;
    const sp_run *run = o->x->run;
    fputs(",\n  {\"ph\": \"X\", \"cat\": \"region\", \"name\": ", f);
    sp__json_str(f, run->region_names[c->region]);
    fprintf(f, ", \"pid\": %zu, \"tid\": %d, \"ts\": ", c->rank, (int)c->thread);
    put_us(f, c->start_ns + run->ranks[c->rank].clock_offset_ns - o->x->t0_ns);
    fputs(", \"dur\": ", f);
    put_us(f, c->end_ns - c->start_ns);
    fputc('}', f);
    return 0;
}

static int trace_body(const sp_run *run, FILE *f, const void *ctx)
{
    const sp__export *x = ctx;
    fputs("{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"source\": ", f);
    sp__json_str(f, run->source_path);
    for (size_t i = 0; i < run->meta.n; i++) {
        fputs(", ", f);
        sp__json_str(f, run->meta.items[i].key);
        fputs(": ", f);
        sp__json_str(f, run->meta.items[i].value);
    }
    fputs("},\n \"traceEvents\": [", f);
    bool first = true;
    trace_out o = {f, x};
    int rc = 0;
    for (size_t r = 0; r < run->nranks && rc == 0; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if (rk->excluded)
            continue;
        fprintf(f,
                "%s\n  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %zu, "
                "\"args\": {\"name\": \"rank %zu\"}},",
                first ? "" : ",", r, r);
        fprintf(f,
                "\n  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %zu, "
                "\"args\": {\"sort_index\": %zu}}",
                r, r);
        first = false;
        for (size_t t = 0; t < rk->nthreads; t++) {
            fprintf(f,
                    ",\n  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %zu, \"tid\": %zu, "
                    "\"args\": {\"name\": ",
                    r, t);
            if (rk->threads[t].name)
                sp__json_str(f, rk->threads[t].name);
            else
                fprintf(f, "\"thread %zu\"", t);
            fputs("}}", f);
        }
        rc = sp__stream_rank_calls(x->src, run->agg, r, &x->calls, trace_event, &o);
    }
    fputs("\n ]\n}\n", f);
    return rc;
}

int sp__export_chrome_trace(const sp__export *x, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, trace_body, x->run, x, wrote);
}
