#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every surface says the same about one pair of runs: the tally and each
# region's verdict from `diff` (table and --tsv), `check`, the HTML report
# and the viewer's Compare page (test_viewer_widgets --summary under Xvfb).
# `plot compare` draws its subtitle with the same tally function.
#
#   check_agree.sh SCOPE_PROFILER WIDGET_TEST XVFB_RUN BASE CAND DIR
set -u
cli=$1 widgets=$2 xvfb=$3 base=$4 cand=$5 dir=$6
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir"
d=$("$cli" diff "$base" "$cand") || fail "diff exited $?"
c=$("$cli" check "$base" "$cand")
rc=$?
[ $rc -le 1 ] || [ $rc -eq 3 ] || fail "check exited with an error ($rc)"
"$cli" report "$base" "$cand" -o "$dir/agree.html" >/dev/null || fail "report exited $?"
v=$("$xvfb" -a -s '-screen 0 1920x1200x24' "$widgets" --summary "$base" "$cand" 2>&1) ||
  fail "viewer: $v"
t=$("$cli" diff --tsv "$base" "$cand") || fail "diff --tsv exited $?"

s_diff=$(sed -n 's/^summary: *//p' <<<"$d")
s_check=$(sed -n 's/^summary: *//p' <<<"$c")
s_report=$(sed -n 's|.*<li><b>Summary:</b> \(.*\)</li>.*|\1|p' "$dir/agree.html")
s_viewer=$(sed -n 's/^viewer summary: //p' <<<"$v")
echo "diff:   $s_diff"
echo "check:  $s_check"
echo "report: $s_report"
echo "viewer: $s_viewer"
[ -n "$s_diff" ] || fail "no summary from diff"
[ "$s_diff" = "$s_check" ] || fail "check's summary differs"
[ "$s_diff" = "$s_report" ] || fail "the report's summary differs"
[ "$s_diff" = "$s_viewer" ] || fail "the viewer's summary differs"

# Verdicts region by region: TSV, report table, viewer.
v_tsv=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") col = i }
                   NR > 1 { print $1 " " $col }' <<<"$t" | sort)
v_view=$(sed -n 's/^viewer verdict: //p' <<<"$v" | sort)
v_rep=$(grep -o '<tr><td class="name">[^<]*</td>.*<td class="[a-z]*">[a-z ]*</td><td class="note">' "$dir/agree.html" |
        sed -E 's|<tr><td class="name">([^<]*)</td>.*<td class="[a-z]*">([a-z ]*)</td><td class="note">|\1 \2|' | sort)
[ -n "$v_tsv" ] || fail "no verdicts from diff --tsv"
[ "$v_tsv" = "$v_view" ] || { echo "tsv:"; echo "$v_tsv"; echo "viewer:"; echo "$v_view"; fail "verdicts differ (viewer)"; }
[ "$v_tsv" = "$v_rep" ] || { echo "tsv:"; echo "$v_tsv"; echo "report:"; echo "$v_rep"; fail "verdicts differ (report)"; }
# The table's verdicts are the TSV's.
while read -r name verdict; do
  grep -Eq "^$name .* $verdict( |$)" <<<"$d" || fail "diff table: $name is not '$verdict'"
done <<<"$v_tsv"
nslow=$(grep -c ' slower$' <<<"$v_tsv")
if [ "$nslow" -gt 0 ]; then
  grep -q "^FAIL: $nslow region" <<<"$c" || fail "check does not fail $nslow slower region(s)"
fi
echo "surfaces agree: ok"
