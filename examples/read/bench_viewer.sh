#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_viewer.sh - the viewer's load and frames of a run against the raw
# read (issue 18), optionally against another viewer build, interleaved so a
# busy period hits every program alike.
#
#   bench_viewer.sh BUILD_DIR RUN.h5 [REPEATS] [OTHER_VIEWER]
#
#   BUILD_DIR     a build of this tree (examples/raw_read_floor and
#                 viewer/scope-profiler-viewer built)
#   RUN.h5        e.g. from `BUILD_DIR/examples/gen_big_run record RUN.h5 100000000 2`
#   REPEATS       default 2
#   OTHER_VIEWER  a scope-profiler-viewer of another build (e.g. a copy of
#                 the previous commit's) measured in the same rounds
#
# Each program runs in its own session (setsid), as a desktop starts an
# application: Linux's autogroup schedules a session as one group, so a
# viewer started beside a build shares the build's slices. Prints per run
# the benchmark's load, memory and frame lines, the wall and CPU time of the
# whole (viewer, reading helper, Xvfb) and the load average before it; at
# the end min / median of the loads and of the raw reads.
set -euo pipefail

build=${1:?usage: bench_viewer.sh BUILD_DIR RUN.h5 [REPEATS] [OTHER_VIEWER]}
run=${2:?usage: bench_viewer.sh BUILD_DIR RUN.h5 [REPEATS] [OTHER_VIEWER]}
repeats=${3:-2}
other=${4:-}
raw="$build/examples/raw_read_floor"
viewer="$build/viewer/scope-profiler-viewer"
for x in "$raw" "$viewer" ${other:+"$other"}; do
    [[ -x $x ]] || { echo "bench_viewer: $x is missing" >&2; exit 2; }
done
for x in /usr/bin/time xvfb-run setsid; do
    command -v "$x" > /dev/null || { echo "bench_viewer: needs $x" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/sp_bench_viewer.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# min / median of the numbers in file $1
stats() { sort -g "$1" | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f / %.2f s", v[1], m}'; }

for ((i = 1; i <= repeats; i++)); do
    echo "== repeat $i, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    setsid /usr/bin/time -f "%e %U %S" -o "$dir/t" "$raw" "$run" > /dev/null
    read -r wall user sys < "$dir/t"
    echo "raw read: $wall s wall, $user + $sys s CPU"
    echo "$wall" >> "$dir/raw"
    names=(this)
    bins=("$viewer")
    if [[ -n $other ]]; then names+=(other); bins+=("$other"); fi
    for k in "${!bins[@]}"; do
        echo "-- ${names[k]} viewer, load average $(cut -d' ' -f1-3 /proc/loadavg)"
        GSK_RENDERER=cairo setsid /usr/bin/time -f "%e %U %S" -o "$dir/t" \
            xvfb-run -a -s "-screen 0 1920x1200x24" "${bins[k]}" --benchmark "$run" \
            > "$dir/out" 2>&1 || { cat "$dir/out" >&2; exit 1; }
        grep -E '^(load|memory|frames):' "$dir/out"
        read -r wall user sys < "$dir/t"
        echo "whole: $wall s wall, $user + $sys s CPU"
        awk '/^load:/ {print $2}' "$dir/out" >> "$dir/load-${names[k]}"
    done
done
echo "== min / median: raw read $(stats "$dir/raw")"
for f in "$dir"/load-*; do
    echo "   load (${f##*/load-} viewer): $(stats "$f")"
done
