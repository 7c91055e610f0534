#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A weak-scaling study, end to end: examples/lulesh_proxy_mpi (each rank has
# the same elements, as LULESH: its metadata says elements_per_rank and the
# growing elements) under mpirun on 1, 2 and 3 ranks. `scaling`, `plot
# scaling` and the report must detect weak scaling from that metadata, say
# why, and label the scaled speedup; --strong overrides it and says the
# metadata disagrees. Times are not judged (a loaded machine moves them):
# only what each surface calls the study.
#
#   check_weak_mpi.sh MPIRUN LULESH_PROXY_MPI SCOPE_PROFILER DIR
set -u
mpirun=$1 exe=$2 cli=$3 dir=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)
for n in 1 2 3; do
  "$mpirun" --allow-run-as-root --oversubscribe -n $n "${env_args[@]}" "$exe" -o "$dir/r$n.h5" \
    --size 8 --steps 10 >/dev/null || fail "lulesh_proxy_mpi on $n ranks exited with $?"
done
runs=("$dir/r3.h5" "$dir/r1.h5" "$dir/r2.h5")
out=$("$cli" scaling "${runs[@]}") || fail "scaling exited $?"
echo "$out" | head -4
grep -q '^scaling: weak, 3 runs, 1 to 3 ranks' <<<"$out" || fail "scaling: not weak"
grep -q "^weak scaling: detected: metadata 'elements" <<<"$out" || fail "scaling: no reason"
grep -q 'scaled speedup' <<<"$out" || fail "scaling: speedup not labelled scaled"
out=$("$cli" scaling --strong "${runs[@]}") || fail "scaling --strong exited $?"
grep -q '^scaling: strong' <<<"$out" || fail "--strong ignored"
grep -q 'asked (the metadata suggests otherwise' <<<"$out" || fail "--strong: no disagreement said"
# The chart's title and panel come from the same study (its text is drawn
# as glyphs: tests/compare/test_compare_charts.c and the README's picture).
"$cli" plot scaling "${runs[@]}" -o "$dir/plots" >/dev/null || fail "plot scaling exited $?"
[ -s "$dir/plots/scaling.png" ] || fail "no scaling.png"
"$cli" report "${runs[@]}" -o "$dir/report.html" >/dev/null || fail "report exited $?"
grep -q 'Weak scaling over 3 runs (1 to 3 ranks; detected: metadata' "$dir/report.html" ||
  fail "report: not weak"
grep -q '<th>Scaled speedup</th>' "$dir/report.html" || fail "report: no scaled speedup column"
"$cli" report --strong "${runs[@]}" -o "$dir/strong.html" >/dev/null || fail "report --strong"
grep -q 'Strong scaling over 3 runs' "$dir/strong.html" || fail "report --strong: not strong"
echo "weak scaling: ok"
