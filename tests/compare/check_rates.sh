#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The statistical test of the CI gate (issue "Comparisons that hold on a
# busy machine"): examples/compare_rates.sh runs examples/lulesh_proxy 6 x
# unchanged (A) and 6 x with one kernel twice as slow (B), interleaved,
# with two CPU hogs it starts itself, then `check --max-regression 10` on
# the 30 ordered A/A pairs and the 30 A/B pairs of different rounds, and
# `check DIR DIR` with 3 runs per side.
# Pass: at most 1 A/A pair fails (the others pass, or are undecided: exit
# 3, the runs were disturbed), at least 29 A/B pairs fail and at least 27
# of them name the slowed kernel alone, the directories never fail A/A and
# always fail A/B with that kernel alone.
#
# The rates are measured under load on purpose (the hogs), so the machine
# being busy is the condition tested, not an excuse. A session that misses
# is run once more (something else on the machine may have changed its
# speed in the middle of one session; README "Comparing runs"); both
# sessions' rates are printed, and a gate that is wrong misses in both.
#
#   check_rates.sh COMPARE_RATES LULESH_PROXY SCOPE_PROFILER
set -u
rates=$1 prog=$2 cli=$3
session() {
  out=$(bash "$rates" --rounds 6 --hogs 2 --budget 10 --repeats 3 "$prog" "$cli" 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 0 ] || { echo "session missed the bar: compare_rates.sh exited $rc"; return 1; }
  line=$(grep '^rates: ' <<<"$out") || { echo "session missed the bar: no rates line"; return 1; }
  re='A/A false alarms ([0-9]+)/30 \(undecided ([0-9]+)\), A/B detected ([0-9]+)/30 \(named alone ([0-9]+), undecided [0-9]+\), dirs of 3: A/A false alarms ([0-9]+)/2, A/B detected ([0-9]+)/2 \(named alone ([0-9]+)\)'
  [[ $line =~ $re ]] || { echo "session missed the bar: cannot parse: $line"; return 1; }
  fa=${BASH_REMATCH[1]} det=${BASH_REMATCH[3]} alone=${BASH_REMATCH[4]}
  dfa=${BASH_REMATCH[5]} ddet=${BASH_REMATCH[6]} dalone=${BASH_REMATCH[7]}
  ok=1
  [ "$fa" -le 1 ] || { echo "session missed the bar: $fa of 30 A/A pairs failed (at most 1)"; ok=0; }
  [ "$det" -ge 29 ] || { echo "session missed the bar: $det of 30 A/B pairs detected (at least 29)"; ok=0; }
  [ "$alone" -ge 27 ] || { echo "session missed the bar: the kernel named alone in $alone (at least 27)"; ok=0; }
  [ "$dfa" -eq 0 ] || { echo "session missed the bar: check DIR DIR failed identical runs"; ok=0; }
  [ "$ddet" -eq 2 ] && [ "$dalone" -eq 2 ] || { echo "session missed the bar: check DIR DIR did not fail the kernel alone"; ok=0; }
  [ $ok -eq 1 ]
}
for n in 1 2; do
  echo "== session $n (load $(cut -d' ' -f1-3 /proc/loadavg)) =="
  if session; then echo "compare rates: ok (session $n of at most 2)"; exit 0; fi
done
echo "FAIL: the bar was missed in 2 sessions"
exit 1
