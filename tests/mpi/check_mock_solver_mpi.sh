#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End to end: the MPI example on 4 ranks (shared libscope_profiler_mpi,
# MPI call regions on), then the CLI on its file.
#
#   check_mock_solver_mpi.sh MPIRUN MOCK_SOLVER_MPI SCOPE_PROFILER DIR
set -u
mpirun=$1 exe=$2 cli=$3 dir=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)
out=$("$mpirun" --allow-run-as-root --oversubscribe -n 4 "${env_args[@]}" "$exe" "$dir/run.h5" 2>&1) ||
  fail "mock_solver_mpi exited with $?: $out"
echo "$out"
# One summary (rank 0's), of all 4 ranks, with the MPI call under residual.
[ "$(grep -c 'Summary: ' <<<"$out")" = 1 ] || fail "expected exactly one summary"
grep -q "Summary: .*run.h5 (4 ranks, wall-clock span [0-9.]* s)" <<<"$out" ||
  fail "summary does not say 4 ranks and the wall-clock span"
# the rank rule: per rank (3 calls on each rank), mean and max columns
grep -q "│ │ │ └─ MPI_Allreduce (3x)  *[0-9.]*  [0-9.]*" <<<"$out" ||
  fail "MPI_Allreduce (3x per rank, mean and max) not under residual"
grep -q "time per rank, 4 ranks" <<<"$out" || fail "summary table is not per rank"
ranks=$("$cli" ranks "$dir/run.h5") || fail "scope-profiler ranks failed"
echo "$ranks"
for region in main solve assemble_matrix apply_bc residual MPI_Allreduce setup; do
  grep -Eq "^$region +4/4 " <<<"$ranks" || fail "ranks: no 4/4 row for $region"
done
"$cli" inspect --ranks 1-2 "$dir/run.h5" | grep -Eq "^solve +3 " || fail "inspect --ranks 1-2"
"$cli" inspect --ranks 1 "$dir/run.h5" | grep -Eq "^Ranks: +1 of 4" || fail "inspect --ranks 1: Ranks: 1 of 4"
echo "mock solver mpi: ok"
