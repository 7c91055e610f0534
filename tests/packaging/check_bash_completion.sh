#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Drive the generated bash completion the way readline does (COMP_WORDS,
# COMP_CWORD, then the function `complete -p` names) and check what it offers:
# - `scope-profiler ex<TAB>` -> export; `scope-profiler <TAB>` -> every verb
#   of --help;
# - `export <TAB>` -> the formats export --help lists; `plot <TAB>` -> the
#   kinds of `plot list`; option values (plot --format, --format=, --unit);
# - `VERB -<TAB>` -> every option spelling of `VERB --help`, for every verb;
# - runs: only *.h5 files (and folders) where a run is expected;
# - the viewer's options and --page values.
# Usage: check_bash_completion.sh SCOPE-PROFILER VIEWER|"" COMPLETION_DIR
set -euo pipefail
sp=$1 viewer=$2 dir=$3
. "$(dirname "$0")/help_lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
touch run1.h5 run2.h5 notes.txt
mkdir results

# complete FILE CMD WORD... : the candidates, sorted, one line, for the last
# WORD being completed, from a fresh bash that sourced FILE.
complete_words() {
  local file=$1
  shift
  bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    fn=$(complete -p "$1" | sed -E "s/.* -F ([^ ]+) .*/\1/")
    "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    ((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "' complete "$file" "$@"
}
expect() { # expect WANT CMD WORD...
  local want=$1 got
  shift
  got=$(complete_words "$dir/$(basename "$1")" "$@")
  [ "$got" = "$want" ] || fail "'$*<TAB>' offers '$got', expected '$want'"
}
sorted() { tr ' ' '\n' | grep -v '^$' | sort -u | tr '\n' ' '; }

[ -s "$dir/scope-profiler" ] || fail "no generated completion $dir/scope-profiler"
bash -n "$dir/scope-profiler" || fail "syntax error in $dir/scope-profiler"

expect "export " scope-profiler ex
expect "$(help_verbs "$sp" | sorted)" scope-profiler ""
formats=$("$sp" export --help | awk '/FORMAT is one of:/ {f = 1; next} /^[^ ]/ {f = 0} f && /^  [a-z]/ {print $1}' | sorted)
[ "$(wc -w <<<"$formats")" -ge 6 ] || fail "export --help lists only '$formats'"
expect "$formats" scope-profiler export ""
expect "caliper-json chrome-trace collapsed csv " scope-profiler export c
kinds=$( ("$sp" plot list | awk '/^[a-z]/ {print $1}'; echo default all list) | sorted)
expect "$kinds" scope-profiler plot ""
expect "pdf png svg " scope-profiler plot --format ""
expect "svg " scope-profiler plot timeline run1.h5 -f s
expect "pdf png svg " scope-profiler plot --format = ""
expect "ns us " scope-profiler export --unit ""
expect "$(echo total own calls mean min max std p95 name | sorted)" scope-profiler inspect --sort ""
# runs: *.h5 and folders, not other files
expect "results run1.h5 run2.h5 " scope-profiler summary ""
expect "results run1.h5 run2.h5 " scope-profiler diff run1.h5 ""
expect "" scope-profiler diff run1.h5 run2.h5 ""
expect "results run1.h5 run2.h5 " scope-profiler export csv ""
expect "results run1.h5 run2.h5 " scope-profiler plot timeline run1.h5 ""
expect "notes.txt results run1.h5 run2.h5 " scope-profiler export csv run1.h5 -o ""
# run: the program, then its own command line (not scope-profiler's options)
expect "auto sample trace " scope-profiler run --mode ""
got=$(complete_words "$dir/scope-profiler" scope-profiler run -o x.h5 bas)
grep -qw bash <<<"$got" || fail "'scope-profiler run -o x.h5 bas<TAB>' does not offer bash: $got"
expect "notes.txt results run1.h5 run2.h5 " scope-profiler run ./prog ""
expect "" scope-profiler run ./prog --m # the program's options, not run's --mode
expect "--mode " scope-profiler run --m
n=0
for v in $(help_verbs "$sp"); do
  want=$("$sp" "$v" --help | help_options | grep -- '^-' | sorted)
  expect "$want" scope-profiler "$v" -
  n=$((n + $(wc -w <<<"$want")))
done
echo "bash completion of scope-profiler: verbs, formats, kinds, values, runs, and all $n option spellings"

if [ -n "$viewer" ]; then
  [ -s "$dir/scope-profiler-viewer" ] || fail "no generated completion $dir/scope-profiler-viewer"
  expect "$("$viewer" --help | help_options | sorted)" scope-profiler-viewer -
  pages=$("$viewer" --help | grep -oE 'Page to show: .*' | sed 's/Page to show: //; s/,//g' | sorted)
  [ "$(wc -w <<<"$pages")" -ge 6 ] || fail "viewer --help lists pages '$pages'"
  expect "$pages" scope-profiler-viewer --page ""
  expect "results run1.h5 run2.h5 " scope-profiler-viewer run1.h5 ""
  echo "bash completion of scope-profiler-viewer: options, pages, runs"
fi
