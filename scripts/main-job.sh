#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install dependencies, build, profile the bundled mock solver,
# print its summary and leave its results in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p out
echo
echo "== Profiling examples/mock_solver.c =="
./build/examples/mock_solver out/profiling_data.h5
echo
echo "== scope-profiler inspect out/profiling_data.h5 =="
./build/cli/scope-profiler inspect out/profiling_data.h5
echo
echo "== Charts and report =="
./build/cli/scope-profiler plot default out/profiling_data.h5 -o out/plots
./build/cli/scope-profiler report out/profiling_data.h5 -o out/report.html
echo
echo "Results: out/profiling_data.h5 (the run), out/plots/*.png, out/report.html"
echo "Open the run in the viewer: ./build/viewer/scope-profiler-viewer out/profiling_data.h5"
