#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command the summary's Info panel suggests must work on that file.
#
#   info_commands.sh BIN FILE
#
# Runs `BIN summary FILE`, takes each "Name: scope-profiler ..." line of the
# Info panel, replaces BASE.h5 / CANDIDATE.h5 by FILE, and runs it in a
# scratch directory: exit 0 for all but Lines, which must explain in one
# line that the file has no line-level data (exit 2). The TUI runs in a
# detached tmux session and is quit with q (tmux is required).
set -u
bin=$1 file=$(realpath "$2")
work=$(mktemp -d)
sock="sp-info-$$"
trap 'tmux -L "$sock" kill-server >/dev/null 2>&1; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" summary "$file" >"$work/summary" || fail "summary failed"
mapfile -t lines < <(sed -n 's/^│ *\([A-Za-z]*\): *\(scope-profiler .*[^ ]\) *│$/\1\t\2/p' "$work/summary")
[ "${#lines[@]}" -ge 8 ] || fail "found ${#lines[@]} suggested commands in the Info panel, want 8"
cd "$work"
for entry in "${lines[@]}"; do
  name=${entry%%$'\t'*}
  cmd=${entry#*$'\t'}
  cmd=${cmd//BASE.h5/$file}
  cmd=${cmd//CANDIDATE.h5/$file}
  read -r -a argv <<<"$cmd"
  argv[0]=$bin
  echo "== $name: ${argv[*]}"
  if [ "$name" = TUI ]; then
    command -v tmux >/dev/null || fail "tmux is not installed; cannot run the TUI suggestion"
    tmux -L "$sock" -f /dev/null new-session -d -s info -x 100 -y 30 \
      "env LC_ALL=C.UTF-8 ${argv[*]}; echo EXITED \$?; sleep 30"
    for _ in $(seq 100); do
      tmux -L "$sock" capture-pane -p -t info | grep -q "1 Regions" && break
      sleep 0.1
    done
    tmux -L "$sock" send-keys -t info q
    ok=
    for _ in $(seq 100); do
      if tmux -L "$sock" capture-pane -p -t info | grep -q "^EXITED 0"; then ok=1; break; fi
      sleep 0.1
    done
    [ -n "$ok" ] || fail "$name: the TUI did not start and quit cleanly"
    tmux -L "$sock" kill-session -t info
    continue
  fi
  "${argv[@]}" >"$work/out" 2>"$work/err"
  rc=$?
  if [ "$name" = Lines ]; then
    [ "$rc" = 2 ] && grep -q "has no line-level data; record it with use_line_profiler = true" "$work/err" ||
      fail "$name: exit $rc: $(cat "$work/err")"
  else
    [ "$rc" = 0 ] || fail "$name: exit $rc: $(cat "$work/err")"
    [ -s "$work/out" ] || fail "$name: printed nothing"
  fi
done
[ -s report.html ] && [ -d data ] && ls plots/*.png >/dev/null || fail "the suggested outputs are missing"
echo "cli case: ok"
