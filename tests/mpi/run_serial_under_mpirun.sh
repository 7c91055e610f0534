#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The serial library under `mpirun -n NP`: NP files name.rank<N>.h5, every
# rank's calls in its own, exit 0, the reason announced once (rank 0's
# verbose finalize). Usage: run_serial_under_mpirun.sh MPIRUN NP PROGRAM
set -u
mpirun=$1 np=$2 prog=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpirun" --allow-run-as-root --oversubscribe -n "$np" "$prog" record "$dir" >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
[ "$rc" = 0 ] || { echo "FAIL: mpirun exited $rc"; exit 1; }
notes=$(grep -c "serial library (libscope_profiler) ran under an MPI launcher" "$dir/out")
[ "$notes" = 1 ] || { echo "FAIL: the misuse was announced $notes times, expected once"; exit 1; }
"$prog" check "$dir" "$np" || { echo "FAIL: the per-rank files"; exit 1; }
echo "serial under mpirun: ok ($np ranks, $np files)"
