/* SPDX-License-Identifier: MIT */
/*
 * bench_compare.c - how long the comparison model takes on big runs: reads
 * two files, then times sp_compare_runs() with each estimator (and the
 * repeated-runs mode on the same pair used as 2 x 2 runs) REPEAT times,
 * printing min and median. Built with the tests, not run by ctest (the
 * machine is shared: figures, not assertions).
 *
 *   make_big_run /tmp/big.h5            (tests/viewer, 10,000,000 calls)
 *   bench_compare /tmp/big.h5 /tmp/big.h5 [REPEAT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_profiler.h"
#include "sp_compare.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t calls_of(const sp_run *r)
{
    size_t n = 0;
    for (size_t k = 0; k < r->nranks; k++)
        n += r->ranks[k].ncalls;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_compare BASE.h5 CAND.h5 [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 3 ? atoi(argv[3]) : 5;
    if (repeat < 1)
        repeat = 1;
    double t0 = now();
    sp_run *b = sp_read_h5(argv[1]), *c = sp_read_h5(argv[2]);
    if (!b || !c) {
        fprintf(stderr, "bench_compare: %s\n", sp_last_error());
        return 1;
    }
    printf("read both files: %.2f s (%zu + %zu calls, %zu ranks)\n", now() - t0, calls_of(b),
           calls_of(c), b->nranks);
    static const char *const names[] = {"quantile, one run per side", "hl, one run per side",
                                        "quantile, 2 x 2 runs"};
    double *t = malloc((size_t)repeat * sizeof *t);
    for (int mode = 0; mode < 3; mode++) {
        sp_compare_options o;
        sp_compare_options_init(&o);
        o.estimator = mode == 1 ? SP_CMP_EST_HL : SP_CMP_EST_QUANTILE;
        const sp_run *bs[2] = {b, b}, *cs[2] = {c, c};
        size_t n = mode == 2 ? 2 : 1;
        size_t entries = 0;
        for (int i = 0; i < repeat; i++) {
            double s = now();
            sp_compare *cmp = sp_compare_runs(bs, n, cs, n, &o);
            t[i] = now() - s;
            if (!cmp) {
                fprintf(stderr, "bench_compare: %s\n", sp_last_error());
                return 1;
            }
            entries = cmp->n;
            sp_compare_free(cmp);
        }
        qsort(t, (size_t)repeat, sizeof *t, cmp_double);
        printf("%-28s %zu regions: min %.3f s, median %.3f s (%d runs)\n", names[mode], entries,
               t[0], t[repeat / 2], repeat);
    }
    free(t);
    sp_run_free(b);
    sp_run_free(c);
    return 0;
}
