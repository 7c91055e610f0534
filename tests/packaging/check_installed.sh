#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_installed.sh DIR [CONSUMER_CFLAGS]
#
# Run as root on the machine the packages go to (check_deb.sh runs it in a
# sandbox): install DIR/debs/*.deb with dpkg, use everything as a user
# would, without any environment variable, then purge the packages and
# check that nothing of them is left. DIR also holds the sources to build
# (src/) and what the build tree's own programs printed (expected_*.txt).
set -euo pipefail
dir=$1 cflags=${2:-}
cd "$dir"
. "$dir/help_lib.sh"
step() { echo "-- $*"; }
has_pkg() { [ -n "$(ls debs/"$1"_*.deb 2>/dev/null)" ]; }
names=$(for d in debs/*.deb; do dpkg-deb -f "$d" Package; done)

step "dpkg -i $(echo $names)"
dpkg -i debs/*.deb >install.log 2>&1 || { cat install.log; fail "dpkg -i failed"; }
for p in $names; do
  [ "$(dpkg-query -W -f '${Status}' "$p")" = "install ok installed" ] || fail "$p is not installed"
done

step "the command, on the golden file"
[ "$(command -v scope-profiler)" = /usr/bin/scope-profiler ] || fail "scope-profiler is not /usr/bin/scope-profiler"
[ "$(scope-profiler --version)" = "scope-profiler $(cat expected_version.txt)" ] || fail "scope-profiler --version"
scope-profiler summary golden.h5 >summary.txt
cmp -s summary.txt expected_summary.txt ||
  { diff expected_summary.txt summary.txt; fail "installed summary differs from the build tree's"; }

step "man pages"
if grep -qs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
  fail "dpkg on this machine does not install man pages (path-exclude in /etc/dpkg/dpkg.cfg.d)"
fi
[ "$(man -w scope-profiler)" = /usr/share/man/man1/scope-profiler.1.gz ] || fail "man -w scope-profiler: $(man -w scope-profiler 2>&1)"
page=$(MANWIDTH=200 man -P cat scope-profiler 2>/dev/null | col -b)
for v in $(help_verbs scope-profiler); do
  grep -q "^   scope-profiler $v$" <<<"$page" || fail "man scope-profiler has no section for $v"
done
# (grep reads whole texts, never a pipe: with pipefail, grep -q closing a
# pipe early would fail the writer)
page3=$(MANWIDTH=200 man -P cat 3 sp_setup 2>/dev/null | col -b)
grep -qF "int sp_setup(const sp_options *o);" <<<"$page3" || fail "man 3 sp_setup does not show sp_setup"
if has_pkg scope-profiler-viewer; then
  pagev=$(MANWIDTH=200 man -P cat scope-profiler-viewer 2>/dev/null | col -b)
  grep -q -- "--screenshot" <<<"$pagev" || fail "man scope-profiler-viewer"
fi

step "a program built with pkg-config (examples/mock_solver.c), run with an empty environment"
# shellcheck disable=SC2046,SC2086
cc $cflags -O1 src/mock_solver.c -Isrc $(pkg-config --cflags --libs scope-profiler) -lm -o mock_solver
deps=$(ldd mock_solver)
grep -qE "libscope_profiler\.so\.0 => (/usr)?/lib/" <<<"$deps" ||
  fail "mock_solver does not load the installed library: $deps"
env -i ./mock_solver solver.h5 >solver.out || fail "mock_solver failed with an empty environment"
scope-profiler export csv solver.h5 -o solver-csv >/dev/null
tail -n +2 solver-csv/regions.csv | cut -d, -f1 | sort >regions.txt
cmp -s regions.txt expected_regions.txt ||
  { diff expected_regions.txt regions.txt; fail "the installed library recorded other regions"; }
echo "   recorded: $(tr '\n' ' ' <regions.txt)"

step "a CMake project with find_package(ScopeProfiler), shared and static"
cmake -S src/consumer -B consumer-build -DCMAKE_C_FLAGS="$cflags" >consumer.log 2>&1 ||
  { cat consumer.log; fail "find_package(ScopeProfiler) failed"; }
cmake --build consumer-build >>consumer.log 2>&1 || { cat consumer.log; fail "the consumer does not build"; }
[ "$(env -i consumer-build/consumer a.h5)" = "consumer_loop calls: 5" ] || fail "consumer (shared)"
[ "$(env -i consumer-build/consumer_static b.h5)" = "consumer_loop calls: 5" ] || fail "consumer (static)"

step "scope-profiler run: the preload library from /usr/lib/scope-profiler"
cat >traced.c <<'EOF'
#include <stdio.h>
static double leaf(int i) { return i * 0.5; }
static double middle(int n) { double s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
int main(void) { double s = 0; for (int k = 0; k < 20; k++) s += middle(1000); printf("%g\n", s); return 0; }
EOF
cc $cflags -g -O0 -finstrument-functions traced.c -o traced
scope-profiler run -q -o traced.h5 ./traced >/dev/null 2>run.err || { cat run.err; fail "scope-profiler run"; }
grep -q "middle" <<<"$(scope-profiler summary traced.h5)" || fail "scope-profiler run did not trace middle()"

if has_pkg libscope-profiler-mpi-dev; then
  step "an MPI program built with mpicc and pkg-config scope-profiler-mpi, 2 ranks"
  # shellcheck disable=SC2046,SC2086
  mpicc $cflags -O1 src/mock_solver_mpi.c -Isrc $(pkg-config --cflags --libs scope-profiler-mpi) -lm -o mock_mpi
  grep -qE "libscope_profiler_mpi\.so\.0 => (/usr)?/lib/" <<<"$(ldd mock_mpi)" || fail "mock_mpi does not load the installed MPI library"
  mpirun --allow-run-as-root --oversubscribe -n 2 ./mock_mpi mpi.h5 >mpi.out 2>&1 || { cat mpi.out; fail "mpirun -n 2 mock_mpi"; }
  grep -qF "(2 ranks, " <<<"$(scope-profiler summary mpi.h5)" || fail "the MPI run does not hold 2 ranks"
fi

if has_pkg scope-profiler-viewer; then
  step "desktop integration as installed"
  app=/usr/share/applications/org.scopeprofiler.Viewer.desktop
  desktop-file-validate "$app" || fail "desktop-file-validate $app"
  appstreamcli validate --no-net /usr/share/metainfo/org.scopeprofiler.Viewer.metainfo.xml >as.log 2>&1 ||
    { cat as.log; fail "appstreamcli validate"; }
  t=$(gio info -a standard::content-type golden.h5 | sed -nE 's/^ *standard::content-type: //p')
  [ "$t" = application/x-scope-profiler ] || fail "golden.h5 is '$t' for GIO after install"
  grep -q "application/x-scope-profiler=.*org.scopeprofiler.Viewer.desktop" /usr/share/applications/mimeinfo.cache ||
    fail "the viewer is not registered for application/x-scope-profiler (update-desktop-database)"
  [ -f /usr/share/icons/hicolor/scalable/apps/org.scopeprofiler.Viewer.svg ] || fail "no app icon"
  [ -f /usr/share/icons/hicolor/symbolic/apps/org.scopeprofiler.Viewer-symbolic.svg ] || fail "no symbolic icon"
fi

step "bash completion through bash-completion's loader"
if [ -f /usr/share/bash-completion/bash_completion ]; then
  got=$(bash --norc -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion scope-profiler || exit 1
    fn=$(complete -p scope-profiler | sed -E "s/.* -F ([^ ]+) .*/\1/")
    COMP_WORDS=(scope-profiler ex); COMP_CWORD=1; "$fn"; echo "${COMPREPLY[*]}"
    COMP_WORDS=(scope-profiler export ""); COMP_CWORD=2; "$fn"; echo "${COMPREPLY[*]}"')
  [ "$(sed -n 1p <<<"$got")" = export ] || fail "installed bash completion: ex<TAB> -> $(sed -n 1p <<<"$got")"
  grep -qw chrome-trace <<<"$(sed -n 2p <<<"$got")" || fail "installed bash completion: export <TAB> -> $(sed -n 2p <<<"$got")"
  echo "   ex<TAB> -> $(sed -n 1p <<<"$got"); export <TAB> -> $(sed -n 2p <<<"$got")"
else
  fail "bash-completion is not installed (scripts/install-deps.sh test installs it)"
fi
if command -v zsh >/dev/null; then
  step "zsh completion from the default fpath"
  got=$(timeout 60 zsh -f "$dir/zcomplete.zsh" /nonexistent "scope-profiler ex")
  [ "$got" = "scope-profiler export " ] || fail "installed zsh completion: ex<TAB> -> '$got'"
fi

step "dpkg --purge"
files=$(for d in debs/*.deb; do dpkg-deb -c "$d" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\.||'; done)
# shellcheck disable=SC2086
dpkg --purge $names >purge.log 2>&1 || { cat purge.log; fail "dpkg --purge failed"; }
for p in $names; do
  ! grep -q "ok installed" <<<"$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null)" || fail "$p is still installed"
done
for f in $files; do
  [ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f is left after the purge"
done
hash -r
! command -v scope-profiler >/dev/null || fail "scope-profiler is still on PATH"
! man -w scope-profiler >/dev/null 2>&1 || fail "man scope-profiler still finds a page"
if has_pkg scope-profiler-viewer; then
  t=$(gio info -a standard::content-type golden.h5 | sed -nE 's/^ *standard::content-type: //p')
  [ "$t" = application/x-hdf ] || fail "golden.h5 is still '$t' after the purge"
fi
echo "installed, used and purged: $(echo $names)"
