#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The seed's recursive example in C prints the seed's tree: entry ->
# recursive_example.middle -> recursive_example.leaf (2x), with (own) rows,
# at finalize and again from the file.
#   check_recursive_example.sh RECURSIVE_EXAMPLE SCOPE_PROFILER
set -uo pipefail
ex=$1 sp=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
check_tree() {
  grep -q "│ entry  " <<<"$out" || fail "entry row"
  grep -q "│ └─ (own) " <<<"$out" || fail "entry's (own) row"
  grep -q "│ └─ recursive_example.middle " <<<"$out" || fail "middle under entry"
  grep -q "│ │ └─ recursive_example.leaf (2x) " <<<"$out" || fail "leaf (2x) under middle"
  grep -q "sleep_ms" <<<"$out" && fail "sleep_ms is not instrumented"
  return 0
}
out=$("$ex" "$work/recursive.h5") || fail "example failed"
check_tree
out=$("$sp" summary "$work/recursive.h5") || fail "summary failed"
check_tree
echo "recursive example: ok"
