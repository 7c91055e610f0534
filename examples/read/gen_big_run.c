/* SPDX-License-Identifier: MIT */
/*
 * gen_big_run.c - runs of the size users have, for the reading benchmarks
 * (examples/read/bench_read.sh) and the viewer's:
 *
 *   gen_big_run record OUT.h5 CALLS [THREADS]
 *       records CALLS calls with the library itself (streaming, default
 *       settings): THREADS threads (default 2), each inside "main" looping
 *       outer > 10 x middle > 10 x inner (111 calls per outer), with a
 *       little work in the inner calls so durations vary.
 *   gen_big_run ranks OUT.h5 RANKS CALLS_PER_RANK
 *       writes a finished v2 file of RANKS ranks (no MPI needed): per rank
 *       "main" > timestep x N > compute / exchange > MPI_Waitall, compute
 *       imbalanced across ranks, clocks offset.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "sp_h5_v2.h"
#include "sp_model.h"

static long long per_thread;
static volatile double sink;

static void *record_thread(void *arg)
{
    (void)arg;
    double x = 1.0;
    long long done = 0;
    SP_SCOPE("main") {
        while (done + 111 <= per_thread) {
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
            done += 111;
        }
    }
    sink = x;
    return NULL;
}

static int record(const char *out, long long calls, int threads)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = out;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "gen_big_run: %s\n", sp_last_error());
        return 1;
    }
    per_thread = calls / threads;
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, record_thread, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    if (sp_finalize(false, NULL) != 0) {
        fprintf(stderr, "gen_big_run: %s\n", sp_last_error());
        return 1;
    }
    printf("recorded %s: %lld calls on %d threads\n", out, (per_thread / 111) * 111 * threads + threads,
           threads);
    return 0;
}

/* Calls of one rank in model order (thread 0, parents first). */
typedef struct builder {
    sp_rank_data *rk;
    size_t n, cap;
} builder;

static int64_t add(builder *b, int32_t region, int64_t s, int64_t e, int64_t parent)
{
    if (b->n == b->cap) {
        size_t c = b->cap ? 2 * b->cap : 64;
        sp_rank_data *rk = b->rk;
        rk->start_ns = realloc(rk->start_ns, c * sizeof *rk->start_ns);
        rk->end_ns = realloc(rk->end_ns, c * sizeof *rk->end_ns);
        rk->region = realloc(rk->region, c * sizeof *rk->region);
        rk->thread = realloc(rk->thread, c * sizeof *rk->thread);
        rk->parent = realloc(rk->parent, c * sizeof *rk->parent);
        if (!rk->start_ns || !rk->end_ns || !rk->region || !rk->thread || !rk->parent)
            abort();
        b->cap = c;
    }
    sp_rank_data *rk = b->rk;
    rk->start_ns[b->n] = s;
    rk->end_ns[b->n] = e;
    rk->region[b->n] = region;
    rk->thread[b->n] = 0;
    rk->parent[b->n] = parent;
    rk->ncalls = ++b->n;
    return (int64_t)b->n - 1;
}

static int ranks(const char *out, int nranks, long long per_rank)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, (size_t)nranks) != 0)
        return 1;
    const char *names[] = {"main", "timestep", "compute", "exchange", "MPI_Waitall"};
    for (int i = 0; i < 5; i++)
        sp_run_intern_region(run, names[i]);
    long long steps = (per_rank - 1) / 4;
    for (int r = 0; r < nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        rk->clock_offset_ns = (r % 7) * 1000 - 3000;
        rk->nthreads = 1;
        rk->threads = calloc(1, sizeof *rk->threads);
        rk->threads[0].os_tid = 1000 + r;
        rk->threads[0].name = strdup("main");
        builder b = {rk, 0, 0};
        int64_t t = 1000000 - rk->clock_offset_ns, m = add(&b, 0, t, 0, -1);
        /* compute: 1 ms, rank r slower by r % 13 %, rank 3 by 40 % */
        int64_t comp = 1000000 + 1000000 * (r % 13) / 100 + (r == 3 ? 400000 : 0);
        for (long long s = 0; s < steps; s++) {
            int64_t step_end = t + 1500000;
            int64_t st = add(&b, 1, t, step_end, m);
            add(&b, 2, t, t + comp, st);
            int64_t ex = add(&b, 3, t + comp, step_end - 1000, st);
            add(&b, 4, t + comp + 500, step_end - 2000, ex);
            t = step_end;
        }
        rk->end_ns[m] = t + 1000;
    }
    if (sp_h5_write_v2(run, out) != 0) {
        fprintf(stderr, "gen_big_run: %s\n", sp_last_error());
        return 1;
    }
    printf("wrote %s: %d ranks, %lld calls per rank\n", out, nranks, 1 + steps * 4);
    sp_run_free(run);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "record") == 0)
        return record(argv[2], atoll(argv[3]), argc > 4 ? atoi(argv[4]) : 2);
    if (argc == 5 && strcmp(argv[1], "ranks") == 0)
        return ranks(argv[2], atoi(argv[3]), atoll(argv[4]));
    fprintf(stderr, "usage: gen_big_run record OUT.h5 CALLS [THREADS]\n"
                    "       gen_big_run ranks OUT.h5 RANKS CALLS_PER_RANK\n");
    return 2;
}
