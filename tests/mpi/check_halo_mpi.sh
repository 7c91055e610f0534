#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A user's first look at a real MPI program (examples/halo_mpi.c: a stencil
# with a halo exchange, uneven ranks, MPI call regions) on 4 and 8 ranks:
# every surface follows the rank rule, says which figures are what, shows
# every rank, keeps colours apart and points at the waiting in MPI.
#
#   check_halo_mpi.sh MPIRUN HALO_MPI SCOPE_PROFILER PYTHON3 SOURCE_DIR
set -u
mpirun=$1 exe=$2 cli=$3 py=$4 src=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -Eq -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }
lacks() { ! grep -Eq -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)

for n in 4 8; do
  f=$work/h$n.h5
  "$mpirun" --allow-run-as-root --oversubscribe -n $n "${env_args[@]}" "$exe" "$f" 40 \
    >"$work/run$n.txt" 2>&1 || { cat "$work/run$n.txt"; fail "halo_mpi on $n ranks"; }

  # summary: per rank (mean, max), calls per rank, the wall-clock headline
  "$cli" summary "$f" >"$work/s$n.txt" || fail "summary"
  has "$work/s$n.txt" "time per rank, $n ranks" "summary table per rank ($n)"
  has "$work/s$n.txt" "Summary: .*h$n\.h5 \($n ranks, wall-clock span [0-9.]+ s\)" "headline"
  has "$work/s$n.txt" "│ │ └─ halo_exchange \(40x\) +[0-9.]+  [0-9.]+" "40 exchanges per rank"
  has "$work/s$n.txt" "MPI_Waitall \(40x\)" "MPI_Waitall per rank"
  has "$work/s$n.txt" "Times are per rank: the mean over the $n ranks" "the rule, stated"
  # the mean of main equals `ranks`' mean of the per-rank totals; the
  # headline's span is at least the slowest rank's main
  mean_s=$(awk '/│ main / {print $3; exit}' "$work/s$n.txt")
  max_s=$(awk '/│ main / {print $4; exit}' "$work/s$n.txt")
  span=$(sed -n 's/.*wall-clock span \([0-9.]*\) s.*/\1/p' "$work/s$n.txt" | head -1)
  "$cli" ranks "$f" >"$work/r$n.txt" || fail "ranks"
  rmean=$(awk '$1 == "main" {print $5; exit}' "$work/r$n.txt")
  rmax=$(awk '$1 == "main" {print $6; exit}' "$work/r$n.txt")
  [ "$mean_s" = "$rmean" ] || fail "summary mean of main $mean_s, ranks says $rmean"
  [ "$max_s" = "$rmax" ] || fail "summary max of main $max_s, ranks says $rmax"
  awk -v a="$max_s" -v b="$span" 'BEGIN { exit !(a <= b) }' ||
    fail "main's max $max_s exceeds the wall-clock span $span (a sum over ranks?)"

  # inspect: per-rank columns; a rank selection says how many of how many
  "$cli" inspect "$f" >"$work/i$n.txt" || fail "inspect"
  has "$work/i$n.txt" "^region +calls/rank +total/rank \[s\] +slowest rank \[s\] +own/rank \[s\]" \
    "inspect's per-rank columns"
  has "$work/i$n.txt" "^halo_exchange +40 " "inspect: 40 calls per rank"
  "$cli" inspect --ranks 0 "$f" >"$work/i0_$n.txt" || fail "inspect --ranks 0"
  has "$work/i0_$n.txt" "^Ranks: +1 of $n \(selected\)" "inspect --ranks 0: 1 of $n"

  # the report: the rule, the sum labelled, every rank, MPI waiting ranked
  "$cli" report "$f" -o "$work/r$n.html" >/dev/null || fail "report"
  "$py" "$src/tests/cli_verbs/check_report.py" "$work/r$n.html" --min-svg 5 \
    --contains "Times are per rank: the mean over the $n ranks" \
    --contains "Total, sum over $n ranks" \
    --contains "All $n ranks, $n lanes" \
    --contains "Ranked by time impact" \
    --contains "<b>Time in MPI</b> <code>MPI_Waitall</code>: [0-9.]+ [mµ]?s per rank" \
    --contains "<div class=\"k\">Wall-clock span</div>" >"$work/rc$n.txt" ||
    { cat "$work/rc$n.txt"; fail "report ($n ranks)"; }

  # plot all: every chart, no lane left out
  "$cli" plot all "$f" -o "$work/plots$n" >"$work/p$n.txt" 2>"$work/pe$n.txt" || fail "plot all"
  [ "$(grep -c '\.png$' "$work/p$n.txt")" -ge 6 ] || fail "plot all wrote $(cat "$work/p$n.txt")"
  lacks "$work/pe$n.txt" "did not fit" "plot all left timeline lanes out on $n ranks"
  # ... and a chart too short for them: 4 lanes fit a row each, so the
  # detail is drawn and says which lanes it left out; 8 do not, so the
  # overview (a thin row per lane, every rank on one screen) leaves none out
  "$cli" plot timeline "$f" -o "$work/short$n" --size 1200x260 >/dev/null 2>"$work/ps$n.txt" ||
    fail "plot timeline --size"
  if [ "$n" = 4 ]; then
    has "$work/ps$n.txt" "lanes did not fit" "a short timeline says it left lanes out"
  else
    lacks "$work/ps$n.txt" "did not fit" "a short timeline's overview left lanes out on $n ranks"
  fi
done

# plot-data: colours per region (most time first), the 12 largest clearly
# apart (CIE76 >= 10), estimates flagged, per-rank figures
"$cli" export plot-data "$work/h8.h5" -o "$work/pd" >/dev/null || fail "export plot-data"
"$py" - "$work/pd/summary.json" <<'PY' || fail "plot-data colours"
import json, math, sys
doc = json.load(open(sys.argv[1]))
regs = doc["regions"]
assert len(regs) >= 14, "only %d regions" % len(regs)
assert doc["ranks"] == 8 and doc["wall_clock_span_s"] > 0
tot = [r["total_s"] for r in regs]
assert all(a >= b for a, b in zip(tot, tot[1:])), "regions not listed most time first"
def lab(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    X = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047
    Y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    Z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))
top = regs[:12]
d = min(math.dist(lab(a["color"]), lab(b["color"])) for i, a in enumerate(top) for b in top[i + 1:])
print("plot-data: %d regions, minimum CIE76 distance among the 12 largest: %.1f" % (len(regs), d))
assert d >= 10, d
for r in regs:
    assert r["estimated"] is False and r["total_max_rank_s"] >= r["total_s"] - 1e-12
    assert abs(r["total_sum_ranks_s"] - 8 * r["total_s"]) < 1e-6 * max(1, r["total_sum_ranks_s"])
PY
echo "halo mpi: ok"
