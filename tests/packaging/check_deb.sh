#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_deb.sh BUILD_DIR SRC_DIR
#
# The Debian packages, end to end:
# 1. `cpack -G DEB` in the build folder writes one .deb per install component;
# 2. dpkg-deb: each package's fields, its key files, its dependencies (from
#    dpkg-shlibdeps: libhdf5, GTK for the viewer, Open MPI only for the MPI
#    packages), no file in two packages, and every file `cmake --install`
#    installs is in some package (an install() rule without a known
#    component would silently fall out of the packages);
# 3. check_installed.sh installs them with dpkg, uses them as a user would
#    (summary of the golden file, man pages, a pkg-config program and a
#    CMake project run with an empty environment, `run`, MPI, desktop
#    databases, completions) and purges them; this happens in a sandbox
#    (sandbox.sh: an overlay of / in a private mount namespace), and nothing
#    named after scope-profiler may be left in it afterwards.
#
# Where the sandbox cannot be made (no overlayfs), the packages are
# installed on this machine for real and purged at the end, under a lock,
# and only if none of them was installed before (set
# SP_PACKAGE_TEST_NO_SYSTEM=1 to fail instead).
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/help_lib.sh"
for t in cpack dpkg-deb dpkg-shlibdeps; do command -v $t >/dev/null || fail "$t not found"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -nE 's/^CMAKE_PROJECT_VERSION:STATIC=(.*)/\1/p' "$build/CMakeCache.txt")
arch=$(dpkg --print-architecture)

echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/cpack") >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
mkdir "$work/t" "$work/t/debs"
mv "$work"/cpack/*.deb "$work/t/debs/"
ls "$work/t/debs"

deb() { ls "$work"/t/debs/"$1"_*.deb 2>/dev/null; }
field() { dpkg-deb -f "$(deb "$1")" "$2"; }
contents() { dpkg-deb -c "$(deb "$1")" | awk '{print $6 ($7 == "->" ? " -> " $8 : "")}' | sed 's|^\./|/|'; }
must_have() { # must_have PACKAGE PATH...
  local p=$1 c
  shift
  c=$(contents "$p")
  for f in "$@"; do grep -qE "^$f( -> .*)?$" <<<"$c" || fail "$p lacks $f"; done
}
depends_on() { grep -qE "(^|, )$2( |,|$)" <<<"$(field "$1" Depends)"; }

want=(libscope-profiler0 libscope-profiler-dev scope-profiler)
[ -x "$build/viewer/scope-profiler-viewer" ] && want+=(scope-profiler-viewer)
ls "$build"/libscope_profiler_mpi.so* >/dev/null 2>&1 && want+=(libscope-profiler-mpi0 libscope-profiler-mpi-dev)
for p in "${want[@]}"; do
  [ -n "$(deb "$p")" ] || fail "no package $p"
  [ "$(field "$p" Version)" = "$version-1" ] || fail "$p has version $(field "$p" Version)"
  [ "$(field "$p" Architecture)" = "$arch" ] || fail "$p has architecture $(field "$p" Architecture)"
  [ -n "$(field "$p" Maintainer)" ] && [ -n "$(field "$p" Description)" ] || fail "$p lacks Maintainer/Description"
  must_have "$p" "/usr/share/doc/$p/copyright"
  echo "$p: Depends: $(field "$p" Depends)"
done

echo "== contents"
so=/usr/lib/libscope_profiler
must_have libscope-profiler0 "$so\.so\.0" "$so\.so\.$version"
must_have libscope-profiler-dev /usr/include/scope_profiler.h "$so\.so" "$so\.a" /usr/lib/pkgconfig/scope-profiler.pc \
  /usr/lib/cmake/ScopeProfiler/ScopeProfilerConfig.cmake /usr/share/man/man3/scope-profiler.3.gz \
  /usr/share/man/man3/sp_setup.3.gz
must_have scope-profiler /usr/bin/scope-profiler /usr/lib/scope-profiler/libscope_profiler_preload.so \
  /usr/share/man/man1/scope-profiler.1.gz /usr/share/bash-completion/completions/scope-profiler \
  /usr/share/zsh/vendor-completions/_scope-profiler
if [ -n "$(deb scope-profiler-viewer)" ]; then
  must_have scope-profiler-viewer /usr/bin/scope-profiler-viewer \
    /usr/share/applications/org.scopeprofiler.Viewer.desktop /usr/share/metainfo/org.scopeprofiler.Viewer.metainfo.xml \
    /usr/share/mime/packages/scope-profiler.xml /usr/share/icons/hicolor/scalable/apps/org.scopeprofiler.Viewer.svg \
    /usr/share/icons/hicolor/symbolic/apps/org.scopeprofiler.Viewer-symbolic.svg \
    /usr/share/man/man1/scope-profiler-viewer.1.gz /usr/share/bash-completion/completions/scope-profiler-viewer
fi
if [ -n "$(deb libscope-profiler-mpi0)" ]; then
  must_have libscope-profiler-mpi0 "${so}_mpi\.so\.0" /usr/lib/scope-profiler/libscope_profiler_mpi_preload.so \
    /usr/lib/scope-profiler/scope-profiler-mpi
  must_have libscope-profiler-mpi-dev "${so}_mpi\.so" /usr/lib/pkgconfig/scope-profiler-mpi.pc
fi
# The runtime library package holds no headers, programs or static libraries.
! grep -qE '^/usr/(include|bin)/|\.a$' <<<"$(contents libscope-profiler0)" || fail "libscope-profiler0 holds development files"
dups=$(for d in "$work"/t/debs/*.deb; do dpkg-deb -c "$d" | awk '$1 !~ /^d/ {print $6}'; done | sort | uniq -d)
[ -z "$dups" ] || fail "files in two packages: $dups"

# Every installed file is packaged (install rules without a component, or a
# component no package takes, would drop files).
cmake --install "$build" --prefix "$work/prefix" >/dev/null
installed=$(cd "$work/prefix" && find . ! -type d | sed 's|^\./|./usr/|' | sort)
packaged=$(for d in "$work"/t/debs/*.deb; do dpkg-deb -c "$d" | awk '$1 !~ /^d/ {print $6}'; done | sort)
missing=$(comm -23 <(echo "$installed") <(echo "$packaged"))
[ -z "$missing" ] || fail "installed by cmake --install but in no package (give the install() rule a COMPONENT): $missing"
echo "every one of $(wc -l <<<"$installed") installed files is in a package; no file is in two"

echo "== dependencies"
depends_on libscope-profiler0 "libhdf5-[0-9a-z.-]+" || fail "libscope-profiler0 does not depend on libhdf5"
depends_on libscope-profiler-dev "libscope-profiler0 \(= $version-1\)" || fail "the -dev package does not pin the library"
depends_on libscope-profiler-dev libhdf5-dev || fail "the -dev package does not need libhdf5-dev (scope-profiler.pc requires hdf5-serial)"
depends_on scope-profiler "libhdf5-[0-9a-z.-]+" || fail "scope-profiler does not depend on libhdf5"
for p in libscope-profiler0 libscope-profiler-dev scope-profiler scope-profiler-viewer; do
  [ -n "$(deb "$p")" ] || continue
  ! grep -qi "mpi" <<<"$(field "$p" Depends)" || fail "$p depends on MPI: $(field "$p" Depends)"
done
[ -z "$(deb scope-profiler-viewer)" ] || depends_on scope-profiler-viewer "libgtk-4-1" ||
  fail "the viewer does not depend on GTK 4"
if [ -n "$(deb libscope-profiler-mpi0)" ]; then
  depends_on libscope-profiler-mpi0 "libopenmpi[0-9]+" || fail "libscope-profiler-mpi0 does not depend on Open MPI"
  # the MPI library streams with serial, thread-safe HDF5 (README, MPI)
  depends_on libscope-profiler-mpi0 "libhdf5-[0-9][0-9a-z.-]*" || fail "libscope-profiler-mpi0 does not depend on serial HDF5"
  ! grep -q "libhdf5-openmpi" <<<"$(field libscope-profiler-mpi0 Depends)" ||
    fail "libscope-profiler-mpi0 depends on parallel HDF5"
fi
grep -qx "activate-noawait ldconfig" <<<"$(dpkg-deb --ctrl-tarfile "$(deb libscope-profiler0)" | tar -xO ./triggers)" ||
  fail "libscope-profiler0 has no ldconfig trigger"
grep -q "^libscope_profiler 0 libscope-profiler0" <<<"$(dpkg-deb --ctrl-tarfile "$(deb libscope-profiler0)" | tar -xO ./shlibs)" ||
  fail "libscope-profiler0 has no shlibs file"

echo "== what the build tree's programs say (the installed ones must agree)"
t=$work/t
cp "$src/data/golden/v1/small.h5" "$t/golden.h5"
(cd "$t" && "$build/cli/scope-profiler" summary golden.h5) >"$t/expected_summary.txt"
echo "$version" >"$t/expected_version.txt"
mkdir "$t/src"
cp "$src/examples/mock_solver.c" "$src/examples/mock_solver_mpi.c" "$src/examples/mock_work.h" "$t/src/"
cp -r "$src/tests/package/consumer" "$t/src/consumer"
[ -x "$build/examples/mock_solver" ] || fail "examples/mock_solver is not built (SCOPE_PROFILER_BUILD_EXAMPLES)"
"$build/examples/mock_solver" "$work/ref.h5" >/dev/null
"$build/cli/scope-profiler" export csv "$work/ref.h5" -o "$work/ref-csv" >/dev/null
tail -n +2 "$work/ref-csv/regions.csv" | cut -d, -f1 | sort >"$t/expected_regions.txt"
cp "$here/check_installed.sh" "$here/help_lib.sh" "$here/zcomplete.zsh" "$t/"

echo "== install, use, purge"
set +e
"$here/sandbox.sh" "$t" "$work/leftovers" /bin/bash /sp-test/check_installed.sh /sp-test "${SP_CONSUMER_CFLAGS:-}"
status=$?
set -e
if [ $status = 125 ]; then
  [ -z "${SP_PACKAGE_TEST_NO_SYSTEM:-}" ] || fail "no sandbox, and SP_PACKAGE_TEST_NO_SYSTEM is set"
  echo "== no sandbox on this machine: installing for real, then purging"
  exec 9>/run/lock/scope-profiler-package-test.lock
  flock -w 600 9 || fail "another package test holds the lock"
  for d in "$t"/debs/*.deb; do
    p=$(dpkg-deb -f "$d" Package)
    ! grep -q "ok installed" <<<"$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" ||
      fail "$p is already installed on this machine: the test will not replace and remove it"
  done
  : >"$work/leftovers"
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    /bin/bash "$t/check_installed.sh" "$t" "${SP_CONSUMER_CFLAGS:-}" || fail "check_installed.sh failed"
elif [ $status != 0 ]; then
  fail "check_installed.sh failed in the sandbox"
fi
[ ! -s "$work/leftovers" ] || fail "left behind after the purge: $(cat "$work/leftovers")"
echo "package test passed: $(ls "$t/debs" | tr '\n' ' ')"
