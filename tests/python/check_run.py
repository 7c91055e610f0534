#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scope-profiler run` on Python programs nobody edited for it:

    check_run.py CLI PYTHON EXAMPLES_DIR

- `scope-profiler run -o F script.py ARGS`: every Python function of the
  script is a region "<module>.<qualname>" (methods, generators, a function
  that raises, a worker thread's calls); numpy, threading and the standard
  library stay out; the script's exit status comes through;
- `--all` keeps the standard library (threading.Thread.run appears);
- `scope-profiler run python3 -m MODULE` and `python3 -m scope_profiler run`;
- ProfileManager.run_script from Python, and a script that uses the API
  itself (its setup/finalize give way to the run's session);
- every file opens with the CLI (summary) and with read_h5."""
import os
import subprocess
import sys
import tempfile

from scope_profiler import read_h5

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"FAIL: {what}")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)
    return p.returncode, p.stdout, p.stderr


def main():
    cli, python, examples = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="sp-pyrun-")
    script = os.path.join(examples, "unedited_script.py")

    out = os.path.join(work, "run.h5")
    rc, so, se = run([cli, "run", "-o", out, script, "12", "--fail"], cwd=work)
    check(rc == 3, f"the script's exit status 3 comes through (got {rc}: {se[-400:]})")
    check("unedited script: 12 steps" in so, "the script's own output")
    check("__main__.Solver.step" in se and "Summary:" in se, "the summary goes to stderr")
    r = read_h5(out)
    names = set(r.keys())
    want = {"__main__.<module>": 1, "__main__.main": 1, "__main__.Solver.step": 22,
            "__main__.Solver.norm": 22, "__main__.risky": 12, "__main__.residuals": 13,
            "__main__.background": 1, "__main__.Solver.__init__": 2}
    got = {k: r[k].num_calls if k in r else 0 for k in want}
    check(got == want, f"traced calls {got}, expected {want}")
    foreign = sorted(n for n in names if not n.startswith("__main__."))
    check(not foreign, f"standard library / numpy frames recorded without --all: {foreign}")
    rc, so, se = run([cli, "summary", out])
    check(rc == 0 and "__main__.Solver.step (12x)" in so, "scope-profiler summary opens it")

    out_all = os.path.join(work, "all.h5")
    rc, so, se = run([cli, "run", "--all", "-q", "-o", out_all, script, "5"], cwd=work)
    r = read_h5(out_all)
    check(rc == 0 and "Summary:" not in se, f"--all -q: status 0 and no summary ({se[-300:]})")
    check("threading.Thread.run" in r and "__main__.background" in r,
          "--all records the standard library too (threading.Thread.run)")
    check(not any(n.startswith("scope_profiler") or n.startswith("runpy") for n in r.keys()),
          "never the profiler's own frames")

    modir = os.path.join(work, "pkg")
    os.makedirs(os.path.join(modir, "demo"))
    with open(os.path.join(modir, "demo", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(modir, "demo", "__main__.py"), "w") as f:
        f.write("def go():\n    return 42\n\nprint('demo', go())\n")
    env = dict(os.environ, PYTHONPATH=modir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out_m = os.path.join(work, "mod.h5")
    rc, so, se = run([cli, "run", "-o", out_m, python, "-m", "demo"], cwd=work, env=env)
    check(rc == 0 and "demo 42" in so and read_h5(out_m)["__main__.go"].num_calls == 1,
          f"run python3 -m MODULE ({rc}: {se[-300:]})")

    out_p = os.path.join(work, "py.h5")
    rc, so, se = run([python, "-m", "scope_profiler", "run", "-o", out_p, script, "3"], cwd=work)
    check(rc == 0 and read_h5(out_p)["__main__.Solver.step"].num_calls == 13,
          f"python3 -m scope_profiler run ({rc}: {se[-300:]})")

    rc, so, se = run([cli, "run", os.path.join(work, "missing.py")], cwd=work)
    check(rc != 0 and "missing.py" in se, "a missing script is an error naming it")

    api_script = os.path.join(work, "uses_api.py")
    with open(api_script, "w") as f:
        f.write("from scope_profiler import ProfileManager as PM\n"
                "PM.setup(file_path='ignored.h5')\n"
                "def work():\n    with PM.region('explicit'):\n        return 1\n"
                "work()\nPM.finalize()\n")
    out_a = os.path.join(work, "api.h5")
    code = ("import sys\nfrom scope_profiler import ProfileManager as PM\n"
            f"sys.exit(PM.run_script({api_script!r}, [], file_path={out_a!r}, verbose=False))")
    rc, so, se = run([python, "-c", code], cwd=work)
    r = read_h5(out_a) if os.path.exists(out_a) else None
    check(rc == 0 and r is not None and "explicit" in r and "__main__.work" in r
          and not os.path.exists(os.path.join(work, "ignored.h5")),
          f"run_script with a script using the API: one session ({rc}: {se[-300:]})")

    print("python run: " + ("FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
