/* SPDX-License-Identifier: MIT */
/* test_options.c - option defaults, environment overrides, unsupported modes,
 * error codes and messages. */
#include "rec_util.h"
#include "sp_test.h"

static void test_defaults(void)
{
    sp_options o;
    memset(&o, 0xff, sizeof o);
    sp_options_init(&o);
    ASSERT(!o.deactivate_profiling);
    ASSERT(!o.deactivate_file_output);
    ASSERT_STREQ(o.file_path, "profiling_data.h5");
    ASSERT_EQ_U(o.buffer_limit, 1024);
    ASSERT(!o.recursive_profile && !o.use_likwid && !o.use_line_profiler);
}

/* setup must fail with SP_EINVAL and name the variable. */
static int setup_fails_naming(const char *var, const char *value, int code)
{
    rec_clear_env();
    setenv(var, value, 1);
    sp_options o = rec_mem_options();
    int rc = sp_setup(&o);
    int ok = rc == code && strstr(sp_last_error(), var) != NULL;
    if (!ok)
        fprintf(stderr, "  %s=%s: rc %d, message \"%s\"\n", var, value, rc, sp_last_error());
    rec_clear_env();
    return ok;
}

static void test_bad_env_values(void)
{
    ASSERT(setup_fails_naming("SCOPE_PROFILER_DISABLE", "maybe", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_NO_FILE", "2", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_BUFFER_LIMIT", "0", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_BUFFER_LIMIT", "12x", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_BUFFER_LIMIT", "-5", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_BUFFER_LIMIT", "99999999999999999999999", SP_EINVAL));
    ASSERT(setup_fails_naming("SCOPE_PROFILER_CLOCK", "sundial", SP_EINVAL));
}

static void test_env_overrides(void)
{
    rec_clear_env();
    sp_region *r = sp_region_get("env_region");

    setenv("SCOPE_PROFILER_BUFFER_LIMIT", "3", 1);
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(r);
    sp_region_end(r);
    ASSERT_EQ_U(sp_region_capacity(r), 3); /* env wins over the 1024 default */
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);

    setenv("SCOPE_PROFILER_DISABLE", "Yes", 1);
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(r), SP_REGION_DISABLED);
    sp_region_begin(r);
    sp_region_end(r);
    ASSERT_EQ_U(sp_region_num_calls(r), 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);

    setenv("SCOPE_PROFILER_DISABLE", "off", 1);
    setenv("SCOPE_PROFILER_NO_FILE", "1", 1);
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/env.h5", dir);
    setenv("SCOPE_PROFILER_FILE", path, 1);
    sp_options_init(&o); /* file output on, but NO_FILE turns it off */
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(r), SP_REGION_TIME_ONLY);
    sp_region_begin(r);
    sp_region_end(r);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run != NULL);
    ASSERT_EQ_U(rec_count(run, "env_region"), 1);
    sp_run_free(run);
    ASSERT(!rec_exists(path));

    /* The clock can be forced; monotonic is always available. */
    rec_clear_env();
    setenv("SCOPE_PROFILER_CLOCK", "monotonic", 1);
    o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(r);
    sp_region_end(r);
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "clock_source"), "monotonic");
    sp_run_free(run);
    rec_clear_env();
    rmdir(dir);
}

static void test_bad_options(void)
{
    rec_clear_env();
    sp_options o;
    sp_options_init(&o);
    o.buffer_limit = 0;
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "buffer_limit");

    sp_options_init(&o);
    o.file_path = NULL;
    ASSERT_EQ_I(sp_setup(&o), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "file_path");
    o.deactivate_file_output = true; /* no file: no path needed */
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

static void test_unsupported_modes(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    o.use_likwid = true;
    /* LIKWID needs likwid-perfctr and a CPU it supports (tests/modes covers
     * both answers); outside likwid-perfctr it is refused with a reason. */
    unsetenv("LIKWID_EVENTS");
    ASSERT_EQ_I(sp_setup(&o), SP_ENOTSUP);
    ASSERT(strncmp(sp_last_error(), "use_likwid: ", 12) == 0);
    /* A failed setup starts no session. */
    ASSERT_EQ_I(sp_finalize(false, NULL), SP_ESTATE);

    o.use_line_profiler = true; /* wins over use_likwid */
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("m")), SP_REGION_LINE_PROFILER);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);

    o = rec_mem_options();
    o.recursive_profile = true; /* time-only, plus tracing */
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("m")), SP_REGION_TIME_ONLY);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);

    /* deactivate_profiling wins over every mode. */
    o.use_likwid = true;
    o.deactivate_profiling = true;
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_region_get_kind(sp_region_get("m")), SP_REGION_DISABLED);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

static void test_failed_setup_keeps_session(void)
{
    rec_clear_env();
    sp_region *r = sp_region_get("kept");
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(r);
    sp_region_end(r);
    sp_options bad = rec_mem_options();
    bad.use_likwid = true;
    ASSERT_EQ_I(sp_setup(&bad), SP_ENOTSUP);
    ASSERT_EQ_U(sp_region_num_calls(r), 1); /* the running session is untouched */
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

static void test_strerror_and_last_error(void)
{
    ASSERT_STREQ(sp_strerror(SP_OK), "success");
    ASSERT_STREQ(sp_strerror(SP_EINVAL), "invalid argument");
    ASSERT_STREQ(sp_strerror(SP_EUNBALANCED), "regions were not properly nested or left open");
    ASSERT_STREQ(sp_strerror(-1000), "unknown error");
    int codes[] = {SP_EINVAL, SP_ENOMEM, SP_EIO, SP_ESTATE, SP_EFORMAT,
                   SP_EVERSION, SP_ENOTSUP, SP_ENOENT, SP_EUNBALANCED};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        ASSERT(strcmp(sp_strerror(codes[i]), "unknown error") != 0);
    ASSERT(sp_last_error() != NULL);
    ASSERT_EQ_I(sp_metadata_set(NULL, "x"), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "key");
    char v[16];
    snprintf(v, sizeof v, "%d.%d.%d", SP_VERSION_MAJOR, SP_VERSION_MINOR, SP_VERSION_PATCH);
    ASSERT_STREQ(sp_version(), v);
}

static void test_region_handles(void)
{
    sp_region *a = sp_region_get("handle_a");
    ASSERT(a == sp_region_get("handle_a"));
    ASSERT(a != sp_region_get("handle_b"));
    ASSERT_STREQ(sp_region_name(a), "handle_a");

    sp_region *bad = sp_region_get(NULL);
    ASSERT(bad != NULL);
    ASSERT_CONTAINS(sp_last_error(), "NULL");
    ASSERT(sp_region_get("") == bad);

    /* The dummy records nothing, even in a session, and never crashes. */
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(bad);
    sp_region_begin(a);
    sp_region_end(bad);
    sp_region_end(a);
    sp_region_end(bad);
    ASSERT_EQ_U(sp_region_num_calls(bad), 0);
    ASSERT_EQ_I(sp_region_get_kind(bad), SP_REGION_DISABLED);
    ASSERT_EQ_U(sp_region_num_calls(a), 1);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0); /* a balanced; the dummy is ignored */

    ASSERT_STREQ(sp_region_kind_name(SP_REGION_DISABLED), "DisabledProfileRegion");
    ASSERT_STREQ(sp_region_kind_name(SP_REGION_TIME_ONLY), "TimeOnlyProfileRegion");
    ASSERT_STREQ(sp_region_kind_name(SP_REGION_FULL), "FullProfileRegion");
    ASSERT_STREQ(sp_region_kind_name(SP_REGION_LINE_PROFILER), "LineProfilerRegion");
    ASSERT_STREQ(sp_region_kind_name((sp_region_kind)42), "UnknownProfileRegion");
}

static void test_many_regions(void)
{
    /* The registry grows and still finds every name. */
    char name[32];
    sp_region *first = NULL;
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "many_%d", i);
        sp_region *r = sp_region_get(name);
        if (i == 0)
            first = r;
        ASSERT_STREQ(sp_region_name(r), name);
    }
    ASSERT(sp_region_get("many_0") == first);
    ASSERT_STREQ(sp_region_name(sp_region_get("many_4999")), "many_4999");
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_bad_env_values);
    RUN(test_env_overrides);
    RUN(test_bad_options);
    RUN(test_unsupported_modes);
    RUN(test_failed_setup_keeps_session);
    RUN(test_strerror_and_last_error);
    RUN(test_region_handles);
    RUN(test_many_regions);
    return sp_test_summary();
}
