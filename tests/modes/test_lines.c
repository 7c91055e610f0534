/* SPDX-License-Identifier: MIT */
/*
 * test_lines.c - line-level sampling: a region whose time goes to one clearly
 * hot line gets most of its samples on that line, with either sampler
 * (perf_event cpu-clock, POSIX CPU-time timer); a hot libm call is charged to
 * the line that calls it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "modes_util.h"
#include "sp_test.h"

static volatile double sink;
static int hot_line, cbrt_line;

/* `ms` milliseconds of this thread's CPU time (samples measure CPU time, so
 * a busy machine does not starve the test of samples), mostly on one line. */
static __attribute__((noinline)) void hot_sqrt(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    double s = 1.0;
    hot_line = __LINE__ + 3; /* the sqrt line below */
    do {
        for (int i = 0; i < 200000; i++)
            s = sqrt(s + (double)i) + 1e-3 * s;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
    sink = s;
}

/* The time goes into libm's cbrt (never inlined): charged to the call line. */
static __attribute__((noinline)) void hot_cbrt(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    double s = 1.0;
    cbrt_line = __LINE__ + 3; /* the cbrt line below */
    do {
        for (int i = 0; i < 100000; i++)
            s = cbrt(s + (double)i);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-6 < ms);
    sink = s;
}

/* Run both regions with the given sampler, `ms` of CPU time each; NULL
 * when it is not available. */
static sp_run *sample_run_ms(const char *sampler, const char *path, double ms)
{
    modes_clear_env();
    setenv("SCOPE_PROFILER_LINE_SAMPLER", sampler, 1);
    sp_options o = modes_mem_options();
    o.use_line_profiler = true;
    o.line_hz = 2000;
    if (path) {
        o.deactivate_file_output = false;
        o.file_path = path;
    }
    int rc = sp_setup(&o);
    unsetenv("SCOPE_PROFILER_LINE_SAMPLER");
    if (rc != 0) {
        fprintf(stderr, "  (%s sampler unavailable here: %s)\n", sampler, sp_last_error());
        return NULL;
    }
    if (sp_region_get_kind(sp_region_get("hot_sqrt")) != SP_REGION_LINE_PROFILER)
        return NULL;
    SP_SCOPE("hot_sqrt")
    {
        hot_sqrt(ms);
    }
    SP_SCOPE("hot_cbrt")
    {
        hot_cbrt(ms);
    }
    sp_run *run = NULL;
    if (sp_finalize(false, &run) != 0)
        fprintf(stderr, "finalize: %s\n", sp_last_error());
    return run;
}

#define ENOUGH_SAMPLES 40 /* per region, to judge where they land */

/* sample_run_ms with enough samples to judge: a CPU-time timer is checked at
 * the kernel's ticks while the thread runs, so a busy machine gives fewer
 * samples per CPU second (several periods per signal); then again, longer. */
static sp_run *sample_run(const char *sampler, const char *path)
{
    for (double ms = 300;; ms *= 3) {
        sp_run *run = sample_run_ms(sampler, path, ms);
        uint64_t a = 0, b = 0;
        if (run) {
            modes_line_samples(run, "hot_sqrt", "test_lines.c", hot_line, &a);
            modes_line_samples(run, "hot_cbrt", "test_lines.c", cbrt_line, &b);
        }
        if (!run || (a >= ENOUGH_SAMPLES && b >= ENOUGH_SAMPLES) || ms >= 2700)
            return run;
        fprintf(stderr, "  (%s: %llu and %llu samples in %.0f ms of CPU: busy machine, again "
                        "with %.0f ms)\n",
                sampler, (unsigned long long)a, (unsigned long long)b, ms, 3 * ms);
        sp_run_free(run);
    }
}

static void check_run(const sp_run *run, const char *sampler_word)
{
    uint64_t total = 0;
    uint64_t on = modes_line_samples(run, "hot_sqrt", "test_lines.c", hot_line, &total);
    fprintf(stderr, "  %s: hot_sqrt %llu of %llu samples on line %d\n", sampler_word,
            (unsigned long long)on, (unsigned long long)total, hot_line);
    ASSERT_MSG(total >= ENOUGH_SAMPLES, "too few samples (%llu) to judge",
               (unsigned long long)total);
    ASSERT_MSG(2 * on > total, "hot line got %llu of %llu samples", (unsigned long long)on,
               (unsigned long long)total);
    on = modes_line_samples(run, "hot_cbrt", "test_lines.c", cbrt_line, &total);
    fprintf(stderr, "  %s: hot_cbrt %llu of %llu samples on line %d\n", sampler_word,
            (unsigned long long)on, (unsigned long long)total, cbrt_line);
    ASSERT(total >= ENOUGH_SAMPLES);
    ASSERT_MSG(2 * on > total, "libm time not charged to its calling line: %llu of %llu",
               (unsigned long long)on, (unsigned long long)total);
    ASSERT_CONTAINS(sp_run_metadata(run, "line_sampler"), sampler_word);
    ASSERT_STREQ(sp_run_metadata(run, "line_sample_hz"), "2000");
    /* Estimated time = samples x the measured period (CPU time while sampled
     * over samples): one thread here, so one period for every row, and the
     * region's estimated CPU time fits in its wall time. */
    const sp_rank_data *rk = &run->ranks[0];
    double period = 0, est = 0;
    int32_t sq = sp_run_region_id(run, "hot_sqrt");
    for (size_t i = 0; i < rk->nlines; i++) {
        ASSERT(rk->line_samples[i] > 0 && rk->line_time_ns[i] > 0);
        double p = (double)rk->line_time_ns[i] / (double)rk->line_samples[i];
        if (period == 0)
            period = p;
        ASSERT_NEAR(p, period, 1.0 + 1e-6 * period);
        if (rk->line_region[i] == sq)
            est += (double)rk->line_time_ns[i];
    }
    double wall = sp_run_region_total_s(sp_run_find(run, "hot_sqrt")) * 1e9;
    ASSERT_MSG(est <= wall * 1.05, "estimated %g ns of CPU in %g ns of wall time", est, wall);
    ASSERT(sp_run_metadata(run, "line_sample_hz_effective"));
    /* The hot line's function is hot_sqrt (GCC may clone it: hot_sqrt.xxx). */
    int32_t id = sp_run_region_id(run, "hot_sqrt");
    bool named = false;
    for (size_t i = 0; i < rk->nlines; i++)
        if (rk->line_region[i] == id && rk->line_lineno[i] == hot_line)
            named |= strncmp(rk->line_function[i], "hot_sqrt", 8) == 0;
    if (!named)
        for (size_t i = 0; i < rk->nlines; i++)
            fprintf(stderr, "    %s:%d %s %llu\n", rk->line_file[i], rk->line_lineno[i],
                    rk->line_function[i], (unsigned long long)rk->line_samples[i]);
    ASSERT(named);
}

static void test_perf_sampler(void)
{
    sp_run *run = sample_run("perf", NULL);
    if (!run)
        return; /* perf_event not allowed here: the timer test covers lines */
    check_run(run, "perf_event");
    sp_run_free(run);
}

static void test_timer_sampler(void)
{
    sp_run *run = sample_run("timer", NULL);
    ASSERT_MSG(run, "the timer sampler must work everywhere");
    check_run(run, "timer");
    sp_run_free(run);
}

static void test_file_round_trip(void)
{
    char path[256];
    modes_tmp_path(path, sizeof path, "lines.h5");
    sp_run *mem = sample_run("timer", path);
    ASSERT(mem);
    sp_run *run = sp_read_h5(path);
    ASSERT_MSG(run, "%s", sp_last_error());
    const sp_rank_data *a = &mem->ranks[0], *b = &run->ranks[0];
    ASSERT_EQ_U(b->nlines, a->nlines);
    for (size_t i = 0; i < a->nlines && i < b->nlines; i++) {
        ASSERT_STREQ(run->region_names[b->line_region[i]], mem->region_names[a->line_region[i]]);
        ASSERT_STREQ(b->line_file[i], a->line_file[i]);
        ASSERT_STREQ(b->line_function[i], a->line_function[i]);
        ASSERT_EQ_I(b->line_lineno[i], a->line_lineno[i]);
        ASSERT_EQ_U(b->line_samples[i], a->line_samples[i]);
        ASSERT_EQ_I(b->line_time_ns[i], a->line_time_ns[i]);
    }
    check_run(run, "timer");
    sp_run_free(run);
    sp_run_free(mem);
    modes_rm(path);
}

static void test_options(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.use_line_profiler = true;
    o.line_hz = 1000000;
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "line_hz");
    setenv("SCOPE_PROFILER_LINE_SAMPLER", "magic", 1);
    o.line_hz = 0; /* default */
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "SCOPE_PROFILER_LINE_SAMPLER");
    unsetenv("SCOPE_PROFILER_LINE_SAMPLER");

    /* use_line_profiler wins over use_likwid (no LIKWID needed then). */
    o.use_likwid = true;
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("k")), SP_REGION_LINE_PROFILER);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_CONTAINS(sp_run_metadata(run, "recording_mode"), "line-profiler");
    sp_run_free(run);

    /* And through the environment. */
    setenv("SCOPE_PROFILER_LINE_PROFILER", "yes", 1);
    o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("k")), SP_REGION_LINE_PROFILER);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
    unsetenv("SCOPE_PROFILER_LINE_PROFILER");
}

int main(void)
{
    RUN(test_perf_sampler);
    RUN(test_timer_sampler);
    RUN(test_file_round_trip);
    RUN(test_options);
    return sp_test_summary();
}
