#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Take the AppStream screenshots (packaging/screenshots/*.png, named in
# packaging/desktop/org.scopeprofiler.Viewer.metainfo.xml.in) with the
# viewer's own --screenshot, under Xvfb, with --size 1280x820 (the PNGs are
# 1270x810, the size the metainfo declares):
#   timeline, calltree, ranks   an 8-rank run of examples/mock_solver_mpi
#   compare                     the viewer tests' sample base and candidate
# Usage: packaging/screenshots/take-screenshots.sh [BUILD_DIR]   (default: build)
# Look at the PNGs before committing them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
viewer=$build/viewer/scope-profiler-viewer
for f in "$viewer" "$build/examples/mock_solver_mpi" "$build/tests/viewer/make_sample_runs"; do
  [ -x "$f" ] || { echo "take-screenshots: $f is not built" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun --allow-run-as-root --oversubscribe -n 8 "$build/examples/mock_solver_mpi" "$work/mpi.h5" >/dev/null
"$build/tests/viewer/make_sample_runs" "$work" >/dev/null
shot() { # shot NAME PAGE FILE...
  local name=$1 page=$2
  shift 2
  GSK_RENDERER=cairo XDG_CONFIG_HOME=$work/config xvfb-run -a -s "-screen 0 1920x1200x24" \
    "$viewer" --screenshot "$here/$name.png" --page "$page" --size 1280x820 "$@" 2>/dev/null
  echo "$here/$name.png"
}
shot timeline timeline "$work/mpi.h5"
shot calltree calltree "$work/mpi.h5"
shot ranks ranks "$work/mpi.h5"
shot compare compare "$work/sample_base.h5" "$work/sample_candidate.h5"
