#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run benchmark_mpi_finalize for 2, 4 and 8 ranks with both MPI writers and
# print the table: sp_finalize time of the slowest rank and MB/s of call data
# (32 bytes per call, all ranks), the same without a file (gathering, merging
# and clock measurement only), and the ratio parallel / token of the
# finalize times (below 1: the parallel writer is faster).
#
#   run_benchmark_mpi_finalize.sh BENCHMARK [OUT_DIR] [CALLS_PER_RANK] [ROUNDS] [JOBS]
#
# Each (ranks, writer) pair runs JOBS jobs (default 3) of ROUNDS finalizes
# (default 3), the writers interleaved job by job so that a slow spell of the
# machine hits both; the table shows the median of the jobs' medians.
set -euo pipefail
bench=$1 dir=${2:-${TMPDIR:-/tmp}} calls=${3:-1000000} rounds=${4:-3} jobs=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$dir"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
printf '%-6s %-16s %9s %9s %12s %8s\n' ranks writer data_MB file_MB finalize_s MB/s
for np in 2 4 8; do
  declare -A times=() mb=() file=()
  for ((j = 0; j < jobs; j++)); do
    for writer in parallel token none; do
      env=(-x SCOPE_PROFILER_MPI_WRITER="${writer/none/parallel}")
      [ "$writer" = none ] && env+=(-x SCOPE_PROFILER_NO_FILE=1)
      line=$(mpirun --allow-run-as-root --oversubscribe -n "$np" "${env[@]}" \
        "$bench" "$dir/bench_mpi_$np.h5" "$calls" "$rounds" | grep '^benchmark_mpi_finalize:')
      times[$writer]+="$(field finalize_s <<<"$line") "
      mb[$writer]=$(field data_mb <<<"$line")
      file[$writer]=$(field file_mb <<<"$line")
    done
  done
  declare -A med=()
  for writer in parallel token none; do
    med[$writer]=$(tr ' ' '\n' <<<"${times[$writer]}" | grep . | median)
    name=$writer
    [ "$writer" = parallel ] && name=parallel-hdf5
    [ "$writer" = none ] && name="(no file)"
    printf '%-6s %-16s %9s %9s %12s %8.0f\n' "$np" "$name" "${mb[$writer]}" "${file[$writer]}" \
      "${med[$writer]}" "$(awk -v m="${mb[$writer]}" -v t="${med[$writer]}" 'BEGIN { print m / t }')"
  done
  awk -v p="${med[parallel]}" -v t="${med[token]}" -v n="$np" \
    'BEGIN { printf "%-6s %-16s %s\n", n, "ratio", sprintf("parallel/token = %.2f", p / t) }'
  unset times mb file med
  rm -f "$dir/bench_mpi_$np.h5"
done
