#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Fortran MPI halo mini-app on 4 ranks: one file with 4 ranks, every
# region on every rank with the right call counts, nested as the code is.
# (The imbalance it builds in is shown by `ranks`, but not asserted: timings
# on a busy machine are not a unit test.)
#   check_halo.sh MPIRUN PROGRAM CLI
set -uo pipefail
mpirun=$1 prog=$2 cli=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
"$mpirun" --allow-run-as-root --oversubscribe -n 4 -x ASAN_OPTIONS "$prog" "$work/halo.h5" 50 \
  > out.txt 2>&1 || { cat out.txt; fail "mpirun failed"; }
grep -q "halo mini-app: 4 ranks, 50 steps" out.txt || { cat out.txt; fail "no result line"; }
"$cli" summary "$work/halo.h5" > tree.txt || fail "summary failed"
grep -q "(4 ranks, " tree.txt || fail "not 4 ranks"
# calls are per rank (README, "What the numbers mean"): 50 steps on each rank
for row in '│ main ' '│ └─ timestep \(50x\)' '│ │ └─ halo_exchange \(50x\)' \
           '│ │ └─ compute \(50x\)' '│ │ │ └─ smooth \(50x\)' '│ │ └─ residual \(5x\)'; do
  grep -Eq "$row" tree.txt || { cat tree.txt; fail "summary tree has no row /$row/"; }
done
"$cli" ranks "$work/halo.h5" > ranks.txt || fail "ranks failed"
cat ranks.txt
for r in timestep halo_exchange compute smooth; do
  grep -Eq "^$r +4/4 +50 " ranks.txt || fail "ranks: $r not on 4/4 ranks with 50 calls each"
done
echo "fortran halo: ok"
