#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A script that knows nothing of scope-profiler: profile it with

    scope-profiler run -o run.h5 examples/python/unedited_script.py 30

Every Python function it calls becomes a region "<module>.<qualname>"
(__main__.Solver.step, __main__.residuals, ...), on every thread; numpy and
the standard library stay out unless --all. It exits with status 3 when
asked (`--fail`), to show that the status comes through.
"""
import sys
import threading

import numpy as np


class Solver:
    def __init__(self, n):
        self.x = np.linspace(0.0, 1.0, n)

    def step(self):
        self.x = np.sqrt(self.x * self.x + 1e-3)
        return self.norm()

    def norm(self):
        return float(np.linalg.norm(self.x))


def residuals(values):
    for v in values:
        yield abs(v - 1.0)


def risky(i):
    if i % 4 == 0:
        raise ValueError(f"bad step {i}")
    return i


def background(n, out):
    s = Solver(1000)
    for _ in range(n):
        out.append(s.step())


def main(steps):
    s = Solver(10_000)
    norms = [s.step() for _ in range(steps)]
    total = sum(residuals(norms))
    errors = 0
    for i in range(steps):
        try:
            risky(i)
        except ValueError:
            errors += 1
    out = []
    t = threading.Thread(target=background, args=(10, out))
    t.start()
    t.join()
    print(f"unedited script: {steps} steps, residual {total:.3f}, {errors} errors, "
          f"{len(out)} background steps")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 20)
    if "--fail" in sys.argv:
        sys.exit(3)
