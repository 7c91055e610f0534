#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real strong-scaling study: examples/scaling_mpi under mpirun on 1, 2 and
# 4 ranks (libscope_profiler_mpi), then `scope-profiler scaling`. On this
# 2-core machine 4 ranks oversubscribe, so the regions' work is waiting
# (nanosleep), which divides over ranks however many cores there are:
# "divided" must keep efficiency near 1, "replicated" (every rank does all
# of it) must fall to near 1/N. Few, long sleeps (2 per region): a busy machine
# delays each wake-up by milliseconds, which must stay small against the
# work. Also the CSV and the chart.
#
#   check_scaling_mpi.sh MPIRUN SCALING_MPI SCOPE_PROFILER DIR
set -u
mpirun=$1 exe=$2 cli=$3 dir=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)
for n in 1 2 4; do
  "$mpirun" --allow-run-as-root --oversubscribe -n $n "${env_args[@]}" "$exe" "$dir/ranks$n.h5" \
    --work-ms 2400 --iters 2 || fail "scaling_mpi on $n ranks exited with $?"
done
out=$("$cli" scaling "$dir/ranks4.h5" "$dir/ranks1.h5" "$dir/ranks2.h5") || fail "scaling exited $?"
echo "$out"
grep -q '^scaling: strong, 3 runs, 1 to 4 ranks' <<<"$out" || fail "no header"
csv=$("$cli" scaling --csv - "$dir"/ranks*.h5) || fail "scaling --csv exited $?"
echo "$csv"
[ "$(head -1 <<<"$csv")" = "region,ranks,time_mean_s,time_max_s,speedup,efficiency" ] || fail "csv header"
# efficiency of region $1 at $2 ranks within [$3, $4]
check_eff() {
  local e
  e=$(awk -F, -v r="$1" -v n="$2" '$1 == r && $2 == n { print $6 }' <<<"$csv")
  [ -n "$e" ] || fail "no row for $1 at $2 ranks"
  awk -v e="$e" -v lo="$3" -v hi="$4" 'BEGIN { exit !(e >= lo && e <= hi) }' ||
    fail "$1 at $2 ranks: efficiency $e not in [$3, $4]"
  echo "efficiency $1 at $2 ranks: $e (expected $3..$4)"
}
check_eff divided 2 0.85 1.1
check_eff divided 4 0.80 1.1
check_eff replicated 2 0.40 0.60
check_eff replicated 4 0.18 0.32
grep -q '^Stop scaling .*replicated (at 2 ranks: 0\.[45]' <<<"$out" || fail "replicated not named as stopping"
grep -q '^Stop scaling .*divided' <<<"$out" && fail "divided named as stopping"
"$cli" plot scaling "$dir"/ranks1.h5 "$dir"/ranks2.h5 "$dir"/ranks4.h5 -o "$dir/plots" >/dev/null ||
  fail "plot scaling exited $?"
[ -s "$dir/plots/scaling.png" ] || fail "no scaling.png"
echo "scaling mpi: ok"
