#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The viewer started where no D-Bus session bus exists (xvfb-run, ssh, a
# container): no "Unable to acquire session bus" / dbus-launch warning from
# GTK, and nothing else on stderr; and started with a session bus
# (dbus-run-session), it still runs (registering on it).
#   check_no_bus.sh XVFB_RUN VIEWER RUN.h5 OUTDIR
set -uo pipefail
xvfb=$1 viewer=$2 run=$3 out=$4
fail() { echo "FAIL: $*"; exit 1; }
runtime=$(mktemp -d) # an XDG_RUNTIME_DIR without a bus socket
trap 'rm -rf "$runtime"' EXIT
env -u DBUS_SESSION_BUS_ADDRESS -u GTK_A11Y -u NO_AT_BRIDGE -u AT_SPI_BUS_ADDRESS \
  XDG_RUNTIME_DIR="$runtime" "$xvfb" -a -s "-screen 0 1280x800x24" \
  "$viewer" --screenshot "$out/no_bus.png" --size 1000x700 "$run" 2>"$out/no_bus.err"
rc=$?
[ $rc = 0 ] || { cat "$out/no_bus.err"; fail "viewer without a session bus exited $rc"; }
[ -s "$out/no_bus.png" ] || fail "no screenshot without a session bus"
if grep -Eiq "session bus|dbus|WARNING|CRITICAL" "$out/no_bus.err"; then
  cat "$out/no_bus.err"
  fail "the viewer warns when there is no session bus"
fi
if command -v dbus-run-session >/dev/null; then
  env -u GTK_A11Y -u NO_AT_BRIDGE GTK_A11Y=none dbus-run-session -- "$xvfb" -a \
    -s "-screen 0 1280x800x24" "$viewer" --screenshot "$out/bus.png" --size 1000x700 "$run" \
    2>"$out/bus.err" || { cat "$out/bus.err"; fail "viewer with a session bus"; }
  [ -s "$out/bus.png" ] || fail "no screenshot with a session bus"
fi
echo "no session bus: ok"
