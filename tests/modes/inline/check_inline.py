#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Inline frames: samples of code the compiler inlined into main() belong to
the inlined functions (DWARF inlined subroutines), with the call chain.

    check_inline.py SCOPE_PROFILER INLINE_TARGET INLINE_TARGET_LINES

1. `scope-profiler run` (stack sampling) on inline_target (-O2 -g, kernels
   static inline + always_inline, so main() is the only real function):
   main -> CalcForce -> PairForce and main -> UpdatePositions -> Domain::f
   are call paths (export collapsed), main's own time is a small part of its
   total, the kernels hold most of it, the Domain accessors of
   inline_domain.hpp are module "inline_domain" (the file declaring them:
   Domain::f is out of line and begins with std::vector's operator[] inlined
   from stl_vector.h, as LULESH's Domain::yd does), and no system header is
   a region.
2. The line sampler (inline_target_lines: a region around each time step):
   most samples are charged to lines of the inlined kernels, named after
   them, not to main.
"""
import os
import re
import subprocess
import sys
import tempfile

sp, target, target_lines = sys.argv[1:4]
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        fail(f"{' '.join(cmd)} exited {r.returncode}")
    return r


with tempfile.TemporaryDirectory() as work:
    # ---- 1. stack sampling through `run` ----
    h5 = os.path.join(work, "s.h5")
    run([sp, "run", "-q", "-o", h5, target, "800"])
    folded = run([sp, "export", "collapsed", h5, "-o", "-"]).stdout
    own = {}  # call path -> own ns
    for line in folded.splitlines():
        path, _, ns = line.rpartition(" ")
        own[path] = own.get(path, 0) + int(ns)
    total = sum(own.values())
    print(f"  {len(own)} call paths, {total / 1e6:.1f} ms sampled")
    for p, ns in sorted(own.items(), key=lambda kv: -kv[1])[:8]:
        print(f"    {ns / 1e6:9.1f} ms  {p}")

    def under(prefix):
        return sum(ns for p, ns in own.items() if p == prefix or p.startswith(prefix + ";"))

    main = "inline_target.main"
    force = main + ";inline_target.CalcForce"
    update = main + ";inline_target.UpdatePositions"
    if total <= 0:
        fail("no samples")
    else:
        main_own = own.get(main, 0)
        kernels = under(force) + under(update)
        print(f"  main own {100 * main_own / total:.1f} %, kernels {100 * kernels / total:.1f} %")
        if main_own > 0.10 * total:
            fail(f"main (own) holds {100 * main_own / total:.1f} % of the time: inline frames missing")
        if kernels < 0.80 * total:
            fail(f"the inlined kernels hold only {100 * kernels / total:.1f} % of the time")
        if under(force + ";inline_target.PairForce") <= 0:
            fail("PairForce (inlined into CalcForce) has no samples under CalcForce")
        if under(update + ";inline_domain.Domain::f(int)") <= 0:
            fail("Domain::f (out of line) has no samples under UpdatePositions")
    regions = {name for p in own for name in p.split(";")}
    domain = {r for r in regions if "Domain::" in r}
    print(f"  Domain accessors: {sorted(domain)}")
    for r in domain:
        if not r.startswith("inline_domain.Domain::"):
            fail(f"{r}: an accessor of inline_domain.hpp must be module inline_domain")
    for r in regions:
        if re.search(r"stl_vector|^new_allocator|^cmath\.", r):
            fail(f"{r}: code inlined from a system header is the system's (left out without --all)")

    # ---- 2. the line sampler ----
    h5 = os.path.join(work, "l.h5")
    env = dict(os.environ, SCOPE_PROFILER_LINE_SAMPLER="timer")
    run([target_lines, "800", h5], env=env)
    text = run([sp, "line-profile", h5]).stdout
    rows = re.findall(r"^\s*[\d.]+ \S+\s+[\d.]+%\s+(\d+)\s+(\S+):(\d+)\s+\((.*)\)$", text, re.M)
    by_fn = {}
    for samples, _, _, fn in rows:
        by_fn[fn] = by_fn.get(fn, 0) + int(samples)
    n = sum(by_fn.values())
    print(f"  line samples by function: {by_fn}")
    inlined = sum(v for f, v in by_fn.items()
                  if f.split("(")[0] in ("CalcForce", "PairForce", "UpdatePositions")
                  or f.startswith("Domain::"))
    if n < 20:
        fail(f"only {n} line samples")
    elif inlined < 0.8 * n:
        fail(f"only {inlined} of {n} line samples in the inlined kernels (main: {by_fn.get('main', 0)})")

print("inline frames: FAILED" if failures else "inline frames: ok")
