/* SPDX-License-Identifier: MIT */
/*
 * make_big_shapes.c - runs shaped to break a viewer that walks every call,
 * thread or depth (issue 22's hostile shapes), written as finished v2 files:
 *
 *   make_big_shapes threads OUT.h5 N   one rank, N threads, each running
 *                                      "main" > "work" (2 calls per thread)
 *   make_big_shapes deep OUT.h5 N      one thread, N nested calls of "rec"
 *                                      (each 10 ns inside its parent) with a
 *                                      "leaf" at the bottom
 *
 * Calls are built in model order (thread, start, parents first).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_h5_v2.h"
#include "sp_model.h"

static int threads(sp_run *run, size_t n)
{
    sp_rank_data *rk = &run->ranks[0];
    int32_t main_id = sp_run_intern_region(run, "main"), work = sp_run_intern_region(run, "work");
    if (sp_rank_alloc_calls(rk, 2 * n) != 0 || !(rk->threads = calloc(n, sizeof *rk->threads)))
        return 1;
    rk->nthreads = n;
    for (size_t t = 0; t < n; t++) {
        rk->threads[t].os_tid = (int64_t)(1000 + t);
        int64_t s = 1000 + (int64_t)(t % 4096) * 100;
        size_t i = 2 * t;
        rk->start_ns[i] = s;
        rk->end_ns[i] = s + 5000;
        rk->region[i] = main_id;
        rk->thread[i] = (int32_t)t;
        rk->parent[i] = -1;
        rk->start_ns[i + 1] = s + 1000;
        rk->end_ns[i + 1] = s + 1000 + 100 * (int64_t)(t % 31 + 1);
        rk->region[i + 1] = work;
        rk->thread[i + 1] = (int32_t)t;
        rk->parent[i + 1] = (int64_t)i;
    }
    return 0;
}

static int deep(sp_run *run, size_t n)
{
    sp_rank_data *rk = &run->ranks[0];
    int32_t rec = sp_run_intern_region(run, "rec"), leaf = sp_run_intern_region(run, "leaf");
    if (sp_rank_alloc_calls(rk, n + 1) != 0 || !(rk->threads = calloc(1, sizeof *rk->threads)))
        return 1;
    rk->nthreads = 1;
    int64_t t0 = 1000, span = 20 * (int64_t)n + 1000;
    for (size_t i = 0; i <= n; i++) {
        rk->start_ns[i] = t0 + 10 * (int64_t)i;
        rk->end_ns[i] = t0 + span - 10 * (int64_t)i;
        rk->region[i] = i < n ? rec : leaf;
        rk->thread[i] = 0;
        rk->parent[i] = (int64_t)i - 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "threads") != 0 && strcmp(argv[1], "deep") != 0)) {
        fprintf(stderr, "usage: make_big_shapes threads|deep OUT.h5 N\n");
        return 2;
    }
    size_t n = (size_t)strtoull(argv[3], NULL, 10);
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) != 0)
        return 1;
    int rc = strcmp(argv[1], "threads") == 0 ? threads(run, n) : deep(run, n);
    if (rc == 0 && sp_h5_write_v2(run, argv[2]) != 0) {
        fprintf(stderr, "make_big_shapes: %s\n", sp_last_error());
        rc = 1;
    }
    sp_run_free(run);
    if (rc == 0)
        printf("wrote %s: %s %zu\n", argv[2], argv[1], n);
    return rc;
}
