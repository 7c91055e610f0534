#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Render an HTML report in headless Chromium and check the screenshot.
#
#   report_screenshot.sh PYTHON OUT.png REPORT.html [png_check options...]
#
# Fails (does not skip) when chromium is not installed. The screenshot is
# left at OUT.png for people to look at.
set -u
python=$1 out=$2 report=$3
shift 3
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "FAIL: chromium is not installed (apt-get install chromium); cannot screenshot the report"
  exit 1
fi
[ -s "$report" ] || { echo "FAIL: no report at $report"; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$out" --window-size=1280,2000 \
  "file://$(realpath "$report")" >"$profile/log" 2>&1
if [ ! -s "$out" ]; then
  echo "FAIL: chromium wrote no screenshot"; tail -5 "$profile/log"; exit 1
fi
"$python" "$(dirname "$0")/png_check.py" "$out" "$@" || exit 1
echo "cli case: ok"
