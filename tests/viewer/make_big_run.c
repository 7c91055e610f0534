/* SPDX-License-Identifier: MIT */
/*
 * make_big_run.c - write the viewer benchmark's large run: 10,000,000 calls
 * over 8 ranks (2 threads each), nested 4 deep, about 3 s of run time.
 * Built with the tests but not run by ctest; the file is big (~350 MB), so
 * write it to /tmp and do not commit it:
 *
 *   make_big_run /tmp/sp_big_run.h5 [CALLS]
 *   scope-profiler-viewer --benchmark /tmp/sp_big_run.h5
 *
 * Calls are generated directly in model order (thread, start, parent first),
 * so no sorting is needed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_h5.h"
#include "sp_model.h"

#define NRANKS 8
#define KERNELS 20 /* kernel calls per timestep */
/* Calls per timestep: thread 0 has timestep, compute, KERNELS kernels,
 * exchange; thread 1 has task and its io. */
#define PER_STEP (KERNELS + 3 + 2)

static uint64_t rng = 12345;

static int64_t jitter(int64_t d)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return d + (int64_t)((rng >> 33) % (uint64_t)(d / 4 + 1));
}

typedef struct {
    sp_rank_data *rk;
    size_t n;
} cursor;

static size_t put(cursor *c, int32_t region, int32_t thread, int64_t start, int64_t end,
                  int64_t parent)
{
    size_t i = c->n++;
    c->rk->start_ns[i] = start;
    c->rk->end_ns[i] = end;
    c->rk->region[i] = region;
    c->rk->thread[i] = thread;
    c->rk->parent[i] = parent;
    return i;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: make_big_run OUT.h5 [CALLS (default 10000000)]\n");
        return 2;
    }
    long long total = argc == 3 ? atoll(argv[2]) : 10000000LL;
    size_t steps = (size_t)((total / NRANKS - 1) + PER_STEP - 1) / PER_STEP;
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, NRANKS) != 0)
        goto oom;
    run->layout = strdup("scope-profiler");
    run->schema_version = SP_SCHEMA_VERSION;
    sp_kvlist_set(&run->meta, "generator", "make_big_run");
    const char *names[] = {"main", "timestep", "compute", "kernel", "exchange", "task", "io"};
    int32_t id[7];
    for (int i = 0; i < 7; i++)
        id[i] = sp_run_intern_region(run, names[i]);
    for (int r = 0; r < NRANKS; r++) {
        sp_rank_data *rk = &run->ranks[r];
        size_t n = 1 + steps * PER_STEP;
        if (sp_rank_alloc_calls(rk, n) != 0)
            goto oom;
        rk->nthreads = 2;
        rk->threads = calloc(2, sizeof *rk->threads);
        if (!rk->threads)
            goto oom;
        rk->threads[0].os_tid = 100 + r;
        rk->threads[0].name = strdup("main");
        rk->threads[1].os_tid = 200 + r;
        rk->threads[1].name = strdup("io");
        cursor c = {rk, 0};
        /* Thread 0: main > timestep > {compute > kernel x KERNELS, exchange}. */
        size_t main_call = put(&c, id[0], 0, 0, 0, -1);
        int64_t t = 1000;
        int64_t *step_start = malloc(steps * sizeof *step_start);
        if (!step_start)
            goto oom;
        for (size_t s = 0; s < steps; s++) {
            step_start[s] = t;
            size_t ts = put(&c, id[1], 0, t, 0, (int64_t)main_call);
            t += 200;
            size_t cp = put(&c, id[2], 0, t, 0, (int64_t)ts);
            for (int k = 0; k < KERNELS; k++) {
                int64_t d = jitter(1500 + 100 * r);
                t += 100;
                put(&c, id[3], 0, t, t + d, (int64_t)cp);
                t += d;
            }
            rk->end_ns[cp] = t += 200;
            int64_t ex = jitter(3000 + 800 * (NRANKS - 1 - r));
            t += 100;
            put(&c, id[4], 0, t, t + ex, (int64_t)ts);
            t += ex;
            rk->end_ns[ts] = t += 200;
        }
        rk->end_ns[main_call] = t + 1000;
        /* Thread 1: a task per timestep, each with an io call. */
        for (size_t s = 0; s < steps; s++) {
            int64_t a = step_start[s] + 500, d = jitter(8000);
            size_t task = put(&c, id[5], 1, a, a + d, -1);
            put(&c, id[6], 1, a + 1000, a + 1000 + d / 2, (int64_t)task);
        }
        free(step_start);
        rk->ncalls = c.n;
    }
    if (sp_h5_write(run, argv[1]) != 0) {
        fprintf(stderr, "make_big_run: %s\n", sp_last_error());
        sp_run_free(run);
        return 1;
    }
    size_t calls = 0;
    for (int r = 0; r < NRANKS; r++)
        calls += run->ranks[r].ncalls;
    printf("wrote %s: %zu calls, %d ranks\n", argv[1], calls, NRANKS);
    sp_run_free(run);
    return 0;
oom:
    fprintf(stderr, "make_big_run: out of memory\n");
    sp_run_free(run);
    return 1;
}
