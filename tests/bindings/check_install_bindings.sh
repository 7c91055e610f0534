#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bindings as a user gets them: `cmake --install --prefix TMP`, then
#   C++      find_package(ScopeProfiler) and the pkg-config line, C++17
#            -Wall -Wextra -Werror; an exception through a scope is balanced;
#   Fortran  gfortran with `pkg-config --cflags --libs scope-profiler-fortran`
#            records nested regions that the installed `scope-profiler
#            summary` shows; find_package with ScopeProfiler::scope_profiler_fortran;
#            mpif90 with scope-profiler-mpi-fortran on 4 ranks;
#   Python   PYTHONPATH=TMP/lib/python3/dist-packages runs the tutorial
#            chapter verbatim (the extension finds its library by RPATH), and
#            the installed `scope-profiler run script.py` finds the package.
# check_install_bindings.sh BUILD_DIR SRC_DIR PYTHON MPIRUN(or "") HAVE_FORTRAN HAVE_PYTHON
set -uo pipefail
build=$1 src=$2 python=$3 mpirun=$4 have_fortran=$5 have_python=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=${SP_CONSUMER_CFLAGS:-}
cmake --install "$build" --prefix "$work/prefix" > /dev/null || fail "cmake --install failed"
prefix=$work/prefix
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export LD_LIBRARY_PATH=$prefix/lib
cli=$prefix/bin/scope-profiler
cd "$work"
done_parts=()

# ---- C++ ----
cmake -S "$src/tests/bindings/consumer_cpp" -B cxx -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > cxx.log 2>&1 \
  && cmake --build cxx > cxx.log 2>&1 || { cat cxx.log; fail "C++ find_package consumer did not build"; }
cxx/cpp_consumer "$work/cxx.h5" | grep -q "cpp consumer: 1 failed, finalize 0" || fail "C++ consumer (find_package)"
c++ -std=c++17 -Wall -Wextra -Werror $flags "$src/tests/bindings/consumer_cpp/main.cpp" \
  $(pkg-config --cflags --libs scope-profiler) -o cxx_pc || fail "C++ pkg-config build"
./cxx_pc "$work/cxx_pc.h5" | grep -q "finalize 0" || fail "C++ consumer (pkg-config)"
"$cli" summary "$work/cxx_pc.h5" | grep -Eq '│ └─ stage_body \(4x\)' || fail "C++: app::Stage::run > stage_body (4x) not in the tree"
done_parts+=(C++)

# ---- Fortran ----
if [ "$have_fortran" = ON ]; then
  gfortran $flags "$src/examples/fortran/nested_regions.f90" \
    $(pkg-config --cflags --libs scope-profiler-fortran) -o f_nested || fail "gfortran with the pkg-config line"
  ./f_nested "$work/f.h5" > f.txt || { cat f.txt; fail "the Fortran program failed"; }
  "$cli" summary "$work/f.h5" > f_tree.txt || fail "installed summary failed"
  for row in '│ main ' '│ └─ solve \(3x\)' '│ │ └─ assemble \(6x\)'; do
    grep -Eq "$row" f_tree.txt || { cat f_tree.txt; fail "Fortran (pkg-config): no row /$row/"; }
  done
  cmake -S "$src/tests/bindings/consumer_fortran" -B fc -DCMAKE_PREFIX_PATH="$prefix" \
    -DSRC="$src/examples/fortran/nested_regions.f90" -DCMAKE_Fortran_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" > fc.log 2>&1 && cmake --build fc > fc.log 2>&1 \
    || { cat fc.log; fail "Fortran find_package consumer did not build"; }
  fc/fortran_consumer "$work/fc.h5" > /dev/null || fail "Fortran consumer (find_package)"
  if [ -n "$mpirun" ] && pkg-config --exists scope-profiler-mpi-fortran; then
    mpif90 $flags "$src/examples/fortran/halo_mini_app.f90" \
      $(pkg-config --cflags --libs scope-profiler-mpi-fortran) -o f_halo || fail "mpif90 with the pkg-config line"
    "$mpirun" --allow-run-as-root --oversubscribe -n 4 -x LD_LIBRARY_PATH -x ASAN_OPTIONS \
      ./f_halo "$work/halo.h5" 20 > halo.txt 2>&1 || { cat halo.txt; fail "Fortran MPI program failed"; }
    "$cli" summary "$work/halo.h5" | grep -q "(4 ranks, " || fail "Fortran MPI: not 4 ranks"
  fi
  done_parts+=(Fortran)
fi

# ---- Python ----
# ASan build: the extension is instrumented, python3 is not: preload the ASan
# runtime into the Python processes only (tests/python/CMakeLists.txt; the
# chapter keeps Python's allocator, as python_chapter_verbatim does).
pyenv=()
[ -n "${SP_PY_PRELOAD:-}" ] && pyenv=(LD_PRELOAD="$SP_PY_PRELOAD")
if [ "$have_python" = ON ]; then
  site=$prefix/lib/python3/dist-packages
  env -u LD_LIBRARY_PATH "${pyenv[@]}" PYTHONPATH="$site" "$python" "$src/tests/python/check_chapter.py" \
    "$src/tests/python/seed/04_profiling_modes.md" "$python" --no-timing > chapter.txt 2>&1 \
    || { cat chapter.txt; fail "the chapter against the installed module"; }
  grep -q "chapter check: ok" chapter.txt || { cat chapter.txt; fail "chapter check"; }
  env -u LD_LIBRARY_PATH -u PYTHONPATH "$cli" run -q -o "$work/run.h5" \
    "$src/examples/python/unedited_script.py" 3 > run.txt 2>&1 || { cat run.txt; fail "installed run script.py"; }
  env "${pyenv[@]}" PYTHONPATH="$site" "$python" -c "from scope_profiler import read_h5; import sys; \
r = read_h5('$work/run.h5'); sys.exit(0 if r['__main__.Solver.step'].num_calls == 13 else 1)" \
    || fail "installed run: calls of __main__.Solver.step"
  done_parts+=(Python)
fi
echo "bindings install check: ${done_parts[*]} ok"
