/* SPDX-License-Identifier: MIT */
/*
 * export_trace.c - `export chrome-trace`: Trace Event Format JSON (loads in
 * Perfetto and chrome://tracing). One "X" (complete) event per call with
 * pid = rank, tid = thread index, ts / dur in microseconds with the
 * nanoseconds as three decimals (exact: printed from the integer ns), ts
 * relative to the run's first call after clock offsets. "M" metadata events
 * name the processes ("rank N") and threads.
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

static int trace_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)ctx;
    int64_t t0 = 0, t1 = 0;
    sp_run_time_span(run, &t0, &t1);
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
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
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
        for (size_t i = 0; i < rk->ncalls; i++) {
            fputs(",\n  {\"ph\": \"X\", \"cat\": \"region\", \"name\": ", f);
            sp__json_str(f, run->region_names[rk->region[i]]);
            fprintf(f, ", \"pid\": %zu, \"tid\": %d, \"ts\": ", r, (int)rk->thread[i]);
            put_us(f, rk->start_ns[i] + rk->clock_offset_ns - t0);
            fputs(", \"dur\": ", f);
            put_us(f, rk->end_ns[i] - rk->start_ns[i]);
            fputc('}', f);
        }
    }
    fputs("\n ]\n}\n", f);
    return 0;
}

int sp__export_chrome_trace(const sp_run *run, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, trace_body, run, NULL, wrote);
}
