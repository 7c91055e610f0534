#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One end-to-end case of the scope-profiler command.
#
#   cli_case.sh --rc N [checks...] -- COMMAND [ARGS...]
#
# Runs COMMAND and checks its exit status is N, then every check:
#   --out ERE         some stdout line matches ERE (grep -E)
#   --absent ERE      no stdout line matches ERE
#   --before A B      the first stdout line matching A comes before the first matching B
#   --err ERE         some stderr line matches ERE
#   --boxes PYTHON    every line of each ╭...╰ box in stdout has the same width
# An exit status of 2 also requires exactly one stderr line, starting with
# "scope-profiler: ", and an empty stdout.
set -u
rc_want= checks=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    --rc) rc_want=$2; shift 2 ;;
    --out|--absent|--err|--boxes) checks+=("$1" "$2"); shift 2 ;;
    --before) checks+=("$1" "$2" "$3"); shift 3 ;;
    *) echo "cli_case.sh: bad option $1"; exit 2 ;;
  esac
done
shift # --
cmd="$*"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$@" >"$work/out" 2>"$work/err"
rc=$?
fail() {
  echo "FAIL: $*"
  echo "--- command: $cmd"; echo "--- stdout:"; cat "$work/out"; echo "--- stderr:"; cat "$work/err"
  exit 1
}
[ "$rc" = "$rc_want" ] || fail "exit status $rc, want $rc_want"
if [ "$rc_want" = 2 ]; then
  [ "$(wc -l <"$work/err")" = 1 ] || fail "stderr is not exactly one line"
  grep -q '^scope-profiler: ' "$work/err" || fail "stderr does not start with 'scope-profiler: '"
  [ ! -s "$work/out" ] || fail "stdout is not empty"
fi
set -- "${checks[@]+"${checks[@]}"}"
while [ $# -gt 0 ]; do
  case $1 in
    --out) grep -Eq -- "$2" "$work/out" || fail "stdout lacks /$2/" ;;
    --absent) grep -Eq -- "$2" "$work/out" && fail "stdout has /$2/" ;;
    --err) grep -Eq -- "$2" "$work/err" || fail "stderr lacks /$2/" ;;
    --before)
      la=$(grep -En -m1 -- "$2" "$work/out" | cut -d: -f1)
      lb=$(grep -En -m1 -- "$3" "$work/out" | cut -d: -f1)
      [ -n "$la" ] && [ -n "$lb" ] && [ "$la" -lt "$lb" ] || fail "/$2/ not before /$3/"
      shift ;; # three words
    --boxes)
      "$2" - "$work/out" <<'PY' || fail "ragged box"
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
box = None
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    if box is None and line.startswith("╭"):
        box = width(line)
    elif box is not None and width(line) != box:
        sys.exit("line %r is %d wide, box %d" % (line, width(line), box))
    if box is not None and line.startswith("╰"):
        box = None
PY
      ;;
  esac
  shift 2
done
echo "cli case: ok"
