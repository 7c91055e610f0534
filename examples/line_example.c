/* SPDX-License-Identifier: MIT */
/*
 * line_example.c - the seed chapter's line-by-line example in C: one region
 * with line sampling on, most of its time on one line.
 *
 *   line_example [FILE]     (default: line.h5)
 *   scope-profiler line-profile FILE
 *
 * Line sampling measures CPU time (perf_event cpu-clock, or a POSIX CPU-time
 * timer): the 1 ms sleep at the end takes wall time but gets no samples.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include <scope_profiler.h>

static __attribute__((noinline)) double hot_function(long n)
{
    double total = 0.0;
    for (long i = 0; i < n; i++)
        total = sqrt(total + (double)i) + 1e-3 * total; /* the hot line */
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    return total;
}

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "line.h5";
    o.use_line_profiler = true;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "line_example: %s\n", sp_last_error());
        return 1;
    }
    double r = 0;
    SP_SCOPE("hot_function")
    {
        r = hot_function(20000000);
    }
    printf("result %.6g\n", r);
    if (sp_finalize(true, NULL) != 0) {
        fprintf(stderr, "line_example: %s\n", sp_last_error());
        return 1;
    }
    return 0;
}
