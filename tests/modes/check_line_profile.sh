#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# line_example + `scope-profiler line-profile`: the hot line leads with more
# than half of the region's samples, and the per-function table shows its
# source text.
#   check_line_profile.sh LINE_EXAMPLE SCOPE_PROFILER
set -uo pipefail
ex=$1 sp=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
"$ex" "$work/line.h5" >/dev/null || { out=""; fail "example failed"; }
out=$("$sp" line-profile "$work/line.h5") || fail "line-profile failed"
# The ranking: first row of hot_function is the marked line, share > 50%.
first=$(grep -A2 "^hot_function " <<<"$out" | sed -n 3p)
grep -q "line_example.c:[0-9]*  (hot_function)" <<<"$first" || fail "first ranked row: $first"
share=$(awk '{print $2}' <<<"$first" | tr -d '%')
awk -v s="$share" 'BEGIN { exit !(s > 50) }' || fail "hot line share $share%"
line=$(sed -E 's/.*line_example.c:([0-9]+).*/\1/' <<<"$first")
# The line_profiler-style table: that line with its source text.
grep -Eq "^ +$line +[0-9]+ .*the hot line" <<<"$out" || fail "source line $line with its text"
grep -q "^Function: hot_function at .*line_example.c" <<<"$out" || fail "function header"
grep -q "Line Contents" <<<"$out" || fail "table header"
out=$("$sp" line-profile --brief "$work/line.h5") || fail "--brief failed"
grep -q "Line Contents" <<<"$out" && fail "--brief has no source tables"
echo "line-profile: ok"
