#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python mini-app (examples/python/mini_app.py) end to end:

    check_mini_app.py CLI PYTHON MINI_APP

It must run with RuntimeWarnings as errors (a balanced session), record the
calls its code makes (decorated method, generator, a call that raised,
threads sharing a region), and its file must open with the CLI, whose tree
nests them as the code does, and with h5py in another process."""
import os
import re
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"FAIL: {what}")


def main():
    cli, python, app = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="sp-miniapp-")
    out = os.path.join(work, "mini.h5")
    p = subprocess.run([python, "-W", "error::RuntimeWarning", app, out], cwd=work,
                       capture_output=True, text=True, timeout=240)
    print(p.stdout[-2000:], p.stderr[-2000:])
    check(p.returncode == 0 and not p.stderr.strip(), "the mini-app runs cleanly")
    calls = dict(re.findall(r"^  (\S+) +(\d+) calls", p.stdout, re.M))
    want = {"main": "1", "Diffusion.step": "20", "stencil": "20", "make_batch": "10",
            "analyse": "1", "io": "1", "load_checkpoint": "1", "worker_fft": "15"}
    check(calls == want, f"calls read back {calls}, expected {want}")
    s = subprocess.run([cli, "summary", out], capture_output=True, text=True)
    tree = s.stdout
    for row in (r"│ main ", r"│ └─ Diffusion\.step \(20x\)", r"│ │ └─ stencil \(20x\)",
                r"│ └─ analyse ", r"│ │ └─ make_batch \(10x\)", r"│ └─ io ",
                r"│ │ └─ load_checkpoint ", r"│ worker_fft \(15x\)"):
        check(re.search(row, tree), f"summary tree has {row!r}")
    i = subprocess.run([cli, "inspect", out], capture_output=True, text=True).stdout
    check(re.search(r"^Threads: +4 ", i, re.M), "inspect: 4 threads (main + 3 workers)")
    h = subprocess.run([python, "-c", f"import h5py; f = h5py.File({out!r}, 'r'); "
                        "print(sorted(f.keys()))"], capture_output=True, text=True)
    check("rank0" in h.stdout, f"h5py opens the file ({h.stdout.strip()} {h.stderr[-200:]})")
    print("python mini app: " + ("FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
