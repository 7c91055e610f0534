#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C walk through the tutorial's modes prints what the chapter shows.
set -euo pipefail
cli=$2
out=$("$1")
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
grep -q "region class: DisabledProfileRegion" <<<"$out" || fail "disabled class"
grep -q "calls recorded: 0" <<<"$out" || fail "disabled records nothing"
grep -q "region class: TimeOnlyProfileRegion" <<<"$out" || fail "time-only class"
grep -q "^num_calls     : 3$" <<<"$out" || fail "3 in-memory calls"
grep -q "^file written  : False$" <<<"$out" || fail "no file in memory mode"
grep -q "capacity : 16 (grew from 4)" <<<"$out" || fail "buffer doubled to 16"
grep -q "^recorded  : 10$" <<<"$out" || fail "10 calls read back"
# recursive profiling: the seed's tree, entry -> middle -> 2x leaf
grep -q "└─ profiling_modes.middle" <<<"$out" || fail "recursive: middle traced under entry"
grep -q "└─ profiling_modes.leaf (2x)" <<<"$out" || fail "recursive: leaf traced twice"
grep -q "region class: LineProfilerRegion" <<<"$out" || fail "line profiler class"
dir=$(sed -n 's/^WORKDIR = //p' <<<"$out")
# line sampling: the hot loop (its for line and its body) gets most samples;
# the source lies in examples/, outside the run's directory: --source-dir.
src=$(cd "$(dirname "$0")/../../examples" && pwd)
lines=$("$cli" line-profile --source-dir "$src" "$dir/line.h5")
echo "$lines"
hot=$(awk '/for \(long i = 0; i < n; i\+\+\)|the hot line/ && $1 ~ /^[0-9]+$/ { s += $5 } END { print s + 0 }' <<<"$lines")
awk -v h="$hot" 'BEGIN { exit !(h >= 80) }' || fail "hot loop has $hot% of the samples, expected >= 80%"
rm -rf "$dir"
echo "profiling_modes: ok"
