#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare_rates.sh - measure the false-alarm and detection rates of
# `scope-profiler check` on a real program, on this machine, while it is busy.
#
#   compare_rates.sh [--rounds R] [--hogs H] [--budget PCT] [--repeats K]
#                    [--keep DIR] [--reuse DIR] [--check-args "ARGS"]
#                    HEAT_SOLVER SCOPE_PROFILER
#
# Per round, three runs of examples/heat_solver in rotating order: A and A2
# unchanged, B with its main region (jacobi_sweep) 25 % slower
# (--slow-sweep 0.25). With R rounds (default 6) that is R runs of each; then
#   A/A: check --max-regression PCT A_i A2_j for all R x R pairs: every
#        failure is a false alarm;
#   A/B: check A_i B_j for all R x R pairs: a pass is a miss, and a failure
#        must name jacobi_sweep and nothing else.
# With --repeats K (default 4), it also forms directories of K runs each from
# A, A2 and B and runs `check DIR DIR` (repeated-runs mode) on A vs A2 and
# A vs B, for every disjoint choice it can make (R / K of them).
# H CPU hogs (default 1: busy shell loops) run beside everything, so the
# machine is busy even when nobody else is using it. The hogs are this
# script's children and are stopped at the end.
#
# Prints one line per figure and a final line
#   rates: A/A false alarms F/N, A/B detected D/N (wrong region W), dirs ...
# and exits 0 (it measures; the caller judges). Figures for the README come
# from this script. --keep DIR keeps the runs in DIR; --reuse DIR judges the
# runs a --keep left there again (after a change of the method) without
# running the program. --check-args adds options to every `check` (e.g.
# "--estimator hl" to measure the other estimator on the same runs).
set -u
rounds=6 hogs=1 budget=10 repeats=4 keep="" reuse=0 extra=
while [ $# -gt 2 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --hogs) hogs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --reuse) keep=$2; reuse=1; shift 2 ;;
    --check-args) extra=$2; shift 2 ;;
    *) echo "compare_rates: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 2 ] || { sed -n 4,7p "$0" >&2; exit 2; }
solver=$1 cli=$2
dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"

hog_pids=()
stop_hogs() {
  for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  hog_pids=()
}
trap 'stop_hogs; [ -z "$keep" ] && rm -rf "$dir"' EXIT
for ((h = 0; h < hogs && !reuse; h++)); do
  sh -c 'while :; do :; done' &
  hog_pids+=($!)
done

echo "compare_rates: $rounds rounds, $hogs CPU hog(s), budget $budget %, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds && !reuse; r++)); do
  # Rotate the order so no variant always runs first or last in a round.
  case $((r % 3)) in
    0) order="A B A2" ;;
    1) order="B A2 A" ;;
    2) order="A2 A B" ;;
  esac
  for v in $order; do
    slow=0
    [ "$v" = B ] && slow=0.25
    "$solver" -o "$dir/$v-$r.h5" --slow-sweep $slow >/dev/null || { echo "FAIL: heat_solver"; exit 1; }
  done
done
echo "compare_rates: load after the runs $(cut -d' ' -f1-3 /proc/loadavg)"

aa=0 aa_fail=0 ab=0 ab_fail=0 ab_wrong=0
for ((i = 1; i <= rounds; i++)); do
  for ((j = 1; j <= rounds; j++)); do
    out=$("$cli" check $extra --max-regression "$budget" "$dir/A-$i.h5" "$dir/A2-$j.h5")
    rc=$?
    aa=$((aa + 1))
    if [ $rc -eq 1 ]; then
      aa_fail=$((aa_fail + 1))
      echo "false alarm: A-$i vs A2-$j: $(grep -A3 '^FAIL' <<<"$out" | tail -n +2 | tr '\n' ' ')"
    elif [ $rc -ne 0 ]; then
      echo "FAIL: check exited $rc"; exit 1
    fi
    out=$("$cli" check $extra --max-regression "$budget" "$dir/A-$i.h5" "$dir/B-$j.h5")
    rc=$?
    ab=$((ab + 1))
    if [ $rc -eq 1 ]; then
      ab_fail=$((ab_fail + 1))
      named=$(sed -n '/^FAIL/,/^$/p' <<<"$out" | grep -E '^  [^ ]+:' | sed -E 's/^  ([^:]+):.*/\1/' | tr '\n' ' ')
      if [ "$named" != "jacobi_sweep " ]; then
        ab_wrong=$((ab_wrong + 1))
        echo "wrong region: A-$i vs B-$j names: $named"
      fi
    elif [ $rc -eq 0 ]; then
      echo "missed: A-$i vs B-$j: $(grep '^  jacobi_sweep' <<<"$out" || grep 'jacobi_sweep' <<<"$out" | head -1)"
    else
      echo "FAIL: check exited $rc"; exit 1
    fi
  done
done

# Repeated runs: disjoint groups of `repeats` runs per side.
dd_aa=0 dd_aa_fail=0 dd_ab=0 dd_ab_fail=0 dd_ab_wrong=0
groups=$((rounds / repeats))
for ((g = 0; g < groups; g++)); do
  for v in A A2 B; do
    mkdir -p "$dir/dirs/$v-$g"
    for ((k = 1; k <= repeats; k++)); do
      ln -sf "$dir/$v-$((g * repeats + k)).h5" "$dir/dirs/$v-$g/run$k.h5"
    done
  done
  out=$("$cli" check $extra --max-regression "$budget" "$dir/dirs/A-$g" "$dir/dirs/A2-$g")
  rc=$?
  dd_aa=$((dd_aa + 1))
  [ $rc -eq 1 ] && { dd_aa_fail=$((dd_aa_fail + 1)); echo "false alarm (dirs $g): $(grep -A3 '^FAIL' <<<"$out" | tail -n +2 | tr '\n' ' ')"; }
  out=$("$cli" check $extra --max-regression "$budget" "$dir/dirs/A-$g" "$dir/dirs/B-$g")
  rc=$?
  dd_ab=$((dd_ab + 1))
  if [ $rc -eq 1 ]; then
    dd_ab_fail=$((dd_ab_fail + 1))
    named=$(sed -n '/^FAIL/,/^$/p' <<<"$out" | grep -E '^  [^ ]+:' | sed -E 's/^  ([^:]+):.*/\1/' | tr '\n' ' ')
    [ "$named" != "jacobi_sweep " ] && { dd_ab_wrong=$((dd_ab_wrong + 1)); echo "wrong region (dirs $g): $named"; }
  else
    echo "missed (dirs $g): $(grep 'jacobi_sweep' <<<"$out" | head -1)"
  fi
done
stop_hogs
echo "rates: A/A false alarms $aa_fail/$aa, A/B detected $ab_fail/$ab (wrong region $ab_wrong), dirs of $repeats: A/A false alarms $dd_aa_fail/$dd_aa, A/B detected $dd_ab_fail/$dd_ab (wrong region $dd_ab_wrong)"
