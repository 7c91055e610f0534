#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A real hybrid MPI + OpenMP run (tests/formats/hybrid_halo.c: halo exchange
# with MPI regions, the sweep on 2 OpenMP threads per rank) on 4 ranks,
# exported to OTF2, Perfetto and Caliper json-split and read back by each
# format's own reader (check_*.py): 4 location groups and 8 locations with
# Enter/Leave per call in OTF2, 4 process and 8 thread tracks in Perfetto,
# one json-split row per (path, rank) with summary's times.
#
#   run_hybrid_mpi.sh MPIRUN HYBRID_HALO CLI PYTHON3 PROTO
set -u
mpirun=$1 exe=$2 cli=$3 py=$4 proto=$5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2
# Open MPI's own allocations live to exit (LeakSanitizer reports them in
# an ASan build): leaks are checked in the CLI, not in the MPI program.
env_args=(-x OMP_NUM_THREADS -x ASAN_OPTIONS)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
"$mpirun" --allow-run-as-root --oversubscribe -n 4 "${env_args[@]}" "$exe" "$work/h.h5" 40 \
  >"$work/run.txt" 2>&1 || { cat "$work/run.txt"; fail "hybrid_halo on 4 ranks"; }
"$cli" summary "$work/h.h5" | head -12
"$py" "$here/check_otf2.py" "$cli" "$work/h.h5" "$work/otf2" --groups 4 --locations 8 \
  || fail "otf2"
"$py" "$here/check_perfetto.py" "$cli" "$work/h.h5" "$work/pf" "$proto" || fail "perfetto"
"$py" "$here/check_caliper.py" "$cli" "$work/h.h5" "$work/cal" || fail "caliper-json"
echo "hybrid mpi formats: ok"
