# SPDX-License-Identifier: MIT
# Shared by the packaging tests: what a program's --help lists, read with
# plain awk/grep (independently of packaging/tools/helpdoc.py, which the man
# pages and completions are generated with, so a parser bug cannot hide
# itself).

fail() { echo "FAIL: $*" >&2; exit 1; }

# The verbs under "Commands:" of `PROG --help`.
help_verbs() {
  "$1" --help | awk '/^Commands:$/ {f = 1; next} /^[^ ]/ {f = 0} f && /^  [a-z]/ {print $1}'
}

# Every option spelling (-o, --output, ...) in the "...Options:" sections of
# the help text on stdin: lines indented at most 8 columns starting with '-';
# the option terms end at the first two-space gap.
help_options() {
  awk '/^[A-Za-z ]*[Oo]ptions:$/ {f = 1; next} /^[^ ]/ {f = 0} f' |
    grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' |
    grep -oE '(^|, )--?[A-Za-z0-9?][A-Za-z0-9_-]*' | sed -E 's/^, //'
}
