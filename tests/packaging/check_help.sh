#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every verb's --help has the same shape, which the man page and completion
# generators (and users) rely on: exit 0, "usage: scope-profiler VERB ..."
# first, an "Options:" section listing -h, --help; `scope-profiler help VERB`
# prints the same; an unknown verb is a usage error (exit 2).
set -euo pipefail
sp=$1
. "$(dirname "$0")/help_lib.sh"

top=$("$sp" --help)
[[ $top == "usage: scope-profiler "* ]] || fail "scope-profiler --help does not start with its usage"
verbs=$(help_verbs "$sp")
n=$(echo "$verbs" | wc -l)
((n >= 12)) || fail "only $n verbs under Commands: in --help"
[ "$(help_options <<<"$top" | sort | tr '\n' ' ')" = "--help --read-limit --version -V -h " ] ||
  fail "top-level options: $(help_options <<<"$top" | tr '\n' ' ')"
for v in $verbs; do
  out=$("$sp" "$v" --help) || fail "$v --help exits $?"
  [[ $out == "usage: scope-profiler $v"* ]] || fail "$v --help does not start with 'usage: scope-profiler $v'"
  grep -q '^Options:$' <<<"$out" || fail "$v --help has no 'Options:' section"
  opts=$(help_options <<<"$out")
  grep -qx -- -h <<<"$opts" && grep -qx -- --help <<<"$opts" || fail "$v --help does not list -h, --help"
  [ "$("$sp" help "$v")" = "$out" ] || fail "'scope-profiler help $v' differs from '$v --help'"
  [ "$("$sp" "$v" -h)" = "$out" ] || fail "'$v -h' differs from '$v --help'"
  echo "$v: $(echo "$opts" | wc -l) option spellings"
done
set +e
"$sp" no-such-verb >/dev/null 2>&1
rc=$?
set -e
[ $rc = 2 ] || fail "an unknown verb exits $rc, not 2"
echo "help: $n verbs, each with usage, Options and -h/--help"
