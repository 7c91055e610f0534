#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stale parts of an aborted MPI run, and one run per path (issues 21 and 22):
#  1. a 3-rank job whose rank 1 calls MPI_Abort leaves run.h5 and its three
#     parts (run.h5.rank<N>.part);
#  2. while a process holds the run's lock on a fourth part (as a live run
#     of another job would), a 2-rank job records to the same path: it
#     finishes with every call, removes the aborted job's parts (rank 2's,
#     which no rank of its own replaces, too) and keeps the live one;
#  3. two 2-rank jobs at once on one path: the second takes its own name
#     (run.pid<pid>.h5, rank 0's pid for every rank), and both files hold
#     every call (check_mpi_file).
#   check_abort_stale_parts.sh MPIRUN MPI_RECORD CHECK_MPI_FILE PYTHON DIR
# Prints "abort stale parts: ok".
set -u
mpirun=$1 record=$2 check=$3 python=$4 dir=$5
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
envs=()
[ -n "${ASAN_OPTIONS:-}" ] && envs+=(-x ASAN_OPTIONS)
run_mpi() { "$mpirun" --allow-run-as-root --oversubscribe "${envs[@]}" "$@"; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
path=$dir/run.h5

# 1. The aborted job.
run_mpi -n 3 "$record" "$path" --abort-rank 1 >"$dir/abort.log" 2>&1
rc=$?
cat "$dir/abort.log" | grep -v "^\[" | head -20
[ $rc -ne 0 ] || fail "the aborted job exited 0"
for r in 0 1 2; do
  [ -f "$path.rank$r.part" ] || fail "the aborted job left no $path.rank$r.part"
done
echo "aborted job left: $(cd "$dir" && ls)"

# 2. A live part held by another process (Python: a POSIX read lock on the
#    run's lock byte, as sp_h5_v2_claim.c takes it), then the next job.
live=$path.rank5.part
echo live >"$live"
"$python" - "$live" "$dir/holder.ready" <<'EOF' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.lockf(fd, fcntl.LOCK_SH, 1, 1 << 62)
open(sys.argv[2], "w").close()
time.sleep(120)
EOF
holder=$!
trap 'kill $holder 2>/dev/null' EXIT
for _ in $(seq 100); do [ -f "$dir/holder.ready" ] && break; sleep 0.1; done
[ -f "$dir/holder.ready" ] || fail "the lock holder did not start"
run_mpi -n 2 "$record" "$path" >"$dir/next.log" 2>&1 || { cat "$dir/next.log"; fail "the next job failed"; }
"$check" "$path" 2 mpi >"$dir/check.log" 2>&1 || { cat "$dir/check.log"; fail "check_mpi_file (next job)"; }
echo "after the next job: $(cd "$dir" && ls | grep -v holder)"
for r in 0 1 2; do
  [ ! -e "$path.rank$r.part" ] || fail "$path.rank$r.part (the aborted job's) is still there"
done
[ -f "$live" ] || fail "the live part $live was removed"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
rm -f "$live" "$dir/holder.ready"

# 3. Two jobs at once on one path.
rm -f "$path"
run_mpi -n 2 "$record" "$path" --hold 3 >"$dir/first.log" 2>&1 &
first=$!
for _ in $(seq 200); do [ -f "$path.rank1.part" ] && break; sleep 0.05; done
[ -f "$path.rank1.part" ] || fail "the first job's parts did not appear"
run_mpi -n 2 "$record" "$path" >"$dir/second.log" 2>&1 || { cat "$dir/second.log"; fail "the second job failed"; }
wait $first || { cat "$dir/first.log"; fail "the first job failed"; }
other=$(cd "$dir" && ls run.pid*.h5 2>/dev/null | head -1)
[ -n "$other" ] || fail "the second job wrote no run.pid<pid>.h5: $(ls "$dir")"
"$check" "$path" 2 mpi >"$dir/check1.log" 2>&1 || { cat "$dir/check1.log"; fail "check_mpi_file (first job)"; }
"$check" "$dir/$other" 2 mpi >"$dir/check2.log" 2>&1 || { cat "$dir/check2.log"; fail "check_mpi_file (second job, $other)"; }
"$python" - "$dir/$other" <<'EOF' || fail "the second job's file does not say why"
import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    note = f["metadata"].attrs["path_in_use"]
    print("path_in_use:", note)
    assert "run.h5" in note and "run.pid" in note
EOF
left=$(cd "$dir" && ls | grep -c '\.part' || true)
[ "$left" = 0 ] || fail "parts left: $(ls "$dir")"
echo "two jobs at once: $path and $dir/$other, every call in each"
echo "abort stale parts: ok"
