#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Drive `scope-profiler tui FILE` in a detached tmux session of a fixed size
# and assert on the screen text.
#
#   tui_case.sh BIN FILE STEP...
#
# Steps, run in order:
#   wait REGEX        poll the screen until a line matches (up to 10 s)
#   has REGEX         the current screen has a line matching REGEX
#   lacks REGEX       ... has no such line
#   before A B        the first line matching A is above the first matching B
#   keys KEY... END   tmux send-keys arguments up to END
#   resize WxH        resize the window
#   exits             the program has ended (after q)
# Fails (does not skip) when tmux is missing. The session and its private
# tmux server are always killed.
set -u
bin=$1 file=$2
shift 2
if ! command -v tmux >/dev/null; then
  echo "FAIL: tmux is not installed (apt-get install tmux); cannot drive the TUI"
  exit 1
fi
sock="sp-tui-$$"
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server >/dev/null 2>&1' EXIT
screen() { T capture-pane -p -t tui 2>/dev/null; }
fail() {
  echo "FAIL: $*"; echo "--- screen:"; screen; exit 1
}
T -f /dev/null new-session -d -s tui -x 100 -y 30 \
  "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color '$bin' tui '$file'; echo EXITED \$?; sleep 30" ||
  fail "cannot start tmux"
while [ $# -gt 0 ]; do
  step=$1
  shift
  case $step in
    wait)
      ok=
      for _ in $(seq 100); do
        if screen | grep -Eq -- "$1"; then ok=1; break; fi
        sleep 0.1
      done
      [ -n "$ok" ] || fail "screen never showed /$1/"
      shift ;;
    has) screen | grep -Eq -- "$1" || fail "screen lacks /$1/"; shift ;;
    lacks) screen | grep -Eq -- "$1" && fail "screen has /$1/"; shift ;;
    before)
      la=$(screen | grep -En -m1 -- "$1" | cut -d: -f1)
      lb=$(screen | grep -En -m1 -- "$2" | cut -d: -f1)
      [ -n "$la" ] && [ -n "$lb" ] && [ "$la" -lt "$lb" ] || fail "/$1/ not above /$2/"
      shift 2 ;;
    keys)
      keys=()
      while [ $# -gt 0 ] && [ "$1" != END ]; do keys+=("$1"); shift; done
      shift
      T send-keys -t tui "${keys[@]}" || fail "send-keys failed"
      sleep 0.2 ;;
    resize) T resize-window -t tui -x "${1%x*}" -y "${1#*x}" || fail "resize failed"; sleep 0.3; shift ;;
    exits)
      ok=
      for _ in $(seq 100); do
        if screen | grep -q "^EXITED 0"; then ok=1; break; fi
        sleep 0.1
      done
      [ -n "$ok" ] || fail "the TUI did not exit with status 0" ;;
    *) fail "bad step $step" ;;
  esac
done
echo "cli case: ok"
