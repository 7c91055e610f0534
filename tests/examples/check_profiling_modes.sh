#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C walk through the tutorial's modes prints what the chapter shows.
set -euo pipefail
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
dir=$(sed -n 's/^WORKDIR = //p' <<<"$out")
rm -rf "$dir"
echo "profiling_modes: ok"
