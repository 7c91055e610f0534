#!/bin/sh
# SPDX-License-Identifier: MIT
# The viewer follows a program while it records: start the viewer on a file
# that does not exist yet (it waits), then a program that records for a few
# seconds (live_demo, flush interval 0.2 s); the viewer saves a screenshot
# each time it shows more calls. Checks: two shots, the second shows more
# calls than the first (the call counts the viewer printed), both in
# progress, the PNGs differ and pass check_png, and the program, stopped
# with SIGTERM, finalizes its file.
#
# usage: run_follow.sh XVFB_RUN VIEWER CHECKER LIVE_DEMO OUTDIR
set -u
xvfb_run=$1 viewer=$2 checker=$3 demo=$4 outdir=$5
work=$(mktemp -d "$outdir/follow.XXXXXX") || exit 1
run="$work/live.h5"
shot="$work/follow.png"
fail() { echo "run_follow: FAIL: $*" >&2; [ -n "${demo_pid:-}" ] && kill "$demo_pid" 2>/dev/null; exit 1; }

"$xvfb_run" -a -s '-screen 0 1920x1200x24' "$viewer" --follow "$run" --interval 0.5 \
    --screenshot "$shot" --size 1280x800 --page regions --follow-shots 2 >"$work/viewer.out" 2>"$work/viewer.err" &
viewer_pid=$!
sleep 1 # the viewer waits for the file to appear
# Up to 2 min (ended below once the viewer is done): on a slow machine
# (sanitizers, a busy CI) the viewer may take seconds to start.
"$demo" "$run" 120 100 0.2 >"$work/demo.out" 2>&1 &
demo_pid=$!
wait "$viewer_pid"
rc=$?
cat "$work/viewer.out"
[ "$rc" -eq 0 ] || { cat "$work/viewer.err" >&2; fail "the viewer exited with $rc"; }
# follow shot PATH: N calls, in progress
n1=$(sed -n 's/^follow shot .*-1\.png: \([0-9]*\) calls, in progress$/\1/p' "$work/viewer.out")
n2=$(sed -n 's/^follow shot .*-2\.png: \([0-9]*\) calls, in progress$/\1/p' "$work/viewer.out")
[ -n "$n1" ] && [ -n "$n2" ] || fail "expected two in-progress shots in the viewer's output"
[ "$n1" -gt 0 ] || fail "the first shot shows no calls"
[ "$n2" -gt "$n1" ] || fail "the second shot shows $n2 calls, not more than the first ($n1)"
cmp -s "$work/follow-1.png" "$work/follow-2.png" && fail "the two screenshots are identical"
# exactly --size (they came out 1270x790: window shadows)
"$checker" "$work/follow-1.png" --size 1280x800 || fail "check_png shot 1"
"$checker" "$work/follow-2.png" --size 1280x800 || fail "check_png shot 2"
# The program was not disturbed by the reads: stopped, it finalizes normally.
kill -TERM "$demo_pid"
wait "$demo_pid" || fail "live_demo failed: $(cat "$work/demo.out")"
demo_pid=
echo "run_follow: ok ($n1 then $n2 calls shown)"
