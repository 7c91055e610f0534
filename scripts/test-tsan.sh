#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ThreadSanitizer build of the recorder and its tests (threads recording,
# registering, finalizing; the streaming writer joins when it lands): any
# data race or lock-order report fails the run. A deliberate race (canary)
# must be reported first, or the run fails: TSan must really be there.
#   scripts/test-tsan.sh            (CI runs it from .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-tsan
jobs=$(nproc)
echo "== tsan build =="
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPE_PROFILER_SANITIZE_THREAD=ON \
  -DSCOPE_PROFILER_BUILD_EXAMPLES=OFF >/dev/null
tests=$(grep -ho 'sp_add_unit_test(recorder_[a-z_]*' tests/recorder/CMakeLists.txt | cut -d'(' -f2)
# shellcheck disable=SC2086
cmake --build "$dir" -j"$jobs" --target $tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66"
echo "== tsan canary =="
canary=$(mktemp -d)
trap 'rm -rf "$canary"' EXIT
cc -fsanitize=thread -g -O1 -o "$canary/canary" tests/tsan/canary.c -pthread
if "$canary/canary" >"$canary/out" 2>&1 || ! grep -q "ThreadSanitizer: data race" "$canary/out"; then
  echo "test-tsan: FAIL: the deliberate race in tests/tsan/canary.c was not reported"
  exit 1
fi
echo "canary race reported: TSan works"
echo "== tsan tests =="
# setarch -R: TSan's shadow memory needs the classic address layout on
# kernels with high mmap randomisation.
setarch "$(uname -m)" -R ctest --test-dir "$dir" -R '^recorder_' --output-on-failure -j"$jobs"
