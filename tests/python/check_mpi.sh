#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python module under mpirun with mpi4py (examples/python/mpi_sim.py,
# unchanged for MPI): one file with a rank<N> group for each of 4 ranks,
# h5py (on the Open MPI HDF5 flavour) in the same process, the file written at
# exit when the script never calls finalize(), and the serial build's
# fallback (SCOPE_PROFILER_MPI=0: one file per rank, never the same file),
# and `mpirun -n 2 scope-profiler run script.py` on a script without MPI code.
#   check_mpi.sh MPIRUN PYTHON CLI MPI_SIM UNEDITED_SCRIPT
set -uo pipefail
mpirun=$1 python=$2 cli=$3 sim=$4 unedited=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { "$mpirun" --allow-run-as-root --oversubscribe -n "$1" -x PYTHONPATH -x LD_PRELOAD \
          -x ASAN_OPTIONS -x PYTHONMALLOC -x SCOPE_PROFILER_MPI "${@:2}"; }
export SCOPE_PROFILER_MPI=${SCOPE_PROFILER_MPI:-}

cd "$work"
run 4 "$python" "$sim" "$work/mpi.h5" --steps 10 > out.txt 2> err.txt || { cat out.txt err.txt; fail "mpirun failed"; }
cat out.txt
grep -q "mpi sim: 4 ranks, .*timestep calls 40, groups \['rank0', 'rank1', 'rank2', 'rank3'\], HDF5 loaded: \[.*'openmpi'.*\]" out.txt \
  || fail "rank 0 did not read 4 rank groups back with h5py (python3-h5py-mpi: the Open MPI HDF5) in the recording process"
grep -q "RuntimeWarning" err.txt && { cat err.txt; fail "a RuntimeWarning"; }
"$cli" summary "$work/mpi.h5" > summary.txt || fail "summary failed"
grep -q "(4 ranks, " summary.txt || fail "summary: not 4 ranks"
"$cli" ranks "$work/mpi.h5" > ranks.txt || fail "ranks failed"
cat ranks.txt
for r in timestep compute halo_exchange allreduce; do
  grep -Eq "^$r +4/4 +10 " ranks.txt || fail "ranks: $r not on 4/4 ranks with 10 calls each"
done

run 4 "$python" "$sim" "$work/exit.h5" --steps 5 --no-finalize > out2.txt 2> err2.txt || { cat out2.txt err2.txt; fail "mpirun (no finalize) failed"; }
grep -q "finalized at exit" err2.txt || fail "no note about finalizing at exit"
"$cli" summary "$work/exit.h5" | grep -q "(4 ranks, " || fail "no-finalize: the file does not hold 4 ranks"

SCOPE_PROFILER_MPI=0 run 2 "$python" "$sim" "$work/serial.h5" --steps 3 --no-finalize > out3.txt 2> err3.txt || { cat out3.txt err3.txt; fail "mpirun (serial build) failed"; }
[ -e "$work/serial.h5" ] && fail "serial build under mpirun wrote the shared file"
for k in 0 1; do
  "$cli" summary "$work/serial.rank$k.h5" | grep -q "(1 rank)" || fail "serial build: no serial.rank$k.h5"
done
run 2 "$cli" run -q -o "$work/cli.h5" "$unedited" 3 > out4.txt 2> err4.txt || { cat out4.txt err4.txt; fail "mpirun scope-profiler run failed"; }
"$cli" summary "$work/cli.h5" > cli.txt || fail "summary of the run failed"
grep -q "(2 ranks, " cli.txt || { cat cli.txt; fail "mpirun -n 2 scope-profiler run: not one file with 2 ranks"; }
"$cli" ranks "$work/cli.h5" | grep -Eq "^__main__\.Solver\.step +2/2 +13 " \
  || fail "run under mpirun: __main__.Solver.step not 13 calls on each of 2/2 ranks"
echo "python mpi: ok"
