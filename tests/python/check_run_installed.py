#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scope-profiler run` on Python programs whose work is in installed
packages (Debian's python3-pyflakes and python3-networkx):

    check_run_installed.py CLI PYTHON

- `run python3 -m pyflakes DIR` (the README's form): no warning about -m,
  pyflakes' own functions are recorded (the -m module's package is traced
  although installed), the standard library's are not, the status is
  pyflakes';
- a script whose work is in pyflakes (installed, so skipped by default):
  run says how few calls it recorded, which packages had the rest, and names
  --include-package pyflakes and --all; with --include-package pyflakes the
  package's functions are recorded (and the file says so), with --all the
  standard library's too;
- the same for a networkx analysis (--include-package networkx);
- the interpreter's own options before -m raise no warning either, and
  --include-package is refused for a program that is not Python."""
import os
import shutil
import subprocess
import sys
import tempfile

from scope_profiler import read_h5

FAILS = []
HERE = os.path.dirname(os.path.abspath(__file__))


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"FAIL: {what}")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=280, **kw)
    return p.returncode, p.stdout, p.stderr


def regions(path):
    r = read_h5(path)
    return {name: r[name].num_calls for name in r.keys()}, r


def main():
    cli, python = sys.argv[1:3]
    work = tempfile.mkdtemp(prefix="sp-pyinst-")
    try:
        pyflakes_module(cli, python, work)
        pyflakes_library(cli, python, work)
        networkx_script(cli, python, work)
        options(cli, python, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("python run installed: FAILED" if FAILS else "python run installed: ok")


def pyflakes_module(cli, python, work):
    src = os.path.join(work, "src")
    shutil.copytree(os.path.join(HERE, "..", "..", "bindings", "python", "scope_profiler"), src)
    with open(os.path.join(src, "unused.py"), "w") as f:
        f.write("import os\n")  # one warning: pyflakes exits 1
    out = os.path.join(work, "pf.h5")
    rc, so, se = run([cli, "run", "-o", out, python, "-m", "pyflakes", src], cwd=work)
    check(rc == 1, f"pyflakes' exit status 1 (one warning) comes through (got {rc}: {se[-300:]})")
    check("'os' imported but unused" in so, "pyflakes' own output")
    check("comes after PROGRAM" not in se, f"no warning about -m: {se[:300]}")
    check("Python calls recorded" not in se, "no notice: pyflakes was traced")
    names, r = regions(out)
    pf = [n for n in names if n.startswith("pyflakes.")]
    print(f"  -m pyflakes: {len(pf)} pyflakes functions, {sum(names[n] for n in pf):,} calls")
    check("pyflakes.api.checkRecursive" in names, "pyflakes.api.checkRecursive recorded")
    check(any(n.startswith("pyflakes.checker.Checker.") and names[n] > 100 for n in pf),
          "pyflakes.checker.Checker's methods recorded")
    check(not any(n.startswith("ast.") for n in names), "the standard library stays out")
    check("pyflakes" in (r.metadata("python_run_filter") or ""),
          "the file says pyflakes was traced anyway")


def pyflakes_library(cli, python, work):
    script = os.path.join(HERE, "installed", "uses_pyflakes.py")
    out = os.path.join(work, "lib.h5")
    rc, so, se = run([cli, "run", "-o", out, script, "20"], cwd=work)
    check(rc == 0 and "uses_pyflakes: 20 modules" in so, f"the script ran ({rc}: {se[-300:]})")
    names, r = regions(out)
    check(all(n.startswith("__main__.") for n in names), f"only the script by default: {names}")
    notice = [l for l in se.splitlines() if "Python calls recorded" in l or "to trace them" in l]
    print("  default filter:", *notice, sep="\n    ")
    check(len(notice) == 2, "run says the filter left almost every call out")
    check(any("pyflakes" in l and "(installed)" in l for l in notice),
          "the notice names pyflakes as the installed package that had the calls")
    check(any("--include-package pyflakes" in l and "--all" in l for l in notice),
          "the notice names --include-package pyflakes and --all")
    skipped = int(r.metadata("python_calls_skipped") or 0)
    check(skipped > 10 * sum(names.values()), f"the file counts the skipped calls ({skipped})")

    out = os.path.join(work, "inc.h5")
    rc, so, se = run([cli, "run", "--include-package", "pyflakes", "-o", out, script, "20"],
                     cwd=work)
    names, r = regions(out)
    pf = {n: c for n, c in names.items() if n.startswith("pyflakes.")}
    print(f"  --include-package pyflakes: {len(pf)} functions, {sum(pf.values()):,} calls")
    check(rc == 0 and "pyflakes.api.check" in names, "--include-package pyflakes traces pyflakes")
    check(not any(n.startswith("ast.") for n in names), "... and not the standard library")
    check("Python calls recorded" not in se, "no notice once pyflakes is traced")
    check("pyflakes" in (r.metadata("python_run_filter") or ""), "the file names the package")

    out = os.path.join(work, "all.h5")
    rc, so, se = run([cli, "run", "--all", "-q", "-o", out, script, "5"], cwd=work)
    names, _ = regions(out)
    check(rc == 0 and any(n.startswith("ast.") for n in names) and "pyflakes.api.check" in names,
          "--all traces the standard library and pyflakes")


def networkx_script(cli, python, work):
    script = os.path.join(HERE, "installed", "nx_centrality.py")
    out = os.path.join(work, "nx.h5")
    rc, so, se = run([cli, "run", "-o", out, script], cwd=work)
    check(rc == 0 and "nx_centrality: top nodes" in so, f"the networkx script ran ({se[-300:]})")
    check("--include-package networkx" in se, f"the notice names networkx: {se[-600:]}")
    out = os.path.join(work, "nxi.h5")
    rc, so, se = run([cli, "run", "-q", "--include-package", "networkx", "-o", out, script],
                     cwd=work)
    names, _ = regions(out)
    nx = [n for n in names if n.startswith("networkx.")]
    print(f"  --include-package networkx: {len(nx)} functions")
    check(rc == 0 and any("betweenness_centrality" in n for n in nx),
          "networkx' betweenness_centrality recorded")


def options(cli, python, work):
    src = os.path.join(HERE, "installed")
    rc, so, se = run([cli, "run", "-q", "-o", os.path.join(work, "w.h5"), python, "-W", "ignore",
                      "-X", "utf8", "-m", "pyflakes", src], cwd=work)
    check(rc == 0 and "comes after PROGRAM" not in se,
          f"the interpreter's options and -m are not run's ({rc}: {se[:300]})")
    rc, so, se = run([cli, "run", "--include-package", "numpy", "/bin/true"], cwd=work)
    check(rc == 2 and "for Python programs" in se, "--include-package refused for /bin/true")


main()
