#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the libFuzzer targets (clang-14, ASan + UBSan) and run each for a
# bounded time on a seed corpus from data/ and tests/hostile/:
#   sp_fuzz_read  bytes -> run file -> reader -> analysis, summary, inspect
#   sp_fuzz_wire  bytes -> the reading process's stream -> checks -> analysis
# Every crash, timeout or out-of-memory input is run again and sorted by
# where it happened: inside libhdf5 itself (corruptions of HDF5's own
# structures; the CLI and viewer survive those by reading in a child
# process, tested in tests/hostile) or in our code. Any input that breaks
# our code fails the run and is kept under $SP_FUZZ_OUT (default: a temp
# dir, printed) to become a regression file in tests/hostile/crashers/.
#   scripts/fuzz.sh [READ_SECONDS [WIRE_SECONDS]]   (CI: 75 45)
set -euo pipefail
cd "$(dirname "$0")/.."
read_s=${1:-75} wire_s=${2:-45}
dir=build-fuzz
cc=$(command -v clang-14 || command -v clang || true)
if [ -z "$cc" ]; then
  echo "fuzz: FAIL: clang-14 is not installed (scripts/install-deps.sh test)"
  exit 1
fi
echo "== fuzz build ($cc) =="
CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCOPE_PROFILER_FUZZ=ON \
  -DSCOPE_PROFILER_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target sp_fuzz_read sp_fuzz_wire sp_fuzz_make_seeds
bin=$PWD/$dir/tests/fuzz
out=${SP_FUZZ_OUT:-$(mktemp -d)}
mkdir -p "$out"/{seeds-read,seeds-wire,corpus-read,corpus-wire,art-read,art-wire}
echo "fuzz: work directory $out"

# Seeds: the golden and Python files and the crafted hostile files (small
# ones). Not tests/hostile/crashers: libhdf5 loops on them, every fuzz job
# would spend its time-out on them again. Schema v2: the finished golden
# file, and the run file and SWMR part a killed run left (the part as a
# seed of its own: the fuzzed run file's links never reach it).
cp data/golden/v1/*.h5 data/python-0.2.1/*.h5 "$out/seeds-read/"
for f in data/golden/v2/*.h5 data/golden/v2/*.part; do
  cp "$f" "$out/seeds-read/v2_$(basename "$f" | tr . _).h5"
done
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  /usr/bin/python3 tests/hostile/make_hostile_files.py "$out/hostile" >/dev/null
  find "$out/hostile" -name '*.h5' -size -64k -exec cp {} "$out/seeds-read/" \;
fi
"$bin/sp_fuzz_make_seeds" "$out/seeds-wire" "$out"/seeds-read/*.h5 || true

# max_allocation_size_mb: a single allocation HDF5 sizes from a damaged
# file (a variable-length string "of 3 GiB") fails at once instead of being
# zeroed for seconds, as the reading process's memory limit does in a real
# run (sp_h5_read_isolated.c).
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=1024"
export UBSAN_OPTIONS="print_stacktrace=1"
run() { # target seconds
  local t=$1 s=$2
  echo "== fuzz $t for $s s =="
  # -fork: a crash or hang inside libhdf5 is recorded and fuzzing goes on.
  (cd "$out" && "$bin/sp_fuzz_$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
     -max_total_time="$s" -timeout=15 -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 \
     -artifact_prefix="$out/art-$t/" "$out/corpus-$t" "$out/seeds-$t" >"$out/$t.log" 2>&1) || true
  grep -E "^#[0-9]+: cov:|stat::number_of_executed_units|INFO: fuzzed for" "$out/$t.log" | tail -2 || true
}
run read "$read_s"
run wire "$wire_s"

# Sort what was found. The first frame that is neither the sanitizer, libc,
# nor libFuzzer says where it broke.
ours=0 hdf5=0
for t in read wire; do
  for a in "$out/art-$t"/*; do
    [ -e "$a" ] || continue
    "$bin/sp_fuzz_$t" -timeout=15 -rss_limit_mb=3072 "$a" >"$a.trace" 2>&1 || true
    frame=$(grep -E '^ +#[0-9]+ 0x' "$a.trace" |
      grep -vE 'in (__sanitizer|__asan|__ubsan|__interceptor|__memset|__memcpy|__memmove|fuzzer::|__libc|_start|malloc|calloc|realloc|free|operator|raise|abort)' |
      grep -vE '\((/lib|/usr/lib)/x86_64-linux-gnu/(libc|libstdc|libgcc|libm|libpthread)\.' |
      head -1 || true)
    kind=$(basename "$a" | cut -d- -f1)
    if grep -q "libhdf5" <<<"$frame"; then
      hdf5=$((hdf5 + 1))
      echo "fuzz: $t $kind inside libhdf5 (HDF5's own): $(basename "$a")"
      echo "      ${frame## }"
    elif [ -z "$frame" ] && ! grep -qE "ERROR|SUMMARY|runtime error" "$a.trace"; then
      echo "fuzz: $t $kind did not reproduce: $(basename "$a")"
    else
      ours=$((ours + 1))
      echo "fuzz: FAIL: $t $kind in our code: $a"
      grep -E "ERROR|runtime error|SUMMARY|^ +#[0-9]" "$a.trace" | head -20
    fi
  done
done
echo "fuzz: $ours input(s) breaking our code, $hdf5 inside libhdf5 (isolated at run time)"
[ "$ours" = 0 ]
