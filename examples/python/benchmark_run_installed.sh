#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `scope-profiler run` on programs whose work is in installed packages, the
# README's "Measured" figures for them: Debian's pyflakes checking a source
# tree (`run python3 -m pyflakes DIR`, whose package is traced although
# installed; and with --all), and a networkx analysis
# (tests/python/installed/nx_centrality.py: by default, which records almost
# nothing and says so, and with --include-package networkx). Turns are
# interleaved; prints each variant's CPU time (user + system, so that other
# jobs on a shared machine do not count; median and min over the turns), its
# ratio to the plain run, and the calls recorded.
#
#   benchmark_run_installed.sh SCOPE_PROFILER [TURNS] [DIR]
#
# DIR defaults to networkx' own sources (python3-networkx), a 16 MB tree.
set -euo pipefail
sp=$1 turns=${2:-3}
dir=${3:-/usr/lib/python3/dist-packages/networkx}
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
nx=$here/../../tests/python/installed/nx_centrality.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A cmd
cmd[pyflakes]="$py -m pyflakes $dir"
cmd[pyflakes_run]="$sp run -q -o $work/pf.h5 $py -m pyflakes $dir"
cmd[pyflakes_all]="$sp run -q --all -o $work/pfall.h5 $py -m pyflakes $dir"
cmd[nx]="$py $nx 1500"
cmd[nx_run]="$sp run -q -o $work/nx.h5 $nx 1500"
cmd[nx_include]="$sp run -q --include-package networkx -o $work/nxi.h5 $nx 1500"
order=(pyflakes pyflakes_run pyflakes_all nx nx_run nx_include)
declare -A times
for ((t = 0; t < turns; t++)); do
  for k in "${order[@]}"; do
    # pyflakes exits 1 when it finds something: the status is not checked
    /usr/bin/time -f "%U %S" -o "$work/time" ${cmd[$k]} >/dev/null 2>&1 || true
    times[$k]+="$(tail -1 "$work/time" | awk '{print $1 + $2}') "
  done
done
calls() { "$sp" inspect "$1" | awk 'NR > 1 && $2 ~ /^[0-9]+$/ {n += $2} END {print n + 0}'; }
stat() { echo $1 | tr ' ' '\n' | sort -g | awk '{v[NR] = $1} END {printf "%.2f %.2f", v[int((NR + 1) / 2)], v[1]}'; }
printf "%-14s %10s %8s %7s %12s\n" variant "CPU s" "min s" ratio calls
for k in "${order[@]}"; do
  read -r med min <<<"$(stat "${times[$k]}")"
  base=${k%%_*}
  read -r bmed _ <<<"$(stat "${times[$base]}")"
  n=-
  case $k in
  pyflakes_run) n=$(calls "$work/pf.h5") ;;
  pyflakes_all) n=$(calls "$work/pfall.h5") ;;
  nx_run) n=$(calls "$work/nx.h5") ;;
  nx_include) n=$(calls "$work/nxi.h5") ;;
  esac
  printf "%-14s %10s %8s %7.2f %12s\n" "$k" "$med" "$min" "$(echo "$med / $bmed" | bc -l)" "$n"
done
