#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-call cost of the Python module's regions, min and median over repeats.

    PYTHONPATH=build/bindings/python /usr/bin/python3 examples/python/benchmark_overhead.py
    ... --quick            (fewer iterations: a smoke run)

Each case runs a loop of N iterations R times; the figures are nanoseconds
per iteration, the loop itself included ("raw"), and with the cost of an
empty loop subtracted ("net", the region's own cost). If the Python package
scope-profiler (pure Python, the tutorial's original) is importable without
this module on the path, the same cases run against it in a subprocess and
the ratios are printed; otherwise the script says it is not installed.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

QUICK = "--quick" in sys.argv
# Many short repeats: on a shared machine the minimum is the run that was
# not preempted, the median what a busy machine gives.
N = 20_000 if QUICK else 50_000
R = 5 if QUICK else 41


def measure(loop):
    """ns per iteration of loop(n) over R repeats: (min, median)."""
    loop(1000)  # warm up (caches, the interpreter's specialisation)
    per = []
    for _ in range(R):
        t0 = time.perf_counter_ns()
        loop(N)
        per.append((time.perf_counter_ns() - t0) / N)
    return min(per), statistics.median(per)


def cases(sp):
    PM = sp.ProfileManager
    tmp = tempfile.mkdtemp(prefix="sp-bench-")
    out = {}

    def empty(n):
        for _ in range(n):
            pass

    def plain_call(n):
        for _ in range(n):
            work()

    def work():
        pass

    def with_held(n):
        r = PM.region("held")
        for _ in range(n):
            with r:
                pass

    def with_name(n):
        for _ in range(n):
            with PM.region("by_name"):
                pass

    out["empty loop"] = measure(empty)
    out["plain call (no decorator)"] = measure(plain_call)

    PM.setup(deactivate_file_output=True, file_path=os.path.join(tmp, "a.h5"),
             buffer_limit=1 << 20)
    out["with r:  (time-only)"] = measure(with_held)
    out['with ProfileManager.region("x"):'] = measure(with_name)

    @PM.profile("decorated")
    def deco():
        pass

    def call_deco(n):
        for _ in range(n):
            deco()

    out["@ProfileManager.profile call"] = measure(call_deco)
    PM.finalize(verbose=False)

    PM.setup(deactivate_profiling=True)

    @PM.profile("off")
    def deco_off():
        pass

    def call_off(n):
        for _ in range(n):
            deco_off()

    out["with r:  (deactivate_profiling)"] = measure(with_held)
    out["decorated call (deactivate_profiling)"] = measure(call_off)
    PM.finalize(verbose=False)
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
    import scope_profiler as sp
    res = cases(sp)
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
