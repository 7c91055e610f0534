/* SPDX-License-Identifier: MIT */
/*
 * benchmark_overhead.c - what a region costs, per call, on this machine.
 *
 *   benchmark_overhead [--quick]
 *
 * Prints a table of ns per call (best and median of several repetitions,
 * empty-loop time subtracted) for: a bare noinline call, two bare clock
 * reads (TSC and clock_gettime), and a begin/end pair in each mode
 * (compile-time disabled, runtime disabled, time-only through SP_SCOPE and
 * through sp_region_begin/end, per clock), each with its ratio to two reads
 * of the clock that mode uses. Then the marginal cost of a region around a
 * ~100 ns arithmetic workload, the same pair and marginal cost as the best
 * of hundreds of short batches (what the code costs when nothing preempts
 * it: the figure to read on a loaded machine), the whole-loop cost of a long loop under the
 * default settings (streaming to a file: 1M against 20M calls), and the
 * bytes each call costs in memory and in the file.
 *
 * Built twice: benchmark_overhead links the static library and, at the end,
 * runs benchmark_overhead_shared (the same program linked with
 * libscope_profiler.so, what pkg-config users get) with --key-rows, which
 * prints only the rows the targets are about (pair, marginal, long loop).
 *
 * Then the recording modes (recursive tracing per traced call, line
 * sampling, perf_event counters, LIKWID when it can measure): their cost per
 * begin/end pair or per traced call, and the slowdown sampling causes.
 *
 * This file is compiled twice: once normally (the program), and once with
 * -DSCOPE_PROFILER_DISABLE -DBENCH_DISABLED_TU, which only provides
 * bench_compile_disabled() - the same loop as the SP_SCOPE row, but built
 * the way a production binary with the profiler compiled out would be.
 */
#include <stdint.h>

#include <scope_profiler.h>

/* The same loop body everywhere: a compiler barrier, so no loop is elided. */
#define BENCH_BARRIER() __asm__ __volatile__("" ::: "memory")

uint64_t bench_compile_disabled(uint64_t n);

#ifdef BENCH_DISABLED_TU

uint64_t bench_compile_disabled(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        SP_SCOPE("bench_scope") { BENCH_BARRIER(); }
    }
    return n;
}

#else /* the program */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

#ifndef BENCH_LIBRARY
#define BENCH_LIBRARY "static (libscope_profiler.a)"
#endif

static int quick, key_rows;
static uint64_t ncalls = 1000000; /* per repetition */
static int reps = 9;
static volatile uint64_t sink;
static sp_region *bench_region;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the loops: n iterations of one thing ---- */

static uint64_t loop_empty(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        BENCH_BARRIER();
    return n;
}

static __attribute__((noinline)) void bare_call(void) { BENCH_BARRIER(); }

static uint64_t loop_bare_call(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        bare_call();
    return n;
}

static uint64_t loop_tsc2(uint64_t n)
{
    uint64_t acc = 0;
#if BENCH_HAVE_TSC
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = __rdtsc();
        BENCH_BARRIER();
        uint64_t b = __rdtsc();
        acc += b - a;
    }
#endif
    sink = acc;
    return n;
}

static uint64_t loop_mono2(uint64_t n)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        BENCH_BARRIER();
        clock_gettime(CLOCK_MONOTONIC, &b);
        acc += (uint64_t)(b.tv_nsec - a.tv_nsec);
    }
    sink = acc;
    return n;
}

static uint64_t loop_scope(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        SP_SCOPE("bench_scope") { BENCH_BARRIER(); }
    }
    return n;
}

static uint64_t loop_begin_end(uint64_t n)
{
    sp_region *r = bench_region;
    for (uint64_t i = 0; i < n; i++) {
        sp_region_begin(r);
        BENCH_BARRIER();
        sp_region_end(r);
    }
    return n;
}

/* ---- sessions ---- */

typedef enum {
    S_NONE, S_DISABLED, S_TIME_TSC, S_TIME_MONO,
    /* recording modes (default clock) */
    S_MODES_PLAIN, S_LINES_PERF, S_LINES_TIMER, S_PERF, S_LIKWID, S_NOTHROTTLE, S_THROTTLE_SOON
} session_kind;

/* The options of a mode session; SCOPE_PROFILER_* set for its setup only. */
static void mode_options(session_kind k, sp_options *o)
{
    switch (k) {
    case S_LINES_PERF:
    case S_LINES_TIMER:
        o->use_line_profiler = true;
        setenv("SCOPE_PROFILER_LINE_SAMPLER", k == S_LINES_PERF ? "perf" : "timer", 1);
        break;
    case S_PERF:
        o->perf_events = "task-clock,page-faults";
        break;
    case S_LIKWID:
        o->use_likwid = true;
        break;
    case S_NOTHROTTLE:
        setenv("SCOPE_PROFILER_THROTTLE_CALLS", "18446744073709551615", 1);
        break;
    case S_THROTTLE_SOON: /* stopped during measure()'s warm-up */
        setenv("SCOPE_PROFILER_THROTTLE_CALLS", "1000", 1);
        break;
    default:
        break;
    }
}

/* Start a fresh in-memory session (each repetition gets new buffers, so the
 * cost of growing them is part of what is measured). */
static int start_session(session_kind k)
{
    if (k == S_NONE)
        return 0;
    if (k == S_TIME_MONO)
        setenv("SCOPE_PROFILER_CLOCK", "monotonic", 1);
    else if (k == S_TIME_TSC)
        setenv("SCOPE_PROFILER_CLOCK", "tsc", 1);
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    o.deactivate_profiling = k == S_DISABLED;
    mode_options(k, &o);
    int rc = sp_setup(&o);
    unsetenv("SCOPE_PROFILER_CLOCK");
    unsetenv("SCOPE_PROFILER_LINE_SAMPLER");
    unsetenv("SCOPE_PROFILER_THROTTLE_CALLS");
    if (rc != 0)
        fprintf(stderr, "benchmark_overhead: sp_setup: %s\n", sp_last_error());
    return rc;
}

static void end_session(session_kind k)
{
    if (k == S_NONE)
        return;
    /* Discard: a new setup drops the data of an unfinalized session. */
    sp_options o;
    sp_options_init(&o);
    o.deactivate_profiling = true;
    sp_setup(&o);
    sp_finalize(false, NULL);
}

typedef struct result {
    double best, median; /* ns per call, empty loop subtracted */
    int ok;
} result;

static double empty_ns; /* ns per empty-loop iteration */

static result measure(uint64_t (*loop)(uint64_t), session_kind k)
{
    double t[64];
    result res = {0, 0, 0};
    for (int r = 0; r < reps; r++) {
        if (start_session(k) != 0)
            return res;
        loop(ncalls / 10); /* warm up: code, handles, first buffers */
        double t0 = now_s();
        loop(ncalls);
        double t1 = now_s();
        end_session(k);
        t[r] = (t1 - t0) * 1e9 / (double)ncalls - empty_ns;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    res.best = t[0];
    res.median = t[reps / 2];
    res.ok = 1;
    return res;
}

static void print_row(const char *what, result r, double clock2)
{
    if (!r.ok) {
        printf("  %-48s %9s %10s %10s\n", what, "n/a", "n/a", "");
        return;
    }
    char ratio[32] = "";
    if (clock2 > 0)
        snprintf(ratio, sizeof ratio, "%.2f", r.best / clock2);
    printf("  %-48s %9.2f %10.2f %10s\n", what, r.best, r.median, ratio);
}

/* ---- recording modes ---- */

void bench_traced_leaf(void); /* benchmark_traced.c, -finstrument-functions */

static sp_region *bench_outer;

static uint64_t loop_traced_outside(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        bench_traced_leaf();
    return n;
}

static uint64_t loop_traced_inside(uint64_t n)
{
    SP_SCOPE_RECURSIVE("bench_recursive") {
        for (uint64_t i = 0; i < n; i++)
            bench_traced_leaf();
    }
    return n;
}

/* begin/end inside an open region: the line sampler is already running. */
static uint64_t loop_begin_end_nested(uint64_t n)
{
    sp_region *r = bench_region;
    sp_region_begin(bench_outer);
    for (uint64_t i = 0; i < n; i++) {
        sp_region_begin(r);
        BENCH_BARRIER();
        sp_region_end(r);
    }
    sp_region_end(bench_outer);
    return n;
}

/* measure() with another number of calls (the slow modes). */
static result measure_n(uint64_t (*loop)(uint64_t), session_kind k, uint64_t n, int r)
{
    uint64_t saved = ncalls;
    int saved_reps = reps;
    ncalls = n;
    reps = r;
    result res = measure(loop, k);
    ncalls = saved;
    reps = saved_reps;
    return res;
}

/* A begin/end pair after enough idle CPU time for a sample to switch the
 * line sampler off: it switches it on again (median ns of n). */
static double rearm_ns(session_kind k, int n)
{
    if (start_session(k) != 0)
        return -1;
    double t[128];
    n = n > 128 ? 128 : n;
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        sp_region_begin(bench_region);
        sp_region_end(bench_region);
        t[i] = (now_s() - t0) * 1e9;
        double s0 = now_s(); /* > 1 sampling period of CPU outside any region */
        while (now_s() - s0 < 3e-3)
            BENCH_BARRIER();
    }
    end_session(k);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* Why a mode cannot be measured here ("" when it can). */
static const char *mode_unavailable(session_kind k)
{
    static char why[512];
    why[0] = '\0';
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    mode_options(k, &o);
    if (sp_setup(&o) != 0)
        snprintf(why, sizeof why, "%s", sp_last_error());
    else
        sp_finalize(false, NULL);
    unsetenv("SCOPE_PROFILER_LINE_SAMPLER");
    unsetenv("SCOPE_PROFILER_THROTTLE_CALLS");
    return why;
}

static void print_unavailable(const char *what, const char *why)
{
    printf("  %-48s %9s  unavailable here: %.100s\n", what, "n/a", why);
}

/* CPU-bound work of ~ms milliseconds, in a region of the given session. */
static double busy_ms(session_kind k, int in_region, double ms)
{
    if (start_session(k) != 0)
        return -1;
    double x = 1.0, t0 = now_s();
    uint64_t n = (uint64_t)(ms * 2e5);
    if (in_region) {
        SP_SCOPE("bench_busy") {
            for (uint64_t i = 0; i < n; i++) {
                x = x * 1.0000001 + 1e-9;
                BENCH_BARRIER();
            }
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            x = x * 1.0000001 + 1e-9;
            BENCH_BARRIER();
        }
    }
    double t = now_s() - t0;
    sink = (uint64_t)x;
    end_session(k);
    return t;
}

/* Median slowdown of a CPU-bound region while its line sampler runs. */
static double sampling_slowdown(session_kind k)
{
    int pairs = quick ? 3 : 9;
    double d[16];
    for (int i = 0; i < pairs; i++) {
        double without = busy_ms(S_NONE, 0, quick ? 20 : 100);
        double with = busy_ms(k, 1, quick ? 20 : 100);
        if (without <= 0 || with <= 0)
            return -1;
        d[i] = 100.0 * (with - without) / without;
    }
    qsort(d, (size_t)pairs, sizeof *d, cmp_double);
    return d[pairs / 2];
}

static void modes_rows(double clock2, double bare_ns)
{
    bench_outer = sp_region_get("bench_outer");
    uint64_t slow_n = quick ? 2000 : 20000;
    int slow_reps = quick ? 3 : 5;
    printf("\nRecording modes, per call, ns (empty loop subtracted)  %9s %10s %10s\n", "best",
           "median", "x 2 reads");
    print_row("traced function, no tracing region (hooks return)",
              measure(loop_traced_outside, S_MODES_PLAIN), clock2);
    print_row("traced function in SP_SCOPE_RECURSIVE",
              measure(loop_traced_inside, S_NOTHROTTLE), clock2);
    print_row("  same, after the throttle stopped tracing it",
              measure(loop_traced_inside, S_THROTTLE_SOON), clock2);
    printf("  (the bare noinline call above costs %.2f ns; a traced call is that plus\n"
           "   a begin/end pair through the hooks' address table)\n",
           bare_ns);

    const char *why = mode_unavailable(S_LINES_PERF);
    if (*why) {
        print_unavailable("begin/end, line sampling (perf_event)", why);
    } else {
        print_row("begin/end, line sampling (perf), outermost",
                  measure(loop_begin_end, S_LINES_PERF), clock2);
        print_row("begin/end, line sampling (perf), nested",
                  measure(loop_begin_end_nested, S_LINES_PERF), clock2);
    }
    why = mode_unavailable(S_LINES_TIMER);
    if (*why) {
        print_unavailable("begin/end, line sampling (timer)", why);
    } else {
        print_row("begin/end, line sampling (timer), outermost",
                  measure(loop_begin_end, S_LINES_TIMER), clock2);
        print_row("begin/end, line sampling (timer), nested",
                  measure(loop_begin_end_nested, S_LINES_TIMER), clock2);
    }
    why = mode_unavailable(S_PERF);
    if (*why)
        print_unavailable("begin/end, perf_events task-clock,page-faults", why);
    else
        print_row("begin/end, perf_events task-clock,page-faults",
                  measure_n(loop_begin_end, S_PERF, slow_n, slow_reps), clock2);
    why = mode_unavailable(S_LIKWID);
    if (*why)
        print_unavailable("begin/end, LIKWID markers", why);
    else
        print_row("begin/end, LIKWID markers",
                  measure_n(loop_begin_end, S_LIKWID, slow_n, slow_reps), clock2);
    printf("  (outermost: back to back calls, the sampler stays on between them and is\n"
           "   switched off by the first sample outside any region; nested: inside an\n"
           "   open region. perf_events: two read() system calls per call)\n");
    for (session_kind k = S_LINES_PERF; k <= S_LINES_TIMER; k++) {
        double ns = rearm_ns(k, quick ? 20 : 100);
        if (ns > 0)
            printf("  begin/end that switches the %s line sampler on again: %.0f ns\n",
                   k == S_LINES_PERF ? "perf" : "timer", ns);
    }

    printf("\nSlowdown of a CPU-bound region while its line sampler runs (median)\n");
    if (!*mode_unavailable(S_LINES_PERF))
        printf("  perf_event cpu-clock, 1000 Hz:  %+.2f %%\n", sampling_slowdown(S_LINES_PERF));
    if (!*mode_unavailable(S_LINES_TIMER))
        printf("  POSIX CPU-time timer, 1000 Hz:  %+.2f %%  (at most the kernel's HZ samples/s)\n",
               sampling_slowdown(S_LINES_TIMER));
}

/* ---- marginal cost inside a workload ---- */

static int work_iters = 40;

/* A chain of dependent multiply-adds: latency-bound arithmetic of a known
 * length, like the inner work of a small kernel. */
static __attribute__((noinline)) double workload(double x)
{
    for (int i = 0; i < work_iters; i++) {
        x = x * 1.0000001 + 1e-9;
        BENCH_BARRIER();
    }
    return x;
}

/* with_region: 0 = the workload alone, 1 = inside SP_SCOPE, 2 = between two
 * bare clock reads whose difference is kept (the floor any timestamping
 * region pays: what the clock itself adds to the workload). */
static double run_workload(uint64_t n, int with_region)
{
    double x = 1.0;
    double t0 = now_s();
    if (with_region == 1) {
        for (uint64_t i = 0; i < n; i++) {
            SP_SCOPE("bench_workload") { x = workload(x); }
        }
#if defined(__x86_64__)
    } else if (with_region == 2) {
        uint64_t acc = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t a = __rdtsc();
            x = workload(x);
            acc += __rdtsc() - a;
        }
        sink = acc;
#endif
    } else {
        for (uint64_t i = 0; i < n; i++)
            x = workload(x);
    }
    double t1 = now_s();
    sink = (uint64_t)x;
    return (t1 - t0) * 1e9 / (double)n;
}

static void marginal_cost(void)
{
    uint64_t n = quick ? 20000 : 200000;
    /* Size the workload to about 100 ns. */
    for (int k = 0; k < 3; k++) {
        double ns = run_workload(n / 4, 0);
        work_iters = (int)fmax(4.0, work_iters * 100.0 / ns);
    }
    int pairs = quick ? 5 : 21;
    double without[64], with[64], diff[64], clock_diff[64];
    for (int r = 0; r < pairs; r++) {
        start_session(S_TIME_TSC);
        run_workload(n / 10, 1);
        /* interleave, so drifts in frequency hit both alike */
        without[r] = run_workload(n, 0);
        with[r] = run_workload(n, 1);
        clock_diff[r] = run_workload(n, 2) - without[r];
        end_session(S_TIME_TSC);
        diff[r] = with[r] - without[r];
    }
    qsort(clock_diff, (size_t)pairs, sizeof(double), cmp_double);
    qsort(without, (size_t)pairs, sizeof(double), cmp_double);
    qsort(with, (size_t)pairs, sizeof(double), cmp_double);
    qsort(diff, (size_t)pairs, sizeof(double), cmp_double);
    printf("\nMarginal cost of a region around a small workload (%d dependent multiply-adds)\n",
           work_iters);
    printf("  workload alone:        best %7.2f  median %7.2f ns per call\n", without[0],
           without[pairs / 2]);
    printf("  workload in SP_SCOPE:  best %7.2f  median %7.2f ns per call\n", with[0],
           with[pairs / 2]);
    printf("  marginal (with - without, paired): median %.2f ns per call "
           "(best-of difference %.2f)\n",
           diff[pairs / 2], with[0] - without[0]);
#if defined(__x86_64__)
    printf("  floor: two bare rdtsc around the workload add: median %.2f ns per call\n",
           clock_diff[pairs / 2]);
#endif
}

/* ---- the same, as the best of many short batches ---- */

/* A loop of 1M calls lasts milliseconds, so on a machine shared with other
 * work most repetitions are preempted at least once and the best of 9 still
 * carries some of that. A batch of 20,000 calls (~0.5 ms) mostly runs
 * undisturbed: the best of hundreds of batches, interleaved so frequency
 * and load drifts hit every loop alike, is the cost of the code itself. */
static double batch_ns(uint64_t (*loop)(uint64_t), uint64_t n)
{
    double t0 = now_s();
    loop(n);
    return (now_s() - t0) * 1e9 / (double)n;
}

static void short_batches(int tsc)
{
    int batches = quick ? 50 : 400;
    uint64_t n = 20000, nw = 2000;
    double e = 1e9, t2 = 1e9, pair = 1e9, w0 = 1e9, w1 = 1e9, wf = 1e9;
    if (start_session(tsc ? S_TIME_TSC : S_TIME_MONO) != 0)
        return;
    loop_scope(n);
    run_workload(nw, 1);
    for (int b = 0; b < batches; b++) {
        e = fmin(e, batch_ns(loop_empty, n));
        t2 = fmin(t2, batch_ns(tsc ? loop_tsc2 : loop_mono2, n));
        pair = fmin(pair, batch_ns(loop_scope, n));
        w0 = fmin(w0, run_workload(nw, 0));
        w1 = fmin(w1, run_workload(nw, 1));
        wf = fmin(wf, run_workload(nw, 2));
    }
    end_session(tsc ? S_TIME_TSC : S_TIME_MONO);
    printf("\nBest of %d short batches (%llu calls; %llu around the workload), ns per call\n",
           batches, (unsigned long long)n, (unsigned long long)nw);
    printf("  two %s reads: %.2f   begin/end time-only (SP_SCOPE): %.2f   ratio %.3f\n",
           tsc ? "TSC" : "monotonic", t2 - e, pair - e, (pair - e) / (t2 - e));
    printf("  workload (%d multiply-adds) alone %.2f, in SP_SCOPE %.2f: marginal %.2f ns\n",
           work_iters, w0, w1, w1 - w0);
#if defined(__x86_64__)
    printf("  floor: two bare rdtsc around the workload add %.2f ns\n", wf - w0);
#endif
}

/* ---- the whole loop under the default settings ---- */

/* A loop of n empty SP_SCOPE calls with the default options (streaming to a
 * file, 64 MiB of chunks): ns per call of the whole loop, including any wait
 * for the writer. Finalize is not timed. */
static double whole_loop_once(uint64_t n, const char *path)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "benchmark_overhead: sp_setup: %s\n", sp_last_error());
        return -1;
    }
    double t0 = now_s();
    for (uint64_t i = 0; i < n; i++) {
        SP_SCOPE("bench_long_loop") { BENCH_BARRIER(); }
    }
    double t1 = now_s();
    if (sp_finalize(false, NULL) != 0)
        fprintf(stderr, "benchmark_overhead: sp_finalize: %s\n", sp_last_error());
    unlink(path);
    return (t1 - t0) * 1e9 / (double)n;
}

static void whole_loop(void)
{
    char dir[] = "/tmp/sp-bench-loop-XXXXXX";
    if (!mkdtemp(dir))
        return;
    char path[64];
    snprintf(path, sizeof path, "%s/loop.h5", dir);
    uint64_t small = quick ? 100000 : 1000000, big = quick ? 1000000 : 20000000;
    int r = quick ? 1 : 3;
    double a[8], b[8];
    for (int i = 0; i < r; i++) { /* interleaved: load changes hit both */
        a[i] = whole_loop_once(small, path);
        b[i] = whole_loop_once(big, path);
    }
    rmdir(dir);
    qsort(a, (size_t)r, sizeof *a, cmp_double);
    qsort(b, (size_t)r, sizeof *b, cmp_double);
    printf("\nWhole loop of one empty SP_SCOPE region, default settings (streaming to a file)\n");
    printf("  %9llu calls: best %7.2f  median %7.2f ns per call\n", (unsigned long long)small,
           a[0], a[r / 2]);
    printf("  %9llu calls: best %7.2f  median %7.2f ns per call\n", (unsigned long long)big, b[0],
           b[r / 2]);
    printf("  ratio %llu / %llu calls: best %.2f, median %.2f (the writer drains the chunks\n"
           "  while the loop runs; when it cannot keep up the loop waits, never drops)\n",
           (unsigned long long)big, (unsigned long long)small, b[0] / a[0], b[r / 2] / a[r / 2]);
}

/* ---- bytes per call ---- */

/* Resident set size in bytes (0 if unknown). */
static long rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

/* Run first, in a fresh process, so the resident growth is not blurred by
 * memory freed from earlier measurements. */
static void bytes_in_memory(uint64_t n, char *report, size_t size)
{
    if (start_session(S_TIME_TSC) != 0 && start_session(S_TIME_MONO) != 0)
        return;
    sp_region *r = sp_region_get("bench_bytes");
    long rss0 = rss_bytes();
    for (uint64_t i = 0; i < n; i++) {
        sp_region_begin(r);
        sp_region_end(r);
    }
    sp_region_num_calls(r); /* the writer has encoded every event */
    long rss1 = rss_bytes();
    snprintf(report, size,
             "  in memory (deactivate_file_output): 12 B per event into reused 64 KiB chunks,\n"
             "             kept as 8 B per encoded event = 16 B per call; resident growth %.2f B\n"
             "             per call\n",
             (double)(rss1 - rss0) / (double)n);
    end_session(S_TIME_TSC);
}

static void bytes_in_file(uint64_t n)
{
    char dir[] = "/tmp/sp-bench-XXXXXX";
    if (!mkdtemp(dir))
        return;
    char path[64];
    snprintf(path, sizeof path, "%s/bench.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    if (sp_setup(&o) != 0)
        return;
    sp_region *r = sp_region_get("bench_bytes");
    for (uint64_t i = 0; i < n; i++) {
        sp_region_begin(r);
        sp_region_end(r);
    }
    int rc = sp_finalize(false, NULL);
    struct stat st;
    if (rc == 0 && stat(path, &st) == 0)
        printf("  in the file: %lld bytes = %.2f B per call\n", (long long)st.st_size,
               (double)st.st_size / (double)n);
    else
        printf("  in the file: not written (%s)\n", sp_last_error());
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--key-rows") == 0) {
            key_rows = 1;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--key-rows]\n", argv[0]);
            return 2;
        }
    }
    if (quick) {
        ncalls = 100000;
        reps = 3;
    }
    bench_region = sp_region_get("bench_scope");
    uint64_t nbytes = quick ? 100000 : 1000000;
    char mem_report[512] = "";
    if (!key_rows)
        bytes_in_memory(nbytes, mem_report, sizeof mem_report);

    /* Probe the clock the library picks by default. */
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    sp_setup(&o);
    SP_SCOPE("probe") {}
    sp_run *run = NULL;
    sp_finalize(false, &run);
    const char *src = run ? sp_run_metadata(run, "clock_source") : NULL;
    const char *hz = run ? sp_run_metadata(run, "clock_tsc_hz") : NULL;
    int tsc = src && strcmp(src, "tsc") == 0;
    printf("scope-profiler overhead benchmark: %llu calls x %d repetitions%s\n",
           (unsigned long long)ncalls, reps, quick ? " (--quick)" : "");
    printf("library: %s\n", BENCH_LIBRARY);
    printf("default clock: %s%s%s%s\n", src ? src : "?", hz ? " (" : "", hz ? hz : "",
           hz ? " Hz)" : "");
    sp_run_free(run);

    empty_ns = 0;
    result empty = measure(loop_empty, S_NONE);
    empty_ns = empty.median;
    result tsc2 = BENCH_HAVE_TSC ? measure(loop_tsc2, S_NONE) : (result){0, 0, 0};
    result mono2 = measure(loop_mono2, S_NONE);
    double clock2 = tsc ? tsc2.best : mono2.best;
    printf("\nPer call, ns (empty loop of %.2f ns subtracted)  %9s %10s %10s\n", empty_ns,
           "best", "median", "x 2 reads");
    if (key_rows) {
        print_row("two TSC reads (rdtsc)", tsc2, tsc2.best);
        if (tsc)
            print_row("begin/end, time-only TSC (SP_SCOPE)", measure(loop_scope, S_TIME_TSC),
                      tsc2.best);
        print_row("begin/end, time-only monotonic (SP_SCOPE)", measure(loop_scope, S_TIME_MONO),
                  mono2.best);
        marginal_cost();
        short_batches(tsc);
        whole_loop();
        return 0;
    }
    result bare = measure(loop_bare_call, S_NONE);
    print_row("bare noinline function call", bare, clock2);
    print_row("two TSC reads (rdtsc)", tsc2, tsc2.best);
    print_row("two clock_gettime(CLOCK_MONOTONIC) reads", mono2, mono2.best);
    print_row("begin/end, compile-time disabled (SP_SCOPE)",
              measure(bench_compile_disabled, S_NONE), clock2);
    print_row("begin/end, runtime disabled (SP_SCOPE)", measure(loop_scope, S_DISABLED), clock2);
    print_row("begin/end, runtime disabled (begin/end)", measure(loop_begin_end, S_DISABLED),
              clock2);
    if (tsc) {
        print_row("begin/end, time-only TSC (SP_SCOPE)", measure(loop_scope, S_TIME_TSC),
                  tsc2.best);
        print_row("begin/end, time-only TSC (begin/end)", measure(loop_begin_end, S_TIME_TSC),
                  tsc2.best);
    }
    print_row("begin/end, time-only monotonic (SP_SCOPE)", measure(loop_scope, S_TIME_MONO),
              mono2.best);
    print_row("begin/end, time-only monotonic (begin/end)",
              measure(loop_begin_end, S_TIME_MONO), mono2.best);
    printf("  (ratio: best / best of two reads of the clock the row uses, TSC for the\n"
           "   disabled rows; the TSC rows exist where the TSC is invariant)\n");

    modes_rows(clock2, bare.best);
    marginal_cost();
    short_batches(tsc);
    whole_loop();
    printf("\nBytes per call (%llu calls of one region)\n", (unsigned long long)nbytes);
    fputs(mem_report, stdout);
    bytes_in_file(nbytes);

    /* The same key rows through the shared library, next to this program. */
    char shared[4096];
    snprintf(shared, sizeof shared, "%s_shared", argv[0]);
    if (access(shared, X_OK) == 0) {
        printf("\n---- the same program linked with the shared library ----\n");
        fflush(stdout);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "'%s' --key-rows%s", shared, quick ? " --quick" : "");
        if (system(cmd) != 0)
            fprintf(stderr, "benchmark_overhead: %s failed\n", shared);
    }
    return 0;
}

#endif /* BENCH_DISABLED_TU */
