#!/bin/sh
# SPDX-License-Identifier: MIT
# `scope-profiler summary --follow` against a program that is recording:
# started before the file exists (it waits), it prints a new summary as calls
# arrive (stdout is not a terminal), ends by itself when the run completes,
# and its last summary has the final call count (the one the program printed
# and the completed file holds).
#
# usage: run_summary_follow.sh CLI LIVE_DEMO
set -u
cli=$1 demo=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
run="$work/live.h5"
fail() { echo "summary_follow: FAIL: $*" >&2; exit 1; }

"$cli" summary --follow --interval 0.3 "$run" >"$work/follow.out" 2>"$work/follow.err" &
follow_pid=$!
sleep 0.5
"$demo" "$run" 5 100 0.2 >"$work/demo.out" 2>&1 || fail "live_demo failed: $(cat "$work/demo.out")"
# The follower must end by itself once the file says complete.
i=0
while kill -0 "$follow_pid" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -le 600 ] || { kill "$follow_pid"; fail "summary --follow did not end after the run completed"; }
    sleep 0.1
done
wait "$follow_pid" || fail "summary --follow exited with $?: $(cat "$work/follow.err")"
grep -q "waiting for .* to appear" "$work/follow.err" || fail "no 'waiting' message before the file existed"
final=$(sed -n 's/^live_demo: [0-9]* steps (\([0-9]*\) calls).*/\1/p' "$work/demo.out")
[ -n "$final" ] || fail "live_demo printed no call count"
headers=$(grep -c "^following $run: " "$work/follow.out")
progress=$(grep -c "^following $run: in progress, " "$work/follow.out")
last=$(grep "^following $run: " "$work/follow.out" | tail -n 1)
echo "$last"
case "$last" in
"following $run: run complete, $final calls, "*) ;;
*) fail "the last summary is not the complete run with $final calls: $last" ;;
esac
[ "$progress" -ge 1 ] || fail "no summary while the run was in progress"
# Not a terminal: a summary only when the count changed, so no two in a row agree.
dups=$(grep "^following $run: " "$work/follow.out" | sed 's/, updated.*//' | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "the same call count was printed twice in a row"
# The last summary is the finished run's: its table is there too.
tail -n 40 "$work/follow.out" | grep -q "step" || fail "the last summary has no 'step' row"
# And it agrees with a plain summary of the finished file.
"$cli" summary "$run" >"$work/plain.out" || fail "plain summary failed"

# Ctrl-C while the run is in progress: a clean stop, exit status 0.
run2="$work/live2.h5"
"$demo" "$run2" 20 100 0.2 >"$work/demo2.out" 2>&1 &
demo_pid=$!
"$cli" summary --follow --interval 0.2 "$run2" >"$work/int.out" 2>"$work/int.err" &
follow_pid=$!
i=0
until grep -q "^following $run2: in progress, " "$work/int.out"; do
    i=$((i + 1))
    [ "$i" -le 600 ] || { kill "$follow_pid" "$demo_pid"; fail "no in-progress summary of the second run"; }
    sleep 0.1
done
kill -INT "$follow_pid"
wait "$follow_pid"
rc=$?
kill "$demo_pid" 2>/dev/null
wait "$demo_pid" 2>/dev/null
[ "$rc" -eq 0 ] || fail "summary --follow exited with $rc after SIGINT"
grep -q "stopped following" "$work/int.err" || fail "no 'stopped following' message after SIGINT"

echo "summary_follow: ok ($headers summaries, $progress in progress, final $final calls)"
