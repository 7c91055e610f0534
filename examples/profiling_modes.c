/* SPDX-License-Identifier: MIT */
/*
 * profiling_modes.c - the tutorial chapter "Profiling modes and configuration"
 * walked through in C: each section sets up a session with different options
 * and prints what was recorded, as the chapter's Python snippets do.
 * Built with -finstrument-functions for the recursive section.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

static volatile double sink; /* keeps hot_function's result alive */

static void workload(void)
{
    struct timespec ts = {0, 2000000}; /* 2 ms */
    nanosleep(&ts, NULL);
}

static void show_region_class(void)
{
    sp_region *region = sp_region_get("probe");
    printf("  region class: %s\n", sp_region_kind_name(sp_region_get_kind(region)));
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

static int check(int rc, const char *what)
{
    if (rc != 0)
        fprintf(stderr, "profiling_modes: %s: %s\n", what, sp_last_error());
    return rc;
}

/* A section of the walk-through: its heading, and options whose file (if
 * any) lives in the work directory. */
typedef struct section {
    sp_options o;
    char path[4096];
} section;

static void section_begin(section *sec, const char *title, const char *dir, const char *file)
{
    printf("\n## %s\n", title);
    sp_options_init(&sec->o);
    if (file) {
        snprintf(sec->path, sizeof sec->path, "%s/%s", dir, file);
        sec->o.file_path = sec->path;
    }
}

static void turning_profiling_off(void)
{
    section sec;
    section_begin(&sec, "Turning profiling off", NULL, NULL);
    sec.o.deactivate_profiling = true;
    if (check(sp_setup(&sec.o), "setup"))
        return;
    show_region_class();
    SP_SCOPE("maybe_profiled") { workload(); }
    printf("  calls recorded: %" PRIu64 "\n", sp_region_num_calls(sp_region_get("probe")));
    sp_run *run = NULL;
    check(sp_finalize(false, &run), "finalize");
    printf("  results returned: %s (nothing was recorded, no file written)\n",
           run ? "yes" : "no");
    sp_run_free(run);
}

static void keeping_data_in_memory(const char *dir)
{
    section sec;
    section_begin(&sec, "Keeping data in memory", dir, "unused.h5");
    sec.o.deactivate_file_output = true;
    if (check(sp_setup(&sec.o), "setup"))
        return;
    show_region_class();
    for (int i = 0; i < 3; i++)
        SP_SCOPE("in_memory") { workload(); }
    sp_region *region = sp_region_get("in_memory");
    int64_t d[3];
    size_t n = sp_region_durations_ns(region, d, 3);
    printf("  calls   : %" PRIu64 "\n", sp_region_num_calls(region));
    printf("  durations [ns]: [");
    for (size_t i = 0; i < n; i++)
        printf("%s%" PRId64, i ? " " : "", d[i]);
    printf("]\n");

    sp_run *results = NULL;
    if (check(sp_finalize(false, &results), "finalize"))
        return;
    const sp_run_region *r = sp_run_find(results, "in_memory");
    printf("file written  : %s\n", file_exists(sec.path) ? "True" : "False");
    printf("num_calls     : %" PRIu64 "\n", r ? sp_run_region_num_calls(r) : 0);
    printf("total [s]     : %.9f\n", r ? sp_run_region_total_s(r) : 0.0);
    sp_run_free(results);
}

static void buffer_size(const char *dir)
{
    section sec;
    section_begin(&sec, "Buffer size", dir, "buffered.h5");
    sec.o.buffer_limit = 4; /* tiny on purpose */
    if (check(sp_setup(&sec.o), "setup"))
        return;
    for (int i = 0; i < 10; i++)
        SP_SCOPE("grows_often") {}
    sp_region *region = sp_region_get("grows_often");
    printf("  calls    : %" PRIu64 "\n", sp_region_num_calls(region));
    printf("  capacity : %zu (grew from 4)\n", sp_region_capacity(region));
    if (check(sp_finalize(false, NULL), "finalize"))
        return;
    sp_run *run = sp_read_h5(sec.path);
    if (!run) {
        check(-1, "read");
        return;
    }
    const sp_run_region *r = sp_run_find(run, "grows_often");
    printf("recorded  : %" PRIu64 "\n", r ? sp_run_region_num_calls(r) : 0);
    sp_run_free(run);
}

/* ---- recursive profiling: the seed's entry -> middle -> 2x leaf ----
 * This file is compiled with -finstrument-functions (CMake:
 * scope_profiler_instrument), so SP_SCOPE_RECURSIVE traces what it calls.
 * Everything else in this file is instrumented too, but outside a recursive
 * region the hooks return at once. */

static __attribute__((no_instrument_function)) void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static __attribute__((noinline)) void leaf(void) { sleep_ms(1); }

static __attribute__((noinline)) void middle(void)
{
    for (int i = 0; i < 2; i++)
        leaf();
}

static __attribute__((noinline)) void entry(void)
{
    SP_SCOPE_RECURSIVE("entry") { middle(); }
}

static void recursive_profiling(const char *dir)
{
    section sec;
    section_begin(&sec, "Recursive profiling", dir, "recursive.h5");
    if (check(sp_setup(&sec.o), "setup"))
        return;
    entry();
    if (check(sp_finalize(false, NULL), "finalize"))
        return;
    sp_run *run = sp_read_h5(sec.path);
    if (!run) {
        check(-1, "read");
        return;
    }
    sp_run_print_summary(run, stdout);
    sp_run_free(run);
}

/* ---- line-by-line profiling: one hot line ---- */

static __attribute__((noinline)) double hot_function(long n)
{
    SP_FUNCTION();
    double total = 0.0;
    for (long i = 0; i < n; i++)
        total += sqrt((double)i + total * 1e-12); /* the hot line */
    sleep_ms(1);
    return total;
}

static void line_profiling(const char *dir)
{
    section sec;
    section_begin(&sec, "Line-by-line profiling", dir, "line.h5");
    sec.o.use_line_profiler = true;
    if (check(sp_setup(&sec.o), "setup"))
        return;
    show_region_class();
    sink = hot_function(25 * 1000 * 1000);
    check(sp_finalize(true, NULL), "finalize");
    printf("per-line table: scope-profiler line-profile %s\n", sec.path);
}

/* ---- LIKWID: needs likwid-perfctr and a CPU LIKWID supports ---- */

static void likwid_counters(void)
{
    section sec;
    section_begin(&sec, "LIKWID hardware counters", NULL, NULL);
    sec.o.deactivate_file_output = true;
    sec.o.use_likwid = true;
    if (sp_setup(&sec.o) != 0) {
        printf("  not available here: %s\n", sp_last_error());
        return;
    }
    show_region_class();
    SP_SCOPE("hot_function") { workload(); }
    sp_finalize(true, NULL);
}

int main(void)
{
    char dir[] = "/tmp/scope-profiler-tutorial-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    printf("WORKDIR = %s\n", dir);
    turning_profiling_off();
    keeping_data_in_memory(dir);
    buffer_size(dir);
    recursive_profiling(dir);
    line_profiling(dir);
    likwid_counters();
    return 0;
}
