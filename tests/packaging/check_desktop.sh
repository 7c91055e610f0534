#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Desktop integration of the viewer, as built (before any install):
# - the .desktop file passes desktop-file-validate, the AppStream metainfo
#   passes appstreamcli validate (no errors, no warnings);
# - one application id everywhere: the GtkApplication id, the .desktop
#   file's name, the metainfo's id and launchable, the icon names;
# - the icons are valid SVG that render to visible pixels, and the symbolic
#   one uses fills only (GTK recolours symbolic icons by fill);
# - every screenshot the metainfo names is in packaging/screenshots with the
#   size it declares;
# - the shared-mime-info type, compiled with freedesktop.org's database into
#   a private one, makes GIO call scope-profiler runs (the golden file, a run
#   recorded now) application/x-scope-profiler, by content whatever their
#   name, and leaves other HDF5 files (the Python package's) application/x-hdf.
# Usage: check_desktop.sh SRC_DIR PACKAGING_BINARY_DIR [RECORDER-PROGRAM]
set -euo pipefail
src=$1 bin=$2 recorder=${3:-}
. "$(dirname "$0")/help_lib.sh"
for t in desktop-file-validate appstreamcli update-mime-database gio xmllint rsvg-convert convert; do
  command -v $t >/dev/null || fail "$t not found (scripts/install-deps.sh test installs it)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

id=$(sed -nE 's/^#define SP_VIEWER_APP_ID "([^"]+)"/\1/p' "$src/viewer/sp-viewer-application.h")
[[ $id =~ ^[a-z]+(\.[A-Za-z0-9_]+){2,}$ ]] || fail "the GtkApplication id '$id' is not reverse-DNS"
desktop=$src/packaging/desktop/$id.desktop
metainfo=$bin/$id.metainfo.xml
[ -f "$desktop" ] || fail "no $desktop for the application id $id"
[ -f "$metainfo" ] || fail "no $metainfo"

out=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate: $out"
[ -z "$out" ] || fail "desktop-file-validate: $out"
out=$(appstreamcli validate --no-net "$metainfo" 2>&1) || fail "appstreamcli validate: $out"
! grep -qE '^[EW]:' <<<"$out" || fail "appstreamcli validate: $out"
echo "validated: $(basename "$desktop"), $(basename "$metainfo")"

grep -qx "Icon=$id" "$desktop" || fail "the .desktop Icon= is not $id"
grep -qx "Exec=scope-profiler-viewer %F" "$desktop" || fail "the .desktop Exec= is not the viewer"
mime=$(sed -nE 's/^MimeType=(.*);$/\1/p' "$desktop")
grep -q "<id>$id</id>" "$metainfo" || fail "metainfo <id> is not $id"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$metainfo" ||
  fail "metainfo does not launch $id.desktop"
grep -q "<mediatype>$mime</mediatype>" "$metainfo" || fail "metainfo does not provide $mime"
grep -q "type=\"$mime\"" "$src/packaging/desktop/scope-profiler-mime.xml" ||
  fail "the MIME type $mime of the .desktop file is not defined"

icons=$src/viewer/icons/scalable/apps
for icon in "$icons/$id.svg" "$icons/$id-symbolic.svg"; do
  xmllint --noout "$icon" || fail "$icon is not well-formed XML"
  rsvg-convert -w 64 -h 64 "$icon" -o "$work/icon.png" || fail "$icon does not render"
  cover=$(convert "$work/icon.png" -alpha extract -format '%[fx:mean]' info:)
  awk -v c="$cover" 'BEGIN {exit !(c > 0.15)}' || fail "$icon renders almost empty ($cover of the pixels)"
  echo "icon $(basename "$icon"): renders, $(awk -v c="$cover" 'BEGIN {printf "%.0f", 100 * c}')% coverage at 64 px"
done
! grep -q 'stroke=' "$icons/$id-symbolic.svg" || fail "the symbolic icon uses strokes (GTK fills them)"

n=0
while read -r w h name; do
  png=$src/packaging/screenshots/$name
  [ -f "$png" ] || fail "metainfo screenshot $name is not in packaging/screenshots"
  [ "$(identify -format '%wx%h' "$png")" = "${w}x$h" ] || fail "$name is not ${w}x$h"
  n=$((n + 1))
done < <(sed -nE 's|.*<image type="source" width="([0-9]+)" height="([0-9]+)">.*/([^/<]+)</image>.*|\1 \2 \3|p' "$metainfo")
[ $n -ge 3 ] || fail "metainfo has $n screenshots"
echo "screenshots: $n, present with their declared sizes"

mkdir -p "$work/share/mime/packages" "$work/none"
cp /usr/share/mime/packages/freedesktop.org.xml "$work/share/mime/packages/"
cp "$src/packaging/desktop/scope-profiler-mime.xml" "$work/share/mime/packages/scope-profiler.xml"
update-mime-database "$work/share/mime" >/dev/null 2>&1 || fail "update-mime-database rejects the MIME type"
type_of() {
  XDG_DATA_HOME=$work/share XDG_DATA_DIRS=$work/none gio info -a standard::content-type "$1" |
    sed -nE 's/^ *standard::content-type: //p'
}
expect_type() {
  local got
  got=$(type_of "$2")
  [ "$got" = "$1" ] || fail "$(basename "$2") is '$got', expected $1"
  echo "MIME: $(basename "$2") -> $got"
}
cp "$src/data/golden/v1/small.h5" "$work/golden.h5"
cp "$src/data/golden/v1/small.h5" "$work/golden-renamed.dat"
cp "$src/data/python-0.2.1/py_mpi4_imbalance.h5" "$work/python.h5"
cp "$src/data/python-0.2.1/py_mpi4_imbalance.h5" "$work/profiling_data.h5"
expect_type application/x-scope-profiler "$work/golden.h5"
expect_type application/x-scope-profiler "$work/golden-renamed.dat"
expect_type application/x-hdf "$work/python.h5"
expect_type application/x-scope-profiler "$work/profiling_data.h5"
if [ -n "$recorder" ]; then
  "$recorder" "$work/fresh.h5" >/dev/null
  expect_type application/x-scope-profiler "$work/fresh.h5"
fi
