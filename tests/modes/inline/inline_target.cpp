// SPDX-License-Identifier: MIT
// inline_target.cpp - a program whose kernels the compiler inlines into
// main() (-O2 -g, static inline, always_inline), for the inline frames of
// the stack and line samplers (check_inline.sh):
//
//   main -> CalcForce -> PairForce (inlined into it)
//        -> UpdatePositions -> Domain::f (out of line: a member pointer)
//
//   inline_target MS [FILE]   burn MS ms of CPU time; with FILE (the build
//                             linked with scope-profiler) the time steps run
//                             in a line-sampled region "timestep" and the
//                             run is written to FILE.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "inline_domain.hpp"
#ifdef WITH_REGION
#include <scope_profiler.h>
#endif

#define INLINE static inline __attribute__((always_inline))

static double cpu_ms()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

INLINE double PairForce(double a, double b)
{
    double d = a - b;
    return d / (1.0 + d * d);
}

INLINE void CalcForce(Domain &dom)
{
    int n = dom.size();
    for (int rep = 0; rep < 4; rep++)
        for (int i = 1; i < n - 1; i++)
            dom.f(i) = PairForce(dom.x(i), dom.x(i - 1)) + PairForce(dom.x(i), dom.x(i + 1));
}

// Called through a member pointer, as LULESH's halo exchange calls
// &Domain::fx: Domain::f then has an out-of-line copy whose first
// instruction is std::vector's operator[] inlined from stl_vector.h, yet it
// is declared in inline_domain.hpp (module inline_domain).
typedef double &(Domain::*Field)(int);
static Field volatile force_field = &Domain::f;

INLINE void UpdatePositions(Domain &dom, double dt)
{
    Field force = force_field;
    int n = dom.size();
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < n; i++) {
            dom.xd(i) += dt * (dom.*force)(i);
            dom.x(i) += dt * std::sqrt(1.0 + dom.xd(i) * dom.xd(i));
        }
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 500;
    Domain dom(20000);
    for (int i = 0; i < dom.size(); i++)
        dom.x(i) = 1e-3 * i;
#ifdef WITH_REGION
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 2 ? argv[2] : "inline.h5";
    o.use_line_profiler = true;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "sp_setup: %s\n", sp_last_error());
        return 1;
    }
    sp_region *step = sp_region_get("timestep");
#endif
    double t0 = cpu_ms();
    int steps = 0;
    while (cpu_ms() - t0 < ms) {
#ifdef WITH_REGION
        sp_region_begin(step);
#endif
        CalcForce(dom);
        UpdatePositions(dom, 1e-6);
#ifdef WITH_REGION
        sp_region_end(step);
#endif
        steps++;
    }
    printf("inline_target: %d steps, x[1] = %g\n", steps, dom.x(1));
#ifdef WITH_REGION
    return sp_finalize(false, NULL) != 0;
#else
    return 0;
#endif
}
