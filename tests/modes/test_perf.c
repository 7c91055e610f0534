/* SPDX-License-Identifier: MIT */
/*
 * test_perf.c - perf_event counters per region (perf_events option): the
 * software events count what the region did (page faults of fresh memory,
 * CPU time, context switches of sleeps), events the machine cannot count are
 * dropped with a reason, never silently.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "modes_util.h"
#include "sp_test.h"

static volatile double sink;

static void spin_ms(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double s = 0;
    do {
        for (int i = 0; i < 10000; i++)
            s += (double)i * 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
    sink = s;
}

/* Touch n fresh pages: n page faults. */
static void touch_pages(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p =
        mmap(NULL, n * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    for (size_t i = 0; i < n; i++)
        p[i * (size_t)page] = 1;
    munmap(p, n * (size_t)page);
}

static bool listed(const char *list, const char *name)
{
    if (!list)
        return false;
    size_t n = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
            (p[n] == ',' || p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static void test_software_events(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.perf_events = "task-clock,page-faults,context-switches,cycles,instructions";
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("faults")
    {
        touch_pages(2000);
    }
    SP_SCOPE("spin")
    {
        spin_ms(50);
    }
    SP_SCOPE("sleepy")
    {
        for (int i = 0; i < 3; i++)
            usleep(5000);
    }
    for (int i = 0; i < 10; i++)
        SP_SCOPE("repeated")
        {
            spin_ms(1);
        }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const char *kept = sp_run_metadata(run, "perf_events");
    const char *dropped = sp_run_metadata(run, "perf_events_dropped");
    fprintf(stderr, "  kept: %s; dropped: %s\n", kept, dropped ? dropped : "-");
    /* Every requested event is kept or dropped with a reason. */
    static const char *const ev[] = {"task-clock", "page-faults", "context-switches", "cycles",
                                     "instructions"};
    for (size_t i = 0; i < 5; i++)
        ASSERT_MSG(listed(kept, ev[i]) != listed(dropped, ev[i]), "%s: kept or dropped", ev[i]);
    /* Software events work on any Linux. */
    ASSERT(listed(kept, "task-clock") && listed(kept, "page-faults"));

    size_t rows = 0;
    double faults = modes_counter(run, "faults", "page-faults", SP_COUNTER_PERF, &rows);
    ASSERT_EQ_U(rows, 1);
    ASSERT_MSG(faults >= 1900, "page faults of 2000 fresh pages: %g", faults);
    double spin_faults = modes_counter(run, "spin", "page-faults", SP_COUNTER_PERF, NULL);
    ASSERT_MSG(spin_faults < faults / 10, "a spinning region faults little: %g", spin_faults);

    /* CPU time fits in the region's wall time (and is most of it). */
    double spin_cpu = modes_counter(run, "spin", "task-clock", SP_COUNTER_PERF, NULL);
    const sp_run_region *spin = sp_run_find(run, "spin");
    double wall_ns = sp_run_region_total_s(spin) * 1e9;
    ASSERT_MSG(spin_cpu > 0 && spin_cpu <= wall_ns * 1.01 + 1e5, "task-clock %g of wall %g",
               spin_cpu, wall_ns);
    double sleepy_cpu = modes_counter(run, "sleepy", "task-clock", SP_COUNTER_PERF, NULL);
    double sleepy_wall = sp_run_region_total_s(sp_run_find(run, "sleepy")) * 1e9;
    ASSERT_MSG(sleepy_cpu < sleepy_wall / 2, "sleeping is not CPU time: %g of %g", sleepy_cpu,
               sleepy_wall);
    if (listed(kept, "context-switches")) {
        double cs = modes_counter(run, "sleepy", "context-switches", SP_COUNTER_PERF, NULL);
        /* Counted only when the kernel part may be measured (root or
         * perf_event_paranoid <= 1); user-only counting sees none. */
        if (geteuid() == 0)
            ASSERT_MSG(cs >= 3, "three sleeps switch context: %g", cs);
    }
    /* Calls covered by the sums. */
    const sp_rank_data *rk = &run->ranks[0];
    int32_t rep = sp_run_region_id(run, "repeated");
    for (size_t i = 0; i < rk->ncounters; i++)
        if (rk->counter_region[i] == rep) {
            ASSERT_EQ_U(rk->counter_calls[i], 10);
            ASSERT_EQ_I(rk->counter_cpu[i], -1);
            ASSERT(rk->counter_thread[i] >= 0 && (size_t)rk->counter_thread[i] < rk->nthreads);
        }
    sp_run_free(run);
}

static void *thread_body(void *arg)
{
    (void)arg;
    SP_SCOPE("thread_faults")
    {
        touch_pages(500);
    }
    return NULL;
}

static void test_threads_and_env(void)
{
    modes_clear_env();
    setenv("SCOPE_PROFILER_PERF_EVENTS", "page-faults", 1);
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    unsetenv("SCOPE_PROFILER_PERF_EVENTS");
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        ASSERT_EQ_I(pthread_create(&t[i], NULL, thread_body, NULL), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    size_t rows = 0;
    double faults = modes_counter(run, "thread_faults", "page-faults", SP_COUNTER_PERF, &rows);
    ASSERT_EQ_U(rows, 2); /* one row per thread */
    ASSERT(faults >= 900);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT(rk->ncounters == 2 && rk->counter_thread[0] != rk->counter_thread[1]);
    sp_run_free(run);
}

static void test_bad_lists(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.perf_events = "page-faults,bogus-event";
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "bogus-event");
    ASSERT_CONTAINS(sp_last_error(), "task-clock"); /* lists the known ones */
    /* "none" switches it off (no counters, no metadata). */
    setenv("SCOPE_PROFILER_PERF_EVENTS", "none", 1);
    ASSERT_EQ_I(sp_setup(&o), 0);
    unsetenv("SCOPE_PROFILER_PERF_EVENTS");
    SP_SCOPE("x") {}
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(run->ranks[0].ncounters, 0);
    ASSERT(sp_run_metadata(run, "perf_events") == NULL);
    sp_run_free(run);
}

static void test_file_round_trip(void)
{
    modes_clear_env();
    char path[256];
    modes_tmp_path(path, sizeof path, "perf.h5");
    sp_options o = modes_mem_options();
    o.deactivate_file_output = false;
    o.file_path = path;
    o.perf_events = "task-clock,page-faults";
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("faults")
    {
        touch_pages(300);
    }
    sp_run *mem = NULL;
    ASSERT_EQ_I(sp_finalize(false, &mem), 0);
    sp_run *run = sp_read_h5(path);
    ASSERT_MSG(run, "%s", sp_last_error());
    const sp_rank_data *a = &mem->ranks[0], *b = &run->ranks[0];
    ASSERT_EQ_U(b->ncounters, a->ncounters);
    for (size_t i = 0; i < a->ncounters && i < b->ncounters; i++) {
        ASSERT_STREQ(b->counter_name[i], a->counter_name[i]);
        ASSERT_NEAR(b->counter_value[i], a->counter_value[i], 0);
        ASSERT_EQ_U(b->counter_calls[i], a->counter_calls[i]);
        ASSERT_EQ_I(b->counter_source[i], SP_COUNTER_PERF);
    }
    sp_run_free(mem);
    sp_run_free(run);
    modes_rm(path);
}

int main(void)
{
    RUN(test_software_events);
    RUN(test_threads_and_env);
    RUN(test_bad_lists);
    RUN(test_file_round_trip);
    return sp_test_summary();
}
