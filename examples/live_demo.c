/* SPDX-License-Identifier: MIT */
/*
 * live_demo.c - a program to watch while it records: for SECONDS seconds it
 * runs steps of a small solver (a "step" region around "assemble", "solve"
 * and "exchange"), about STEPS_PER_SECOND steps a second, with a short flush
 * interval so the streamed file grows visibly. Ctrl-C (or SIGTERM) ends the
 * loop early and finalizes the file as usual. Watch it with
 *
 *     live_demo run.h5 20 &
 *     scope-profiler-viewer --follow run.h5
 *     scope-profiler summary --follow run.h5
 *
 *     live_demo FILE [SECONDS=10] [STEPS_PER_SECOND=50] [FLUSH_INTERVAL=0.2]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <scope_profiler.h>

static volatile double sink;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

/* Spin for about us microseconds (busy: the region's time is CPU time). */
static void work_us(double us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double x = 1.0;
    do {
        for (int i = 0; i < 200; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-3 < us);
    sink = x;
}

static void sleep_us(double us)
{
    struct timespec ts = {(time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3)};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: %s FILE [SECONDS=10] [STEPS_PER_SECOND=50] [FLUSH_INTERVAL=0.2]\n",
                argv[0]);
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 10;
    double rate = argc > 3 ? atof(argv[3]) : 50;
    double flush = argc > 4 ? atof(argv[4]) : 0.2;
    if (!(seconds > 0) || !(rate > 0) || !(flush >= 0.01)) {
        fprintf(stderr, "%s: SECONDS and STEPS_PER_SECOND must be > 0, FLUSH_INTERVAL >= 0.01\n",
                argv[0]);
        return 2;
    }
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[1];
    o.flush_interval = flush;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "%s: sp_setup failed: %s\n", argv[0], sp_last_error());
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    double start = now_s(), period_us = 1e6 / rate, end = start + seconds;
    unsigned long steps = 0;
    while (now_s() < end && !stop) {
        double t = now_s();
        SP_SCOPE("step")
        {
            SP_SCOPE("assemble") work_us(period_us * 0.15);
            SP_SCOPE("solve") work_us(period_us * 0.25 * (1 + (double)(steps % 7) / 7));
            SP_SCOPE("exchange") sleep_us(period_us * 0.1);
        }
        steps++;
        double left = period_us - (now_s() - t) * 1e6;
        if (left > 0)
            sleep_us(left);
    }
    printf("live_demo: %lu steps (%lu calls) in %.1f s\n", steps, steps * 4, now_s() - start);
    fflush(stdout);
    return sp_finalize(false, NULL) ? 1 : 0;
}
