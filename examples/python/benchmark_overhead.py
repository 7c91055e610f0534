#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-call cost of the Python module's regions, min and median over repeats.

    PYTHONPATH=build/bindings/python /usr/bin/python3 examples/python/benchmark_overhead.py
    ... --quick            (fewer iterations: a smoke run)

Each case runs a loop of N iterations R times (each recording repeat is one
session with buffer_limit = N); the figures are nanoseconds per iteration,
the loop itself included ("raw"), and with the cost of an empty loop
subtracted ("net", the region's own cost). If the Python package
scope-profiler (pure Python, the tutorial's original) is importable without
this module on the path, the same cases run against it in a subprocess and
the ratios are printed; otherwise the script says it is not installed.
"""
import json
import os
import statistics
import subprocess
import sys
import time

QUICK = "--quick" in sys.argv
sp = None  # the module, imported in main()
# Many short repeats: on a shared machine the minimum is the run that was
# not preempted, the median what a busy machine gives.
N = 5_000 if QUICK else 10_000
R = 11 if QUICK else 201


def measure(loop, session=None):
    """ns per iteration of loop(n) over R repeats: (min, median).

    With session (setup keywords), each repeat is one session: setup with
    buffer_limit = N (one allocation, so no buffer doubling and no copying
    inside the timed loop), the loop, finalize without a file, as the C++ and
    Fortran benchmarks do."""
    PM = sp.ProfileManager
    per = []
    for rep in range(R + 1):
        if session is not None:
            PM.setup(buffer_limit=N, deactivate_file_output=True, **session)
        t0 = time.perf_counter_ns()
        loop(N)
        t1 = time.perf_counter_ns()
        if session is not None:
            PM.finalize(verbose=False)
        if rep:  # the first repeat warms up (caches, the interpreter's specialisation)
            per.append((t1 - t0) / N)
    return min(per), statistics.median(per)


def cases():
    PM = sp.ProfileManager
    out = {}
    held = {}

    def empty(n):
        for _ in range(n):
            pass

    def work():
        pass

    def plain_call(n):
        for _ in range(n):
            work()

    def with_held(n):
        r = PM.region("held")
        for _ in range(n):
            with r:
                pass

    def with_name(n):
        for _ in range(n):
            with PM.region("by_name"):
                pass

    def call_deco(n):
        f = held["deco"]
        for _ in range(n):
            f()

    on, off = {}, {"deactivate_profiling": True}
    out["empty loop"] = measure(empty)
    out["plain call (no decorator)"] = measure(plain_call)
    out["with r:  (time-only)"] = measure(with_held, on)
    out['with ProfileManager.region("x"):'] = measure(with_name, on)
    PM.setup()
    held["deco"] = PM.profile("decorated")(work)
    out["@ProfileManager.profile call"] = measure(call_deco, on)
    out["with r:  (deactivate_profiling)"] = measure(with_held, off)
    PM.setup(deactivate_profiling=True)
    held["deco"] = PM.profile("decorated")(work)  # the function itself
    PM.finalize(verbose=False)
    out["decorated call (deactivate_profiling)"] = measure(call_deco, off)
    return out


def seed_package_results():
    """Run the cases against the pure-Python package, if installed."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    ours = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = ""
    probe = ("import scope_profiler, sys; "
             "sys.exit(0 if not hasattr(scope_profiler, '_core') else 3)")
    rc = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True).returncode
    if rc != 0:
        return None
    cmd = [sys.executable, os.path.join(here, "benchmark_overhead.py"), "--json"]
    if QUICK:
        cmd.append("--quick")
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"(the Python package is installed but failed: {res.stderr.strip()[:200]})")
        return None
    del ours
    return json.loads(res.stdout)


def main():
    global sp
    import scope_profiler
    sp = scope_profiler
    res = cases()
    if "--json" in sys.argv:
        print(json.dumps(res))
        return 0
    base = res["empty loop"]
    print(f"scope_profiler {sp.__version__} ({sp._core.flavour} build), Python "
          f"{sys.version.split()[0]}, {N} iterations x {R} repeats")
    print(f"{'case':44s} {'raw min':>8s} {'raw med':>8s} {'net min':>8s} {'net med':>8s}  [ns/call]")
    for name, (mn, md) in res.items():
        net = "" if name == "empty loop" else f"{mn - base[0]:8.1f} {md - base[1]:8.1f}"
        print(f"{name:44s} {mn:8.1f} {md:8.1f} {net}")
    seed = seed_package_results()
    if seed is None:
        print("The Python package scope-profiler is not installed on this machine "
              "(PyPI is unreachable): no side-by-side figures.")
    else:
        print("\nAgainst the Python package (raw median, ns/call):")
        for name, (_, md) in seed.items():
            if name in res:
                print(f"{name:44s} package {md:10.1f}  ours {res[name][1]:8.1f}  "
                      f"x{md / res[name][1]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
