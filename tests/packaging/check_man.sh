#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generated man pages say everything --help says, and render cleanly:
# - scope-profiler(1): a subsection per verb of --help, holding every option
#   spelling of that verb's --help; the program's own options;
# - scope-profiler-viewer(1): every option of its --help;
# - scope-profiler(3): every public function and macro of the header, each
#   also reachable by its own name (man sp_setup);
# - man(1) reports no roff warnings for any of them.
# Usage: check_man.sh SCOPE-PROFILER VIEWER|"" MANDIR HEADER
set -euo pipefail
sp=$1 viewer=$2 mandir=$3 header=$4
. "$(dirname "$0")/help_lib.sh"
command -v man >/dev/null || fail "man not found (apt install man-db)"

render() { # the page as plain text, one paragraph per line where possible
  MANWIDTH=1000 man --no-hyphenation --no-justification -l "$1" 2>/dev/null | col -b
}
has_word() { grep -qE -- "(^|[^A-Za-z0-9_-])$(sed 's/[][\.*^$?+(){}|/]/\\&/g' <<<"$2")([^A-Za-z0-9_-]|$)" <<<"$1"; }
no_warnings() {
  local w
  w=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null) || fail "man cannot render $1"
  [ -z "$w" ] || fail "roff warnings in $1: $w"
}

page=$mandir/man1/scope-profiler.1
[ -s "$page" ] || fail "$page was not generated"
no_warnings "$page"
text=$(render "$page")
checked=0
for v in $(help_verbs "$sp"); do
  # The verb's subsection: from its heading to the next heading.
  sect=$(awk -v h="   scope-profiler $v" '$0 == h {f = 1; next} f && (/^   scope-profiler / || /^[A-Z]/) {exit} f' <<<"$text")
  [ -n "$sect" ] || fail "scope-profiler(1) has no subsection 'scope-profiler $v'"
  for o in $("$sp" "$v" --help | help_options); do
    has_word "$sect" "$o" || fail "scope-profiler(1): '$v' lacks its option $o"
    checked=$((checked + 1))
  done
done
opts=$(awk '/^OPTIONS$/ {f = 1; next} /^[A-Z]/ {f = 0} f' <<<"$text")
for o in $("$sp" --help | help_options); do
  has_word "$opts" "$o" || fail "scope-profiler(1) OPTIONS lacks $o"
done
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
  grep -qx "$s" <<<"$text" || fail "scope-profiler(1) has no $s section"
done
echo "scope-profiler(1): $(help_verbs "$sp" | wc -l) verbs, $checked option spellings found"

if [ -n "$viewer" ]; then
  page=$mandir/man1/scope-profiler-viewer.1
  [ -s "$page" ] || fail "$page was not generated"
  no_warnings "$page"
  text=$(render "$page")
  n=0
  for o in $("$viewer" --help | help_options); do
    has_word "$text" "$o" || fail "scope-profiler-viewer(1) lacks $o"
    n=$((n + 1))
  done
  echo "scope-profiler-viewer(1): $n option spellings found"
fi

page=$mandir/man3/scope-profiler.3
[ -s "$page" ] || fail "$page was not generated"
no_warnings "$page"
text=$(render "$page")
# Public functions: declarations "type name(" at the start of a line, and
# public macros "#define SP_NAME(": never the internal sp__ / SP__ ones.
names=$(grep -oE '^[a-z_][a-z0-9_ ]*[ *]\**(sp_[a-z0-9_]+)\(' "$header" | grep -oE 'sp_[a-z0-9_]+\($' | tr -d '(' ;
        grep -oE '^#define (SP_[A-Z0-9_]+)\(' "$header" | grep -oE 'SP_[A-Z0-9_]+' | grep -v '^SP__')
names=$(sort -u <<<"$names")
[ "$(wc -l <<<"$names")" -ge 25 ] || fail "found only $(wc -l <<<"$names") public names in $header"
for f in $names; do
  has_word "$text" "$f" || fail "scope-profiler(3) does not document $f"
  [ -e "$mandir/man3/$f.3" ] || fail "no page $f.3 (man $f)"
  [ "$(readlink -f "$mandir/man3/$f.3")" = "$(readlink -f "$page")" ] || fail "$f.3 is not scope-profiler(3)"
done
[ "$(render "$mandir/man3/sp_setup.3")" = "$text" ] || fail "man sp_setup does not show scope-profiler(3)"
echo "scope-profiler(3): $(wc -l <<<"$names") public functions and macros, each with its own page name"
