#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The first hour, from the README alone: install the build into a temporary
# (non-system) prefix, then build downstream programs exactly as the README
# says and RUN them without LD_LIBRARY_PATH:
#  - the README's example program with its pkg-config line
#    (`cc app.c $(pkg-config --cflags --libs scope-profiler)`): the .pc
#    carries a runpath outside /usr;
#  - find_package(ScopeProfiler), shared and static, and the README's
#    `include(ScopeProfilerInstrument)` + scope_profiler_instrument();
#  - a traced program compiled with `pkg-config --variable=instrument_cflags`.
set -euo pipefail
build_dir=$1 src_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset LD_LIBRARY_PATH
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
# A Release build (no -g in its flags): scope_profiler_instrument() adds -g,
# so traced functions are named after their file ("traced.work", never the
# executable's "consumer_traced.work"), without a warning.
cmake -S "$src_dir/tests/package/consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="${SP_CONSUMER_CFLAGS:-}" >/dev/null ||
  fail "configuring the find_package consumer (include(ScopeProfilerInstrument)?)"
cmake --build "$work/consumer" >/dev/null
# The CMake package passes no HDF5 include directory to consumers either.
! grep -rq "hdf5" "$work/consumer/CMakeFiles/consumer.dir/flags.make" \
  "$work/consumer/CMakeFiles/consumer_static.dir/flags.make" ||
  fail "find_package(ScopeProfiler) adds HDF5's include directory to its consumers"
"$work/consumer/consumer" "$work/a.h5"
"$work/consumer/consumer_static" "$work/b.h5"
"$work/consumer/consumer_traced" "$work/t.h5" >"$work/t.out" 2>&1
grep -q "─ traced\.work" "$work/t.out" || { cat "$work/t.out"; fail "traced.work not traced"; }
grep -q "─ traced\.leaf (3x)" "$work/t.out" || { cat "$work/t.out"; fail "traced.leaf (3x) not traced"; }
! grep -q "inline_helper" "$work/t.out" || { cat "$work/t.out"; fail "a header function was traced"; }
! grep -q "no debug information" "$work/t.out" || { cat "$work/t.out"; fail "-g was not added"; }

# The README's example, compiled with the README's line.
pcdir=$(dirname "$(find "$work/prefix" -name scope-profiler.pc | head -1)")
export PKG_CONFIG_PATH=$pcdir
# The header needs no HDF5 and no MPI: --cflags says only where it is (an
# MPI program's parallel HDF5 headers must not be shadowed by the serial
# ones); the static library's HDF5 (and Open MPI) are in Libs.private.
for pc in scope-profiler scope-profiler-mpi; do
  [ -f "$pcdir/$pc.pc" ] || continue
  cflags=$(echo $(pkg-config --cflags $pc)) # without the trailing blank
  case "$cflags" in
  "-I"*" "* | "" | [!-]*) fail "pkg-config --cflags $pc: '$cflags' (one -I expected)" ;;
  esac
  [ "$(realpath "${cflags#-I}")" = "$(realpath "$work/prefix/include")" ] ||
    fail "pkg-config --cflags $pc: '$cflags' (only the installed include directory expected)"
  pkg-config --libs --static $pc | grep -q -- "-lhdf5" || fail "$pc: HDF5 missing from Libs.private"
done
# The archive takes -lscope_profiler's place: linked beside it, the shared
# library would come in too (two copies of the library's globals: an ODR
# violation under ASan, two sessions in a real program).
static_libs=$(pkg-config --libs --static scope-profiler |
  sed "s|-lscope_profiler\b|$(pkg-config --variable=libdir scope-profiler)/libscope_profiler.a|")
cc ${SP_CONSUMER_CFLAGS:-} "$src_dir/tests/package/consumer/main.c" $(pkg-config --cflags scope-profiler) \
  $static_libs -o "$work/pc_static" ||
  fail "static link with pkg-config --libs --static"
"$work/pc_static" "$work/s.h5"
awk '/^```c$/ {on = 1; next} /^```$/ && on {exit} on' "$src_dir/README.md" >"$work/app.c"
grep -q "sp_setup" "$work/app.c" || fail "no C example in README.md"
(cd "$work" && cc ${SP_CONSUMER_CFLAGS:-} app.c $(pkg-config --cflags --libs scope-profiler) -o app)
(cd "$work" && ./app >"$work/app.out") || { cat "$work/app.out"; fail "the README's program does not run"; }
grep -q "solve (3x)" "$work/app.out" || { cat "$work/app.out"; fail "README program output"; }
test -s "$work/profiling_data.h5" || fail "the README's program wrote no file"
# and the consumer, as before
cc ${SP_CONSUMER_CFLAGS:-} "$src_dir/tests/package/consumer/main.c" \
  $(pkg-config --cflags --libs scope-profiler) -o "$work/pc_consumer"
"$work/pc_consumer" "$work/c.h5"
# instrument_cflags skips header functions
cc ${SP_CONSUMER_CFLAGS:-} $(pkg-config --variable=instrument_cflags scope-profiler) \
  -I"$src_dir/tests/package/consumer" "$src_dir/tests/package/consumer/traced.c" \
  $(pkg-config --cflags --libs scope-profiler) -Wl,--strip-debug -o "$work/pc_traced"
# (--strip-debug: what a sanitizer build links in carries DWARF of its own.)
"$work/pc_traced" "$work/pt.h5" >"$work/pt.out" 2>&1
# Built without -g: named from the symbol table alone ("leaf", never
# "pc_traced.leaf"), and the run says why and how to get file names.
grep -q "─ leaf (3x)" "$work/pt.out" || { cat "$work/pt.out"; fail "pkg-config traced"; }
! grep -q "pc_traced\." "$work/pt.out" || { cat "$work/pt.out"; fail "executable name as module"; }
grep -q "warning: no debug information in .*pc_traced (compiled without -g).*compile with -g" \
  "$work/pt.out" || { cat "$work/pt.out"; fail "no word on the missing debug information"; }
! grep -q "inline_helper" "$work/pt.out" || fail "instrument_cflags traced a header function"
for f in a b c s t pt; do test -s "$work/$f.h5" || fail "missing $f.h5"; done
echo "install check: find_package shared+static and pkg-config consumers all recorded 5 calls;" \
  "the README's program and traced consumers run without LD_LIBRARY_PATH"
