#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End to end: run the mock solver, then read its file back with the CLI and
# check the structure the program is known to have.
set -euo pipefail
solver=$1 cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$("$solver" "$work/run.h5")
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
grep -q "Summary: $work/run.h5 (1 rank)" <<<"$out" || fail "summary names the file and 1 rank"
grep -q "└─ refine_mesh" <<<"$out" || fail "refine_mesh nested in the tree"
grep -q "solve (3x)" <<<"$out" || fail "solve shown with (3x)"
grep -q "(own)" <<<"$out" || fail "(own) rows"
test -s "$work/run.h5" || fail "file written"
ls "$work" | grep -q tmp && fail "temporary file left behind"
insp=$("$cli" inspect "$work/run.h5")
echo "$insp"
# calls per region, as the program makes them
for pair in main:1 setup:1 refine_mesh:4 solve:3 assemble_matrix:3 apply_bc:3; do
  name=${pair%%:*} calls=${pair##*:}
  awk -v n="$name" -v c="$calls" '$1 == n && $2 == c { found = 1 } END { exit !found }' <<<"$insp" \
    || fail "inspect: $name has $calls calls"
done
grep -q "problem_size" <<<"$insp" || fail "user metadata shown"
echo "mock_solver end-to-end: ok"
