#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""run_kind.py OUTDIR KIND CLI VIEWER|- XVFB|-: check_hostile.py on the file
of KIND, with the status and error regex make_hostile_files.py recorded."""
import os
import sys

outdir, kind, cli, viewer, xvfb = sys.argv[1:6]
for line in open(os.path.join(outdir, "manifest.txt"), encoding="utf-8"):
    path, status, regex = line.rstrip("\n").split("\t")
    if os.path.basename(path) == kind + ".h5":
        here = os.path.dirname(os.path.abspath(__file__))
        os.execv(sys.executable, [sys.executable, os.path.join(here, "check_hostile.py"), outdir,
                                  cli, viewer, xvfb, path, status, regex])
print(f"FAIL: no file of kind {kind} in {outdir}/manifest.txt")
sys.exit(1)
