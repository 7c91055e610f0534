/* SPDX-License-Identifier: MIT */
/* h5test_util.c - see h5test_util.h. */
#include "h5test_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SP_TEST_BINARY_DIR
#define SP_TEST_BINARY_DIR "/tmp"
#endif

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = xcalloc(strlen(s) + 1, 1);
    strcpy(d, s);
    return d;
}

void h5t_set_calls(sp_rank_data *rk, const h5t_call *calls, size_t n)
{
    if (sp_rank_alloc_calls(rk, n) != 0)
        abort();
    for (size_t i = 0; i < n; i++) {
        rk->thread[i] = calls[i].thread;
        rk->start_ns[i] = calls[i].start;
        rk->end_ns[i] = calls[i].end;
        rk->region[i] = calls[i].region;
        rk->parent[i] = calls[i].parent;
    }
}

void h5t_set_threads(sp_rank_data *rk, size_t n, const int64_t *tids,
                     const char *const *names)
{
    rk->threads = xcalloc(n, sizeof *rk->threads);
    rk->nthreads = n;
    for (size_t t = 0; t < n; t++) {
        rk->threads[t].os_tid = tids[t];
        rk->threads[t].name = names && names[t] ? xstrdup(names[t]) : NULL;
    }
}

const char *const h5t_region_names[H5T_NREGIONS] = {
    "main", "solve", "io/write data.v2 \xE2\x9C\x93", "assemble", "rarely", "never called",
};

enum { R_MAIN, R_SOLVE, R_IO, R_ASSEMBLE, R_RARELY, R_NEVER };

sp_run *h5t_sample_run(void)
{
    sp_run *run = sp_run_new();
    if (!run)
        abort();
    for (int i = 0; i < H5T_NREGIONS; i++)
        if (sp_run_intern_region(run, h5t_region_names[i]) != i)
            abort();
    static const char *const meta[][2] = {
        {"timestamp", "2026-01-02T03:04:05.678901+01:00"},
        {"hostname", "node1"},
        {"user", "ada"},
        {"command_line", "./solver --size 128 'a b'"},
        {"mpi_size", "3"},
        {"omp_num_threads", "2"},
        {"SLURM_JOB_ID", "4242"},
        {"problem_size", "128"},
        {"gr\xC3\xBC\xC3\x9F" "e/key.x y", "Wert \xE2\x9C\x93"},
        {"empty_value", ""},
    };
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
        if (sp_kvlist_set(&run->meta, meta[i][0], meta[i][1]) != 0)
            abort();
    if (sp_run_set_ranks(run, 3) != 0)
        abort();

    /* Rank 0: thread 0 "main" runs main > solve > assemble (x2) and io;
     * thread 1 (unnamed) runs io twice and rarely once. */
    sp_rank_data *r0 = &run->ranks[0];
    static const int64_t tids0[] = {1000, 1001};
    static const char *const names0[] = {"main", NULL};
    h5t_set_threads(r0, 2, tids0, names0);
    static const h5t_call calls0[] = {
        {0, 100, 10000, R_MAIN, -1},      /* 0 */
        {0, 200, 6000, R_SOLVE, 0},       /* 1 */
        {0, 300, 1300, R_ASSEMBLE, 1},    /* 2 */
        {0, 1400, 2000, R_ASSEMBLE, 1},   /* 3 */
        {0, 6500, 9000, R_IO, 0},         /* 4 */
        {1, 150, 450, R_IO, -1},          /* 5 */
        {1, 500, 800, R_IO, -1},          /* 6 */
        {1, 900, 7900, R_RARELY, -1},     /* 7 */
    };
    h5t_set_calls(r0, calls0, sizeof calls0 / sizeof calls0[0]);

    /* Rank 1: one thread, a clock offset, per-rank metadata, drops. */
    sp_rank_data *r1 = &run->ranks[1];
    r1->clock_offset_ns = -123456789;
    r1->clock_offset_err_ns = 17;
    static const int64_t tids1[] = {2000};
    static const char *const names1[] = {"main"};
    h5t_set_threads(r1, 1, tids1, names1);
    static const h5t_call calls1[] = {
        {0, 50, 20000, R_MAIN, -1},
        {0, 60, 9000, R_SOLVE, 0},
        {0, 70, 80, R_ASSEMBLE, 1},
        {0, 9100, 19000, R_SOLVE, 0},
        {0, 9100, 9100, R_ASSEMBLE, 3}, /* zero-length call */
    };
    h5t_set_calls(r1, calls1, sizeof calls1 / sizeof calls1[0]);
    if (sp_kvlist_set(&r1->meta, "hostname", "node2") != 0 ||
        sp_kvlist_set(&r1->meta, "pid", "4321") != 0)
        abort();
    r1->dropped = xcalloc(H5T_NREGIONS, sizeof *r1->dropped);
    r1->dropped[R_NEVER] = 7;
    r1->dropped[R_SOLVE] = 1;

    /* CPU scheduling samples (schema v2): rank 1's thread waited 2 of its
     * 20 us for a CPU; rank 0's second thread has one sample with the
     * switch count unknown. */
    static const sp_sched_sample sched1[] = {
        {0, 40, 1000, 500, 3}, {0, 10040, 9000, 1500, 5}, {0, 20040, 17000, 2500, 9}};
    r1->nsched = 3;
    r1->sched = xcalloc(3, sizeof *r1->sched);
    memcpy(r1->sched, sched1, sizeof sched1);
    r0->nsched = 1;
    r0->sched = xcalloc(1, sizeof *r0->sched);
    r0->sched[0] = (sp_sched_sample){1, 100, 0, 0, -1};

    /* Recording modes on rank 0: line samples, counters (one per thread
     * and one per cpu), and flags for the first regions. */
    r0->nlines = 3;
    r0->line_region = xcalloc(3, sizeof *r0->line_region);
    r0->line_file = xcalloc(3, sizeof *r0->line_file);
    r0->line_lineno = xcalloc(3, sizeof *r0->line_lineno);
    r0->line_function = xcalloc(3, sizeof *r0->line_function);
    r0->line_samples = xcalloc(3, sizeof *r0->line_samples);
    r0->line_time_ns = xcalloc(3, sizeof *r0->line_time_ns);
    static const struct { int32_t region, lineno; const char *file, *func; uint64_t n; } lines[] = {
        {R_ASSEMBLE, 42, "src/assemble.c", "assemble_matrix", 17},
        {R_ASSEMBLE, 43, "src/assemble.c", "assemble_matrix", 3},
        {R_IO, 0, "", "write_chunk \xE2\x9C\x93", 1},
    };
    for (int i = 0; i < 3; i++) {
        r0->line_region[i] = lines[i].region;
        r0->line_lineno[i] = lines[i].lineno;
        r0->line_file[i] = xstrdup(lines[i].file);
        r0->line_function[i] = xstrdup(lines[i].func);
        r0->line_samples[i] = lines[i].n;
        r0->line_time_ns[i] = (int64_t)lines[i].n * 1000000;
    }
    r0->ncounters = 2;
    r0->counter_region = xcalloc(2, sizeof *r0->counter_region);
    r0->counter_thread = xcalloc(2, sizeof *r0->counter_thread);
    r0->counter_cpu = xcalloc(2, sizeof *r0->counter_cpu);
    r0->counter_source = xcalloc(2, sizeof *r0->counter_source);
    r0->counter_name = xcalloc(2, sizeof *r0->counter_name);
    r0->counter_value = xcalloc(2, sizeof *r0->counter_value);
    r0->counter_calls = xcalloc(2, sizeof *r0->counter_calls);
    r0->counter_region[0] = R_SOLVE;
    r0->counter_thread[0] = 0;
    r0->counter_cpu[0] = -1;
    r0->counter_source[0] = 0;
    r0->counter_name[0] = xstrdup("task-clock");
    r0->counter_value[0] = 5800.5;
    r0->counter_calls[0] = 1;
    r0->counter_region[1] = R_MAIN;
    r0->counter_thread[1] = -1;
    r0->counter_cpu[1] = 3;
    r0->counter_source[1] = 2;
    r0->counter_name[1] = xstrdup("DP [MFLOP/s]");
    r0->counter_value[1] = 1.25e-3;
    r0->counter_calls[1] = 1;
    run->nregion_flags = 2;
    run->region_flags = xcalloc(2, sizeof *run->region_flags);
    run->region_flags[1] = 1 | 4;

    /* Rank 2: nothing recorded, one idle thread. */
    sp_rank_data *r2 = &run->ranks[2];
    static const int64_t tids2[] = {-1};
    h5t_set_threads(r2, 1, tids2, NULL);
    if (sp_rank_alloc_calls(r2, 0) != 0)
        abort();
    return run;
}

/* xorshift64*: deterministic, good enough to give timestamps realistic
 * low-order entropy (so compression figures are not flattered). */
static uint64_t rnd(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

sp_run *h5t_synthetic_run(size_t n, size_t nregions, int nthreads)
{
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) != 0)
        abort();
    run->region_names = xcalloc(nregions, sizeof *run->region_names);
    for (size_t r = 0; r < nregions; r++) {
        char name[64];
        snprintf(name, sizeof name, "module%zu/region %zu", r % 97, r);
        run->region_names[r] = xstrdup(name);
    }
    run->nregions = nregions;
    if (sp_kvlist_set(&run->meta, "hostname", "bench") != 0)
        abort();
    sp_rank_data *rk = &run->ranks[0];
    rk->threads = xcalloc((size_t)nthreads, sizeof *rk->threads);
    rk->nthreads = (size_t)nthreads;
    for (int t = 0; t < nthreads; t++)
        rk->threads[t].os_tid = 5000 + t;
    if (sp_rank_alloc_calls(rk, n) != 0)
        abort();
    size_t per_thread = (n + (size_t)nthreads - 1) / (size_t)nthreads;
    uint64_t state = 0x9E3779B97F4A7C15ull;
    int64_t clock = 0;
    for (size_t i = 0; i < n; i++) {
        size_t t = i / per_thread, j = i % per_thread;
        if (j == 0)
            clock = 1000000000 + (int64_t)(rnd(&state) % 1000);
        rk->thread[i] = (int32_t)t;
        rk->region[i] = (int32_t)(rnd(&state) % nregions);
        /* Pairs: call 2k encloses call 2k+1 (if any); gaps and durations
         * are random, as real timestamps are. */
        if (j % 2 == 0) {
            int64_t child = (i + 1 < n && (i + 1) / per_thread == t)
                                ? 1 + (int64_t)(rnd(&state) % 2000)
                                : 0;
            rk->start_ns[i] = clock + 1 + (int64_t)(rnd(&state) % 300);
            rk->end_ns[i] = rk->start_ns[i] + child + 2 + (int64_t)(rnd(&state) % 100);
            rk->parent[i] = -1;
            clock = rk->end_ns[i];
        } else {
            const int64_t ps = rk->start_ns[i - 1], pe = rk->end_ns[i - 1];
            rk->start_ns[i] = ps + 1;
            rk->end_ns[i] = pe - 1 - (int64_t)(rnd(&state) % ((uint64_t)(pe - ps - 1) / 4 + 1));
            if (rk->end_ns[i] < rk->start_ns[i])
                rk->end_ns[i] = rk->start_ns[i];
            rk->parent[i] = (int64_t)i - 1;
        }
    }
    return run;
}

static char diff_msg[512];

#define DIFF(...)                                                              \
    do {                                                                       \
        snprintf(diff_msg, sizeof diff_msg, __VA_ARGS__);                      \
        return diff_msg;                                                       \
    } while (0)

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static const char *kv_differ(const sp_kvlist *a, const sp_kvlist *b, const char *what)
{
    if (a->n != b->n)
        DIFF("%s: %zu vs %zu entries", what, a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (!str_eq(a->items[i].key, b->items[i].key) ||
            !str_eq(a->items[i].value, b->items[i].value))
            DIFF("%s entry %zu: '%s'='%s' vs '%s'='%s'", what, i, a->items[i].key,
                 a->items[i].value, b->items[i].key, b->items[i].value);
    return NULL;
}

const char *h5t_runs_differ(const sp_run *a, const sp_run *b)
{
    const char *d;
    if (a->nregions != b->nregions)
        DIFF("nregions %zu vs %zu", a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions; i++)
        if (!str_eq(a->region_names[i], b->region_names[i]))
            DIFF("region %zu: '%s' vs '%s'", i, a->region_names[i], b->region_names[i]);
    if ((d = kv_differ(&a->meta, &b->meta, "run metadata")))
        return d;
    if (a->nranks != b->nranks)
        DIFF("nranks %zu vs %zu", a->nranks, b->nranks);
    for (size_t g = 0; g < a->nregions; g++) {
        int32_t fa = g < a->nregion_flags ? a->region_flags[g] : 0;
        int32_t fb = g < b->nregion_flags ? b->region_flags[g] : 0;
        if (fa != fb)
            DIFF("region %zu: flags %d vs %d", g, (int)fa, (int)fb);
    }
    for (size_t r = 0; r < a->nranks; r++) {
        const sp_rank_data *x = &a->ranks[r], *y = &b->ranks[r];
        char what[64];
        snprintf(what, sizeof what, "rank %zu metadata", r);
        if (x->rank != y->rank || x->clock_offset_ns != y->clock_offset_ns ||
            x->clock_offset_err_ns != y->clock_offset_err_ns)
            DIFF("rank %zu: rank/clock offsets differ", r);
        if ((d = kv_differ(&x->meta, &y->meta, what)))
            return d;
        if (x->nthreads != y->nthreads)
            DIFF("rank %zu: %zu vs %zu threads", r, x->nthreads, y->nthreads);
        for (size_t t = 0; t < x->nthreads; t++)
            if (x->threads[t].os_tid != y->threads[t].os_tid ||
                !str_eq(x->threads[t].name, y->threads[t].name))
                DIFF("rank %zu thread %zu differs", r, t);
        if (x->ncalls != y->ncalls)
            DIFF("rank %zu: %zu vs %zu calls", r, x->ncalls, y->ncalls);
        for (size_t i = 0; i < x->ncalls; i++)
            if (x->start_ns[i] != y->start_ns[i] || x->end_ns[i] != y->end_ns[i] ||
                x->region[i] != y->region[i] || x->thread[i] != y->thread[i] ||
                x->parent[i] != y->parent[i])
                DIFF("rank %zu call %zu differs", r, i);
        if (x->nlines != y->nlines)
            DIFF("rank %zu: %zu vs %zu line rows", r, x->nlines, y->nlines);
        for (size_t i = 0; i < x->nlines; i++)
            if (x->line_region[i] != y->line_region[i] ||
                x->line_lineno[i] != y->line_lineno[i] ||
                x->line_samples[i] != y->line_samples[i] ||
                x->line_time_ns[i] != y->line_time_ns[i] ||
                !str_eq(x->line_file[i] ? x->line_file[i] : "", y->line_file[i]) ||
                !str_eq(x->line_function[i] ? x->line_function[i] : "", y->line_function[i]))
                DIFF("rank %zu line row %zu differs", r, i);
        if (x->ncounters != y->ncounters)
            DIFF("rank %zu: %zu vs %zu counter rows", r, x->ncounters, y->ncounters);
        for (size_t i = 0; i < x->ncounters; i++)
            if (x->counter_region[i] != y->counter_region[i] ||
                x->counter_thread[i] != y->counter_thread[i] ||
                x->counter_cpu[i] != y->counter_cpu[i] ||
                x->counter_source[i] != y->counter_source[i] ||
                x->counter_value[i] != y->counter_value[i] ||
                x->counter_calls[i] != y->counter_calls[i] ||
                !str_eq(x->counter_name[i] ? x->counter_name[i] : "", y->counter_name[i]))
                DIFF("rank %zu counter row %zu differs", r, i);
        /* Scheduling samples: not in version 1 files. */
        bool sched = !(b->schema_version == 1 && a->schema_version != 1);
        if (sched && x->nsched != y->nsched)
            DIFF("rank %zu: %zu vs %zu scheduling samples", r, x->nsched, y->nsched);
        for (size_t i = 0; sched && i < x->nsched; i++)
            if (memcmp(&x->sched[i].t_ns, &y->sched[i].t_ns, 4 * sizeof(int64_t)) != 0 ||
                x->sched[i].thread != y->sched[i].thread)
                DIFF("rank %zu scheduling sample %zu differs", r, i);
        for (size_t g = 0; g < a->nregions; g++) {
            uint64_t dx = x->dropped ? x->dropped[g] : 0, dy = y->dropped ? y->dropped[g] : 0;
            if (dx != dy)
                DIFF("rank %zu region %zu: dropped %llu vs %llu", r, g,
                     (unsigned long long)dx, (unsigned long long)dy);
        }
    }
    return NULL;
}

static int rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        if (!d)
            return -1;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        closedir(d);
        return rmdir(path);
    }
    return unlink(path);
}

static char *made_dirs[64];
static size_t nmade;

const char *h5t_tmpdir(const char *tag)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/tmp-%s-%ld", SP_TEST_BINARY_DIR, tag, (long)getpid());
    rm_rf(dir);
    if (mkdir(dir, 0755) != 0) {
        perror(dir);
        abort();
    }
    if (nmade < sizeof made_dirs / sizeof made_dirs[0])
        made_dirs[nmade++] = xstrdup(dir);
    return dir;
}

void h5t_cleanup(int failed)
{
    for (size_t i = 0; i < nmade; i++) {
        if (!failed)
            rm_rf(made_dirs[i]);
        free(made_dirs[i]);
    }
    nmade = 0;
}

char *h5t_join(char *buf, size_t size, const char *dir, const char *name)
{
    int n = snprintf(buf, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size)
        abort();
    return buf;
}

int h5t_copy_file(const char *src, const char *dst, long len)
{
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    int rc = in && out ? 0 : -1;
    char buf[65536];
    long left = len;
    while (rc == 0 && (len < 0 || left > 0)) {
        size_t want = sizeof buf;
        if (len >= 0 && (long)want > left)
            want = (size_t)left;
        size_t got = fread(buf, 1, want, in);
        if (got == 0)
            break;
        if (fwrite(buf, 1, got, out) != got)
            rc = -1;
        left -= (long)got;
    }
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

int h5t_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

long h5t_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int h5t_count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, needle))
            n++;
    closedir(d);
    return n;
}

char *h5t_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}
