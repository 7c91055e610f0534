#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generated zsh completions, driven in a real interactive zsh on a
# pseudo-terminal (zcomplete.zsh): a unique completion must fill in the word.
# Usage: check_zsh_completion.sh COMPLETION_DIR WITH_VIEWER(0|1)
set -euo pipefail
dir=$1 with_viewer=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/help_lib.sh"
command -v zsh >/dev/null || fail "zsh not found (apt install zsh)"
for f in "$dir"/_*; do zsh -n "$f" || fail "syntax error in $f"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
touch only-run.h5 notes.txt
lines=("scope-profiler ex" "scope-profiler export js" "scope-profiler export chr"
       "scope-profiler plot --format s" "scope-profiler export --un" "scope-profiler diff --estim"
       "scope-profiler summary " "scope-profiler inspect --sort ow")
want=("scope-profiler export " "scope-profiler export json " "scope-profiler export chrome-trace "
      "scope-profiler plot --format svg " "scope-profiler export --unit=" "scope-profiler diff --estimator="
      "scope-profiler summary only-run.h5 " "scope-profiler inspect --sort own ")
if [ "$with_viewer" = 1 ]; then
  lines+=("scope-profiler-viewer --page ti" "scope-profiler-viewer --scr")
  want+=("scope-profiler-viewer --page timeline " "scope-profiler-viewer --screenshot=")
fi
mapfile -t got < <(timeout 120 zsh -f "$here/zcomplete.zsh" "$dir" "${lines[@]}")
for i in "${!lines[@]}"; do
  [ "${got[i]-}" = "${want[i]}" ] || fail "zsh: '${lines[i]}<TAB>' gives '${got[i]-}', expected '${want[i]}'"
done
echo "zsh completion: ${#lines[@]} command lines completed as expected"
