#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `mpirun -n N scope-profiler VERB RUN` (the MPI helper, cli/mpi/cli_mpi.c)
# prints exactly what `scope-profiler VERB RUN` prints: stdout byte for
# byte, nothing on stderr, the same exit status. Runs: a real MPI program
# (examples/halo_mpi on 4 ranks, recorded under mpirun), a generated
# many-rank file (gen_big_run ranks), a one-rank run read by 3 processes
# (more processes than ranks), a killed recording, and a Python package MPI file (calls, not
# events: read whole in every process). Verbs: summary, ranks, inspect,
# report -o - (with and without a rank selection, and comparing two runs),
# check (each process reads its share of both runs' ranks: halo_mpi
# recordings one and two per side, a regression with exit status 1, lists of runs per side,
# inclusive time). A missing file and a file with damaged events in one
# rank are reported once with the serial status and message (summary and
# check); a command built without the helper says so once and prints the
# serial output.
#
#   check_mpi_cli.sh MPIRUN SCOPE_PROFILER HALO_MPI GEN_BIG_RUN PY_MPI_FILE
set -u
mpirun=$1 cli=$2 halo=$3 gen=$4 pympi=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under ASan, Open MPI's allocations live to exit: the processes under
# mpirun get ASAN_OPTIONS (detect_leaks=0, from ctest); the serial command
# keeps leak checking.
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)
mpi() { "$mpirun" --allow-run-as-root --oversubscribe -n "$@"; }

for h in halo halo2 halo3 halo4; do
  mpi 4 "${env_args[@]}" "$halo" "$work/$h.h5" 30 >"$work/rec.txt" 2>&1 ||
    { cat "$work/rec.txt"; fail "halo_mpi on 4 ranks"; }
done
"$gen" ranks "$work/many.h5" 96 60 >/dev/null || fail "gen_big_run ranks"
# the same program doing twice the time steps: every region slower per rank
"$gen" ranks "$work/many2.h5" 96 120 >/dev/null || fail "gen_big_run ranks 120"
"$gen" record "$work/one.h5" 20000 2 >/dev/null || fail "gen_big_run record"
cp "$pympi" "$work/py.h5"

# both NAME N ARGS...: the command alone and under mpirun -n N, outputs in
# $work/NAME.{serial,mpi}[.err], statuses in want and got
both() {
  local name=$1 n=$2
  shift 2
  env -u ASAN_OPTIONS "$cli" "$@" >"$work/$name.serial" 2>"$work/$name.serial.err"
  want=$?
  mpi "$n" "${env_args[@]}" "$cli" "$@" >"$work/$name.mpi" 2>"$work/$name.mpi.err"
  got=$?
  cases=$((cases + 1))
}

# What the command itself wrote on stderr: without mpirun's blocks about a
# non-zero status, nor (under ASan) the leak checker's list of the
# suppressions it used, which only the serial command checks (both between
# lines of dashes, the checker's followed by an empty line).
own_stderr() {
  awk '/^--------------------+$/ { inside = !inside; after = !inside; next }
       after && $0 == "" { after = 0; next } { after = 0 } !inside' "$1"
}

# same NAME N ARGS...: serial vs N processes: the same stdout and status,
# and on stderr what the command alone writes there (nothing unless the
# status says a verdict, as check's 1)
cases=0
same() {
  local name=$1 n=$2
  both "$@"
  [ $got -eq $want ] || { cat "$work/$name.mpi.err"; fail "$name: exit $got under mpirun -n $n, $want alone"; }
  [ -s "$work/$name.serial" ] || fail "$name: no output ($want)"
  cmp -s "$work/$name.serial" "$work/$name.mpi" ||
    { diff "$work/$name.serial" "$work/$name.mpi" | head -20; fail "$name: output differs under mpirun -n $n"; }
  cmp -s <(own_stderr "$work/$name.serial.err") <(own_stderr "$work/$name.mpi.err") ||
    { cat "$work/$name.mpi.err"; fail "$name: stderr under mpirun -n $n differs from the command's alone"; }
}

for n in 2 3; do
  for run in halo many py; do
    f=$work/$run.h5
    same "summary_${run}_$n" $n summary "$f"
    same "ranks_${run}_$n" $n ranks "$f"
    same "inspect_${run}_$n" $n inspect "$f"
    same "report_${run}_$n" $n report -o - "$f"
  done
  same "report_sel_$n" $n report -r 1-2,5 -o - "$work/many.h5"
  same "ranks_region_$n" $n ranks --region compute "$work/many.h5"
  same "ranks_sel_$n" $n ranks --ranks 3-7,40 "$work/many.h5"
done
same summary_halo_4 4 summary "$work/halo.h5"
same ranks_many_4 4 ranks "$work/many.h5"
# more processes than ranks: some read nothing
same summary_one_3 3 summary "$work/one.h5"
same report_one_3 3 report -o - "$work/one.h5"
# a killed recording (the incomplete run's note counts the open calls of
# the share that read them): killed once its file reads
"$gen" record "$work/killed.h5" 2000000000 2 >/dev/null &
recorder=$!
for _ in $(seq 300); do
  sleep 0.1
  env -u ASAN_OPTIONS "$cli" summary "$work/killed.h5" >/dev/null 2>&1 && break
done
kill -9 $recorder
wait $recorder 2>/dev/null
same summary_killed_2 2 summary "$work/killed.h5"
grep -q "Incomplete run" "$work/summary_killed_2.serial" || fail "the killed run reads as complete"
same summary_killed_3 3 summary "$work/killed.h5"
# check: every process reads its share of both runs' ranks (the
# comparisons read aggregate-first); the verdict and status are the
# command's alone
for n in 2 3; do
  same "check_same_$n" $n check "$work/many.h5" "$work/many.h5"
  same "check_halo_$n" $n check "$work/halo.h5" "$work/halo2.h5"
  same "check_slower_$n" $n check "$work/many.h5" "$work/many2.h5"
  [ $want -eq 1 ] || fail "check_slower_$n: exit $want for a run twice as long"
  same "check_lists_$n" $n check --base "$work/halo.h5" "$work/halo2.h5" \
    --cand "$work/halo3.h5" "$work/halo4.h5"
  same "check_inclusive_$n" $n check --inclusive -r 5 "$work/halo2.h5" "$work/halo.h5"
  same "report_compare_$n" $n report -o - "$work/halo.h5" "$work/halo2.h5"
done
same check_halo_4 4 check "$work/halo.h5" "$work/halo2.h5"
# the report names its output file on stdout; the file is the same too
(cd "$work" && "$cli" report -o serial.html many.h5 >/dev/null) || fail "report to a file"
(cd "$work" && mpi 2 "${env_args[@]}" "$cli" report -o mpi.html many.h5 >/dev/null) ||
  fail "report to a file under mpirun"
cmp -s "$work/serial.html" "$work/mpi.html" || fail "report file differs under mpirun -n 2"

# failing NAME N ARGS...: the serial status and stderr line, the line once
# under mpirun (which adds its own lines about the status), no output
failing() {
  local name=$1 n=$2
  both "$@"
  [ $want -ne 0 ] && [ $got -eq $want ] || fail "$name: exit $got under mpirun -n $n, $want alone"
  [ -s "$work/$name.mpi" ] && fail "$name: output on stdout"
  local msg
  msg=$(cat "$work/$name.serial.err")
  [ "$(grep -cxF -- "$msg" "$work/$name.mpi.err")" = 1 ] ||
    { cat "$work/$name.mpi.err"; fail "$name: '$msg' not reported exactly once"; }
}
failing missing_3 3 summary "$work/nope.h5"
failing check_missing_3 3 check "$work/many.h5" "$work/nope.h5"
# Damaged event blocks of one rank: the process that reads it fails (its
# message reaches rank 0's stderr as the serial command's); 30 % into the
# file a rank of the first process's share, 80 % one of the second's.
"$gen" ranks "$work/eight.h5" 8 200000 >/dev/null || fail "gen_big_run ranks 8"
for pct in 30 80; do
  cp "$work/eight.h5" "$work/damaged$pct.h5"
  size=$(stat -c %s "$work/damaged$pct.h5")
  printf '\xff%.0s' $(seq 512) |
    dd of="$work/damaged$pct.h5" bs=1 seek=$((size * pct / 100)) conv=notrunc status=none
  failing "damaged${pct}_2" 2 summary "$work/damaged$pct.h5"
  failing "check_damaged${pct}_2" 2 check "$work/eight.h5" "$work/damaged$pct.h5"
done

# A command without the helper beside it (a build without MPI): rank 0
# says so once and prints the serial output; the other ranks print nothing.
mkdir -p "$work/bin" && cp "$cli" "$work/bin/scope-profiler"
mpi 2 "${env_args[@]}" "$work/bin/scope-profiler" summary "$work/many.h5" \
  >"$work/nohelper.out" 2>"$work/nohelper.err" || fail "no helper: exit $?"
cmp -s "$work/summary_many_2.serial" "$work/nohelper.out" || fail "no helper: output differs"
[ "$(grep -c 'built without MPI' "$work/nohelper.err")" = 1 ] ||
  { cat "$work/nohelper.err"; fail "no helper: not said once"; }

echo "mpi cli: $cases cases as the command alone"
echo "mpi cli: ok"
