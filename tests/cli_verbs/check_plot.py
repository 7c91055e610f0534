# SPDX-License-Identifier: MIT
"""Run `scope-profiler plot ...` and check every file it says it wrote.

    check_plot.py OUTDIR EXPECT -- BIN plot KIND FILE... [OPTIONS]

EXPECT is a comma-separated list of the file names that must be printed
(and nothing else). OUTDIR is emptied first. PNGs must decode and hold a
chart (at least 20 colours and 1.5 % of the pixels not background), SVGs must
parse as XML with an <svg> root and drawn content, PDFs must start with
%PDF and end with %%EOF.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png_check  # noqa: E402


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    sep = sys.argv.index("--")
    outdir, expect = sys.argv[1], [e for e in sys.argv[2].split(",") if e]
    cmd = sys.argv[sep + 1:]
    shutil.rmtree(outdir, ignore_errors=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("exit %d: %s" % (p.returncode, p.stderr.strip()))
    written = [l for l in p.stdout.splitlines() if l]
    names = sorted(os.path.basename(w) for w in written)
    if names != sorted(expect):
        fail("wrote %s, expected %s" % (names, sorted(expect)))
    for w in written:
        if not os.path.isfile(w):
            fail("%s was printed but does not exist" % w)
        if w.endswith(".png"):
            width, height, ncol, sat, hues, bg = png_check.stats(w)
            print("%s: %dx%d, %d colours, %d chart pixels, background %.0f%%"
                  % (w, width, height, ncol, sat, 100 * bg))
            if ncol < 20 or bg > 0.985:
                fail("%s looks blank" % w)
        elif w.endswith(".svg"):
            root = ET.parse(w).getroot()
            if not root.tag.endswith("svg") or len(list(root.iter())) < 20:
                fail("%s is not a drawn SVG" % w)
        elif w.endswith(".pdf"):
            data = open(w, "rb").read()
            if not data.startswith(b"%PDF") or b"%%EOF" not in data[-64:]:
                fail("%s is not a PDF" % w)
        else:
            fail("unexpected file %s" % w)
    print("cli case: ok")


main()
