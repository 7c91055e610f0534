/* SPDX-License-Identifier: MIT */
/*
 * sp_test.h - a minimal test harness: each test is a function whose ASSERTs
 * say what they check; the first failing ASSERT prints file:line and the
 * expression, and the test binary exits non-zero.
 *
 *   static void test_growth(void) { ASSERT_EQ_U(cap, 16); }
 *   int main(void) { RUN(test_growth); return sp_test_summary(); }
 */
#ifndef SP_TEST_H
#define SP_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sp_test_failed_count, sp_test_run_count;
static int sp_test_current_failed;

#define SP_TEST_FAIL(...)                                                      \
    do {                                                                       \
        fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);                  \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        sp_test_current_failed = 1;                                            \
        return;                                                                \
    } while (0)

#define ASSERT(cond)                                                           \
    do {                                                                       \
        if (!(cond))                                                           \
            SP_TEST_FAIL("%s", #cond);                                         \
    } while (0)
#define ASSERT_MSG(cond, ...)                                                  \
    do {                                                                       \
        if (!(cond))                                                           \
            SP_TEST_FAIL(__VA_ARGS__);                                         \
    } while (0)
#define ASSERT_EQ_I(a, b)                                                      \
    do {                                                                       \
        long long sp_a_ = (long long)(a), sp_b_ = (long long)(b);              \
        if (sp_a_ != sp_b_)                                                    \
            SP_TEST_FAIL("%s == %s (%lld != %lld)", #a, #b, sp_a_, sp_b_);     \
    } while (0)
#define ASSERT_EQ_U(a, b)                                                      \
    do {                                                                       \
        unsigned long long sp_a_ = (unsigned long long)(a),                    \
                           sp_b_ = (unsigned long long)(b);                    \
        if (sp_a_ != sp_b_)                                                    \
            SP_TEST_FAIL("%s == %s (%llu != %llu)", #a, #b, sp_a_, sp_b_);     \
    } while (0)
#define ASSERT_NEAR(a, b, tol)                                                 \
    do {                                                                       \
        double sp_a_ = (double)(a), sp_b_ = (double)(b);                       \
        if (!(fabs(sp_a_ - sp_b_) <= (tol)))                                   \
            SP_TEST_FAIL("%s ~= %s (%.9g vs %.9g, tol %g)", #a, #b, sp_a_,     \
                         sp_b_, (double)(tol));                                \
    } while (0)
#define ASSERT_STREQ(a, b)                                                     \
    do {                                                                       \
        const char *sp_a_ = (a), *sp_b_ = (b);                                 \
        if (!sp_a_ || !sp_b_ || strcmp(sp_a_, sp_b_) != 0)                     \
            SP_TEST_FAIL("%s == %s (\"%s\" != \"%s\")", #a, #b,                \
                         sp_a_ ? sp_a_ : "(null)", sp_b_ ? sp_b_ : "(null)");  \
    } while (0)
#define ASSERT_CONTAINS(hay, needle)                                           \
    do {                                                                       \
        const char *sp_h_ = (hay), *sp_n_ = (needle);                          \
        if (!sp_h_ || !strstr(sp_h_, sp_n_))                                   \
            SP_TEST_FAIL("%s contains \"%s\" (got \"%s\")", #hay, sp_n_,       \
                         sp_h_ ? sp_h_ : "(null)");                            \
    } while (0)

#define RUN(test)                                                              \
    do {                                                                       \
        sp_test_current_failed = 0;                                            \
        sp_test_run_count++;                                                   \
        test();                                                                \
        if (sp_test_current_failed)                                            \
            sp_test_failed_count++;                                            \
        fprintf(stderr, "%s %s\n", sp_test_current_failed ? "FAIL" : "ok  ",  \
                #test);                                                        \
    } while (0)

static inline int sp_test_summary(void)
{
    fprintf(stderr, "%d passed, %d failed\n",
            sp_test_run_count - sp_test_failed_count, sp_test_failed_count);
    return sp_test_failed_count ? 1 : 0;
}

#endif
