/* SPDX-License-Identifier: MIT */
/*
 * benchmark_stream.c - what streaming costs and buys, with default settings
 * (file output, memory_limit 64 MiB, flush interval 1 s):
 *
 *   1. peak RSS and whole-loop cost against calls recorded (a loop of one
 *      empty SP_SCOPE region; each size in a fresh process), and whether the
 *      file holds every call;
 *   2. sp_finalize time against calls (the same loops);
 *   3. a realistic run (4 threads of a mock solver, nesting, durations from
 *      microseconds to milliseconds): bytes per call on disk, finalize;
 *   4. reading: sp_read_h5 and read + analysis + the summary (what
 *      `scope-profiler summary` does) of the realistic run's file (about 1M
 *      calls; --quick: 25,000), MB/s of model data (32 bytes per call).
 *
 *     benchmark_stream [--quick] [--repeat R] [--dir DIR]
 *
 * Prints min and median over the repeats. No timing is asserted anywhere.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

#include "solver_workload.h"

#define BARRIER() __asm__ __volatile__("" ::: "memory")

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* ---- one recording in a fresh process ---- */

typedef struct rec_result {
    double loop_ns;     /* per call, whole loop */
    double finalize_s;
    double maxrss_mb;   /* peak resident set of the process */
    int rc;
} rec_result;

static void child_loop(const char *path, long n, int fd)
{
    rec_result r = {0, 0, 0, 0};
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    if (sp_setup(&o) != 0)
        _exit(3);
    double t0 = now_s();
    for (long i = 0; i < n; i++)
        SP_SCOPE("loop") { BARRIER(); }
    double t1 = now_s();
    r.rc = sp_finalize(false, NULL);
    double t2 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r.loop_ns = (t1 - t0) * 1e9 / (double)n;
    r.finalize_s = t2 - t1;
    r.maxrss_mb = (double)ru.ru_maxrss / 1024.0;
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(4);
    _exit(0);
}

static int run_child(void (*fn)(const char *, long, int), const char *path, long n,
                     rec_result *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        fn(path, n, fds[1]);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], out, sizeof *out);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return got == (ssize_t)sizeof *out && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static uint64_t calls_in(const char *path, double *read_s)
{
    double t0 = now_s();
    sp_run *run = sp_read_h5(path);
    *read_s = now_s() - t0;
    uint64_t n = 0;
    for (size_t i = 0; run && i < sp_run_num_regions(run); i++)
        n += sp_run_region_num_calls(sp_run_region_at(run, i));
    sp_run_free(run);
    return n;
}

/* ---- a realistic workload: solver_workload.h ---- */

static void child_realistic(const char *path, long steps, int fd)
{
    rec_result r = {0, 0, 0, 0};
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    if (sp_setup(&o) != 0)
        _exit(3);
    double t0 = now_s();
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, solver_thread, (void *)((uintptr_t)steps << 8 | i));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    double t1 = now_s();
    r.rc = sp_finalize(false, NULL);
    double t2 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r.loop_ns = (t1 - t0) * 1e9;
    r.finalize_s = t2 - t1;
    r.maxrss_mb = (double)ru.ru_maxrss / 1024.0;
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(4);
    _exit(0);
}

/* ---- sections ---- */

static void loops(const char *dir, int quick, int repeat)
{
    static const long full[] = {1000000, 5000000, 20000000};
    static const long small[] = {100000, 1000000};
    const long *sizes = quick ? small : full;
    int nsizes = quick ? 2 : 3;
    char path[4200];
    snprintf(path, sizeof path, "%s/loop.h5", dir);
    printf("\n1-2. A loop of one empty SP_SCOPE region, default settings (each in a fresh "
           "process)\n");
    printf("%12s %18s %18s %14s %12s %10s %14s\n", "calls", "loop ns/call", "finalize s",
           "peak RSS MB", "file MB", "B/call", "calls in file");
    double base_ns = 0;
    for (int k = 0; k < nsizes; k++) {
        long n = sizes[k];
        double loop_ns[16], fin[16], rss = 0;
        int ok = 0;
        for (int r = 0; r < repeat && r < 16; r++) {
            rec_result res;
            if (run_child(child_loop, path, n, &res) != 0 || res.rc != 0) {
                printf("%12ld  recording failed\n", n);
                return;
            }
            loop_ns[ok] = res.loop_ns;
            fin[ok++] = res.finalize_s;
            rss = res.maxrss_mb > rss ? res.maxrss_mb : rss;
        }
        qsort(loop_ns, (size_t)ok, sizeof *loop_ns, cmp_d);
        qsort(fin, (size_t)ok, sizeof *fin, cmp_d);
        double rd;
        uint64_t in_file = calls_in(path, &rd);
        long bytes = file_size(path);
        if (k == 0)
            base_ns = loop_ns[0];
        printf("%12ld %8.2f (%6.2f) %8.3f (%6.3f) %14.1f %12.2f %10.2f %14llu%s\n", n, loop_ns[0],
               loop_ns[ok / 2], fin[0], fin[ok / 2], rss, (double)bytes / 1e6,
               (double)bytes / (double)n, (unsigned long long)in_file,
               in_file == (uint64_t)n ? "" : "  MISSING CALLS");
    }
    (void)base_ns;
    printf("  (best (median) of %d; peak RSS: the largest; loop ns/call includes waiting for\n"
           "   the writer when the pool is full: the default policy never drops a call)\n",
           repeat);
}

static void realistic(const char *dir, int quick)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/solver.h5", dir);
    rec_result res;
    long steps = quick ? 40 : 1600; /* full: about 1M calls */
    printf("\n3. A realistic run: 4 threads of a mock solver (timestep > assemble > element x "
           "50-100,\n   solve > iteration x 10-30 > matvec/dot/axpy, io; 0.1 us to 0.2 ms of work "
           "per call)\n");
    if (run_child(child_realistic, path, steps, &res) != 0 || res.rc != 0) {
        printf("  recording failed\n");
        return;
    }
    double rd;
    uint64_t n = calls_in(path, &rd);
    long bytes = file_size(path);
    printf("  %llu calls in %.2f s (%.1f M calls/s), finalize %.3f s, peak RSS %.1f MB\n",
           (unsigned long long)n, res.loop_ns * 1e-9, (double)n / (res.loop_ns * 1e-9) * 1e-6,
           res.finalize_s, res.maxrss_mb);
    printf("  file %.2f MB = %.2f bytes per call; read back in %.3f s\n", (double)bytes / 1e6,
           (double)bytes / (double)n, rd);
}

/* Reading the realistic run's file: what `scope-profiler summary` does. */
static void reading(const char *dir, int repeat)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/solver.h5", dir);
    if (file_size(path) <= 0) {
        printf("\n4. Reading: no file (the realistic run failed)\n");
        return;
    }
    double rd[16], sum[16];
    uint64_t calls = 0;
    int n = 0;
    FILE *null = fopen("/dev/null", "w");
    for (int r = 0; r < repeat && r < 16; r++, n++) {
        double t0 = now_s();
        sp_run *run = sp_read_h5(path);
        double t1 = now_s();
        if (!run) {
            printf("\n4. Reading: %s\n", sp_last_error());
            return;
        }
        calls = 0;
        for (size_t i = 0; i < sp_run_num_regions(run); i++)
            calls += sp_run_region_num_calls(sp_run_region_at(run, i));
        sp_run_print_summary(run, null ? null : stdout);
        double t2 = now_s();
        rd[n] = t1 - t0;
        sum[n] = t2 - t0;
        sp_run_free(run);
    }
    if (null)
        fclose(null);
    qsort(rd, (size_t)n, sizeof *rd, cmp_d);
    qsort(sum, (size_t)n, sizeof *sum, cmp_d);
    double mb = (double)calls * 32 / 1e6; /* model data: 32 bytes per call */
    printf("\n4. Reading the realistic run's file (%llu calls, %.2f MB on disk; in this process,\n"
           "   warm page cache)\n",
           (unsigned long long)calls, (double)file_size(path) / 1e6);
    printf("  sp_read_h5 (read, checks, analysis): %.3f (%.3f) s = %.0f (%.0f) MB/s of call data\n",
           rd[0], rd[n / 2], mb / rd[0], mb / rd[n / 2]);
    printf("  ... and the summary printed:        %.3f (%.3f) s (`scope-profiler summary` "
           "without starting the program)\n",
           sum[0], sum[n / 2]);
}

int main(int argc, char **argv)
{
    int quick = 0, repeat = 3;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: benchmark_stream [--quick] [--repeat R] [--dir DIR]\n");
            return 2;
        }
    }
    char tmp[] = "/tmp/sp-bench-stream-XXXXXX";
    if (!dir && !(dir = mkdtemp(tmp))) {
        perror("mkdtemp");
        return 1;
    }
    if (repeat < 1)
        repeat = 1;
    printf("scope-profiler streaming benchmark (%s)\n", quick ? "--quick" : "full");
    loops(dir, quick, repeat);
    realistic(dir, quick);
    reading(dir, quick ? 2 : 2 * repeat + 1);
    char cmd[4400];
    if (dir == tmp) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "benchmark_stream: could not remove %s\n", dir);
    }
    return 0;
}
