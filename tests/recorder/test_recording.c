/* SPDX-License-Identifier: MIT */
/* test_recording.c - buffer growth, durations, the modes, files, sessions,
 * nesting and parents, the macros. */
#include <time.h>

#include "rec_util.h"
#include "sp_h5.h"
#include "sp_test.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void test_buffer_growth(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    o.buffer_limit = 4;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("grows_often");
    ASSERT_EQ_U(sp_region_capacity(r), 0);
    for (int i = 0; i < 10; i++)
        SP_SCOPE("grows_often") {}
    ASSERT_EQ_U(sp_region_num_calls(r), 10);
    ASSERT_EQ_U(sp_region_capacity(r), 16); /* 4 -> 8 -> 16 */
    ASSERT_EQ_U(sp_region_dropped_calls(r), 0);
    int64_t d[16];
    ASSERT_EQ_U(sp_region_durations_ns(r, d, 16), 10);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run != NULL);
    ASSERT_EQ_U(run->ranks[0].ncalls, 10);
    ASSERT_EQ_U(rec_count(run, "grows_often"), 10);
    /* growth kept every call: ten distinct, ordered, non-overlapping calls */
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 1; i < rk->ncalls; i++)
        ASSERT(rk->start_ns[i] >= rk->end_ns[i - 1]);
    sp_run_free(run);
    /* counts survive finalize until the next setup */
    ASSERT_EQ_U(sp_region_num_calls(r), 10);
    ASSERT_EQ_U(sp_region_capacity(r), 16);
}

static void test_big_buffers_keep_every_call(void)
{
    /* From buffer_limit 1 to 2^19 events: heap growth, then the move into a
     * huge-page mapping, then remaps. Every call must survive the moves. */
    rec_clear_env();
    sp_options o = rec_mem_options();
    o.buffer_limit = 1;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("big_buffer"), *in = sp_region_get("big_inner");
    const size_t n = 300000;
    for (size_t i = 0; i < n; i++) {
        sp_region_begin(r);
        if (i % 1000 == 0) {
            sp_region_begin(in);
            sp_region_end(in);
        }
        sp_region_end(r);
    }
    ASSERT_EQ_U(sp_region_capacity(r), 524288);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, n + n / 1000);
    int32_t rid = sp_run_region_id(run, "big_buffer");
    int64_t last_start = INT64_MIN;
    size_t seen = 0;
    for (size_t i = 0; i < rk->ncalls; i++) {
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
        if (rk->region[i] == rid) {
            ASSERT(rk->start_ns[i] >= last_start);
            ASSERT_EQ_I(rk->parent[i], -1);
            last_start = rk->start_ns[i];
            seen++;
        } else {
            ASSERT(rk->parent[i] >= 0 && rk->region[rk->parent[i]] == rid);
        }
    }
    ASSERT_EQ_U(seen, n);
    sp_run_free(run);
}

static void test_durations(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("in_memory");
    for (int i = 0; i < 3; i++)
        SP_SCOPE("in_memory") { sleep_ms(2); }
    int64_t d[8] = {0};
    ASSERT_EQ_U(sp_region_durations_ns(r, d, 8), 3);
    ASSERT_EQ_U(sp_region_durations_ns(r, d, 2), 2); /* max respected */
    ASSERT_EQ_U(sp_region_durations_ns(r, d, 8), 3);
    for (int i = 0; i < 3; i++) {
        ASSERT_MSG(d[i] >= 2000000, "duration %d = %lld ns < the 2 ms slept", i, (long long)d[i]);
        ASSERT_MSG(d[i] < 2000000000, "duration %d = %lld ns", i, (long long)d[i]);
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 3);
    /* The final calibration agrees with the one used mid-session. */
    for (size_t i = 0; i < 3; i++)
        ASSERT_NEAR(rk->end_ns[i] - rk->start_ns[i], d[i], 1000);
    const sp_run_region *rr = sp_run_find(run, "in_memory");
    ASSERT(rr != NULL);
    ASSERT_EQ_U(sp_run_region_num_calls(rr), 3);
    ASSERT(sp_run_region_total_s(rr) >= 0.006);
    sp_run_free(run);
    ASSERT_EQ_U(sp_region_durations_ns(r, d, 8), 0); /* buffers freed at finalize */
}

static void test_disabled_mode(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/disabled.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.deactivate_profiling = true;
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("probe");
    ASSERT_EQ_I(sp_region_get_kind(r), SP_REGION_DISABLED);
    for (int i = 0; i < 5; i++)
        SP_SCOPE("probe") {}
    sp_region_end(r); /* even misuse records nothing */
    ASSERT_EQ_U(sp_region_num_calls(r), 0);
    ASSERT_EQ_U(sp_region_capacity(r), 0);
    sp_run *run = (sp_run *)&run; /* must be overwritten with NULL */
    ASSERT_EQ_I(sp_finalize(true, &run), 0);
    ASSERT(run == NULL);
    ASSERT(!rec_exists(path));
    rmdir(dir);
}

static void test_no_file_output(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/unused.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("in_memory")), SP_REGION_TIME_ONLY);
    for (int i = 0; i < 3; i++)
        SP_SCOPE("in_memory") {}
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run != NULL);
    ASSERT(!rec_exists(path));
    ASSERT(run->source_path == NULL);
    ASSERT_STREQ(run->layout, "scope-profiler");
    ASSERT_EQ_I(run->schema_version, SP_SCHEMA_VERSION);
    ASSERT_EQ_U(run->nranks, 1);
    ASSERT(run->analyzed);
    ASSERT_EQ_U(rec_count(run, "in_memory"), 3);
    ASSERT_EQ_U(run->nregions, 1); /* only regions that recorded */
    sp_run_free(run);
    rmdir(dir);
}

static void test_file_written(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("outer")
    {
        for (int i = 0; i < 4; i++)
            SP_SCOPE("inner") {}
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(rec_exists(path));
    ASSERT_STREQ(run->source_path, path);
    ASSERT_EQ_U(run->ranks[0].ncalls, 5);
    sp_run_free(run);

    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "sp_read_h5: %s", sp_last_error());
    ASSERT_EQ_U(sp_run_num_ranks(back), 1);
    const sp_run_region *inner = sp_run_find(back, "inner");
    ASSERT(inner != NULL);
    ASSERT_EQ_U(sp_run_region_num_calls(inner), 4);
    ASSERT(sp_run_metadata(back, "hostname") != NULL);
    sp_run_free(back);
    unlink(path);
    rmdir(dir);
}

/* Spin for ms of CPU time on the calling thread (not sleeping). */
static void spin_cpu_ms(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    volatile double acc = 0;
    do {
        for (int k = 0; k < 1000; k++)
            acc += k * 1e-9;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

/* The writer samples each recording thread's CPU scheduling (its run and
 * wait times, preemptions) at the start, at every flush and at the end:
 * the finished file has them, in time order, and they add up to the CPU
 * the thread used. No timing is judged: only what was recorded. */
static void test_sched_samples(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/sched.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    o.flush_interval = 0.04; /* a flush every 20 ms */
    ASSERT_EQ_I(sp_setup(&o), 0);
    for (int i = 0; i < 10; i++) {
        SP_SCOPE("busy") { spin_cpu_ms(10); }
        SP_SCOPE("idle") { sleep_ms(10); }
    }
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
    sp_run *run = sp_read_h5(path);
    ASSERT_MSG(run != NULL, "sp_read_h5: %s", sp_last_error());
    const sp_rank_data *rk = &run->ranks[0];
    /* The baseline at setup, several flushes, the end: at least 3 rows. */
    ASSERT_MSG(rk->nsched >= 3, "%zu scheduling samples", rk->nsched);
    for (size_t i = 0; i < rk->nsched; i++) {
        const sp_sched_sample *x = &rk->sched[i];
        ASSERT(x->thread == 0); /* the only recording thread */
        ASSERT(x->cpu_ns >= 0 && x->wait_ns >= 0 && x->nivcsw >= 0);
        if (i) { /* cumulative, in time order */
            ASSERT(x->t_ns > rk->sched[i - 1].t_ns);
            ASSERT(x->cpu_ns >= rk->sched[i - 1].cpu_ns);
            ASSERT(x->wait_ns >= rk->sched[i - 1].wait_ns);
        }
    }
    /* The first row is taken before the first call, the last after it. */
    ASSERT(rk->sched[0].t_ns <= rk->start_ns[0]);
    ASSERT(rk->sched[rk->nsched - 1].t_ns >= rk->end_ns[rk->ncalls - 1]);
    /* 100 ms of spinning happened between the first and the last row. */
    int64_t cpu = rk->sched[rk->nsched - 1].cpu_ns - rk->sched[0].cpu_ns;
    ASSERT_MSG(cpu >= 100000000, "only %lld ns on a CPU", (long long)cpu);
    sp_run_free(run);
    unlink(path);
    rmdir(dir);
}

static void test_file_write_fails(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/missing-dir/run.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("unwritten") {}
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    ASSERT_MSG(rc == SP_EIO || rc == SP_EINVAL, "rc %d", rc);
    ASSERT_CONTAINS(sp_last_error(), "missing-dir");
    ASSERT(!rec_exists(path));
    ASSERT(run != NULL); /* the data is still handed back */
    ASSERT(run->source_path == NULL);
    ASSERT_EQ_U(rec_count(run, "unwritten"), 1);
    sp_run_free(run);
    ASSERT_EQ_I(sp_finalize(false, NULL), SP_ESTATE); /* the session is over */
    rmdir(dir);
}

static void test_resetup_keeps_handles(void)
{
    rec_clear_env();
    sp_region *h = sp_region_get("session_region");
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    for (int i = 0; i < 5; i++) {
        sp_region_begin(h);
        sp_region_end(h);
    }
    ASSERT_EQ_U(sp_region_num_calls(h), 5);
    ASSERT_EQ_I(sp_metadata_set("discarded_key", "x"), 0);

    ASSERT_EQ_I(sp_setup(&o), 0); /* discards the unfinalized session */
    ASSERT(sp_region_get("session_region") == h);
    ASSERT_STREQ(sp_region_name(h), "session_region");
    ASSERT_EQ_U(sp_region_num_calls(h), 0);
    ASSERT_EQ_U(sp_region_capacity(h), 0);
    for (int i = 0; i < 3; i++) {
        sp_region_begin(h);
        sp_region_end(h);
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(rec_count(run, "session_region"), 3);
    ASSERT(sp_kvlist_get(&run->meta, "discarded_key") == NULL);
    sp_run_free(run);
    ASSERT_EQ_U(sp_region_num_calls(h), 3);

    /* A second finalize has no session. */
    ASSERT_EQ_I(sp_finalize(false, NULL), SP_ESTATE);

    /* The next setup resets the counts; the handle still records. */
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_U(sp_region_num_calls(h), 0);
    sp_region_begin(h);
    sp_region_end(h);
    ASSERT_EQ_U(sp_region_num_calls(h), 1);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

static void test_nesting_parents(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *a = sp_region_get("nest_a"), *b = sp_region_get("nest_b"),
              *c = sp_region_get("nest_c"), *rec = sp_region_get("nest_rec");
    sp_region_begin(a);
    sp_region_begin(b);
    sp_region_begin(c);
    sp_region_end(c);
    sp_region_end(b);
    sp_region_begin(b); /* a second child of a */
    sp_region_end(b);
    sp_region_end(a);
    /* recursion: rec -> rec -> rec, then c at top level */
    sp_region_begin(rec);
    sp_region_begin(rec);
    sp_region_begin(rec);
    sp_region_end(rec);
    sp_region_end(rec);
    sp_region_end(rec);
    sp_region_begin(c);
    sp_region_end(c);

    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, 8);
    long ia = rec_call(run, "nest_a", 0), ib0 = rec_call(run, "nest_b", 0),
         ib1 = rec_call(run, "nest_b", 1), ic0 = rec_call(run, "nest_c", 0),
         ic1 = rec_call(run, "nest_c", 1);
    ASSERT(ia >= 0 && ib0 >= 0 && ib1 >= 0 && ic0 >= 0 && ic1 >= 0);
    ASSERT_EQ_I(rk->parent[ia], -1);
    ASSERT_EQ_I(rk->parent[ib0], ia);
    ASSERT_EQ_I(rk->parent[ib1], ia);
    ASSERT_EQ_I(rk->parent[ic0], ib0);
    ASSERT_EQ_I(rk->parent[ic1], -1);
    long r0 = rec_call(run, "nest_rec", 0), r1 = rec_call(run, "nest_rec", 1),
         r2 = rec_call(run, "nest_rec", 2);
    ASSERT_EQ_I(rk->parent[r0], -1);
    ASSERT_EQ_I(rk->parent[r1], r0);
    ASSERT_EQ_I(rk->parent[r2], r1);
    /* children lie inside their parents */
    for (size_t i = 0; i < rk->ncalls; i++) {
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
        if (rk->parent[i] >= 0) {
            ASSERT(rk->start_ns[i] >= rk->start_ns[rk->parent[i]]);
            ASSERT(rk->end_ns[i] <= rk->end_ns[rk->parent[i]]);
        }
    }
    ASSERT_EQ_U(rk->nthreads, 1);
    ASSERT_STREQ(rk->threads[0].name, "main");
    ASSERT_EQ_I(rk->threads[0].os_tid, getpid());
    sp_run_free(run);
}

static int leave_early(int n)
{
    for (int i = 0;; i++) {
        SP_SCOPE("macro_loop")
        {
            if (i == n)
                return i; /* the cleanup ends the call */
            if (i % 2)
                continue;
        }
    }
}

static void function_region(void) { SP_FUNCTION(); }

static void test_macros(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(leave_early(3), 3);
    function_region();
    function_region();
    /* break leaves the SP_SCOPE block (the macro's own loop), not the
     * enclosing loop: both iterations run and each call ends. */
    for (int i = 0; i < 2; i++) {
        SP_SCOPE("macro_break") { break; }
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0); /* all balanced */
    ASSERT_EQ_U(rec_count(run, "macro_loop"), 4);
    ASSERT_EQ_U(rec_count(run, "function_region"), 2);
    ASSERT_EQ_U(rec_count(run, "macro_break"), 2);
    sp_run_free(run);
}

static void test_metadata(void)
{
    rec_clear_env();
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("OMP_NUM_THREADS", "3", 1);
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_metadata_set("problem_size", "64"), 0);
    ASSERT_EQ_I(sp_metadata_set("problem_size", "128"), 0); /* last one wins */
    ASSERT_EQ_I(sp_metadata_set("hostname", "fake"), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "reserved");
    ASSERT_EQ_I(sp_metadata_set("slurm_job_id", "1"), SP_EINVAL);
    ASSERT_EQ_I(sp_metadata_set("", "x"), SP_EINVAL);
    ASSERT_EQ_I(sp_metadata_set("k", NULL), SP_EINVAL);
    SP_SCOPE("meta_region") {}
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const sp_kvlist *m = &run->meta;
    ASSERT_STREQ(sp_kvlist_get(m, "problem_size"), "128");

    const char *ts = sp_kvlist_get(m, "timestamp");
    ASSERT(ts && strlen(ts) == 26 && ts[4] == '-' && ts[10] == 'T' && ts[19] == '.');
    char buf[4096];
    gethostname(buf, sizeof buf);
    ASSERT_STREQ(sp_kvlist_get(m, "hostname"), buf);
    ASSERT_STREQ(sp_kvlist_get(&run->ranks[0].meta, "hostname"), buf);
    ASSERT(sp_kvlist_get(m, "user") != NULL);
    ASSERT_CONTAINS(sp_kvlist_get(m, "command_line"), "recorder_recording");
    ASSERT(getcwd(buf, sizeof buf));
    ASSERT_STREQ(sp_kvlist_get(m, "working_directory"), buf);
    ASSERT_STREQ(sp_kvlist_get(m, "scope_profiler_version"), sp_version());
    ASSERT_CONTAINS(sp_kvlist_get(m, "compiler"), __VERSION__);
    ASSERT(sp_kvlist_get(m, "cpu_model") && *sp_kvlist_get(m, "cpu_model"));
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    ASSERT_STREQ(sp_kvlist_get(m, "total_cores"), buf);
    ASSERT_STREQ(sp_kvlist_get(m, "num_threads"), "1");
    ASSERT_STREQ(sp_kvlist_get(m, "omp_num_threads"), "3");
    ASSERT_STREQ(sp_kvlist_get(m, "slurm_job_id"), "4242");
    ASSERT_STREQ(sp_kvlist_get(m, "mpi_size"), "1");
    snprintf(buf, sizeof buf, "%ld", (long)getpid());
    ASSERT_STREQ(sp_kvlist_get(m, "pid"), buf);
    ASSERT_STREQ(sp_kvlist_get(&run->ranks[0].meta, "pid"), buf);
    ASSERT_CONTAINS(sp_kvlist_get(m, "platform"), "Linux-");
    const char *clk = sp_kvlist_get(m, "clock_source");
    ASSERT(clk && (!strcmp(clk, "tsc") || !strcmp(clk, "monotonic")));
    if (!strcmp(clk, "tsc")) {
        ASSERT(atof(sp_kvlist_get(m, "clock_tsc_hz")) > 1e6);
        ASSERT(sp_kvlist_get(m, "clock_calibration_start_ticks") != NULL);
        ASSERT(atoll(sp_kvlist_get(m, "clock_calibration_end_ns")) >
               atoll(sp_kvlist_get(m, "clock_calibration_start_ns")));
    }
    sp_run_free(run);
    unsetenv("SLURM_JOB_ID");
    unsetenv("OMP_NUM_THREADS");

    /* User keys are consumed by finalize: the next session starts clean. */
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("meta_region") {}
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(sp_kvlist_get(&run->meta, "problem_size") == NULL);
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "omp_num_threads"), "");
    sp_run_free(run);
}

static void finalize_verbose(void *arg) { *(int *)arg = sp_finalize(true, NULL); }

static void test_verbose_summary(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("verbose_region") {}
    char out[16384];
    int rc = -100;
    rec_capture_stdout(finalize_verbose, &rc, out, sizeof out);
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(out, "verbose_region");
    ASSERT(strstr(out, "warning") == NULL);
}

int main(void)
{
    RUN(test_buffer_growth);
    RUN(test_big_buffers_keep_every_call);
    RUN(test_durations);
    RUN(test_disabled_mode);
    RUN(test_no_file_output);
    RUN(test_file_written);
    RUN(test_sched_samples);
    RUN(test_file_write_fails);
    RUN(test_resetup_keeps_handles);
    RUN(test_nesting_parents);
    RUN(test_macros);
    RUN(test_metadata);
    RUN(test_verbose_summary);
    return sp_test_summary();
}
