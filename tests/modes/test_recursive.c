/* SPDX-License-Identifier: MIT */
/*
 * test_recursive.c - recursive tracing (-finstrument-functions): this file is
 * compiled with the instrumentation flags, the harness helpers in
 * modes_util.c are not.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "modes_util.h"
#include "sp_test.h"

/* The traced functions: noinline so each is a real call with its own hooks. */
static volatile int sink;
static __attribute__((noinline)) void t_leaf(void)
{
    sink++;
}
static __attribute__((noinline)) void t_middle(void)
{
    t_leaf();
    t_leaf();
}
static __attribute__((noinline)) void t_deep(int n)
{
    sink++;
    if (n > 0)
        t_deep(n - 1);
}
static __attribute__((noinline)) void t_tiny(void)
{
    sink++;
}
static __attribute__((noinline)) void t_close_inside(sp_region *r)
{
    t_leaf();
    sp_region_end_recursive(r); /* the region ends while this call is open */
}

static void test_scope_recursive_traces_callees_only_inside(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    t_middle(); /* outside any region: not traced */
    SP_SCOPE_RECURSIVE("outer")
    {
        t_middle();
    }
    SP_SCOPE("plain")
    {
        t_middle();
    } /* not a tracing region */
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run);
    const sp_run_region *mid = sp_run_find(run, "test_recursive.t_middle");
    const sp_run_region *leaf = sp_run_find(run, "test_recursive.t_leaf");
    ASSERT_MSG(mid && leaf, "traced regions missing: %s", modes_region_list(run));
    ASSERT_EQ_U(sp_run_region_num_calls(mid), 1);
    ASSERT_EQ_U(sp_run_region_num_calls(leaf), 2);
    /* Parents: outer -> t_middle -> t_leaf. */
    ASSERT_STREQ(modes_parent_name(run, "test_recursive.t_leaf"), "test_recursive.t_middle");
    ASSERT_STREQ(modes_parent_name(run, "test_recursive.t_middle"), "outer");
    /* Flags and metadata. */
    ASSERT(modes_region_flags(run, "test_recursive.t_middle") & SP_REGION_FLAG_TRACED);
    ASSERT_EQ_I(modes_region_flags(run, "outer") & SP_REGION_FLAG_TRACED, 0);
    ASSERT_STREQ(sp_run_metadata(run, "recursive_depth_skipped"), "0");
    sp_run_free(run);
}

static void test_recursive_profile_option(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.recursive_profile = true;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("plain")
    {
        t_middle();
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_MSG(sp_run_find(run, "test_recursive.t_leaf"), "%s", modes_region_list(run));
    ASSERT_STREQ(modes_parent_name(run, "test_recursive.t_middle"), "plain");
    ASSERT_CONTAINS(sp_run_metadata(run, "recording_mode"), "recursive");
    sp_run_free(run);

    /* And through the environment. */
    setenv("SCOPE_PROFILER_RECURSIVE", "1", 1);
    o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("plain")
    {
        t_leaf();
    }
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(sp_run_find(run, "test_recursive.t_leaf"));
    sp_run_free(run);
    unsetenv("SCOPE_PROFILER_RECURSIVE");
}

static void test_no_tracing_without_a_tracing_region(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE("plain")
    {
        t_middle();
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(sp_run_num_regions(run), 1);
    sp_run_free(run);
}

static void test_max_depth(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.max_depth = 4;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE_RECURSIVE("rec")
    {
        t_deep(9);
    } /* 10 nested calls */
    SP_SCOPE_RECURSIVE("rec")
    {
        t_leaf();
    } /* tracing still works afterwards */
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    const sp_run_region *d = sp_run_find(run, "test_recursive.t_deep");
    ASSERT(d);
    ASSERT_EQ_U(sp_run_region_num_calls(d), 4);
    ASSERT_STREQ(sp_run_metadata(run, "recursive_depth_skipped"), "6");
    ASSERT_STREQ(sp_run_metadata(run, "recursive_max_depth"), "4");
    ASSERT(sp_run_find(run, "test_recursive.t_leaf"));
    sp_run_free(run);

    setenv("SCOPE_PROFILER_MAX_DEPTH", "0", 1);
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "SCOPE_PROFILER_MAX_DEPTH");
    unsetenv("SCOPE_PROFILER_MAX_DEPTH");
}

static void test_throttle(void)
{
    modes_clear_env();
    setenv("SCOPE_PROFILER_THROTTLE_CALLS", "1000", 1);
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE_RECURSIVE("hot")
    {
        for (int i = 0; i < 5000; i++)
            t_tiny();
        t_leaf();
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    unsetenv("SCOPE_PROFILER_THROTTLE_CALLS");
    const sp_run_region *tiny = sp_run_find(run, "test_recursive.t_tiny");
    ASSERT(tiny);
    /* Traced until the throttle's verdict at call 1000, not after. */
    ASSERT_EQ_U(sp_run_region_num_calls(tiny), 1000);
    ASSERT(modes_region_flags(run, "test_recursive.t_tiny") & SP_REGION_FLAG_THROTTLED);
    ASSERT_EQ_I(modes_region_flags(run, "test_recursive.t_leaf") & SP_REGION_FLAG_THROTTLED, 0);
    ASSERT_CONTAINS(sp_run_metadata(run, "recursive_throttled"), "test_recursive.t_tiny");
    ASSERT_CONTAINS(sp_run_metadata(run, "recursive_throttled"), "1000 calls");
    sp_run_free(run);

    /* The throttle is per session: a new session traces t_tiny again. */
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE_RECURSIVE("hot")
    {
        t_tiny();
    }
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_tiny")), 1);
    sp_run_free(run);
}

static void test_region_ends_inside_traced_call(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("early_end");
    sp_region_begin_recursive(r);
    t_close_inside(r);
    t_leaf(); /* after the region: not traced */
    sp_run *run = NULL;
    /* No misuse: the traced call still open was closed with the region. */
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_close_inside")), 1);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_leaf")), 1);
    sp_run_free(run);
}

static void *thread_body(void *arg)
{
    (void)arg;
    SP_SCOPE_RECURSIVE("worker")
    {
        t_middle();
    }
    return NULL;
}

static void test_threads(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        ASSERT_EQ_I(pthread_create(&t[i], NULL, thread_body, NULL), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_middle")), 3);
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_leaf")), 6);
    sp_run_free(run);
}

static void test_file_round_trip(void)
{
    modes_clear_env();
    char path[256];
    modes_tmp_path(path, sizeof path, "recursive.h5");
    sp_options o = modes_mem_options();
    o.deactivate_file_output = false;
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE_RECURSIVE("outer")
    {
        t_middle();
    }
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
    sp_run *run = sp_read_h5(path);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_EQ_U(sp_run_region_num_calls(sp_run_find(run, "test_recursive.t_leaf")), 2);
    ASSERT(modes_region_flags(run, "test_recursive.t_leaf") & SP_REGION_FLAG_TRACED);
    sp_run_free(run);
    modes_rm(path);
}

static void test_disabled_session_traces_nothing(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.deactivate_profiling = true;
    o.recursive_profile = true;
    ASSERT_EQ_I(sp_setup(&o), 0);
    SP_SCOPE_RECURSIVE("outer")
    {
        t_middle();
    }
    sp_region_begin_recursive(sp_region_get("explicit"));
    t_leaf();
    sp_region_end_recursive(sp_region_get("explicit"));
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run == NULL);
}

int main(void)
{
    RUN(test_scope_recursive_traces_callees_only_inside);
    RUN(test_recursive_profile_option);
    RUN(test_no_tracing_without_a_tracing_region);
    RUN(test_max_depth);
    RUN(test_throttle);
    RUN(test_region_ends_inside_traced_call);
    RUN(test_threads);
    RUN(test_file_round_trip);
    RUN(test_disabled_session_traces_nothing);
    return sp_test_summary();
}
