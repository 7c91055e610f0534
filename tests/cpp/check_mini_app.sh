#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C++ mini-app records a balanced run (finalize returns 0, so exit 0)
# whose tree nests as the code does, with the calls that threw included.
#   check_mini_app.sh HEAT_MINI_APP CLI
set -uo pipefail
app=$1 cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
"$app" "$work/heat.h5" 100 > out.txt 2>&1 || { cat out.txt; fail "the mini-app failed (unbalanced?)"; }
grep -q "heat mini-app: 100 steps, 3 checkpoint failures retried" out.txt || { cat out.txt; fail "unexpected output"; }
grep -q "warning" out.txt && { cat out.txt; fail "a warning from finalize"; }
"$cli" summary "$work/heat.h5" > tree.txt || fail "summary failed"
cat tree.txt
for row in '│ main ' '│ └─ heat::Solver::run ' '│ │ └─ heat::Solver::step \(100x\)' \
           '│ │ │ └─ sweep \(100x\)' '│ │ │ └─ residual \(100x\)' '│ │ │ └─ boundary \(100x\)' \
           '│ │ └─ heat::Solver::checkpoint \(20x\)' '│ │ │ └─ checkpoint_write \(20x\)' \
           '│ │ └─ retry \(3x\)' '│ │ │ └─ heat::Solver::checkpoint \(3x\)'; do
  grep -Eq "$row" tree.txt || fail "summary tree has no row /$row/"
done
echo "cpp mini app: ok"
