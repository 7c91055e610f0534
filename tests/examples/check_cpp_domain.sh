#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The C++ mini-app (examples/cpp_domain) traced as the README says: with the
# documented flags its functions are regions named after the file that
# defines them and the header accessors are not traced; with plain
# -finstrument-functions the accessors are named after their header and the
# run warns how to compile instead. OpenMP builds fill omp_num_threads.
#   check_cpp_domain.sh CLI TRACED NAIVE
set -uo pipefail
cli=$1 traced=$2 naive=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }
lacks() { ! grep -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }

CPP_DOMAIN_SUMMARY=1 "$traced" 8 3 "$work/t.h5" >"$work/t.out" 2>&1 || fail "traced run"
"$cli" inspect "$work/t.h5" >"$work/t.txt" || fail "inspect traced"
# named after their own files: kernels.cpp, domain_init.cpp
has "$work/t.txt" "^kernels\.CalcForceForNodes(Domain&) " "kernel named after kernels.cpp"
has "$work/t.txt" "^kernels\.LagrangeLeapFrog(Domain&) " "driver kernel named after kernels.cpp"
has "$work/t.txt" "^domain_init\.Domain::node(long, int) const " \
  "Domain::node named after domain_init.cpp (where it is defined)"
# the accessors of domain.hpp and the standard library are not traced
lacks "$work/t.txt" "Domain::x(long)" "an inline accessor was traced with the documented flags"
lacks "$work/t.txt" "std::vector" "a standard library function was traced"
lacks "$work/t.out" "defined in headers" "no header warning with the documented flags"
if grep -q "OpenMP" "$work/t.out" /dev/null || nm -D "$traced" 2>/dev/null | grep -q GOMP_; then
  has "$work/t.txt" "omp_num_threads *: [0-9]" "omp_num_threads filled in an OpenMP program"
fi

CPP_DOMAIN_SUMMARY=1 "$naive" 8 3 "$work/n.h5" >"$work/n.out" 2>&1 || fail "naive run"
"$cli" inspect "$work/n.h5" >"$work/n.txt" || fail "inspect naive"
# a header accessor is named after the header that defines it, not after
# the .cpp file that happened to compile it
has "$work/n.txt" "^domain\.Domain::x(long) " "accessor named after domain.hpp"
lacks "$work/n.txt" "^kernels\.Domain::" "accessor named after the compiling file"
has "$work/n.out" "traced function(s) defined in headers" "warning about traced header functions"
has "$work/n.out" "finstrument-functions-exclude-file-list" "the warning says how to compile"
echo "cpp_domain: ok"
