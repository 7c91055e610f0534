#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# line_example + `scope-profiler line-profile`: the hot line leads with more
# than half of the region's samples, and the per-function table shows its
# source text once --source-dir allows its directory.
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
# The source lies outside the run's working directory (and the run file is
# not there either): not shown, with the reason, until --source-dir allows it.
grep -q "^Function: hot_function at .*line_example.c" <<<"$out" || fail "function header"
src=$(sed -nE 's/^Function: hot_function at (.*line_example.c)$/\1/p' <<<"$out" | head -1)
grep -q "(source not shown: $src: outside the run's working directory" <<<"$out" ||
  fail "the source outside every root is shown or has no reason"
grep -q "the hot line" <<<"$out" && fail "source text shown without --source-dir"
out=$("$sp" line-profile --source-dir "$(dirname "$src")" "$work/line.h5") ||
  fail "line-profile --source-dir failed"
# The line_profiler-style table: that line with its source text.
grep -Eq "^ +$line +[0-9]+ .*the hot line" <<<"$out" || fail "source line $line with its text"
grep -q "Line Contents" <<<"$out" || fail "table header"
out=$("$sp" line-profile --brief "$work/line.h5") || fail "--brief failed"
grep -q "Line Contents" <<<"$out" && fail "--brief has no source tables"
echo "line-profile: ok"
