#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every view of a killed run says it is incomplete and what was lost
# (issue 21): `summary` (its header box), `ranks`, `inspect` and the HTML
# report, on the file the kill test left (stream_kill, stream_kill_mpi).
#
#   check_killed_views.sh CLI RUN.h5 OUTDIR [RANKS]
#
# RANKS: ranks the run had (the MPI kill test: every rank has data, none is
# named as lost). Prints "killed views: ok".
set -u
cli=$1 run=$2 out=$3 nranks=${4:-1}
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$out" || fail "cannot create $out"
lost="Incomplete run: recording in progress or ended without finalize \\(killed\\); [0-9]+"
"$cli" summary "$run" >"$out/summary.txt" || fail "summary exited with $?"
# the Info box wraps the sentence: look at it as one line
joined=$(tr -d '│\n' <"$out/summary.txt" | tr -s ' ')
grep -Eq "$lost call\(s\) still open" <<<"$joined" ||
  { cat "$out/summary.txt"; fail "summary does not say the run is incomplete"; }
grep -q "not in the file" <<<"$joined" || fail "summary does not say what was lost"
if [ "$nranks" -gt 1 ]; then
  grep -q "time per rank, $nranks ranks · incomplete run" "$out/summary.txt" ||
    fail "summary's table title does not say incomplete"
fi
"$cli" ranks "$run" >"$out/ranks.txt" || fail "ranks exited with $?"
tr '\n' ' ' <"$out/ranks.txt" | grep -Eq "^Ranks: $nranks of $nranks .*$lost" ||
  { cat "$out/ranks.txt"; fail "ranks does not say the run is incomplete"; }
"$cli" inspect "$run" >"$out/inspect.txt" || fail "inspect exited with $?"
grep -q "file_state .*ended without finalize (killed)" "$out/inspect.txt" ||
  fail "inspect does not show file_state"
"$cli" report "$run" -o "$out/report.html" >/dev/null || fail "report exited with $?"
grep -Eq '<p class="incomplete"><b>Incomplete run.</b> recording in progress or ended without finalize \(killed\)' \
  "$out/report.html" || fail "the report does not say the run is incomplete"
echo "killed views: ok"
