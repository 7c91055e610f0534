#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run benchmark_mpi_finalize for 2, 4 and 8 ranks and print the table:
# sp_finalize time of the slowest rank and MB/s of call data (32 bytes per
# call, all ranks) when the ranks' streamed parts are joined into the file,
# and the same without a file (gathering and merging in memory only).
#
#   run_benchmark_mpi_finalize.sh BENCHMARK [OUT_DIR] [CALLS_PER_RANK] [ROUNDS] [JOBS]
#
# Each (ranks, output) pair runs JOBS jobs (default 3) of ROUNDS finalizes
# (default 3), interleaved job by job so that a slow spell of the machine
# hits both; the table shows the median of the jobs' medians.
set -euo pipefail
bench=$1 dir=${2:-${TMPDIR:-/tmp}} calls=${3:-1000000} rounds=${4:-3} jobs=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$dir"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
printf '%-6s %-10s %9s %9s %12s %8s\n' ranks output data_MB file_MB finalize_s MB/s
for np in 2 4 8; do
  declare -A times=() mb=() file=()
  for ((j = 0; j < jobs; j++)); do
    for output in file none; do
      env=()
      [ "$output" = none ] && env+=(-x SCOPE_PROFILER_NO_FILE=1)
      line=$(mpirun --allow-run-as-root --oversubscribe -n "$np" "${env[@]}" \
        "$bench" "$dir/bench_mpi_$np.h5" "$calls" "$rounds" | grep '^benchmark_mpi_finalize:')
      times[$output]+="$(field finalize_s <<<"$line") "
      mb[$output]=$(field data_mb <<<"$line")
      file[$output]=$(field file_mb <<<"$line")
    done
  done
  for output in file none; do
    med=$(tr ' ' '\n' <<<"${times[$output]}" | grep . | median)
    name=$output
    [ "$output" = none ] && name="(no file)"
    printf '%-6s %-10s %9s %9s %12s %8.0f\n' "$np" "$name" "${mb[$output]}" "${file[$output]}" \
      "$med" "$(awk -v m="${mb[$output]}" -v t="$med" 'BEGIN { print m / t }')"
  done
  unset times mb file
  rm -f "$dir/bench_mpi_$np.h5"
done
