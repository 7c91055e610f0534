/* SPDX-License-Identifier: MIT */
/*
 * run_target.c - a program that knows nothing of scope-profiler, profiled by
 * `scope-profiler run` in the tests (built twice: plain, and with
 * -finstrument-functions).
 *
 *   run_target [normal|exit|term|threads|sleep|blocked] [MS]
 *
 * normal:  main -> solve -> kernel_a (2/3 of MS of CPU) + kernel_b (1/3)
 * exit:    as normal, but kernel_b calls exit(3) halfway
 * term:    as normal, then raises SIGTERM at itself inside kernel_b
 * threads: two threads run worker() while main runs solve()
 * sleep:   sleeps MS (no CPU time to sample)
 * blocked: a thread with SIGPROF blocked burns MS (a sampler's signals never
 *          arrive)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;
static const char *mode = "normal";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Burn `ms` of this thread's CPU time. */
static __attribute__((noinline)) void burn(double ms)
{
    double t0 = now_ms(), s = 0;
    while (now_ms() - t0 < ms)
        for (int i = 0; i < 20000; i++)
            s += (double)i * 1e-9;
    sink = s;
}

static __attribute__((noinline)) void kernel_a(double ms)
{
    burn(ms);
}

static __attribute__((noinline)) void kernel_b(double ms)
{
    burn(ms / 2);
    if (strcmp(mode, "exit") == 0)
        exit(3);
    if (strcmp(mode, "term") == 0)
        raise(SIGTERM);
    burn(ms / 2);
}

static __attribute__((noinline)) void solve(double ms)
{
    kernel_a(2 * ms / 3);
    kernel_b(ms / 3);
}

static void *worker(void *arg)
{
    burn(*(double *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        mode = argv[1];
    double ms = argc > 2 ? atof(argv[2]) : 300;
    pthread_t t[2];
    if (strcmp(mode, "sleep") == 0) {
        long ims = (long)ms;
        struct timespec ts = {ims / 1000, (ims % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        printf("run_target: done\n");
        return 0;
    }
    if (strcmp(mode, "blocked") == 0) {
        /* The worker inherits the blocked signal from its birth on. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGPROF);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        pthread_create(&t[0], NULL, worker, &ms);
        pthread_join(t[0], NULL);
        printf("run_target: done\n");
        return 0;
    }
    int nthreads = strcmp(mode, "threads") == 0 ? 2 : 0;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, &ms);
    solve(ms);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    printf("run_target: done\n");
    return 0;
}
