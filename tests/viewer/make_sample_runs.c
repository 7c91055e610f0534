/* SPDX-License-Identifier: MIT */
/*
 * make_sample_runs.c - write two small runs for the viewer tests, built with
 * the run model and sp_h5_write():
 *   DIR/sample_base.h5       4 ranks x 2 threads, nested regions, rank 3 slow
 *   DIR/sample_candidate.h5  the same program after a change: compute 30 %
 *                            faster, exchange 40 % slower, a new region
 *                            "save_state"
 * Deterministic (fixed seed), so the screenshots are reproducible.
 *
 * usage: make_sample_runs DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_h5.h"
#include "sp_model.h"

typedef struct {
    int candidate;
    uint64_t rng;
    sp_run *run;
    sp_rank_data *rk;
    size_t n, cap;
    int32_t thread;
    int64_t stack[32];
    int depth;
} gen;

static double jitter(gen *g)
{
    g->rng = g->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return 0.9 + 0.2 * (double)(g->rng >> 11) / (double)(1ULL << 53);
}

static int grow(gen *g)
{
    if (g->n < g->cap)
        return 0;
    size_t cap = g->cap ? 2 * g->cap : 1024;
    sp_rank_data *rk = g->rk;
#define GROW(col)                                                              \
    do {                                                                       \
        void *p = realloc(rk->col, cap * sizeof *rk->col);                     \
        if (!p)                                                                \
            return -1;                                                         \
        rk->col = p;                                                           \
    } while (0)
    GROW(start_ns);
    GROW(end_ns);
    GROW(region);
    GROW(thread);
    GROW(parent);
#undef GROW
    g->cap = cap;
    return 0;
}

/* Open a call of `name` at time t; returns its index. */
static int64_t open_call(gen *g, const char *name, int64_t t)
{
    if (grow(g) != 0) {
        fprintf(stderr, "make_sample_runs: out of memory\n");
        exit(1);
    }
    int64_t i = (int64_t)g->n++;
    g->rk->start_ns[i] = t;
    g->rk->end_ns[i] = t;
    g->rk->region[i] = sp_run_intern_region(g->run, name);
    g->rk->thread[i] = g->thread;
    g->rk->parent[i] = g->depth > 0 ? g->stack[g->depth - 1] : -1;
    g->stack[g->depth++] = i;
    return i;
}

static int64_t close_call(gen *g, int64_t t)
{
    g->rk->end_ns[g->stack[--g->depth]] = t;
    return t;
}

/* A leaf call lasting about d ns; returns its end. */
static int64_t leaf(gen *g, const char *name, int64_t t, double d)
{
    open_call(g, name, t);
    return close_call(g, t + (int64_t)(d * jitter(g)));
}

static void main_thread(gen *g, int rank)
{
    const double speed_compute = g->candidate ? 0.7 : 1.0;
    const double speed_exchange = g->candidate ? 1.4 : 1.0;
    int64_t t = 1000 + 20000 * rank;
    open_call(g, "main", t);
    open_call(g, "setup", t += 5000);
    t = leaf(g, "read_input", t + 2000, 900000);
    t = leaf(g, "build_mesh", t + 3000, 1500000);
    t = close_call(g, t + 2000);
    for (int step = 0; step < 20; step++) {
        open_call(g, "timestep", t += 3000);
        open_call(g, "compute", t += 2000);
        for (int k = 0; k < 4; k++)
            t = leaf(g, "kernel", t + 1000, 250000.0 * speed_compute * (1 + 0.25 * rank));
        t = close_call(g, t + 4000);
        t = leaf(g, "exchange", t + 2000, (150000.0 + 90000.0 * (3 - rank)) * speed_exchange);
        if (step % 5 == 4)
            t = leaf(g, "write_output", t + 2000, 400000);
        if (g->candidate && step % 10 == 9)
            t = leaf(g, "save_state", t + 2000, 600000);
        t = close_call(g, t + 3000);
    }
    close_call(g, t + 10000);
}

static void worker_thread(gen *g, int rank)
{
    int64_t t = 2600000 + 20000 * rank;
    for (int i = 0; i < 12; i++) {
        open_call(g, "prefetch", t);
        t = leaf(g, "decompress", t + 5000, 600000);
        t = close_call(g, t + 20000) + 1500000;
    }
}

static sp_run *make_run(int candidate)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 4) != 0)
        return NULL;
    run->layout = strdup("scope-profiler");
    run->schema_version = SP_SCHEMA_VERSION;
    sp_kvlist_set(&run->meta, "hostname", "node001");
    sp_kvlist_set(&run->meta, "mpi_size", "4");
    sp_kvlist_set(&run->meta, "problem_size", "4096");
    sp_kvlist_set(&run->meta, "version", candidate ? "after" : "before");
    for (int r = 0; r < 4; r++) {
        gen g = {.candidate = candidate, .rng = 42u + (unsigned)r * 7919u + (unsigned)candidate,
                 .run = run, .rk = &run->ranks[r]};
        g.rk->nthreads = 2;
        g.rk->threads = calloc(2, sizeof *g.rk->threads);
        g.rk->threads[0].os_tid = 1000 + r;
        g.rk->threads[0].name = strdup("main");
        g.rk->threads[1].os_tid = 2000 + r;
        g.rk->threads[1].name = strdup("worker");
        g.rk->clock_offset_ns = 1000 * r;
        g.rk->clock_offset_err_ns = r ? 150 : 0;
        sp_kvlist_set(&g.rk->meta, "hostname", "node001");
        g.thread = 0;
        main_thread(&g, r);
        g.thread = 1;
        worker_thread(&g, r);
        g.rk->ncalls = g.n;
        if (sp_rank_sort_calls(g.rk) != 0)
            return NULL;
    }
    return run;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_sample_runs DIR\n");
        return 2;
    }
    const char *names[2] = {"sample_base.h5", "sample_candidate.h5"};
    for (int c = 0; c < 2; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], names[c]);
        sp_run *run = make_run(c);
        if (!run || sp_h5_write(run, path) != 0) {
            fprintf(stderr, "make_sample_runs: %s: %s\n", path, sp_last_error());
            sp_run_free(run);
            return 1;
        }
        sp_run_free(run);
    }
    return 0;
}
