#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A Fortran program records nested regions (main > solve 3x > assemble 6x,
# a padded name trimmed to the same region) that `scope-profiler summary`
# shows as nested.   check_nested.sh PROGRAM CLI
set -uo pipefail
prog=$1 cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
"$prog" "$work/nested.h5" > out.txt 2>&1 || { cat out.txt; fail "the program failed"; }
grep -q "nested regions: checksum" out.txt || { cat out.txt; fail "no checksum line"; }
# The program's line comes before the summary it prints at finalize.
[ "$(grep -n 'nested regions: checksum' out.txt | cut -d: -f1)" -lt "$(grep -n 'region.*total' out.txt | cut -d: -f1)" ] \
  || { cat out.txt; fail "Fortran output and the C summary are out of order"; }
"$cli" summary "$work/nested.h5" > tree.txt || fail "summary failed"
cat tree.txt
for row in '│ main ' '│ └─ solve \(3x\)' '│ │ └─ assemble \(6x\)'; do
  grep -Eq "$row" tree.txt || fail "summary tree has no row /$row/"
done
echo "fortran nested: ok"
