/* SPDX-License-Identifier: MIT */
/*
 * test_likwid.c - LIKWID mode: reading LIKWID's marker and group files
 * (fixtures in data/likwid/ and every group file installed on the machine),
 * the formula arithmetic, what sp_setup says where LIKWID cannot measure and
 * the fallback, and the whole runtime path against a stand-in liblikwid
 * (fake_likwid.c, path in FAKE_LIKWID_LIB).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modes_util.h"
#include "sp_likwid.h"
#include "sp_test.h"

#define FIXTURES SP_TEST_DATA_DIR "/likwid"

static void test_marker_file(void)
{
    sp__lk_marker m;
    char err[256] = "";
    ASSERT_EQ_I(sp__lk_marker_read(FIXTURES "/marker_2threads.txt", &m, err, sizeof err), 0);
    ASSERT_EQ_I(m.nthreads, 2);
    ASSERT_EQ_I(m.nregions, 3);
    ASSERT_EQ_I(m.ngroups, 1);
    ASSERT_STREQ(m.tag[0], "compute");
    ASSERT_STREQ(m.tag[1], "halo-exchange"); /* dashes inside the tag */
    ASSERT_STREQ(m.tag[2], "io step");       /* spaces too */
    ASSERT_EQ_U(m.nrows, 6);
    ASSERT_EQ_I(m.rows[1].region, 0);
    ASSERT_EQ_I(m.rows[1].cpu, 1);
    ASSERT_EQ_U(m.rows[1].count, 10);
    ASSERT_NEAR(m.rows[1].time_s, 0.125, 1e-12);
    ASSERT_EQ_I(m.rows[1].nevents, 6);
    ASSERT_NEAR(m.rows[1].events[2], 4.1e8, 1e-3);
    ASSERT_EQ_U(m.rows[2].count, 100);
    sp__lk_marker_free(&m);
}

static void test_bad_marker_files(void)
{
    char path[256];
    modes_tmp_path(path, sizeof path, "marker.txt");
    static const char *const bad[] = {
        "2 1\n",                                       /* header short */
        "1 1 1\n0compute-0\n",                         /* no colon... then a bad value line */
        "1 1 1\n0:compute\n",                          /* no group suffix */
        "1 1 1\n0:compute-0\n0 0 0 1 1.0 3 1.0 2.0\n", /* fewer events than said */
        "1 1 1\n5:compute-0\n",                        /* region id out of range */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(path, "w");
        ASSERT(f);
        fputs(bad[i], f);
        fclose(f);
        sp__lk_marker m;
        char err[256] = "";
        ASSERT_EQ_I(sp__lk_marker_read(path, &m, err, sizeof err), SP_EFORMAT);
        ASSERT_CONTAINS(err, path);
    }
    sp__lk_marker m;
    char err[256];
    unlink(path);
    ASSERT_EQ_I(sp__lk_marker_read(path, &m, err, sizeof err), SP_ENOENT);
    modes_rm(path);
}

static void test_group_file_and_metrics(void)
{
    sp__lk_group g;
    char err[256] = "";
    ASSERT_EQ_I(sp__lk_group_read(FIXTURES "/groups/zen3/FLOPS_TEST.txt", &g, err, sizeof err), 0);
    ASSERT_STREQ(g.name, "FLOPS_TEST");
    ASSERT_EQ_I(g.nevents, 6);
    ASSERT_STREQ(g.counter[2], "PMC0");
    ASSERT_STREQ(g.event[2], "RETIRED_INSTRUCTIONS");
    ASSERT_STREQ(g.counter[5], "PMC3:EDGEDETECT");
    ASSERT_EQ_I(g.nmetrics, 6);
    ASSERT_STREQ(g.metric[0], "Runtime (RDTSC) [s]");
    ASSERT_STREQ(g.formula[0], "time");
    ASSERT_STREQ(g.metric[3], "CPI");
    ASSERT_STREQ(g.formula[3], "PMC1/PMC0");

    double ev[6] = {2.5e8, 2.6e8, 4.0e8, 3.0e8, 1.6e8, 2.0e3};
    sp__lk_env env = {0.12345, 1.0 / 2.6e9, 1, 1};
    double v;
    ASSERT_EQ_I(sp__lk_eval(g.formula[3], &g, ev, 6, &env, &v), 0);
    ASSERT_NEAR(v, 3.0e8 / 4.0e8, 1e-15);
    ASSERT_EQ_I(sp__lk_eval(g.formula[4], &g, ev, 6, &env, &v), 0);
    ASSERT_NEAR(v, 1.0e-6 * 1.6e8 / 0.12345, 1e-9);
    ASSERT_EQ_I(sp__lk_eval(g.formula[2], &g, ev, 6, &env, &v), 0); /* Clock [MHz] */
    ASSERT_NEAR(v, 1e-6 * (2.5e8 / 2.6e8) * 2.6e9, 1e-6);
    ASSERT_EQ_I(sp__lk_eval(g.formula[5], &g, ev, 6, &env, &v), 0); /* counter with options */
    ASSERT_NEAR(v, 3.0e8 / 2.0e3, 1e-9);

    /* The arithmetic itself. */
    ASSERT_EQ_I(sp__lk_eval("(1+2)*3 - -4/2", &g, ev, 6, &env, &v), 0);
    ASSERT_NEAR(v, 11, 0);
    ASSERT_EQ_I(sp__lk_eval("1.E-06*2E3", &g, ev, 6, &env, &v), 0);
    ASSERT_NEAR(v, 2e-3, 1e-18);
    ASSERT_EQ_I(sp__lk_eval("num_sockets+true+false", &g, ev, 6, &env, &v), 0);
    ASSERT_NEAR(v, 2, 0);
    ASSERT_EQ_I(sp__lk_eval("PMC7*2", &g, ev, 6, &env, &v), SP_EFORMAT); /* unknown counter */
    ASSERT_EQ_I(sp__lk_eval("1+", &g, ev, 6, &env, &v), SP_EFORMAT);
    ASSERT_EQ_I(sp__lk_eval("(1+2", &g, ev, 6, &env, &v), SP_EFORMAT);
    ASSERT_EQ_I(sp__lk_eval("2 3", &g, ev, 6, &env, &v), SP_EFORMAT);
    sp__lk_group_free(&g);

    /* Explicit event lists (likwid-perfctr -g EV:CTR,...). */
    ASSERT_EQ_I(sp__lk_group_from_list("INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1", &g),
                0);
    ASSERT_EQ_I(g.nevents, 2);
    ASSERT_STREQ(g.event[1], "CPU_CLK_UNHALTED_CORE");
    ASSERT_STREQ(g.counter[1], "FIXC1");
    ASSERT_EQ_I(g.nmetrics, 0);
    sp__lk_group_free(&g);
    ASSERT_EQ_I(sp__lk_group_from_list("NOCOUNTER", &g), SP_EFORMAT);
}

/* Every group file of the installed LIKWID parses, and every metric formula
 * evaluates once its counters have values. */
static void test_installed_group_files(void)
{
    glob_t gl;
    if (glob("/usr/share/likwid/perfgroups/*/*.txt", 0, NULL, &gl) != 0) {
        fprintf(stderr, "  (no LIKWID group files installed: skipped)\n");
        return;
    }
    size_t files = 0, metrics = 0, failed = 0;
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        sp__lk_group g;
        char err[512] = "";
        int rc = sp__lk_group_read(gl.gl_pathv[i], &g, err, sizeof err);
        if (rc == SP_EFORMAT && strstr(err, "no EVENTSET"))
            continue; /* e.g. GPU groups in another format */
        ASSERT_MSG(rc == 0, "%s: %s", gl.gl_pathv[i], err);
        files++;
        double *ev = malloc((size_t)(g.nevents + 1) * sizeof *ev);
        ASSERT(ev);
        for (int k = 0; k < g.nevents; k++)
            ev[k] = 1000.0 * (k + 1);
        sp__lk_env env = {1.0, 1e-9, 2, 4};
        for (int k = 0; k < g.nmetrics; k++) {
            double v;
            metrics++;
            if (sp__lk_eval(g.formula[k], &g, ev, g.nevents, &env, &v) != 0) {
                if (failed++ < 5)
                    fprintf(stderr, "  %s: metric '%s' = '%s' does not evaluate\n", gl.gl_pathv[i],
                            g.metric[k], g.formula[k]);
            }
        }
        free(ev);
        sp__lk_group_free(&g);
    }
    globfree(&gl);
    fprintf(stderr, "  %zu installed group files, %zu metrics, %zu not evaluated\n", files, metrics,
            failed);
    ASSERT(files > 0);
    /* A handful of upstream formulas are malformed (a space inside the
     * formula, a counter the group does not define): LIKWID's own parser
     * (perfgroup.c takes the last field as the formula, as we do) cannot
     * evaluate them either. Everything else must. */
    ASSERT_MSG(failed * 100 < metrics, "%zu of %zu metrics do not evaluate", failed, metrics);
}

static void test_store_into_run(void)
{
    sp__lk_marker m;
    sp__lk_group g;
    ASSERT_EQ_I(sp__lk_marker_read(FIXTURES "/marker_2threads.txt", &m, NULL, 0), 0);
    ASSERT_EQ_I(sp__lk_group_read(FIXTURES "/groups/zen3/FLOPS_TEST.txt", &g, NULL, 0), 0);
    sp_run *run = sp_run_new();
    ASSERT(run && sp_run_set_ranks(run, 1) == 0);
    ASSERT(sp_run_intern_region(run, "compute") == 0);
    ASSERT(sp_run_intern_region(run, "halo-exchange") == 1);
    sp__lk_env env = {0, 1.0 / 2.6e9, 1, 1};
    size_t skipped = 0;
    ASSERT_EQ_I(sp__lk_store(run, &m, &g, 1, &env, &skipped), 0);
    ASSERT_EQ_U(skipped, 2); /* "io step" is not a region of this run */
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncounters, 4 * (6 + 6)); /* 4 (region, cpu) rows, 6 events + 6 metrics */
    size_t n = 0;
    double ins =
        modes_counter(run, "compute", "RETIRED_INSTRUCTIONS:PMC0", SP_COUNTER_LIKWID_EVENT, &n);
    ASSERT_EQ_U(n, 2);
    ASSERT_NEAR(ins, 4.0e8 + 4.1e8, 1e-3);
    /* A metric per cpu, as LIKWID derives it from that cpu's events. */
    for (size_t i = 0; i < rk->ncounters; i++) {
        if (rk->counter_region[i] != 0 || strcmp(rk->counter_name[i], "CPI") != 0)
            continue;
        ASSERT_EQ_I(rk->counter_source[i], SP_COUNTER_LIKWID_METRIC);
        ASSERT_EQ_I(rk->counter_thread[i], -1);
        double want = rk->counter_cpu[i] == 0 ? 3.0e8 / 4.0e8 : 3.1e8 / 4.1e8;
        ASSERT_NEAR(rk->counter_value[i], want, 1e-12);
        ASSERT_EQ_U(rk->counter_calls[i], 10);
    }
    /* DP uses the row's own time. */
    double dp = modes_counter(run, "halo-exchange", "DP [MFLOP/s]", SP_COUNTER_LIKWID_METRIC, &n);
    ASSERT_EQ_U(n, 2);
    ASSERT_NEAR(dp, 0, 1e-12);
    sp_run_free(run);
    sp__lk_group_free(&g);
    sp__lk_marker_free(&m);
}

static void test_setup_where_likwid_cannot_measure(void)
{
    modes_clear_env();
    unsetenv("SCOPE_PROFILER_LIKWID_LIB");
    sp_options o = modes_mem_options();
    o.use_likwid = true;
    int rc = sp_setup(&o);
    if (rc == 0) { /* a machine where LIKWID measures (under likwid-perfctr) */
        fprintf(stderr, "  (LIKWID measures here: nothing to refuse)\n");
        ASSERT_EQ_I(sp_finalize(false, NULL), 0);
        return;
    }
    fprintf(stderr, "  sp_setup(use_likwid): %s\n", sp_last_error());
    ASSERT_EQ_I(rc, SP_ENOTSUP);
    ASSERT(strncmp(sp_last_error(), "use_likwid: LIKWID ", 19) == 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), SP_ESTATE); /* no session started */

    /* The documented fallback: time only, said in warnings and metadata. */
    o.likwid_fallback = true;
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("fb")), SP_REGION_TIME_ONLY);
    SP_SCOPE("fb") {}
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(sp_run_metadata(run, "likwid_fallback"));
    ASSERT_CONTAINS(sp_run_metadata(run, "likwid_fallback"), "LIKWID");
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "fb")), 1);
    sp_run_free(run);

    /* Same through the environment. */
    o.likwid_fallback = false;
    setenv("SCOPE_PROFILER_LIKWID_FALLBACK", "1", 1);
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
    unsetenv("SCOPE_PROFILER_LIKWID_FALLBACK");

    /* A library that is not there. */
    setenv("SCOPE_PROFILER_LIKWID_LIB", "/nonexistent/liblikwid.so.5", 1);
    ASSERT_EQ_I(sp_setup(&o), SP_ENOTSUP);
    ASSERT_CONTAINS(sp_last_error(), "not installed");
    unsetenv("SCOPE_PROFILER_LIKWID_LIB");
}

static void *likwid_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++)
        SP_SCOPE("threaded") {}
    return NULL;
}

/* The whole path with the stand-in library: registration, thread init,
 * start/stop per call, close, the marker file parsed, rows stored. */
static void test_runtime_with_fake_likwid(void)
{
    modes_clear_env();
    char marker[256];
    modes_tmp_path(marker, sizeof marker, "likwid_marker.txt");
    setenv("SCOPE_PROFILER_LIKWID_LIB", FAKE_LIKWID_LIB, 1);
    setenv("SCOPE_PROFILER_LIKWID_GROUPS", FIXTURES "/groups", 1);
    setenv("LIKWID_EVENTS", "FLOPS_TEST", 1);
    setenv("LIKWID_FILEPATH", marker, 1);
    setenv("LIKWID_THREADS", "0,1", 1);
    setenv("LIKWID_MODE", "1", 1);
    sp_region *pre = sp_region_get("registered_up_front");
    (void)pre;
    sp_options o = modes_mem_options();
    o.use_likwid = true;
    ASSERT_MSG(sp_setup(&o) == 0, "%s", sp_last_error());
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("compute")), SP_REGION_FULL);
    for (int i = 0; i < 10; i++)
        SP_SCOPE("compute")
        {
            SP_SCOPE("inner") {}
        }
    pthread_t t;
    ASSERT_EQ_I(pthread_create(&t, NULL, likwid_thread, NULL), 0);
    pthread_join(t, NULL);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);

    int (*calls)(int *, int *, int *, int *, int *) =
        (int (*)(int *, int *, int *, int *, int *))dlsym(
            dlopen(FAKE_LIKWID_LIB, RTLD_NOW | RTLD_NOLOAD), "fake_likwid_calls");
    ASSERT(calls);
    int reg, tinit, st, sp, bad;
    calls(&reg, &tinit, &st, &sp, &bad);
    ASSERT(reg >= 1);      /* names registered up front */
    ASSERT_EQ_I(tinit, 2); /* main thread and the worker */
    ASSERT_EQ_I(st, 25);   /* 10 compute + 10 inner + 5 threaded */
    ASSERT_EQ_I(sp, 25);
    ASSERT_EQ_I(bad, 0);

    size_t n = 0;
    if (getenv("MODES_DEBUG")) {
        const sp_rank_data *rk = &run->ranks[0];
        for (size_t i = 0; i < rk->ncounters; i++)
            fprintf(stderr, "  %s cpu%d %s = %g (%llu calls)\n",
                    run->region_names[rk->counter_region[i]], rk->counter_cpu[i],
                    rk->counter_name[i], rk->counter_value[i],
                    (unsigned long long)rk->counter_calls[i]);
    }
    /* Event 2 (PMC0) of a region with c calls is c * 3 * 1000. */
    ASSERT_NEAR(
        modes_counter(run, "compute", "RETIRED_INSTRUCTIONS:PMC0", SP_COUNTER_LIKWID_EVENT, &n),
        10 * 3000.0, 1e-6);
    ASSERT_NEAR(modes_counter(run, "compute", "CPI", SP_COUNTER_LIKWID_METRIC, &n), 4.0 / 3.0,
                1e-12);
    ASSERT_EQ_U(n, 1);
    /* Clock [MHz] = 1e-6 * FIXC1/FIXC2 / inverseClock, clock 2 GHz. */
    ASSERT_NEAR(modes_counter(run, "inner", "Clock [MHz]", SP_COUNTER_LIKWID_METRIC, NULL),
                1e-6 * 0.5 * 2e9, 1e-6);
    ASSERT_NEAR(modes_counter(run, "threaded", "DP [MFLOP/s]", SP_COUNTER_LIKWID_METRIC, NULL),
                1e-6 * 5 * 5000.0 / (5 * 1e-3), 1e-9);
    ASSERT_STREQ(sp_run_metadata(run, "likwid_events"), "FLOPS_TEST");
    ASSERT_STREQ(sp_run_metadata(run, "likwid_arch"), "zen3");
    ASSERT_CONTAINS(sp_run_metadata(run, "likwid_group_files"), "FLOPS_TEST.txt");
    ASSERT_CONTAINS(sp_run_metadata(run, "recording_mode"), "likwid");
    sp_run_free(run);

    /* One LIKWID session per process: the second is refused, clearly. */
    ASSERT_EQ_I(sp_setup(&o), SP_ENOTSUP);
    ASSERT_CONTAINS(sp_last_error(), "one LIKWID session per process");

    static const char *const vars[] = {"SCOPE_PROFILER_LIKWID_LIB",
                                       "SCOPE_PROFILER_LIKWID_GROUPS",
                                       "LIKWID_EVENTS",
                                       "LIKWID_FILEPATH",
                                       "LIKWID_THREADS",
                                       "LIKWID_MODE"};
    for (size_t i = 0; i < 6; i++)
        unsetenv(vars[i]);
    modes_rm(marker);
}

int main(void)
{
    RUN(test_marker_file);
    RUN(test_bad_marker_files);
    RUN(test_group_file_and_metrics);
    RUN(test_installed_group_files);
    RUN(test_store_into_run);
    RUN(test_setup_where_likwid_cannot_measure);
    RUN(test_runtime_with_fake_likwid);
    return sp_test_summary();
}
