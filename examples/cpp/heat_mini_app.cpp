/* SPDX-License-Identifier: MIT */
/*
 * heat_mini_app.cpp - a C++ mini-app instrumented with <scope_profiler.hpp>:
 * 2-D heat diffusion (Jacobi sweeps) in a solver class, a checkpoint writer
 * that fails now and then (an exception that passes through profiled scopes
 * and is retried), and a convergence check.
 *
 *     heat_mini_app [FILE.h5] [STEPS]
 *
 * Regions: main, heat::Solver::run, heat::Solver::step (SP_FUNCTION),
 * "sweep" and "boundary" (SP_SCOPE), "residual" (scope_profiler::scope),
 * heat::Solver::checkpoint with its failed attempts, "retry".
 */
#include "heat_grid.hpp"

#include <scope_profiler.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace heat
{

class checkpoint_error : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

class Solver
{
  public:
    Solver(std::size_t n, double alpha) : u_(n, n), next_(n, n), alpha_(alpha)
    {
        u_.at(n / 2, n / 2) = 1000.0; /* a hot spot in the middle */
    }

    double step()
    {
        SP_FUNCTION();
        SP_SCOPE("boundary")
        {
            apply_boundary();
        }
        SP_SCOPE("sweep")
        {
            for (std::size_t i = 1; i + 1 < u_.nx(); i++)
                for (std::size_t j = 1; j + 1 < u_.ny(); j++)
                    next_.at(i, j) = u_.at(i, j) +
                                     alpha_ * (u_.at(i - 1, j) + u_.at(i + 1, j) + u_.at(i, j - 1) +
                                               u_.at(i, j + 1) - 4.0 * u_.at(i, j));
        }
        scope_profiler::scope r("residual");
        double res = 0.0;
        for (std::size_t i = 1; i + 1 < u_.nx(); i++)
            for (std::size_t j = 1; j + 1 < u_.ny(); j++)
                res += std::fabs(next_.at(i, j) - u_.at(i, j));
        u_.swap(next_);
        return res;
    }

    /* Every 7th checkpoint "fails" once: the exception leaves two profiled
     * scopes on its way to run(), which retries. */
    void checkpoint(int n, bool retry)
    {
        SP_FUNCTION();
        scope_profiler::scope w("checkpoint_write");
        if (n % 7 == 3 && !retry)
            throw checkpoint_error("checkpoint " + std::to_string(n) + ": disk full");
        volatile double sum = 0.0;
        for (std::size_t i = 0; i < u_.nx(); i++)
            sum = sum + u_.at(i, i);
    }

    int run(int steps)
    {
        SP_FUNCTION();
        int failures = 0;
        for (int s = 0; s < steps; s++) {
            double res = step();
            if (!std::isfinite(res))
                throw std::runtime_error("diverged");
            if (s % 5 == 4) {
                try {
                    checkpoint(s / 5, false);
                } catch (const checkpoint_error &e) {
                    failures++;
                    SP_SCOPE("retry")
                    {
                        checkpoint(s / 5, true);
                    }
                }
            }
        }
        return failures;
    }

    double total_heat() const
    {
        double t = 0.0;
        for (std::size_t i = 0; i < u_.nx(); i++)
            for (std::size_t j = 0; j < u_.ny(); j++)
                t += u_.at(i, j);
        return t;
    }

  private:
    void apply_boundary()
    {
        for (std::size_t i = 0; i < u_.nx(); i++)
            u_.at(i, 0) = u_.at(i, u_.ny() - 1) = 0.0;
        for (std::size_t j = 0; j < u_.ny(); j++)
            u_.at(0, j) = u_.at(u_.nx() - 1, j) = 0.0;
    }

    Grid u_, next_;
    double alpha_;
};

} // namespace heat

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "heat.h5";
    int steps = argc > 2 ? std::atoi(argv[2]) : 100;
    try {
        scope_profiler::setup(&o);
        int failures;
        double heat_left;
        {
            scope_profiler::scope m("main");
            heat::Solver solver(96, 0.2);
            failures = solver.run(steps);
            heat_left = solver.total_heat();
        }
        std::printf("heat mini-app: %d steps, %d checkpoint failures retried, heat left %.3f\n",
                    steps, failures, heat_left);
        return scope_profiler::finalize(true) == SP_OK ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "heat mini-app: %s\n", e.what());
        return 1;
    }
}
