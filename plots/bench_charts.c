/* SPDX-License-Identifier: MIT */
/*
 * bench_charts.c - how fast the histogram and duration-over-time charts draw
 * a region with millions of calls.
 *
 * Builds a synthetic run in memory (default 8,000,000 calls of region
 * "kernel" over 4 ranks, two threads each, under one "main" call per
 * thread), then draws sp_plot_histogram and sp_plot_duration_time on a
 * 1200x700 image surface: the first draw (which prepares the region's
 * series and caches it) and the median of REPEATS redraws, for all ranks
 * and for one rank.
 *
 *   bench_charts [CALLS [RANKS [REPEATS [PNG_PREFIX]]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sp_plots.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}

/* One rank: per thread a "main" call holding back-to-back "kernel" calls
 * with log-normal-ish durations (a slow tail), in model order. */
static int build_rank(sp_run *run, size_t r, size_t kernels, int32_t main_id, int32_t kern_id)
{
    sp_rank_data *rk = &run->ranks[r];
    if (sp_rank_alloc_calls(rk, kernels + 2))
        return -1;
    rk->nthreads = 2;
    rk->threads = calloc(2, sizeof *rk->threads);
    if (!rk->threads)
        return -1;
    rk->clock_offset_ns = (int64_t)(urand() * 2000);
    size_t i = 0;
    for (int th = 0; th < 2; th++) {
        size_t nk = kernels / 2 + (th == 0 ? kernels % 2 : 0);
        int64_t t = 1000000 + th * 333;
        size_t m = i++;
        rk->start_ns[m] = t;
        rk->region[m] = main_id;
        rk->thread[m] = th;
        for (size_t k = 0; k < nk; k++, i++) {
            double u = urand();
            int64_t d = (int64_t)(500 + 1500 * u + (u > 0.99 ? 200000 * urand() : 0)) *
                        (int64_t)(1 + r);
            rk->start_ns[i] = t;
            rk->end_ns[i] = t + d;
            rk->region[i] = kern_id;
            rk->thread[i] = th;
            rk->parent[i] = (int64_t)m;
            t += d + 40;
        }
        rk->end_ns[m] = t;
    }
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef int (*chart_fn)(cairo_t *, double, double, const sp_run *, int32_t, int32_t,
                        const sp_plot_style *);

int main(int argc, char **argv)
{
    size_t calls = argc > 1 ? strtoull(argv[1], NULL, 10) : 8000000;
    size_t nranks = argc > 2 ? strtoull(argv[2], NULL, 10) : 4;
    int reps = argc > 3 ? atoi(argv[3]) : 10;
    if (nranks == 0 || calls < nranks * 2 || reps < 1) {
        fprintf(stderr, "usage: bench_charts [CALLS [RANKS [REPEATS [PNG_PREFIX]]]]\n");
        return 2;
    }
    sp_run *run = sp_run_new();
    int32_t main_id = sp_run_intern_region(run, "main");
    int32_t kern_id = sp_run_intern_region(run, "kernel");
    if (!run || main_id < 0 || kern_id < 0 || sp_run_set_ranks(run, nranks))
        return 1;
    for (size_t r = 0; r < nranks; r++)
        if (build_rank(run, r, calls / nranks + (r < calls % nranks), main_id, kern_id)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
    printf("synthetic run: %zu calls of 'kernel' over %zu ranks (2 threads each)\n", calls,
           nranks);
    const int W = 1200, H = 700;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(surf);
    sp_plot_style st;
    sp_plot_style_init(&st);
    struct {
        const char *name;
        chart_fn fn;
        int32_t rank;
    } cases[] = {{"histogram all ranks", sp_plot_histogram, -1},
                 {"histogram rank 1", sp_plot_histogram, 1},
                 {"duration_time all ranks", sp_plot_duration_time, -1},
                 {"duration_time rank 1", sp_plot_duration_time, 1}};
    double *ms = malloc((size_t)reps * sizeof *ms);
    printf("draw %dx%d, first draw and median of %d redraws:\n", W, H, reps);
    printf("  %-26s %12s %12s %12s\n", "chart", "first_ms", "median_ms", "max_ms");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double a = now_s();
        if (cases[c].fn(cr, W, H, run, kern_id, cases[c].rank, &st)) {
            fprintf(stderr, "%s: %s\n", cases[c].name, sp_last_error());
            return 1;
        }
        cairo_surface_flush(surf);
        double first = (now_s() - a) * 1e3;
        for (int i = 0; i < reps; i++) {
            st.dark = i % 2; /* a theme change redraws too */
            a = now_s();
            cases[c].fn(cr, W, H, run, kern_id, cases[c].rank, &st);
            cairo_surface_flush(surf);
            ms[i] = (now_s() - a) * 1e3;
        }
        st.dark = false;
        qsort(ms, (size_t)reps, sizeof *ms, cmp_d);
        printf("  %-26s %12.1f %12.1f %12.1f\n", cases[c].name, first, ms[reps / 2],
               ms[reps - 1]);
        if (argc > 4) {
            char path[4096];
            snprintf(path, sizeof path, "%s-%zu.png", argv[4], c);
            cairo_surface_write_to_png(surf, path);
        }
    }
    free(ms);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    sp_run_free(run);
    return 0;
}
