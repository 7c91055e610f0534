#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The kill test: kill_record records continuously and is killed with SIGKILL
# 2.5 s after sp_setup (every rank, under mpirun); the file it was given
# must then read with the C reader (check_killed), `scope-profiler summary`
# and h5py (SCHEMA.md's code), holding every call of "work" that had ended
# 1.5 s into the run on every rank (the default flush interval is 1 s).
#
#   run_kill_case.sh --record R --check C --cli S --python P --schema MD
#                    --dir DIR [--mpirun M --np N]
#
# Prints "kill case: ok" on success (ctest's pass expression).
set -u
mpirun= np=1
while [ $# -gt 0 ]; do
  case "$1" in
    --record) record=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --schema) schema=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    *) echo "FAIL: run_kill_case.sh: unknown argument $1"; exit 2 ;;
  esac
done
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
out=$dir/run.h5 log=$dir/record.log
if [ -n "$mpirun" ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  envs=()
  [ -n "${ASAN_OPTIONS:-}" ] && envs+=(-x ASAN_OPTIONS)
  "$mpirun" --allow-run-as-root --oversubscribe -n "$np" "${envs[@]}" "$record" "$out" >"$log" 2>&1
  rc=$?
else
  "$record" "$out" >"$log" 2>&1
  rc=$?
fi
cat "$log"
[ $rc -ne 0 ] || fail "the recording exited normally: it was not killed"
[ -n "$mpirun" ] || [ $rc -eq 137 ] || fail "exit status $rc, want 137 (SIGKILL)"

cps=()
for ((r = 0; r < np; r++)); do
  cp=$(sed -n "s/^rank $r: checkpoint 1.5 \([0-9]*\)$/\1/p" "$log" | head -1)
  [ -n "$cp" ] || fail "no checkpoint from rank $r"
  cps+=("$cp")
done
[ -f "$out" ] || fail "$out is missing"
ls -la "$dir"

"$check" "$out" "$np" "${cps[@]}" || fail "check_killed"

"$cli" summary "$out" >"$dir/summary.txt" 2>"$dir/summary.err"
rc=$?
cat "$dir/summary.txt" "$dir/summary.err"
[ $rc -eq 0 ] || fail "scope-profiler summary exited with $rc"
grep -q "work" "$dir/summary.txt" || fail "the summary does not show work"
grep -q "inner" "$dir/summary.txt" || fail "the summary does not show inner"

"$python" "$(dirname "$0")/check_killed_h5py.py" "$schema" "$out" "${cps[@]}" ||
  fail "h5py check"
echo "kill case: ok"
