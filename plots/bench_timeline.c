/* SPDX-License-Identifier: MIT */
/*
 * bench_timeline.c - how fast the timeline prepares and redraws a big run.
 *
 * Builds a synthetic run in memory (default 10,000,000 calls over 8 ranks,
 * one thread each, nested four deep: main > step > assemble/exchange >
 * kernel/wait), prepares an sp_timeline, then draws it on a 1920x1080 image
 * surface at several zoom levels (the whole run down to a 1/100000 window)
 * and prints the median and p95 draw time of each, with the boxes drawn.
 *
 *   bench_timeline [CALLS [RANKS [REPEATS [PNG_PREFIX]]]]
 */
#include <math.h>
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

static long rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb / 1024;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct gen {
    sp_rank_data *rk;
    size_t n;
} gen;

static size_t add(gen *g, int32_t region, int64_t s, int64_t e, int64_t parent)
{
    size_t i = g->n++;
    g->rk->start_ns[i] = s;
    g->rk->end_ns[i] = e;
    g->rk->region[i] = region;
    g->rk->thread[i] = 0;
    g->rk->parent[i] = parent;
    return i;
}

/* One rank: main > steps > (assemble > kernels, exchange > waits), in model
 * order (start, longer first) with parents, exactly `calls` calls. */
static int build_rank(sp_run *run, size_t r, size_t calls, const int32_t *reg)
{
    sp_rank_data *rk = &run->ranks[r];
    if (sp_rank_alloc_calls(rk, calls))
        return -1;
    rk->nthreads = 1;
    rk->threads = calloc(1, sizeof *rk->threads);
    if (!rk->threads)
        return -1;
    rk->threads[0].os_tid = 1000 + (int64_t)r;
    rk->threads[0].name = strdup("main");
    rk->clock_offset_ns = (int64_t)(urand() * 2000);
    const size_t per_step = 500; /* step + assemble + 400 kernels + exchange + 96 waits */
    size_t steps = (calls - 1) / per_step;
    gen g = {rk, 0};
    int64_t t = 1000000;
    size_t main_i = add(&g, reg[0], t, 0, -1);
    double slow = 1.0 + 0.08 * (double)r; /* rank imbalance */
    for (size_t s = 0; s < steps; s++) {
        size_t step_i = add(&g, reg[1], t, 0, (int64_t)main_i);
        size_t as_i = add(&g, reg[2], t, 0, (int64_t)step_i);
        for (int k = 0; k < 400; k++) {
            int64_t d = (int64_t)((800 + urand() * 1600) * slow);
            add(&g, reg[3], t, t + d, (int64_t)as_i);
            t += d + 50;
        }
        rk->end_ns[as_i] = t;
        t += 200;
        size_t ex_i = add(&g, reg[4], t, 0, (int64_t)step_i);
        for (int k = 0; k < 96; k++) {
            int64_t d = (int64_t)(300 + urand() * 3000);
            add(&g, reg[5], t, t + d, (int64_t)ex_i);
            t += d + 100;
        }
        rk->end_ns[ex_i] = t;
        rk->end_ns[step_i] = t;
        t += 500;
    }
    while (g.n < calls) { /* pad to the exact count with top-level calls */
        add(&g, reg[6], t, t + 1000, -1);
        t += 1500;
    }
    rk->end_ns[main_i] = t;
    /* Padding calls sit after main ended? No: main covers them; make them its
     * children so the model stays well nested. */
    for (size_t i = main_i + 1; i < calls; i++)
        if (rk->region[i] == reg[6])
            rk->parent[i] = (int64_t)main_i;
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t calls = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    size_t nranks = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
    int reps = argc > 3 ? atoi(argv[3]) : 30;
    if (nranks == 0 || calls < nranks * 2 || reps < 1) {
        fprintf(stderr, "usage: bench_timeline [CALLS [RANKS [REPEATS]]]\n");
        return 2;
    }
    sp_run *run = sp_run_new();
    const char *names[] = {"main", "timestep", "assemble", "kernel", "halo_exchange", "mpi_wait",
                           "idle"};
    int32_t reg[7];
    for (int i = 0; i < 7; i++)
        reg[i] = sp_run_intern_region(run, names[i]);
    if (sp_run_set_ranks(run, nranks))
        return 1;
    double t0 = now_s();
    for (size_t r = 0; r < nranks; r++)
        if (build_rank(run, r, calls / nranks + (r < calls % nranks), reg)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
    double t_build = now_s() - t0;
    long rss0 = rss_mb();

    t0 = now_s();
    sp_timeline *tl = sp_timeline_new(run);
    double t_prep = now_s() - t0;
    if (!tl) {
        fprintf(stderr, "sp_timeline_new: %s\n", sp_last_error());
        return 1;
    }
    long rss1 = rss_mb();
    printf("synthetic run: %zu calls, %zu ranks, built in %.2f s\n", calls, nranks, t_build);
    printf("prepare (sp_timeline_new): %.3f s, index memory ~%ld MB (RSS %ld -> %ld MB)\n", t_prep,
           rss1 - rss0, rss0, rss1);

    const int W = 1920, H = 1080;
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(surf);
    sp_plot_style st;
    sp_plot_style_init(&st);
    int64_t dur = sp_timeline_duration_ns(tl);
    const double zooms[] = {1, 10, 100, 1000, 10000, 100000};
    double *ms = malloc((size_t)reps * sizeof *ms);
    printf("draw %dx%d, %d repeats per zoom:\n", W, H, reps);
    printf("  %-10s %12s %10s %10s %10s %10s %10s %8s\n", "zoom", "window", "median_ms", "p95_ms",
           "entries", "boxes", "merged", "labels");
    for (size_t z = 0; z < sizeof zooms / sizeof zooms[0]; z++) {
        sp_timeline_view v;
        sp_timeline_view_init(&v, tl);
        int64_t span = (int64_t)(dur / zooms[z]);
        if (span < 1000)
            span = 1000;
        v.t0_ns = dur / 2 - span / 2 + (int64_t)(z * 7777); /* off any grid */
        v.t1_ns = v.t0_ns + span;
        sp_timeline_stats stats = {0};
        for (int i = 0; i < reps; i++) {
            double a = now_s();
            if (sp_timeline_draw_ex(cr, W, H, tl, &v, &st, &stats)) {
                fprintf(stderr, "draw: %s\n", sp_last_error());
                return 1;
            }
            cairo_surface_flush(surf);
            ms[i] = (now_s() - a) * 1e3;
        }
        qsort(ms, (size_t)reps, sizeof *ms, cmp_d);
        if (argc > 4) { /* keep each zoom's frame for looking at */
            char path[4096];
            snprintf(path, sizeof path, "%s-zoom%zu.png", argv[4], z);
            cairo_surface_write_to_png(surf, path);
        }
        char win[32];
        sp_plot_format_duration(span * 1e-9, win, sizeof win);
        printf("  1/%-8.0f %12s %10.2f %10.2f %10zu %10zu %10zu %8zu\n", zooms[z], win,
               ms[reps / 2], ms[(int)ceil(0.95 * reps) - 1], stats.entries, stats.boxes,
               stats.merged_boxes, stats.labels);
    }
    if (argc > 4)
        printf("frames written to %s-zoom*.png\n", argv[4]);
    free(ms);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    sp_timeline_free(tl);
    sp_run_free(run);
    return 0;
}
