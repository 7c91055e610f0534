/* SPDX-License-Identifier: MIT */
/*
 * benchmark_cpp.cpp - per-call cost of the C++ interface (<scope_profiler.hpp>),
 * in the shared library a program links: ns per begin/end pair, min and
 * median over repetitions, with the empty loop subtracted.
 *
 *     ./build/examples/benchmark_cpp [--quick]
 *
 * Each repetition is one session (setup with buffer_limit = N, N calls,
 * finalize without a file): the buffer is allocated once, its pages are
 * touched for the first time during the loop (as in a real run), and memory
 * stays bounded.
 */
#include <scope_profiler.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace
{

int sink;

__attribute__((noinline)) void plain_function()
{
    sink++;
}

__attribute__((noinline)) void profiled_function()
{
    SP_FUNCTION();
    sink++;
}

struct result {
    double min, median;
};

result measure(long n, int reps, bool session, const std::function<void(long)> &loop)
{
    std::vector<double> per;
    for (int r = 0; r < reps; r++) {
        if (session) {
            sp_options o;
            sp_options_init(&o);
            o.deactivate_file_output = true;
            o.buffer_limit = static_cast<std::size_t>(n); /* one allocation per session */
            scope_profiler::setup(&o);
        }
        auto t0 = std::chrono::steady_clock::now();
        loop(n);
        auto t1 = std::chrono::steady_clock::now();
        if (session)
            scope_profiler::finalize(false);
        per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(n));
    }
    std::sort(per.begin(), per.end());
    return {per.front(), per[per.size() / 2]};
}

} // namespace

int main(int argc, char **argv)
{
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const long n = quick ? 10000 : 100000;
    const int reps = quick ? 5 : 51; /* short loops: min = not preempted */
    scope_profiler::region held("held");

    struct row {
        const char *name;
        bool session;
        std::function<void(long)> loop;
    };
    std::vector<row> rows = {
        {"empty loop", true,
         [](long k) {
             for (long i = 0; i < k; i++)
                 sink++;
         }},
        {"plain noinline call", true,
         [](long k) {
             for (long i = 0; i < k; i++)
                 plain_function();
         }},
        {"SP_SCOPE(\"x\") {}", true,
         [](long k) {
             for (long i = 0; i < k; i++)
                 SP_SCOPE("x")
                 {
                     sink++;
                 }
         }},
        {"scope_profiler::scope s(region)", true,
         [&held](long k) {
             for (long i = 0; i < k; i++) {
                 scope_profiler::scope s(held);
                 sink++;
             }
         }},
        {"scope_profiler::scope s(\"name\")", true,
         [](long k) {
             for (long i = 0; i < k; i++) {
                 scope_profiler::scope s("by_name");
                 sink++;
             }
         }},
        {"SP_FUNCTION() in a noinline call", true,
         [](long k) {
             for (long i = 0; i < k; i++)
                 profiled_function();
         }},
        {"SP_SCOPE, no session (not recording)", false,
         [](long k) {
             for (long i = 0; i < k; i++)
                 SP_SCOPE("x")
                 {
                     sink++;
                 }
         }},
    };
    std::printf("scope-profiler C++ benchmark: %ld calls x %d repetitions%s\n", n, reps,
                quick ? " (--quick)" : "");
    std::printf("%-40s %9s %9s  (ns per call, empty loop subtracted)\n", "case", "min", "median");
    result base{0, 0};
    for (auto &r : rows) {
        result x = measure(n, reps, r.session, r.loop);
        if (std::strcmp(r.name, "empty loop") == 0) {
            base = x;
            std::printf("%-40s %9.2f %9.2f  (not subtracted)\n", r.name, x.min, x.median);
            continue;
        }
        std::printf("%-40s %9.2f %9.2f\n", r.name, x.min - base.min, x.median - base.median);
    }
    return 0;
}
