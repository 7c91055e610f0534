/* SPDX-License-Identifier: MIT */
/*
 * profiling_modes.c - the tutorial chapter "Profiling modes and configuration"
 * walked through in C: each section sets up a session with different options
 * and prints what was recorded, as the chapter's Python snippets do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <scope_profiler.h>

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

static void turning_profiling_off(void)
{
    printf("\n## Turning profiling off\n");
    sp_options o;
    sp_options_init(&o);
    o.deactivate_profiling = true;
    if (check(sp_setup(&o), "setup"))
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
    printf("\n## Keeping data in memory\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/unused.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    o.file_path = path;
    if (check(sp_setup(&o), "setup"))
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
    printf("file written  : %s\n", file_exists(path) ? "True" : "False");
    printf("num_calls     : %" PRIu64 "\n", r ? sp_run_region_num_calls(r) : 0);
    printf("total [s]     : %.9f\n", r ? sp_run_region_total_s(r) : 0.0);
    sp_run_free(results);
}

static void buffer_size(const char *dir)
{
    printf("\n## Buffer size\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/buffered.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.buffer_limit = 4; /* tiny on purpose */
    o.file_path = path;
    if (check(sp_setup(&o), "setup"))
        return;
    for (int i = 0; i < 10; i++)
        SP_SCOPE("grows_often") {}
    sp_region *region = sp_region_get("grows_often");
    printf("  calls    : %" PRIu64 "\n", sp_region_num_calls(region));
    printf("  capacity : %zu (grew from 4)\n", sp_region_capacity(region));
    if (check(sp_finalize(false, NULL), "finalize"))
        return;
    sp_run *run = sp_read_h5(path);
    if (!run) {
        check(-1, "read");
        return;
    }
    const sp_run_region *r = sp_run_find(run, "grows_often");
    printf("recorded  : %" PRIu64 "\n", r ? sp_run_region_num_calls(r) : 0);
    sp_run_free(run);
}

/* The modes that need extra machinery: show what this build says of them. */
static void optional_mode(const char *title, void (*set)(sp_options *))
{
    printf("\n## %s\n", title);
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    set(&o);
    int rc = sp_setup(&o);
    if (rc != 0) {
        printf("  not available here: %s\n", sp_last_error());
        return;
    }
    show_region_class();
    SP_SCOPE("hot_function") { workload(); }
    sp_finalize(true, NULL);
}

static void set_recursive(sp_options *o) { o->recursive_profile = true; }
static void set_lines(sp_options *o) { o->use_line_profiler = true; }
static void set_likwid(sp_options *o) { o->use_likwid = true; }

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
    optional_mode("Recursive profiling", set_recursive);
    optional_mode("Line-by-line profiling", set_lines);
    optional_mode("LIKWID hardware counters", set_likwid);
    return 0;
}
