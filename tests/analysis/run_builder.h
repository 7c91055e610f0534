/* SPDX-License-Identifier: MIT */
/*
 * run_builder.h - build small sp_run models by hand for the analysis tests:
 * a list of calls (rank, thread, region, start, end) becomes a run whose
 * calls are in model order with parents inferred from time containment,
 * exactly as the reader does for the Python layouts.
 */
#ifndef RUN_BUILDER_H
#define RUN_BUILDER_H

#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_model.h"

typedef struct tb_call {
    int rank, thread;
    const char *region;
    int64_t start, end;
} tb_call;

#define MS INT64_C(1000000) /* one millisecond in ns */

static inline sp_run *tb_build(const tb_call *calls, size_t n, size_t nranks, size_t nthreads)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, nranks))
        return NULL;
    for (size_t r = 0; r < nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++)
            cnt += (size_t)calls[i].rank == r;
        rk->nthreads = nthreads;
        rk->threads = calloc(nthreads ? nthreads : 1, sizeof *rk->threads);
        for (size_t t = 0; t < nthreads; t++)
            rk->threads[t].os_tid = -1;
        if (sp_rank_alloc_calls(rk, cnt))
            return NULL;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if ((size_t)calls[i].rank != r)
                continue;
            rk->start_ns[k] = calls[i].start;
            rk->end_ns[k] = calls[i].end;
            rk->region[k] = sp_run_intern_region(run, calls[i].region);
            rk->thread[k] = calls[i].thread;
            k++;
        }
        if (sp_rank_sort_calls(rk))
            return NULL;
        sp_rank_infer_parents(rk);
    }
    return run;
}

/*
 * The seed's mock solver (one rank, ms): main [0, 20] calls setup [0, 6]
 * (2 ms of its own, then refine_mesh recursing four levels: [2, 6], [3, 6],
 * [4, 6], [5, 6]), then solve three times [6+4k, 10+4k], each calling
 * assemble_matrix (3 ms) and apply_bc (1 ms). main's own time is 2 ms.
 */
static inline sp_run *tb_mock_solver(int64_t offset)
{
    tb_call c[32];
    size_t n = 0;
    c[n++] = (tb_call){0, 0, "main", 0, 20 * MS};
    c[n++] = (tb_call){0, 0, "setup", 0, 6 * MS};
    for (int l = 0; l < 4; l++)
        c[n++] = (tb_call){0, 0, "refine_mesh", (2 + l) * MS, 6 * MS};
    for (int k = 0; k < 3; k++) {
        int64_t t = (6 + 4 * k) * MS;
        c[n++] = (tb_call){0, 0, "solve", t, t + 4 * MS};
        c[n++] = (tb_call){0, 0, "assemble_matrix", t, t + 3 * MS};
        c[n++] = (tb_call){0, 0, "apply_bc", t + 3 * MS, t + 4 * MS};
    }
    for (size_t i = 0; i < n; i++) {
        c[i].start += offset;
        c[i].end += offset;
    }
    return tb_build(c, n, 1, 1);
}

/* Everything the function printed to a FILE *, as a malloc'ed string. */
#define TB_CAPTURE(out_str, call_with_f)                                                           \
    do {                                                                                           \
        size_t tb_len_;                                                                            \
        FILE *f = open_memstream(&(out_str), &tb_len_);                                            \
        call_with_f;                                                                               \
        fclose(f);                                                                                 \
    } while (0)

#endif
