#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and run every test twice: a normal build, then ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test
jobs=$(nproc)
for variant in release asan; do
  dir=build-test-$variant
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  [ "$variant" = asan ] && flags+=(-DSCOPE_PROFILER_SANITIZE=ON)
  echo "== $variant build =="
  cmake -S . -B "$dir" "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs"
  echo "== $variant tests =="
  ctest --test-dir "$dir" --output-on-failure -j"$jobs"
done
