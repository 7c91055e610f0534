#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HPCCG (Mantevo's conjugate-gradient mini-app, https://github.com/Mantevo/HPCCG,
# not part of this repository) on 4 MPI ranks with scope-profiler's MPI
# messages (issue 23): its halo exchange (MPI_Irecv, MPI_Send, MPI_Wait) and
# dot products (MPI_Allreduce).
#
#   waits     a balanced run and an imbalanced variant in which rank SLOW
#             computes its sparse matrix-vector product FACTOR times (a patch
#             applied to a copy of HPC_sparsemv.cpp in OUT: the product is the
#             same, the rank is slower), functions traced (scope-profiler
#             run), then `scope-profiler waits --pairs` of each;
#   overhead  the cost of recording the messages: HPCCG with its MPI calls
#             timed as regions (examples/mpi_autostart.c linked in,
#             SCOPE_PROFILER_MPI_MESSAGES=0) and with their messages too (=1),
#             REPS rounds interleaved; HPCCG's own total time, min and median.
#
#   run_hpccg_waits.sh HPCCG_DIR SP_BUILD_DIR OUT_DIR [waits|overhead|all]
#       [--n N] [--reps N] [--slow-rank R] [--factor F]
#
# Everything is built and written under OUT_DIR; HPCCG_DIR is only read.
set -euo pipefail
hpccg=$(realpath "$1") build=$(realpath "$2") out=$3
what=${4:-waits}
shift 3
[ $# -gt 0 ] && shift
n=40 reps=9 slow=2 factor=4
while [ $# -gt 0 ]; do
  case $1 in
    --n) n=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --slow-rank) slow=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    *) echo "run_hpccg_waits.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out/src" "$out/obj" "$out/plain"
out=$(realpath "$out")
src=$(cd "$(dirname "$0")" && pwd)
cli=$build/cli/scope-profiler
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --allow-run-as-root --oversubscribe -n 4)
cp -p "$hpccg"/*.cpp "$hpccg"/*.hpp "$out/src/"
/usr/bin/python3 "$src/slow_rank_patch.py" "$out/src/HPC_sparsemv.cpp" '#include "HPC_sparsemv.hpp"' \
  "int HPC_sparsemv" "#ifdef USING_OMP"
# Objects: traced (obj/) and plain (plain/); executables: traced, and plain
# with the MPI autostart.
instr="-finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc,/usr/local/include,.h,.inl,.tcc"
for f in "$out"/src/*.cpp; do
  b=$(basename "$f" .cpp)
  [ "$out/obj/$b.o" -nt "$f" ] || mpicxx -DUSING_MPI -O3 -g -w $instr -c "$f" -o "$out/obj/$b.o"
  [ "$out/plain/$b.o" -nt "$f" ] || mpicxx -DUSING_MPI -O3 -g -w -c "$f" -o "$out/plain/$b.o"
done
mpicxx "$out"/obj/*.o -o "$out/test_HPCCG"
mpicc -O2 -I"$src/../include" -c "$src/mpi_autostart.c" -o "$out/mpi_autostart.o"
mpicxx "$out"/plain/*.o "$out/mpi_autostart.o" -L"$build" -lscope_profiler_mpi \
  -Wl,-rpath,"$build" -o "$out/test_HPCCG_mpi"

if [ "$what" = waits ] || [ "$what" = all ]; then
  for variant in balanced imbalanced; do
    f=$out/$variant.h5
    slow_env=()
    [ $variant = imbalanced ] && slow_env=(-x SP_SLOW_RANK="$slow" -x SP_SLOW_FACTOR="$factor")
    rm -f "$f"
    (cd "$out" && SCOPE_PROFILER_MPI_REGIONS=1 "${mpirun[@]}" -x SCOPE_PROFILER_MPI_REGIONS \
       "${slow_env[@]}" "$cli" run -o "$f" ./test_HPCCG "$n" "$n" "$n" >"$out/$variant.log" 2>&1)
    "$cli" waits --pairs "$f" >"$out/$variant.waits.txt"
    echo "== $variant (rank $slow x$factor in the imbalanced run): $f"
    sed -n '1,12p' "$out/$variant.waits.txt"
  done
fi

if [ "$what" = overhead ] || [ "$what" = all ]; then
  echo "== overhead: $reps rounds of: regions messages; interleaved (HPCCG $n^3 per rank, 4 ranks)"
  : >"$out/overhead.txt"
  for ((k = 1; k <= reps; k++)); do
    for cfg in regions messages; do
      m=0
      [ $cfg = messages ] && m=1
      # HPCCG prints "Time Summary:" then "  Total   : SECONDS".
      t=$(cd "$out" && "${mpirun[@]}" -x SCOPE_PROFILER_MPI_MESSAGES=$m \
            -x SCOPE_PROFILER_FILE="$out/o.h5" ./test_HPCCG_mpi "$n" "$n" "$n" 2>&1 |
          sed -n '/^Time Summary:/{n;s/^ *Total *: *\([0-9.e+-]*\).*/\1/p}')
      echo "$cfg $t" >>"$out/overhead.txt"
      echo "  round $k $cfg: $t s"
    done
  done
  rm -f "$out"/hpccg-*.yaml
  /usr/bin/python3 "$src/overhead_summary.py" "$out/overhead.txt" "s (HPCCG total time)"
fi
