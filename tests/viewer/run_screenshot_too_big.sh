#!/bin/sh
# SPDX-License-Identifier: MIT
# --size larger than the screen: the viewer says so, exits 1 and writes no
# PNG (it wrote one of another size than asked for).
#
# usage: run_screenshot_too_big.sh XVFB_RUN VIEWER OUT.png RUN.h5
set -u
xvfb_run=$1 viewer=$2 out=$3 run=$4
rm -f "$out"
"$xvfb_run" -a -s '-screen 0 1024x768x24' "$viewer" --screenshot "$out" --size 1600x1000 \
    --page regions "$run" 2>"$out.err"
rc=$?
cat "$out.err"
[ "$rc" -eq 1 ] || { echo "FAIL: the viewer exited with $rc, want 1"; exit 1; }
[ ! -e "$out" ] || { echo "FAIL: a screenshot of another size was written to $out"; exit 1; }
grep -q "not the 1600x1000 asked for.*no screenshot written" "$out.err" ||
    { echo "FAIL: the viewer does not say why"; exit 1; }
echo "too big: ok"
