/* SPDX-License-Identifier: MIT */
/*
 * bench_follow.c - what a refresh of the viewer's --follow costs as a run
 * grows (README "Watching a run live").
 *
 * A child records nested calls (gen_big_run's shape: main > outer > middle >
 * inner) with a 0.2 s flush interval: SMALL calls, then a pause of 3 s with
 * everything flushed, then on to LARGE calls, a pause until the follower
 * has refreshed a few times with nothing new (it signals), then it
 * finalizes. Meanwhile this process follows the file as the viewer does
 * (sp-run-source.h: the refresh takes in the appended blocks and replays
 * only those, sp_run_document_new_followed derives the pages' figures),
 * every 0.25 s, and prints each refresh: calls so far, calls new to it, and
 * its time. A refresh during a pause reads nothing new: its time is what a
 * refresh costs beyond the new calls, at SMALL and at LARGE calls.
 *
 *   bench_follow OUT.h5 [SMALL=1000000] [LARGE=50000000]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp-run-document.h"
#include "sp-run-source.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile double sink;

/* 111 calls per outer call, as gen_big_run records them; a pause of 5 ms
 * every 100,000 calls lets the writer flush on a busy machine (README
 * "Measured": a thread recording flat out can hold its writer back). */
static void record_until(long long *done, long long target)
{
    double x = 1.0;
    while (*done + 111 <= target) {
        if (*done / 100000 != (*done + 111) / 100000)
            g_usleep(5000);
        SP_SCOPE("outer") {
            for (int j = 0; j < 10; j++) {
                SP_SCOPE("middle") {
                    for (int k = 0; k < 10; k++) {
                        SP_SCOPE("inner") {
                            for (int w = 0; w < (k & 3) * 4; w++)
                                x = x * 1.0000001 + 1e-9;
                        }
                    }
                }
            }
        }
        *done += 111;
    }
    sink = x;
}

static volatile sig_atomic_t go_on;

static void on_usr1(int sig)
{
    (void)sig;
    go_on = 1;
}

static void child(const char *path, long long small, long long large)
{
    signal(SIGUSR1, on_usr1);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    o.flush_interval = 0.2;
    if (sp_setup(&o) != 0)
        _exit(3);
    long long done = 0;
    SP_SCOPE("main") {
        record_until(&done, small);
        sleep(3); /* the file holds SMALL calls a while */
        record_until(&done, large);
        /* Until the follower has seen it all (a refresh of tens of millions
         * of new calls takes a while), at most 10 minutes. */
        for (int i = 0; i < 6000 && !go_on; i++)
            g_usleep(100000);
    }
    _exit(sp_finalize(false, NULL) == 0 ? 0 : 4);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_follow OUT.h5 [SMALL] [LARGE]\n");
        return 2;
    }
    const char *path = argv[1];
    long long small = argc > 2 ? atoll(argv[2]) : 1000000;
    long long large = argc > 3 ? atoll(argv[3]) : 50000000;
    unlink(path);
    pid_t pid = fork();
    if (pid == 0)
        child(path, small, large);
    SpRunSource *src = NULL;
    guint64 last = 0;
    int status = 0, quiet_at_large = 0;
    printf("%12s %12s %10s %10s\n", "calls", "new", "refresh", "document");
    for (;;) {
        g_usleep(250000);
        if (waitpid(pid, &status, WNOHANG) == pid)
            break;
        double t0 = now_s();
        int st = 0;
        if (!src && !(src = sp_run_source_new(path, &st)))
            continue; /* not there yet */
        sp_run *run = sp_run_source_follow(src, SP_AGG_LANES | SP_AGG_SERIES, &st);
        if (!run) {
            fprintf(stderr, "refresh: %s\n", sp_last_error());
            continue;
        }
        double t1 = now_s();
        g_autoptr(GError) error = NULL;
        g_autoptr(SpRunDocument) doc = sp_run_document_new_followed(run, src, path, t1 - t0, &error);
        double t2 = now_s();
        if (!doc) {
            fprintf(stderr, "document: %s\n", error->message);
            continue;
        }
        guint64 calls = sp_run_document_get_total_calls(doc);
        printf("%12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %8.1f ms %8.1f ms\n", calls,
               calls - last, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        fflush(stdout);
        if (calls + 111 > (guint64)large && calls == last && ++quiet_at_large == 8)
            kill(pid, SIGUSR1); /* seen it all: let it finish */
        last = calls;
    }
    sp_run_source_unref(src);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
