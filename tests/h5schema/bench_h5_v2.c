/* SPDX-License-Identifier: MIT */
/*
 * bench_h5_v2.c - schema v2's event tables under each compression: bytes per
 * call, write and read speed, on two event streams.
 *
 *     bench_h5_v2 [--calls N] [--repeat R] [--dir DIR]
 *
 * Streams (deterministic):
 *   tight      one region called in a loop: begin/end deltas of ~50 and ~30
 *              ticks with jitter (the worst case for the writer: the most
 *              calls per second)
 *   realistic  4 threads of a mock solver: timestep > assemble > element x
 *              50-100, solve > iteration x 10-30 > (matvec, dot, axpy), an
 *              occasional io; durations log-normal around 0.3 us .. 2 ms
 * For each, every compression writes a part (the writer thread's path:
 * appends of 2^18 events, a flush every 8 appends) and reads it back through
 * the main file with sp_h5_read (HDF5 read, decompression, replay into
 * calls, checks). Prints min and median over the repeats.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_h5_v2.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double urand(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

/* ---- streams ---- */

typedef struct gen {
    int64_t *t;
    int32_t *code;
    size_t n, cap;
    int64_t now;
    size_t calls;
} gen;

static void push(gen *g, int32_t code)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1 << 16;
        g->t = realloc(g->t, g->cap * sizeof *g->t);
        g->code = realloc(g->code, g->cap * sizeof *g->code);
        if (!g->t || !g->code)
            abort();
    }
    g->t[g->n] = g->now;
    g->code[g->n++] = code;
}

static int64_t lognormal_ticks(double median_ns)
{
    double z = (urand() + urand() + urand() - 1.5) * 2.0; /* ~normal */
    return (int64_t)(median_ns * exp(0.8 * z) * 2.45) + 1;
}

static void call(gen *g, int32_t region, double own_ns, void (*body)(gen *))
{
    push(g, region);
    g->calls++;
    int64_t own = lognormal_ticks(own_ns);
    g->now += own / 2;
    if (body)
        body(g);
    g->now += own - own / 2;
    push(g, -1);
    g->now += 40 + (int64_t)(urand() * 100);
}

static void element(gen *g) { (void)g; }
static void assemble(gen *g)
{
    for (int i = 50 + (int)(rnd() % 50); i > 0; i--)
        call(g, 3, 800, element);
}
static void iteration(gen *g)
{
    call(g, 6, 20000, NULL); /* matvec */
    call(g, 7, 3000, NULL);  /* dot */
    call(g, 8, 300, NULL);   /* axpy */
}
static void solve(gen *g)
{
    for (int i = 10 + (int)(rnd() % 20); i > 0; i--)
        call(g, 5, 500, iteration);
}
static void timestep(gen *g)
{
    call(g, 2, 5000, assemble);
    call(g, 4, 2000, solve);
    if (rnd() % 10 == 0)
        call(g, 9, 2e6, NULL); /* io */
}

/* Threads interleave in runs of ~5400 events, as the writer reads their
 * chunks; each thread's events stay in order. */
static void make_realistic(sp_v2_events *out, size_t calls)
{
    enum { T = 4 };
    gen g[T];
    memset(g, 0, sizeof g);
    for (int t = 0; t < T; t++)
        g[t].now = 1000000000 + 777 * t;
    size_t total = 0;
    while (total < calls)
        for (int t = 0; t < T; t++) {
            size_t before = g[t].calls;
            call(&g[t], 1, 1000, timestep);
            total += g[t].calls - before;
        }
    size_t pos[T] = {0};
    for (bool left = true; left;) {
        left = false;
        for (int t = 0; t < T; t++) {
            size_t e = pos[t] + 5400 < g[t].n ? pos[t] + 5400 : g[t].n;
            for (size_t i = pos[t]; i < e; i++)
                sp_v2_events_add(out, t, g[t].t[i], g[t].code[i]);
            sp_v2_events_close_block(out);
            pos[t] = e;
            left |= e < g[t].n;
        }
    }
    for (int t = 0; t < T; t++) {
        free(g[t].t);
        free(g[t].code);
    }
}

static void make_tight(sp_v2_events *out, size_t calls)
{
    int64_t t = 1000000000;
    for (size_t i = 0; i < calls; i++) {
        sp_v2_events_add(out, 0, t, 0);
        t += 50 + (int64_t)(rnd() % 8 == 0 ? rnd() % 200 : rnd() % 6);
        sp_v2_events_add(out, 0, t, -1);
        t += 30 + (int64_t)(rnd() % 8 == 0 ? rnd() % 100 : rnd() % 6);
    }
}

/* ---- one measurement ---- */

typedef struct result {
    double write_s, read_s;
    long bytes;
} result;

static const char *const region_names[] = {"loop",      "timestep", "assemble", "element", "solve",
                                           "iteration", "matvec",   "dot",      "axpy",    "io"};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int measure(const char *dir, const sp_v2_events *ev, int nthreads, sp_v2_compress c,
                   result *r)
{
    char path[4096];
    h5t_join(path, sizeof path, dir, "bench.h5");
    char *part = sp_v2_part_path(path, 0);
    sp_kvlist meta = {0, 0, NULL};
    double t0 = now_s();
    int rc = sp_v2_main_create(path, 1, &meta);
    sp_v2_part *p = NULL;
    sp_v2_part_setup s = {.rank = 0, .p0_ticks = 0, .p0_ns = 0, .compress = c};
    sp_v2_claim claim = {-1, false};
    if (rc == 0)
        rc = sp_v2_part_create(part, &s, &p, &claim);
    /* The writer's batches: 2^18 events, whole blocks. */
    int64_t tids[4] = {1, 2, 3, 4};
    const char *tnames[4] = {"main", "w1", "w2", "w3"};
    sp_v2_batch_rows rows = {.nregions = 10, .region_names = region_names,
                             .nthreads = (size_t)nthreads, .thread_tids = tids,
                             .thread_names = tnames};
    size_t b = 0, pos = 0;
    int batches = 0;
    while (rc == 0 && b < ev->nblocks) {
        size_t b0 = b, p0 = pos;
        while (b < ev->nblocks && pos - p0 < ((size_t)1 << 18))
            pos += ev->bevents[b++];
        sp_v2_events batch = {.n = pos - p0, .dt = ev->dt + p0, .region = ev->region + p0,
                              .nblocks = b - b0, .bthread = ev->bthread + b0,
                              .bevents = ev->bevents + b0, .bbegins = ev->bbegins + b0,
                              .bt0 = ev->bt0 + b0};
        rc = sp_v2_part_append(p, batches == 0 ? &rows : NULL, &batch);
        if (rc == 0 && ++batches % 8 == 0) /* ~ a flush every flush interval / 2 */
            rc = sp_v2_part_flush(p, (int64_t)batches * 1000000, (int64_t)batches * 1000000);
    }
    if (rc == 0)
        rc = sp_v2_part_flush(p, (int64_t)1 << 40, (int64_t)1 << 40);
    if (rc == 0)
        rc = sp_v2_part_close(p);
    if (claim.fd >= 0)
        close(claim.fd);
    r->write_s = now_s() - t0;
    r->bytes = h5t_file_size(part) + h5t_file_size(path);
    t0 = now_s();
    sp_run *run = rc == 0 ? sp_h5_read(path, &rc) : NULL;
    r->read_s = now_s() - t0;
    if (!run || run->ranks[0].ncalls * 2 != ev->n) {
        fprintf(stderr, "bench_h5_v2: %s\n", run ? "calls lost" : sp_last_error());
        rc = rc ? rc : -1;
    }
    sp_run_free(run);
    unlink(part);
    unlink(path);
    free(part);
    return rc;
}

static void run_stream(const char *dir, const char *what, const sp_v2_events *ev, int nthreads,
                       int repeat)
{
    size_t calls = ev->n / 2;
    printf("\n%s: %zu calls, %zu events, %zu blocks\n", what, calls, ev->n, ev->nblocks);
    printf("%-16s %10s %12s %12s %12s %12s\n", "compression", "B/call", "write Mcall/s",
           "write MB/s", "read Mcall/s", "read MB/s");
    sp_v2_compress cs[] = {SP_V2_COMPRESS_LZ4, SP_V2_COMPRESS_DEFLATE, SP_V2_COMPRESS_NONE};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        if (cs[k] == SP_V2_COMPRESS_LZ4 && sp_v2_compress_resolve(cs[k]) != SP_V2_COMPRESS_LZ4) {
            printf("%-16s (the HDF5 LZ4 filter does not load here)\n", "shuffle+lz4");
            continue;
        }
        double w[32], rd[32];
        long bytes = 0;
        int n = 0;
        for (int i = 0; i < repeat && i < 32; i++) {
            result r;
            if (measure(dir, ev, nthreads, cs[k], &r) != 0)
                return;
            w[n] = r.write_s;
            rd[n++] = r.read_s;
            bytes = r.bytes;
        }
        qsort(w, (size_t)n, sizeof *w, cmp_d);
        qsort(rd, (size_t)n, sizeof *rd, cmp_d);
        /* MB/s of the encoded events (8 bytes each) moved through HDF5. */
        double mb = (double)ev->n * 8 / 1e6;
        printf("%-16s %10.2f %6.1f (%4.1f) %6.0f (%4.0f) %6.1f (%4.1f) %6.0f (%4.0f)\n",
               sp_v2_compress_name(cs[k]), (double)bytes / (double)calls,
               (double)calls / w[0] * 1e-6, (double)calls / w[n / 2] * 1e-6, mb / w[0],
               mb / w[n / 2], (double)calls / rd[0] * 1e-6, (double)calls / rd[n / 2] * 1e-6,
               mb / rd[0], mb / rd[n / 2]);
    }
}

int main(int argc, char **argv)
{
    size_t calls = 2000000;
    int repeat = 5;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
            calls = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_h5_v2 [--calls N] [--repeat R] [--dir DIR]\n");
            return 2;
        }
    }
    if (!dir)
        dir = h5t_tmpdir("bench-v2");
    printf("bench_h5_v2: best (median) of %d; MB/s of encoded events (8 B each)\n", repeat);
    sp_v2_events ev;
    memset(&ev, 0, sizeof ev);
    make_tight(&ev, calls);
    run_stream(dir, "tight loop, one region", &ev, 1, repeat);
    sp_v2_events_free(&ev);
    memset(&ev, 0, sizeof ev);
    make_realistic(&ev, calls);
    run_stream(dir, "realistic (4 threads, nesting, log-normal durations)", &ev, 4, repeat);
    sp_v2_events_free(&ev);
    h5t_cleanup(0);
    return 0;
}
