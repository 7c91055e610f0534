#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `scope-profiler inspect --counters` and `--likwid` on runs that carry them
# (written by make_counter_files), and their one-line refusal on runs that
# do not.
#   check_inspect_counters.sh SCOPE_PROFILER MAKE_COUNTER_FILES FAKE_LIKWID DATA_DIR
set -uo pipefail
sp=$1 make=$2 fake=$3 data=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
"$make" "$work" "$fake" "$data" || { out=""; fail "making the files"; }

out=$("$sp" inspect --counters "$work/perf.h5") || fail "inspect --counters"
grep -Eq "^faults +page-faults +[0-9]+ +3 +[0-9]+ +1$" <<<"$out" || fail "page-faults row"
pf=$(grep -E "^faults +page-faults" <<<"$out" | awk '{print $3}')
[ "$pf" -ge 2900 ] || fail "3 x 1000 fresh pages fault at least 2900 times, got $pf"
grep -Eq "^ +task-clock +[0-9.]+ [mµu]?s +3 " <<<"$out" || fail "task-clock as a time"

out=$("$sp" inspect --likwid "$work/likwid.h5") || fail "inspect --likwid"
grep -q "^Region compute$" <<<"$out" || fail "region heading"
grep -Eq "^ +calls +4$" <<<"$out" || fail "calls row"
grep -Eq "^ +RETIRED_INSTRUCTIONS:PMC0 +12000$" <<<"$out" || fail "raw event (4 x 3 x 1000)"
grep -Eq "^ +CPI +1\.333" <<<"$out" || fail "derived metric"
grep -q "group FLOPS_TEST, zen3" <<<"$out" || fail "group and arch named"

out=$("$sp" inspect --likwid "$work/perf.h5" 2>&1)
[ $? = 2 ] || fail "no LIKWID results: exit 2"
grep -q "has no LIKWID results" <<<"$out" || fail "message"
out=$("$sp" inspect --counters "$work/likwid.h5" 2>&1)
[ $? = 2 ] || fail "no perf counters: exit 2"
echo "inspect counters: ok"
