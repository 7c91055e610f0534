#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the build into a temporary prefix, then build a downstream program
# three ways: find_package (shared and static) and pkg-config. Each must run
# and record its 5 calls into a real file.
set -euo pipefail
build_dir=$1 src_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$src_dir/tests/package/consumer" -B "$work/consumer" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="${SP_CONSUMER_CFLAGS:-}" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu" "$work/consumer/consumer" "$work/a.h5"
"$work/consumer/consumer_static" "$work/b.h5"
pcdir=$(dirname "$(find "$work/prefix" -name scope-profiler.pc | head -1)")
PKG_CONFIG_PATH=$pcdir cc ${SP_CONSUMER_CFLAGS:-} "$src_dir/tests/package/consumer/main.c" \
  $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs scope-profiler) -o "$work/pc_consumer"
LD_LIBRARY_PATH="$(dirname "$(find "$work/prefix" -name 'libscope_profiler.so' | head -1)")" "$work/pc_consumer" "$work/c.h5"
for f in a b c; do test -s "$work/$f.h5" || { echo "missing $f.h5"; exit 1; }; done
echo "install check: find_package shared+static and pkg-config consumers all recorded 5 calls"
