// SPDX-License-Identifier: MIT
//
// main.cpp - the mini-app's driver: build a Domain, run STEPS steps inside a
// traced region (SP_SCOPE_RECURSIVE: every function compiled with
// -finstrument-functions and called inside becomes a region named after the
// file that defines it), print the time the steps took.
//
//   cpp_domain [EDGE_ELEMS] [STEPS] [OUTPUT.h5]   (default 30 20 cpp_domain.h5)
//
// Built three ways by examples/CMakeLists.txt: cpp_domain (untraced),
// cpp_domain_traced (the documented flags: scope_profiler_instrument(),
// which skips functions defined in headers) and cpp_domain_naive (plain
// -finstrument-functions: every inline accessor traced);
// examples/benchmark_cpp_tracing.sh compares them.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <scope_profiler.h>

#include "kernels.hpp"

static double checksum(Domain &d)
{
    double s = 0;
    for (Index_t e = 0; e < d.numElem(); e++)
        s += d.e(e);
    return s;
}

int main(int argc, char **argv)
{
    long edge = argc > 1 ? std::atol(argv[1]) : 30;
    int steps = argc > 2 ? std::atoi(argv[2]) : 20;
    sp_options opts;
    sp_options_init(&opts);
    opts.file_path = argc > 3 ? argv[3] : "cpp_domain.h5";
    if (sp_setup(&opts) != 0) {
        std::fprintf(stderr, "cpp_domain: %s\n", sp_last_error());
        return 1;
    }
    Domain d(edge);
    auto t0 = std::chrono::steady_clock::now();
    SP_SCOPE_RECURSIVE("timestep_loop")
    {
        for (int s = 0; s < steps; s++)
            LagrangeLeapFrog(d);
    }
    auto t1 = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(t1 - t0).count();
    std::printf("cpp_domain: %ld^3 elements, %d steps in %.6f s (energy %.6g)\n", edge, steps,
                secs, checksum(d));
    return sp_finalize(std::getenv("CPP_DOMAIN_SUMMARY") != nullptr, NULL) ? 1 : 0;
}
