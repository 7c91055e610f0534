#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the build into a temporary prefix, then build a downstream MPI
# program three ways (find_package shared and static, pkg-config
# scope-profiler-mpi with mpicc) and run each on 2 ranks: each must write
# one file with 2 ranks and 10 calls.
#
#   check_install_mpi.sh BUILD_DIR SOURCE_DIR MPIRUN
set -euo pipefail
build_dir=$1 src_dir=$2 mpirun=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$src_dir/tests/mpi/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="${SP_CONSUMER_CFLAGS:-}" >/dev/null
cmake --build "$work/consumer" >/dev/null
libdir=$(dirname "$(find "$work/prefix" -name 'libscope_profiler_mpi.so' | head -1)")
pcdir=$(dirname "$(find "$work/prefix" -name scope-profiler-mpi.pc | head -1)")
# The .pc file is relocatable: no --define-prefix needed.
mpicc ${SP_CONSUMER_CFLAGS:-} "$src_dir/tests/mpi/consumer/main.c" \
  $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs scope-profiler-mpi) -o "$work/pc_consumer"
# No LD_LIBRARY_PATH: the consumers must find the library by their runpath
# (CMake's, and the .pc's outside /usr).
unset LD_LIBRARY_PATH
: "$libdir"
for exe in consumer/consumer_mpi consumer/consumer_mpi_static pc_consumer; do
  out=$("$mpirun" --allow-run-as-root --oversubscribe -n 2 \
    "${env_args[@]}" "$work/$exe" "$work/$(basename $exe).h5")
  echo "$exe: $out"
  grep -q "consumer_mpi: 2 ranks, 10 calls" <<<"$out" || { echo "FAIL: $exe"; exit 1; }
done
echo "mpi install check: find_package shared+static and pkg-config consumers ok"
