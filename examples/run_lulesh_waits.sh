#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# LULESH 2.0 (https://github.com/LLNL/LULESH, not part of this repository)
# at 8 MPI ranks with scope-profiler's MPI messages (issue 23):
#
#   waits     the balanced run and an imbalanced variant (rank SLOW does the
#             element loop of CalcHourglassControlForElems FACTOR times: a
#             patch applied to a copy of lulesh.cc in OUT), functions traced
#             (scope-profiler run), then `scope-profiler waits` of each;
#   overhead  the cost of recording the messages: LULESH with its MPI calls
#             timed as regions (examples/mpi_autostart.c linked in,
#             SCOPE_PROFILER_MPI_MESSAGES=0) and with their messages too (=1),
#             REPS rounds interleaved (--with-none: also LULESH without any
#             profiler); LULESH's own "Grind time" per configuration, min and
#             median.
#
#   run_lulesh_waits.sh LULESH_DIR SP_BUILD_DIR OUT_DIR [waits|overhead|all]
#       [--reps N] [--size S] [--iters I] [--slow-rank R] [--factor F] [--with-none]
#
# Everything is built and written under OUT_DIR; LULESH_DIR is only read.
set -euo pipefail
lulesh=$(realpath "$1") build=$(realpath "$2") out=$3
what=${4:-all}
shift 3
[ $# -gt 0 ] && shift
reps=7 size=10 iters=200 slow=5 factor=16 configs="regions messages"
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --slow-rank) slow=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --with-none) configs="none regions messages"; shift ;;
    *) echo "run_lulesh_waits.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(realpath "$out")
src=$(cd "$(dirname "$0")" && pwd)
cli=$build/cli/scope-profiler
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --allow-run-as-root --oversubscribe -n 8)
instr="-finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc,/usr/local/include,.h,.inl,.tcc"
units="lulesh lulesh-comm lulesh-viz lulesh-util lulesh-init"

# The imbalanced variant: a copy of lulesh.cc whose element loop in
# CalcHourglassControlForElems runs SP_SLOW_FACTOR times on rank
# SP_SLOW_RANK (the loop only fills temporaries: the physics is the
# same, the rank is slower).
mkdir -p "$out/src"
cp -p "$lulesh"/*.cc "$lulesh"/*.h "$out/src/"
/usr/bin/python3 "$src/slow_rank_patch.py" "$out/src/lulesh.cc" '#include "lulesh.h"' \
  "void CalcHourglassControlForElems" "   /* start loop over elements */"

# Objects: plain and traced; executables: plain, with the MPI autostart,
# traced (for `scope-profiler run`).
for v in plain traced; do
  mkdir -p "$out/$v"
  flags=""
  [ $v = traced ] && flags=$instr
  for u in $units; do
    [ "$out/$v/$u.o" -nt "$out/src/$u.cc" ] ||
      mpicxx -DUSE_MPI=1 -O3 -g -I"$out/src" -w $flags -c "$out/src/$u.cc" -o "$out/$v/$u.o"
  done
done
mpicc -O2 -I"$src/../include" -c "$src/mpi_autostart.c" -o "$out/mpi_autostart.o"
mpicxx "$out"/plain/*.o -o "$out/lulesh_plain" -lm
mpicxx "$out"/plain/*.o "$out/mpi_autostart.o" -L"$build" -lscope_profiler_mpi \
  -Wl,-rpath,"$build" -o "$out/lulesh_mpi" -lm
mpicxx "$out"/traced/*.o -o "$out/lulesh_traced" -lm
opts=(-s "$size" -i "$iters" -q)

if [ "$what" = waits ] || [ "$what" = all ]; then
  variants=${VARIANTS:-balanced imbalanced}
  for variant in $variants; do
    f=$out/$variant.h5
    env_slow=()
    [ $variant = imbalanced ] && env_slow=(-x SP_SLOW_RANK="$slow" -x SP_SLOW_FACTOR="$factor")
    rm -f "$f"
    SCOPE_PROFILER_MPI_REGIONS=1 "${mpirun[@]}" -x SCOPE_PROFILER_MPI_REGIONS "${env_slow[@]}" \
      "$cli" run -o "$f" "$out/lulesh_traced" "${opts[@]}" >"$out/$variant.log" 2>&1
    "$cli" waits --pairs "$f" >"$out/$variant.waits.txt"
    echo "== $variant (slow rank $slow x$factor in the imbalanced run): $f"
    sed -n '1,12p' "$out/$variant.waits.txt"
  done
fi

if [ "$what" = overhead ] || [ "$what" = all ]; then
  echo "== overhead: ${reps} rounds of: $configs; interleaved (LULESH -s $size -i $iters, 8 ranks)"
  : >"$out/overhead.txt"
  for ((k = 1; k <= reps; k++)); do
    for cfg in $configs; do
      case $cfg in
        none) cmd=("${mpirun[@]}" "$out/lulesh_plain") ;;
        regions) cmd=("${mpirun[@]}" -x SCOPE_PROFILER_MPI_MESSAGES=0 -x SCOPE_PROFILER_FILE="$out/o.h5" "$out/lulesh_mpi") ;;
        messages) cmd=("${mpirun[@]}" -x SCOPE_PROFILER_MPI_MESSAGES=1 -x SCOPE_PROFILER_FILE="$out/o.h5" "$out/lulesh_mpi") ;;
      esac
      g=$("${cmd[@]}" -s "$size" -i "$iters" 2>&1 | sed -n 's/^Grind time (us\/z\/c) *= *\([0-9.]*\) .*/\1/p')
      echo "$cfg $g" >>"$out/overhead.txt"
      echo "  round $k $cfg: grind $g us/zone/cycle"
    done
  done
  /usr/bin/python3 "$src/overhead_summary.py" "$out/overhead.txt" "us/zone/cycle (grind)"
fi
