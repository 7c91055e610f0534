#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# compare_rates.sh - measure the false-alarm and detection rates of
# `scope-profiler check` on a LULESH-shaped program, on this machine, with
# CPU hogs competing for its cores.
#
#   compare_rates.sh [--rounds R] [--hogs H] [--budget PCT] [--repeats K]
#                    [--size N] [--steps S] [--keep DIR] [--reuse DIR]
#                    [--check-args "ARGS"] LULESH_PROXY SCOPE_PROFILER
#
# Per round two runs of examples/lulesh_proxy, in alternating order: A
# unchanged, B with one kernel (CalcEnergyForElems, ~15 % of the run) doing
# twice its work (--slow CalcEnergyForElems --slow-factor 2). With R rounds
# (default 6) that is R runs of each; then, over the R (R - 1) ordered pairs
# of different rounds (30 for 6 rounds):
#   A/A: check --max-regression PCT A_i A_j: exit 1 is a false alarm, exit
#        3 "undecided" (the runs were disturbed: retry), exit 0 a pass;
#   A/B: check A_i B_j: exit 1 is a detection, named alone when the failure
#        lists CalcEnergyForElems and nothing else; exit 3 or 0 a miss.
# With --repeats K (default 3) it also forms directories of K runs from
# disjoint rounds and runs `check DIR DIR` (repeated-runs mode) on A vs A
# and A vs B, in both orders.
# H CPU hogs (default 2: `yes > /dev/null`) run beside every run (0: none),
# so the machine is busy even when nobody else is using it. The hogs are
# this script's children and are stopped at the end.
#
# Prints one line per failure or miss and a final line
#   rates: A/A false alarms F/N (undecided U), A/B detected D/N (named alone
#   L, undecided V), dirs of K: A/A false alarms F2/M, A/B detected D2/M
#   (named alone L2)
# and exits 0 (it measures; the caller judges). The README's figures come
# from this script. --keep DIR keeps the runs in DIR; --reuse DIR judges the
# runs a --keep left there again (after a change of the method) without
# running the program. --check-args adds options to every `check`.
set -u
rounds=6 hogs=2 budget=10 repeats=3 size=24 steps=150 keep="" reuse=0 extra=
slow=CalcEnergyForElems
while [ $# -gt 2 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --hogs) hogs=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --reuse) keep=$2; reuse=1; shift 2 ;;
    --check-args) extra=$2; shift 2 ;;
    *) echo "compare_rates: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -eq 2 ] || { sed -n 7,9p "$0" >&2; exit 2; }
prog=$1 cli=$2
dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"

hog_pids=()
stop_hogs() {
  for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  hog_pids=()
}
trap 'stop_hogs; [ -z "$keep" ] && rm -rf "$dir"' EXIT
for ((h = 0; h < hogs && !reuse; h++)); do
  yes >/dev/null &
  hog_pids+=($!)
done

echo "compare_rates: $rounds rounds, $hogs CPU hog(s), budget $budget %, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds && !reuse; r++)); do
  # Alternate the order so neither variant always runs first.
  if ((r % 2)); then order="A B"; else order="B A"; fi
  for v in $order; do
    args=(--size "$size" --steps "$steps")
    [ "$v" = B ] && args+=(--slow "$slow" --slow-factor 2)
    "$prog" -o "$dir/$v-$r.h5" "${args[@]}" >/dev/null || { echo "FAIL: $prog exited $?"; exit 1; }
  done
done
stop_hogs
echo "compare_rates: load after the runs $(cut -d' ' -f1-3 /proc/loadavg)"

# The regions a failing check names (the lines under FAIL:).
named() { sed -n '/^FAIL/,/^$/p' <<<"$1" | grep -E '^  [^ ]+:' | sed -E 's/^  ([^:]+):.*/\1/' | tr '\n' ' '; }
# The reason of an undecided check (its UNDECIDED line).
why() { grep -m1 '^UNDECIDED' <<<"$1" | cut -c1-200; }
# What a failure was made of (to tell a machine state from a gate's bug
# when a session misses on a machine we cannot log into): the common
# change and the failing rows.
detail() {
  grep -m1 '^common:' <<<"$1" | cut -c1-60 | sed 's/^/    /'
  sed -n '/^FAIL/,/^$/p' <<<"$1" | grep -E '^  [^ ]+:' | cut -c1-220 | sed 's/^/  /'
}

# One check; sets rc and out. Exit statuses other than 0, 1, 3 stop here.
run_check() {
  out=$("$cli" check $extra --max-regression "$budget" "$@")
  rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 3 ] || { echo "FAIL: check exited $rc: $*"; exit 1; }
}

aa=0 aa_fail=0 aa_und=0 ab=0 ab_det=0 ab_alone=0 ab_und=0
for ((i = 1; i <= rounds; i++)); do
  for ((j = 1; j <= rounds; j++)); do
    ((i == j)) && continue
    run_check "$dir/A-$i.h5" "$dir/A-$j.h5"
    aa=$((aa + 1))
    if [ $rc -eq 1 ]; then
      aa_fail=$((aa_fail + 1))
      echo "false alarm: A-$i vs A-$j names: $(named "$out")"
      detail "$out"
    elif [ $rc -eq 3 ]; then
      aa_und=$((aa_und + 1))
      echo "undecided: A-$i vs A-$j: $(why "$out")"
    fi
    run_check "$dir/A-$i.h5" "$dir/B-$j.h5"
    ab=$((ab + 1))
    if [ $rc -eq 1 ]; then
      ab_det=$((ab_det + 1))
      n=$(named "$out")
      if [ "$n" = "$slow " ]; then ab_alone=$((ab_alone + 1)); else echo "named too: A-$i vs B-$j: $n"; detail "$out"; fi
    else
      [ $rc -eq 3 ] && ab_und=$((ab_und + 1))
      echo "missed (exit $rc): A-$i vs B-$j: $(grep -m1 "^  $slow" <<<"$out" || why "$out")"
    fi
  done
done

# Repeated runs: directories of `repeats` runs from disjoint rounds.
dd_aa=0 dd_aa_fail=0 dd_ab=0 dd_ab_det=0 dd_ab_alone=0
groups=$((rounds / repeats))
for ((g = 0; g < groups; g++)); do
  for v in A B; do
    mkdir -p "$dir/dirs/$v-$g"
    for ((k = 1; k <= repeats; k++)); do
      ln -sf "$dir/$v-$((g * repeats + k)).h5" "$dir/dirs/$v-$g/run$k.h5"
    done
  done
done
for ((g = 0; g < groups; g++)); do
  for ((h = 0; h < groups; h++)); do
    ((g == h)) && continue
    run_check "$dir/dirs/A-$g" "$dir/dirs/A-$h"
    dd_aa=$((dd_aa + 1))
    [ $rc -eq 1 ] && { dd_aa_fail=$((dd_aa_fail + 1)); echo "false alarm (dirs A-$g A-$h): $(named "$out")"; }
    run_check "$dir/dirs/A-$g" "$dir/dirs/B-$h"
    dd_ab=$((dd_ab + 1))
    if [ $rc -eq 1 ]; then
      dd_ab_det=$((dd_ab_det + 1))
      n=$(named "$out")
      [ "$n" = "$slow " ] && dd_ab_alone=$((dd_ab_alone + 1)) || echo "named too (dirs A-$g B-$h): $n"
    else
      echo "missed (dirs A-$g B-$h, exit $rc): $(grep -m1 "^  $slow" <<<"$out")"
    fi
  done
done
echo "rates: A/A false alarms $aa_fail/$aa (undecided $aa_und), A/B detected $ab_det/$ab (named alone $ab_alone, undecided $ab_und), dirs of $repeats: A/A false alarms $dd_aa_fail/$dd_aa, A/B detected $dd_ab_det/$dd_ab (named alone $dd_ab_alone)"
