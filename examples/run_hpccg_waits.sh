#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HPCCG (Mantevo's conjugate-gradient mini-app, https://github.com/Mantevo/HPCCG,
# not part of this repository) on 4 MPI ranks with scope-profiler's MPI
# messages (issue 23): its halo exchange (MPI_Irecv, MPI_Send, MPI_Wait) and
# dot products (MPI_Allreduce), functions traced with `scope-profiler run`;
# a balanced run and an imbalanced variant in which rank SLOW computes its
# sparse matrix-vector product FACTOR times (a patch applied to a copy of
# HPC_sparsemv.cpp in OUT: the product is the same, the rank is slower);
# then `scope-profiler waits --pairs` of each.
#
#   run_hpccg_waits.sh HPCCG_DIR SP_BUILD_DIR OUT_DIR [--n N] [--slow-rank R] [--factor F]
set -euo pipefail
hpccg=$(realpath "$1") build=$(realpath "$2") out=$3
shift 3
n=40 slow=2 factor=4
while [ $# -gt 0 ]; do
  case $1 in
    --n) n=$2; shift 2 ;;
    --slow-rank) slow=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    *) echo "run_hpccg_waits.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out/src" "$out/obj"
out=$(realpath "$out")
src=$(cd "$(dirname "$0")" && pwd)
cli=$build/cli/scope-profiler
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cp -p "$hpccg"/*.cpp "$hpccg"/*.hpp "$out/src/"
/usr/bin/python3 "$src/slow_rank_patch.py" "$out/src/HPC_sparsemv.cpp" '#include "HPC_sparsemv.hpp"' \
  "int HPC_sparsemv" "#ifdef USING_OMP"
flags="-finstrument-functions -finstrument-functions-exclude-file-list=/usr/include,/usr/lib/gcc,/usr/local/include,.h,.inl,.tcc"
for f in "$out"/src/*.cpp; do
  o=$out/obj/$(basename "$f" .cpp).o
  [ "$o" -nt "$f" ] || mpicxx -DUSING_MPI -O3 -g -w $flags -c "$f" -o "$o"
done
mpicxx "$out"/obj/*.o -o "$out/test_HPCCG"
for variant in balanced imbalanced; do
  f=$out/$variant.h5
  slow_env=()
  [ $variant = imbalanced ] && slow_env=(-x SP_SLOW_RANK="$slow" -x SP_SLOW_FACTOR="$factor")
  rm -f "$f"
  (cd "$out" && SCOPE_PROFILER_MPI_REGIONS=1 mpirun --allow-run-as-root --oversubscribe -n 4 \
     -x SCOPE_PROFILER_MPI_REGIONS "${slow_env[@]}" "$cli" run -o "$f" ./test_HPCCG "$n" "$n" "$n" \
     >"$out/$variant.log" 2>&1)
  "$cli" waits --pairs "$f" >"$out/$variant.waits.txt"
  echo "== $variant (rank $slow x$factor in the imbalanced run): $f"
  sed -n '1,12p' "$out/$variant.waits.txt"
done
