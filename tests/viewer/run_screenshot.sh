#!/bin/sh
# SPDX-License-Identifier: MIT
# Take a viewer screenshot under Xvfb and check its pixels.
#
# usage: run_screenshot.sh XVFB_RUN VIEWER CHECKER OUT.png STATUS [VIEWER ARGS...] -- [CHECK ARGS...]
#   STATUS: the exit status expected from the viewer (0, or 2 for a file that
#   must fail to load while the window still shows why).
set -u
xvfb_run=$1 viewer=$2 checker=$3 out=$4 status=$5
shift 5
viewer_args=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    viewer_args="$viewer_args '$1'"
    shift
done
[ $# -gt 0 ] && shift # the "--"

rm -f "$out"
eval "\"$xvfb_run\" -a -s '-screen 0 1920x1200x24' \"$viewer\" --screenshot \"$out\" $viewer_args"
rc=$?
if [ "$rc" -ne "$status" ]; then
    echo "run_screenshot: the viewer exited with $rc, expected $status" >&2
    exit 1
fi
if [ ! -s "$out" ]; then
    echo "run_screenshot: no screenshot was written to $out" >&2
    exit 1
fi
exec "$checker" "$out" "$@"
