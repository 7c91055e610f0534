#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's writers (export, report) against hostile file systems:
# - "-o /dev/null" writes into the device and leaves it a device (a rename
#   over it would replace /dev/null for the whole machine);
# - a symbolic link at the output path is replaced by the file, its target
#   is never written;
# - a successful write leaves no temporary file, a failed one neither;
# - temporary files are created next to the output, exclusively (mkstemp).
#   check_outputs.sh CLI RUN.h5
set -u
cli=$1 run=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$cli" export json "$run" -o /dev/null >/dev/null || fail "export json -o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
"$cli" report "$run" -o /dev/null >/dev/null || fail "report -o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a character device after report"
echo untouched >"$work/target"
ln -s "$work/target" "$work/out.json"
"$cli" export json "$run" -o "$work/out.json" >/dev/null || fail "export over a symlink"
[ -L "$work/out.json" ] && fail "the output is still a symlink"
[ "$(cat "$work/target")" = untouched ] || fail "the symlink's target was written"
grep -q '"regions"' "$work/out.json" || fail "the output is not the export"
mkdir "$work/ro" && ln -s "$work/target" "$work/ro/r.html"
"$cli" report "$run" -o "$work/ro/r.html" >/dev/null || fail "report over a symlink"
[ "$(cat "$work/target")" = untouched ] || fail "report wrote the symlink's target"
leftover=$(find "$work" -name '*.tmp.*')
[ -z "$leftover" ] || fail "temporary files left: $leftover"
# A write that fails (the directory is not writable) leaves nothing either.
if [ "$(id -u)" != 0 ]; then
  chmod 500 "$work/ro"
  "$cli" export json "$run" -o "$work/ro/x.json" >/dev/null 2>&1 && fail "wrote into a read-only dir"
  chmod 700 "$work/ro"
fi
# The output's permissions are those of an ordinary new file (umask), even
# though mkstemp creates 0600.
umask 022
"$cli" export json "$run" -o "$work/perm.json" >/dev/null || fail "export"
[ "$(stat -c %a "$work/perm.json")" = 644 ] || fail "mode $(stat -c %a "$work/perm.json"), want 644"
echo "outputs: ok"
