#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python module's API beyond the chapter: modes and classes, the
decorator's behaviour as a function wrapper, exceptions, generators, threads,
recursive tracing (names, depth, balance, the previous profiler restored),
line profiling with region(functions=...), read_h5 on the Python package's
own files, and errors. Run by ctest with the module on PYTHONPATH."""
import gc
import inspect
import io
import os
import subprocess
import sys
import tempfile
import threading
import warnings

import numpy as np

import scope_profiler
from scope_profiler import ProfileManager as PM, read_h5

FAILS = []
WORK = tempfile.mkdtemp(prefix="sp-pyapi-")
DATA = sys.argv[1] if len(sys.argv) > 1 else None


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"FAIL: {what}")


def finalize_quietly(**kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = PM.finalize(verbose=False, **kw)
    return res, [str(x.message) for x in w]


# ---- modes and classes -------------------------------------------------------
check(type(PM.region("before_setup")).__name__ == "DisabledProfileRegion",
      "a region before any setup is a DisabledProfileRegion")
early = PM.region("early")  # held from before setup: still records once a session runs
PM.setup(deactivate_file_output=True)
with early:
    pass
check(early.num_calls == 1, "a region created before setup() records in the session")
check(type(PM.region("x")).__name__ == "TimeOnlyProfileRegion", "defaults: TimeOnlyProfileRegion")
check(PM.region("x") is PM.region("x"), "region(name) returns the same object")
check(PM.get_region("never_used") is None, "get_region of an unknown name is None")
finalize_quietly()

PM.setup(deactivate_profiling=True)


def plain(a, b=1):
    """doc"""
    return a + b


check(PM.profile(plain) is plain, "disabled: bare decorator returns the original function")
check(PM.profile("n")(plain) is plain, "disabled: named decorator returns the original function")
check(PM.profile("n", recursive=True)(plain) is plain, "disabled: recursive too")
check(type(PM.region("d")).__name__ == "DisabledProfileRegion", "disabled class")
with PM.region("d"):
    pass
check(PM.get_region("d").num_calls == 0, "disabled: nothing recorded")

PM.setup(use_line_profiler=True, use_likwid=True, deactivate_file_output=True)
check(type(PM.region("l")).__name__ == "LineProfilerRegion",
      "use_line_profiler wins over use_likwid: LineProfilerRegion")
finalize_quietly()

# ---- the decorator as a function wrapper ------------------------------------
PM.setup(deactivate_file_output=True, buffer_limit=2)
wrapped = PM.profile(plain)
check(wrapped is not plain and wrapped(1) == 2 and wrapped(1, b=5) == 6, "wrapper calls through")
check(wrapped.__name__ == "plain" and wrapped.__doc__ == "doc" and wrapped.__wrapped__ is plain,
      "wrapper carries __name__, __doc__, __wrapped__")
check(str(inspect.signature(wrapped)) == "(a, b=1)", "inspect.signature sees the function's")
check(wrapped.region_name == "plain", "bare decorator: region named after the function")


class Mesh:
    def __init__(self):
        self.n = 3

    @PM.profile("Mesh.refine")
    def refine(self, k):
        return self.n * k

    @staticmethod
    @PM.profile("Mesh.static")
    def static(x):
        return x + 1


m = Mesh()
check(m.refine(2) == 6 and Mesh.refine(m, 3) == 9 and m.static(1) == 2,
      "methods and staticmethods bind as functions do")
check(PM.get_region("Mesh.refine").num_calls == 2, "method calls recorded")


@PM.profile
def fails(x):
    raise KeyError(x)


try:
    fails("k")
except KeyError as e:
    check(e.args == ("k",), "the exception passes through the wrapper unchanged")
check(PM.get_region("fails").num_calls == 1, "a call that raised is recorded")

try:
    with PM.region("raising"):
        raise ValueError("inside")
except ValueError:
    pass
check(PM.get_region("raising").num_calls == 1, "with-block that raised: one call")


def gen(n):
    for i in range(n):
        with PM.region("gen_item"):
            v = i * i
        yield v


check(sum(gen(5)) == 30 and PM.get_region("gen_item").num_calls == 5, "regions in a generator")


def worker(r):
    for _ in range(100):
        with r:
            pass


shared = PM.region("threads")
ts = [threading.Thread(target=worker, args=(shared,)) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
check(shared.num_calls == 400, "four threads x 100 calls on one region object")
reg = PM.region("grows")
for _ in range(5):
    with reg:
        pass
check(reg.capacity == 8, f"capacity doubles from buffer_limit=2: 8 after 5 calls ({reg.capacity})")
d = reg.get_durations_numpy()
check(d.dtype == np.int64 and d.shape == (5,) and (d >= 0).all(), "durations: int64 ns")
res, warns = finalize_quietly(return_results=True)
check(not warns, f"balanced session: no warning ({warns})")
check(res["threads"].num_calls == 400 and res["plain"].num_calls == 2, "results mapping")

# ---- recursive profiling -----------------------------------------------------


def leaf(i):
    return i + 1


def middle(n):
    return sum(leaf(i) for i in range(n))


class Model:
    def evaluate(self):
        return middle(3)


def bad():
    leaf(0)
    raise RuntimeError("traced failure")


@PM.profile("entry", recursive=True)
def entry():
    Model().evaluate()
    try:
        bad()
    except RuntimeError:
        pass
    return list(gen(2))


def deep(n):
    return 0 if n == 0 else deep(n - 1) + 1


@PM.profile("deep_entry", recursive=True)
def deep_entry():
    return deep(300)


seen = []


def outer_profiler(frame, event, arg):
    seen.append(event)


PM.setup(deactivate_file_output=True, max_depth=50)
sys.setprofile(outer_profiler)
entry()
sys.setprofile(None)
check(seen, "the user's sys.setprofile profiler is restored after a recursive region")
check(PM.get_region("__main__.leaf").num_calls == 4, "traced: __main__.leaf 3 + 1 calls")
check(PM.get_region("__main__.Model.evaluate").num_calls == 1, "traced: qualname of a method")
check(PM.get_region("__main__.middle.<locals>.<genexpr>") is not None, "traced: a genexpr")
check(PM.get_region("__main__.bad").num_calls == 1, "traced: a function that raised")
check(PM.get_region("__main__.entry") is None, "the decorated function's own frame is the region")
check(PM.get_region("__main__.gen").num_calls == 3, "traced generator: one call per resume")
check(deep_entry() == 300, "deep recursion works")
check(PM.get_region("__main__.deep").num_calls == 50, "max_depth=50 records 50 levels")
with PM.region("after"):
    leaf(1)
check(PM.get_region("__main__.leaf").num_calls == 4, "tracing stops with the region")
res, warns = finalize_quietly(return_results=True)
check(not warns, f"recursive session balanced ({warns})")

PM.setup(deactivate_file_output=True, recursive_profile=True)
with PM.region("with_recursive"):
    middle(2)
check(PM.get_region("__main__.leaf").num_calls == 2, "recursive_profile=True: with-regions trace")
finalize_quietly()

# ---- line profiling with region(functions=...) --------------------------------


def hot(n):
    s = 0
    for i in range(n):
        s += i
    return s


PM.setup(deactivate_file_output=True, use_line_profiler=True)
with PM.region("lines", functions=[hot]):
    hot(100)
hot(100)  # outside the region: not timed
stats = {code.co_name: {ln: (h, ns) for ln, h, ns in rows}
         for code, rows in scope_profiler._core.line_stats()}
first = hot.__code__.co_firstlineno
check("hot" in stats and stats["hot"].get(first + 3, (0,))[0] == 100,
      f"line hits of the loop body: 100 ({stats.get('hot')})")
out = io.StringIO()
sys.stdout, saved = out, sys.stdout
try:
    PM.finalize(verbose=True)  # sys.stdout replaced: printed through it
finally:
    sys.stdout = saved
check("│ lines " in out.getvalue() and "Function: hot at line" in out.getvalue(),
      "finalize(verbose) with sys.stdout replaced prints the tree and the table there")

# The line table is stored in the file: the `line-profile` finalize suggests
# shows it (hits and measured times, under the region that names the
# function, and under the decorated function's own region).
lines_h5 = os.path.join(WORK, "lines.h5")
PM.setup(file_path=lines_h5, use_line_profiler=True)
with PM.region("lines", functions=[hot]):
    hot(100)


@PM.profile
def decorated(n):
    return sum(i * i for i in range(n))


decorated(50)
PM.finalize(verbose=False)
check(read_h5(lines_h5).metadata("line_tracer", "").startswith("python"),
      "the file says a line tracer measured its lines")
cli = os.environ.get("SP_CLI")
if cli:
    lp = subprocess.run([cli, "line-profile", "--region", "^lines$", lines_h5],
                        capture_output=True, text=True)
    loop = f"test_api.py:{first + 3}  (hot)"
    row = [ln for ln in lp.stdout.splitlines() if loop in ln]
    check(lp.returncode == 0 and " hits, " in lp.stdout,
          f"line-profile reads the stored table ({lp.returncode}: {lp.stdout[:300]}{lp.stderr})")
    check(len(row) == 1 and row[0].split()[3] == "100",
          f"the loop body's 100 hits in the file: {row}")
    check("Hits are the line's executions and times are measured" in lp.stdout,
          "line-profile calls them hits, measured")
    lp = subprocess.run([cli, "line-profile", "--region", "decorated", lines_h5],
                        capture_output=True, text=True)
    check(lp.returncode == 0 and "(decorated)" in lp.stdout,
          f"a decorated function's lines are under its region: {lp.stdout[:300]}{lp.stderr}")
else:
    check(False, "SP_CLI is not set: the stored line table cannot be checked")

# ---- files -------------------------------------------------------------------
path = os.path.join(WORK, "api.h5")
from pathlib import Path  # noqa: E402

PM.setup(file_path=Path(path))
with PM.region("written"):
    pass
PM.finalize(verbose=False)
run = read_h5(Path(path))
check(run["written"].num_calls == 1 and "written" in run and len(run) == 1, "read_h5 back")
check(run.num_ranks == 1 and run.metadata("binding") == "python", "metadata: binding=python")
buf = io.StringIO()
run.print_summary(file=buf)
check("written" in buf.getvalue() and "Summary:" in buf.getvalue(), "print_summary(file=)")
try:
    read_h5(os.path.join(WORK, "missing.h5"))
    check(False, "read_h5 of a missing file raises")
except FileNotFoundError:
    pass
if DATA:
    py = read_h5(os.path.join(DATA, "python-0.2.1", "py_readme_example.h5"))
    want = {"main": 1, "setup": 1, "refine_mesh": 4, "solve": 3, "assemble_matrix": 3,
            "apply_bc": 3}
    got = {k: py[k].num_calls for k in want}
    check(got == want, f"the Python package's file reads with its counts ({got})")

# ---- errors ------------------------------------------------------------------
for bad_kw, exc in (({"buffer_limit": 0}, ValueError), ({"max_depth": 0}, ValueError),
                    ({"no_such_option": 1}, TypeError)):
    try:
        PM.setup(**bad_kw)
        check(False, f"setup({bad_kw}) raises {exc.__name__}")
    except exc:
        pass
PM.setup(deactivate_file_output=True)
for bad_name, exc in ((3, TypeError), ("", ValueError), ("a\0b", ValueError)):
    try:
        PM.region(bad_name)
        check(False, f"region({bad_name!r}) raises {exc.__name__}")
    except exc:
        pass
finalize_quietly()
res, warns = finalize_quietly()
check(any("without a session" in w for w in warns), "finalize() twice: a RuntimeWarning")
PM.setup(deactivate_file_output=True)
r = PM.region("left_open")
r.__enter__()
res, warns = finalize_quietly()
check(any("left_open" in w for w in warns), f"a region left open is named in a warning ({warns})")

# ---- finalize at exit ----------------------------------------------------------
exit_file = os.path.join(WORK, "at_exit.h5")
script = ("from scope_profiler import ProfileManager as PM\n"
          f"PM.setup(file_path={exit_file!r})\n"
          "with PM.region('forgotten'):\n    pass\n")
p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
check(p.returncode == 0 and os.path.exists(exit_file) and
      read_h5(exit_file)["forgotten"].num_calls == 1 and "finalized at exit" in p.stderr,
      f"a session never finalized is written at exit ({p.stderr.strip()})")

gc.collect()
print("python api: " + ("FAIL" if FAILS else "ok"))
sys.exit(1 if FAILS else 0)
