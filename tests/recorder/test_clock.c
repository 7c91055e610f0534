/* SPDX-License-Identifier: MIT */
/*
 * test_clock.c - timestamps converted at finalize agree with CLOCK_MONOTONIC
 * within 1 microsecond over about a second (a correctness check of the TSC
 * calibration, not a speed measurement), and the conversion arithmetic.
 */
#include <time.h>

#include "rec_util.h"
#include "sp_clock.h"
#include "sp_test.h"

#define NSAMPLES 20

static int64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Bracket every begin and end by clock_gettime() and check the converted
 * timestamps fall inside the brackets, give or take 1 us. */
static void check_against_monotonic(long sleep_ns, const char *want_source)
{
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("clock_probe");
    int64_t m0[NSAMPLES], m1[NSAMPLES], m2[NSAMPLES];
    for (int i = 0; i < NSAMPLES; i++) {
        m0[i] = mono();
        sp_region_begin(r);
        m1[i] = mono();
        sp_region_end(r);
        m2[i] = mono();
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    if (want_source)
        ASSERT_STREQ(sp_kvlist_get(&run->meta, "clock_source"), want_source);
    fprintf(stderr, "  clock_source=%s tsc_hz=%s\n", sp_kvlist_get(&run->meta, "clock_source"),
            sp_kvlist_get(&run->meta, "clock_tsc_hz") ? sp_kvlist_get(&run->meta, "clock_tsc_hz")
                                                      : "-");
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->ncalls, NSAMPLES);
    int64_t worst = 0;
    for (int i = 0; i < NSAMPLES; i++) {
        int64_t s = rk->start_ns[i], e = rk->end_ns[i];
        int64_t err[4] = {m0[i] - s, s - m1[i], m1[i] - e, e - m2[i]};
        for (int k = 0; k < 4; k++)
            worst = err[k] > worst ? err[k] : worst;
        ASSERT_MSG(s >= m0[i] - 1000 && s <= m1[i] + 1000,
                   "call %d: start %lld outside [%lld, %lld] +- 1 us", i, (long long)s,
                   (long long)m0[i], (long long)m1[i]);
        ASSERT_MSG(e >= m1[i] - 1000 && e <= m2[i] + 1000,
                   "call %d: end %lld outside [%lld, %lld] +- 1 us", i, (long long)e,
                   (long long)m1[i], (long long)m2[i]);
    }
    fprintf(stderr, "  worst excursion outside the brackets: %lld ns\n", (long long)worst);
    sp_run_free(run);
}

static void test_default_clock_over_a_second(void)
{
    rec_clear_env();
    check_against_monotonic(50000000, NULL); /* 20 x 50 ms */
}

static void test_forced_clocks(void)
{
    rec_clear_env();
    setenv("SCOPE_PROFILER_CLOCK", "monotonic", 1);
    check_against_monotonic(1000000, "monotonic");
    if (SP__HAVE_TSC && sp__tsc_invariant()) {
        setenv("SCOPE_PROFILER_CLOCK", "tsc", 1);
        check_against_monotonic(1000000, "tsc");
    } else {
        setenv("SCOPE_PROFILER_CLOCK", "tsc", 1);
        sp_options o = rec_mem_options();
        ASSERT_EQ_I(sp_setup(&o), SP_ENOTSUP);
        ASSERT_CONTAINS(sp_last_error(), "SCOPE_PROFILER_CLOCK");
    }
    rec_clear_env();
}

static void test_conversion_arithmetic(void)
{
    sp__clock_calib c = {.source = SP__CLOCK_TSC};
    /* 3 ticks per ns, far from zero so 64-bit products would overflow */
    c.p0.ticks = INT64_C(3000000000000000000);
    c.p0.ns = INT64_C(1000000000000000000);
    c.p1.ticks = c.p0.ticks + INT64_C(3000000000); /* one second later */
    c.p1.ns = c.p0.ns + INT64_C(1000000000);
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p0.ticks), c.p0.ns);
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p1.ticks), c.p1.ns);
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p0.ticks + 300), c.p0.ns + 100);
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p0.ticks + 301), c.p0.ns + 100); /* rounded */
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p0.ticks + 302), c.p0.ns + 101);
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p0.ticks - 3000), c.p0.ns - 1000); /* before p0 */
    ASSERT_EQ_I(sp__clock_to_ns(&c, c.p1.ticks + INT64_C(30000000000)),
                c.p1.ns + INT64_C(10000000000)); /* extrapolated past p1 */
    ASSERT_NEAR(sp__clock_hz(&c), 3e9, 1);

    sp__clock_calib m = {.source = SP__CLOCK_MONOTONIC};
    ASSERT_EQ_I(sp__clock_to_ns(&m, 123456789), 123456789);
    ASSERT_NEAR(sp__clock_hz(&m), 1e9, 0);

    /* A fresh sample pairs a tick reading with the current monotonic time. */
    sp__clock_point p = sp__clock_sample(SP__CLOCK_MONOTONIC);
    ASSERT(p.ticks == p.ns && llabs(p.ns - mono()) < 1000000000);
}

int main(void)
{
    RUN(test_conversion_arithmetic);
    RUN(test_default_clock_over_a_second);
    RUN(test_forced_clocks);
    return sp_test_summary();
}
