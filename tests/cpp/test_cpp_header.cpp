/* SPDX-License-Identifier: MIT */
/*
 * test_cpp_header.cpp - <scope_profiler.hpp>: scopes close on every exit
 * (exceptions included) so the recorded calls stay balanced; SP_SCOPE and
 * SP_FUNCTION work in C++ with one handle per call site; qualified function
 * names; the name cache survives a reused buffer; threads.
 * Compiled with -std=c++17 -Wall -Wextra -Werror.
 */
#include <scope_profiler.hpp>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static int fails = 0;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);                  \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

static std::uint64_t calls(const char *name)
{
    return sp_region_num_calls(sp_region_get(name));
}

namespace physics
{
class Solver
{
  public:
    int step(int n)
    {
        SP_FUNCTION();
        if (n < 0)
            throw std::invalid_argument("negative step");
        return n + 1;
    }
    template <class T> T twice(T x)
    {
        SP_FUNCTION();
        return x + x;
    }
    int depth(int n) const
    {
        SP_FUNCTION();
        return n == 0 ? 0 : depth(n - 1) + 1;
    }
};
} // namespace physics

static void throws_through(int level)
{
    scope_profiler::scope s("throws_through");
    if (level == 0)
        throw std::runtime_error("deep failure");
    throws_through(level - 1);
}

static int early_return(int x)
{
    SP_SCOPE("early")
    {
        if (x > 0)
            return x; /* leaves the scope: ended by the destructor */
    }
    return -1;
}

/* Call sites are cached: the second name given to the same site is ignored,
 * as with the C macros (a site is one name). */
static void site(const char *name)
{
    SP_SCOPE(name) {}
}

int main()
{
    sp_options o;
    sp_options_init(&o);
    o.deactivate_file_output = true;
    scope_profiler::setup(&o);

    /* 1. An exception thrown through a scope: the call is recorded and
     *    balanced, nested ones too. */
    try {
        scope_profiler::scope s("solve");
        throw std::runtime_error("boom");
    } catch (const std::runtime_error &) {
    }
    CHECK(calls("solve") == 1);
    try {
        throws_through(3);
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "deep failure");
    }
    CHECK(calls("throws_through") == 4);

    /* 2. SP_FUNCTION: qualified names, templates, const methods, an
     *    exception leaving the function. */
    physics::Solver solver;
    CHECK(solver.step(1) == 2);
    bool caught = false;
    try {
        solver.step(-1);
    } catch (const std::invalid_argument &) {
        caught = true;
    }
    CHECK(caught);
    CHECK(calls("physics::Solver::step") == 2);
    CHECK(solver.twice(2.5) == 5.0 && solver.twice(3) == 6);
    CHECK(calls("physics::Solver::twice") == 2);
    CHECK(solver.depth(4) == 4);
    CHECK(calls("physics::Solver::depth") == 5);

    /* 3. SP_SCOPE: one statement, a loop body, early return, break. */
    for (int i = 0; i < 3; i++)
        SP_SCOPE("loop_body") {}
    CHECK(calls("loop_body") == 3);
    CHECK(early_return(5) == 5 && early_return(-5) == -1);
    CHECK(calls("early") == 2);
    int seen = 0;
    for (int i = 0; i < 10; i++) {
        SP_SCOPE("with_break")
        {
            seen++;
            break; /* leaves the SP_SCOPE block only, as in C */
        }
    }
    CHECK(seen == 10 && calls("with_break") == 10);
    site("site_a");
    site("site_b");
    CHECK(calls("site_a") == 2 && calls("site_b") == 0);

    SP_SCOPE_RECURSIVE("recursive_site") { early_return(1); }
    CHECK(calls("recursive_site") == 1 && calls("early") == 3);

    /* 4. scope from a reused buffer: the text decides, not the address. */
    char buf[32];
    std::snprintf(buf, sizeof buf, "buffer_one");
    {
        scope_profiler::scope s(buf);
    }
    std::snprintf(buf, sizeof buf, "buffer_two");
    {
        scope_profiler::scope s(buf);
    }
    {
        scope_profiler::scope s(std::string("buffer_two"));
    }
    CHECK(calls("buffer_one") == 1 && calls("buffer_two") == 2);

    /* 5. region handles, and threads recording on their own. */
    scope_profiler::region work("thread_work");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&work] {
            for (int i = 0; i < 100; i++) {
                scope_profiler::scope s(work);
                SP_SCOPE("thread_inner") {}
            }
        });
    for (auto &t : threads)
        t.join();
    CHECK(work.num_calls() == 400 && calls("thread_inner") == 400);
    CHECK(std::string(work.name()) == "thread_work");

    /* 6. Balanced: finalize reports no open or mismatched call. */
    sp_run *run = nullptr;
    int rc = scope_profiler::finalize(false, &run);
    CHECK(rc == SP_OK);
    if (rc != SP_OK)
        std::fprintf(stderr, "finalize: %s\n", sp_last_error());
    const sp_run_region *solve = run ? sp_run_find(run, "solve") : nullptr;
    CHECK(solve && sp_run_region_num_calls(solve) == 1);
    sp_run_free(run);

    /* 7. Without a session a scope records nothing and ends nothing. */
    {
        scope_profiler::scope s("after_finalize");
    }
    CHECK(calls("after_finalize") == 0);

    /* 8. setup() throws scope_profiler::error on a bad option. */
    sp_options bad;
    sp_options_init(&bad);
    bad.buffer_limit = 0;
    bool threw = false;
    try {
        scope_profiler::setup(&bad);
    } catch (const scope_profiler::error &e) {
        threw = e.code() == SP_EINVAL;
    }
    CHECK(threw);

    std::fprintf(stderr, "%s\n", fails ? "cpp header: FAIL" : "cpp header: ok");
    return fails ? 1 : 0;
}
