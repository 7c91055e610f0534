#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One MPI test case: run mpi_record on NP ranks through mpirun, then check
# the merged file with the C reader (check_mpi_file) and with h5py from
# SCHEMA.md alone (check_mpi_h5py.py).
#
#   run_mpi_case.sh --mpirun M --np N --record R --check C --python P
#                   --schema SCHEMA.md --dir DIR --writer W
#                   [--env K=V]... [--check-arg A]... [--py-arg A]...
#                   [--expect-no-file] [--expect-streamed] [--no-mpirun]
#                   -- RECORD_ARGS...
#
# --expect-streamed: sp_finalize fails on purpose after the run streamed:
# no finished or temporary file, but the streamed file (main file and every
# rank's part) must hold every call.
#
# Prints "mpi case: ok" on success (ctest's pass expression).
set -u
envs=() check_args=() py_args=() expect_no_file=0 expect_streamed=0 no_mpirun=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mpirun) mpirun=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --schema) schema=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --writer) writer=$2; shift 2 ;;
    --env) envs+=(-x "$2"); shift 2 ;;
    --check-arg) check_args+=("$2"); shift 2 ;;
    --py-arg) py_args+=("$2"); shift 2 ;;
    --expect-no-file) expect_no_file=1; shift ;;
    --expect-streamed) expect_streamed=1; shift ;;
    --no-mpirun) no_mpirun=1; shift ;; # the MPI library without MPI at all
    --) shift; break ;;
    *) echo "FAIL: run_mpi_case.sh: unknown argument $1"; exit 2 ;;
  esac
done

fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
out=$dir/out.h5
# Open MPI refuses root without these; they are harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ASan builds: Open MPI's own allocations are reported as leaks at exit,
# which says nothing about our code (see tests/mpi/CMakeLists.txt).
[ -n "${ASAN_OPTIONS:-}" ] && envs+=(-x ASAN_OPTIONS)

log=$dir/mpirun.log
if [ $no_mpirun -eq 1 ]; then
  "$record" "$out" "$@" >"$log" 2>&1
else
  "$mpirun" --allow-run-as-root --oversubscribe -n "$np" "${envs[@]}" \
    "$record" "$out" "$@" >"$log" 2>&1
fi
rc=$?
cat "$log"
[ $rc -eq 0 ] || fail "mpirun exited with $rc"
for ((r = 0; r < np; r++)); do
  grep -q "^rank $r: " "$log" || fail "no line from rank $r"
done
grep -q "WRONG" "$log" && fail "a rank reported a wrong result"

if [ $expect_no_file -eq 1 ]; then
  [ -e "$out" ] && fail "$out exists after a failed write"
  left=$(ls "$dir" | grep -c '\.tmp\.' || true)
  [ "$left" -eq 0 ] || fail "temporary files left: $(ls "$dir")"
  echo "mpi case: ok"
  exit 0
fi

if [ $expect_streamed -eq 1 ]; then
  left=$(ls "$dir" | grep -c '\.tmp\.' || true)
  [ "$left" -eq 0 ] || fail "temporary files left: $(ls "$dir")"
  [ -f "$out" ] || fail "the streamed $out is gone"
  parts=$(ls "$dir" | grep -c '\.part$' || true)
  [ "$parts" -eq "$np" ] || fail "$parts parts next to $out, want $np"
  "$check" "$out" "$np" streamed "${check_args[@]}" || fail "check_mpi_file on the streamed file"
  echo "mpi case: ok"
  exit 0
fi

[ -f "$out" ] || fail "$out was not written"
"$check" "$out" "$np" "$writer" "${check_args[@]}" || fail "check_mpi_file"
"$python" "$(dirname "$0")/check_mpi_h5py.py" "$schema" "$out" "$np" "${py_args[@]}" ||
  fail "h5py check"
echo "mpi case: ok"
