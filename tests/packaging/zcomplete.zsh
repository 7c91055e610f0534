#!/usr/bin/env zsh
# SPDX-License-Identifier: MIT
# zcomplete.zsh FPATH-DIR LINE... : type each LINE followed by TAB into an
# interactive zsh (on a pseudo-terminal) that loaded the completion system
# with FPATH-DIR first in $fpath, and print the command line zle ends up
# with, one per LINE. A key bound to a widget prints the buffer between
# << and >> so it can be told apart from the terminal's echo.
emulate -L zsh
zmodload zsh/zpty || exit 2
dir=$1
shift
zpty sp env -i HOME=$HOME TERM=xterm PATH=$PATH zsh -f -i
# Read the terminal until its output matches $1 (10 s at most).
expect() {
  local chunk t=0
  out=
  while (( t < 200 )); do
    if zpty -r -t sp chunk 2>/dev/null; then out+=$chunk; else sleep 0.05; (( t++ )); fi
    [[ $out == $~1 ]] && return 0
  done
  return 1
}
zpty -w sp "fpath=($dir \$fpath); autoload -U compinit; compinit -u -D -i; unsetopt beep"
zpty -w sp "sp-show() { print -r -- \"<<\$BUFFER>>\"; BUFFER=; }; zle -N sp-show; bindkey '^X' sp-show; print SP''READY"
expect '*SPREADY*' || { print -u2 "zsh did not start: $out"; exit 2; }
for l in "$@"; do
  zpty -w -n sp "$l"$'\t\x18'
  expect '*<<*>>*' || { print -u2 "no answer for: $l"; exit 2; }
  r=${out##*<<}
  print -r -- "${r%%>>*}"
done
zpty -d sp
