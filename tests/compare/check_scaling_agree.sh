#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The viewer's Scaling view and `scope-profiler scaling --csv` show the same
# study of the same three runs (strong or weak, as detected; speedup and
# efficiency to two decimals).
#
#   check_scaling_agree.sh SCOPE_PROFILER WIDGET_TEST XVFB_RUN RUN1 RUN2 RUN3
set -u
cli=$1 widgets=$2 xvfb=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }
csv=$("$cli" scaling --csv - "$@") || fail "scaling exited $?"
v=$("$xvfb" -a -s '-screen 0 1920x1200x24' "$widgets" --scaling "$@" 2>&1) || fail "viewer: $v"
kind_cli=$("$cli" scaling "$@" | sed -n 's/^scaling: \([a-z]*\),.*/\1/p') || fail "scaling exited $?"
kind_viewer=$(sed -n 's/^viewer scaling kind: //p' <<<"$v")
echo "kind: cli $kind_cli, viewer $kind_viewer"
[ -n "$kind_cli" ] && [ "$kind_cli" = "$kind_viewer" ] || fail "strong or weak differs"
# (an empty CSV field is a region absent at that count: the viewer's nan)
from_cli=$(awk -F, 'function f(x) { return x == "" ? "nan" : sprintf("%.2f", x) }
                    NR > 1 { printf "%s,%s,%s,%s\n", $1, $2, f($5), f($6) }' <<<"$csv" | sort)
from_viewer=$(sed -n 's/^viewer scaling: //p' <<<"$v" | sort)
echo "$from_viewer"
[ -n "$from_cli" ] || fail "no rows from the CLI"
# The CSV carries 6 significant digits, the viewer rounds the exact value:
# rounding the CSV's 0.125 again can give 0.12 where the viewer shows 0.13,
# so the two agree when every row is present in both and within 0.01.
differs=$(awk -F, 'NR == FNR { v[$1 "," $2] = $3 "," $4; next }
    function off(a, b) { if (a == "nan" || b == "nan") return a != b
                         d = a - b; return (d < 0 ? -d : d) > 0.0100001 }
    { k = $1 "," $2
      if (!(k in v)) { print "only in the viewer: " $0; next }
      split(v[k], c, ","); delete v[k]
      if (off(c[1], $3) || off(c[2], $4)) print "cli " k "," c[1] "," c[2] " viewer " $0 }
    END { for (k in v) print "only in the CLI: " k }' \
    <(echo "$from_cli") <(echo "$from_viewer"))
[ -z "$differs" ] || { echo "cli:"; echo "$from_cli"; echo "$differs"; fail "the viewer's study differs"; }
echo "scaling agrees: ok"
