#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# benchmark_cpp_tracing.sh - what tracing a C++ mini-app costs: the same
# LULESH-shaped program (examples/cpp_domain/) built untraced, traced with
# the documented flags (scope_profiler_instrument() / pkg-config's
# instrument_cflags: functions defined in headers, the inline accessors,
# are skipped) and with plain -finstrument-functions (every accessor
# traced). Runs them in turns, REPEATS times, and prints each run's time of
# the steps and the ratios to the untraced run of the same turn, min and
# median. A benchmark, not a test: this machine is shared and noisy.
#
#   examples/benchmark_cpp_tracing.sh BUILD_DIR [EDGE] [STEPS] [REPEATS]
#   (defaults 40 20 7; OMP_NUM_THREADS is left as you set it)
set -euo pipefail
build=${1:?usage: benchmark_cpp_tracing.sh BUILD_DIR [EDGE] [STEPS] [REPEATS]}
edge=${2:-40} steps=${3:-20} repeats=${4:-7}
ex=$build/examples
for b in cpp_domain cpp_domain_traced cpp_domain_naive; do
  [ -x "$ex/$b" ] || { echo "missing $ex/$b (build the examples)"; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
secs() { "$ex/$1" "$edge" "$steps" "$work/$1.h5" | sed -n 's/.* steps in \([0-9.]*\) s.*/\1/p'; }
declare -a plain traced naive
for ((r = 0; r < repeats; r++)); do
  plain[r]=$(secs cpp_domain)
  traced[r]=$(secs cpp_domain_traced)
  naive[r]=$(secs cpp_domain_naive)
  printf 'turn %d: untraced %.4f s, traced (documented flags) %.4f s, plain -finstrument-functions %.4f s\n' \
    "$r" "${plain[r]}" "${traced[r]}" "${naive[r]}"
done
python3 - "$repeats" "${plain[@]}" "${traced[@]}" "${naive[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1]); v = [float(x) for x in sys.argv[2:]]
plain, traced, naive = v[:n], v[n:2 * n], v[2 * n:]
for label, xs in (("traced, documented flags", traced), ("plain -finstrument-functions", naive)):
    r = [a / b for a, b in zip(xs, plain)]
    print("%-30s ratio to untraced: min %.2f, median %.2f (over %d turns)"
          % (label, min(r), statistics.median(r), n))
print("untraced steps: min %.4f s, median %.4f s" % (min(plain), statistics.median(plain)))
PY
