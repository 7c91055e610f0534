#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kill a program during sp_finalize TRIALS times (SIGKILL at a random point
# of finalize), then run it once more to the end: no stale temporary of the
# target is left. A live process's temporary, a symbolic link with a stale
# name and the killed runs' parts are left alone.
#   run_finalize_kill.sh PROGRAM TRIALS
set -u
prog=$1 trials=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"; [ -n "${live:-}" ] && kill "$live" 2>/dev/null' EXIT
path=$dir/run.h5
stale=0 killed=0
for ((i = 0; i < trials; i++)); do
  rm -f "$dir/out"
  "$prog" record "$path" >"$dir/out" 2>&1 &
  pid=$!
  while ! grep -q finalizing "$dir/out" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do
    sleep 0.01
  done
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
  wait "$pid" 2>/dev/null
  n=$(find "$dir" -maxdepth 1 -name 'run.h5.tmp.*' | wc -l)
  stale=$((stale + (n > 0 ? 1 : 0)))
done
left=$(find "$dir" -maxdepth 1 -name 'run.h5.tmp.*' | wc -l)
echo "$trials trials, $killed killed during finalize, a temporary left after $stale of them, $left now"
# What must survive: a temporary of a live process (this host), a symlink
# with a stale name (never followed, never removed), an unrelated name.
sleep 60 &
live=$!
live_tmp=$("$prog" tmpname "$path" "$live")
touch "$live_tmp"
echo victim >"$dir/victim"
dead=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
kill -0 "$dead" 2>/dev/null && dead=$((dead - 1))
link_tmp=$("$prog" tmpname "$path" "$dead")
ln -s "$dir/victim" "$link_tmp"
touch "$path.tmp.not-ours"
"$prog" record "$path" >"$dir/out" 2>&1 || { cat "$dir/out"; echo "FAIL: the last run failed"; exit 1; }
bad=0
for f in "$dir"/run.h5.tmp.*; do
  case "$f" in
    "$live_tmp"|"$link_tmp"|"$path.tmp.not-ours") ;;
    *) echo "FAIL: stale temporary left: $f"; bad=1 ;;
  esac
done
[ -f "$live_tmp" ] || { echo "FAIL: a live process's temporary was removed"; bad=1; }
[ -L "$link_tmp" ] || { echo "FAIL: the symbolic link was removed"; bad=1; }
[ "$(cat "$dir/victim")" = victim ] || { echo "FAIL: the link's target changed"; bad=1; }
[ -f "$path.tmp.not-ours" ] || { echo "FAIL: an unrelated file was removed"; bad=1; }
[ -f "$path" ] || { echo "FAIL: no finished file"; bad=1; }
[ "$killed" -gt 0 ] || { echo "FAIL: no run was killed during finalize"; bad=1; }
[ "$bad" = 0 ] && echo "finalize kill: ok"
