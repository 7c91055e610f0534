#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_read.sh - how reading scales with the run (issue 18): wall time,
# CPU time and peak RSS of the reading verbs on a generated run, against the
# practical floor (raw_read_floor: plain libhdf5 reading the event columns
# and replaying the stacks). Each measurement is repeated and reported as
# min and median, interleaved so a busy period hits every verb alike.
#
#   bench_read.sh BUILD_DIR CALLS [REPEATS] [--ranks RANKS CALLS_PER_RANK]
#
#   BUILD_DIR  a build of this tree (examples built: gen_big_run,
#              raw_read_floor, cli/scope-profiler)
#   CALLS      calls to record (2 threads, nesting 3 deep), e.g. 10000000
#   REPEATS    default 3
#   --ranks    also a finished file of RANKS ranks written directly (no MPI),
#              CALLS_PER_RANK calls each: `ranks` and `summary` on it, against
#              two floors: the raw read of the event columns, and the raw
#              read of every dataset of the rank groups (raw_read_floor
#              --every; issue 18's "raw read of its groups")
#
# The verbs on the recorded run: summary, inspect, ranks (issue 18's bars).
# Prints one line per verb: min and median wall [s], CPU [s], peak RSS [MB],
# bytes of RSS per call, and the ratios of its median wall and CPU time to
# the raw read's (and, for the many-rank file, to the every-dataset read's).
set -euo pipefail

build=${1:?usage: bench_read.sh BUILD_DIR CALLS [REPEATS] [--ranks R C]}
calls=${2:?usage: bench_read.sh BUILD_DIR CALLS [REPEATS] [--ranks R C]}
repeats=${3:-3}
ranks=""
if [[ ${4:-} == --ranks ]]; then
    ranks=${5:?--ranks RANKS CALLS_PER_RANK}
    per_rank=${6:?--ranks RANKS CALLS_PER_RANK}
fi
sp="$build/cli/scope-profiler"
gen="$build/examples/gen_big_run"
raw="$build/examples/raw_read_floor"
for x in "$sp" "$gen" "$raw"; do
    [[ -x $x ]] || { echo "bench_read: $x is missing (build the examples)" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench_read: needs /usr/bin/time (apt install time)" >&2; exit 2; }

dir=$(mktemp -d /tmp/sp_bench_read.XXXXXX)
trap 'rm -rf "$dir"' EXIT
run="$dir/run.h5"
echo "bench_read: recording $calls calls ..." >&2
"$gen" record "$run" "$calls" 2 >/dev/null
echo "bench_read: $(stat -c %s "$run") bytes, load $(cut -d' ' -f1 /proc/loadavg)" >&2

# measure NAME CMD...: appends "wall cpu rss_kb" to $dir/NAME
measure() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$dir/t" "$@" >/dev/null 2>"$dir/err" ||
        { echo "bench_read: $name failed:" >&2; cat "$dir/err" >&2; exit 1; }
    awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$dir/t" >>"$dir/$name"
}

# report NAME DENOM_CALLS [FLOOR...]: min/median of each column, ratios of
# the medians to each floor's (default: the raw read)
report() {
    local name=$1 calls=$2
    shift 2
    local floors=("${@:-raw}")
    python3 - "$dir/$name" "$name" "$calls" "$dir" "${floors[@]}" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
calls = float(sys.argv[3])
col = lambda r, i: [x[i] for x in r]
w, c, m = col(rows, 0), col(rows, 1), col(rows, 2)
ratios = ""
for floor in sys.argv[5:]:
    f = [list(map(float, l.split())) for l in open(f"{sys.argv[4]}/{floor}")]
    fw, fc = statistics.median(col(f, 0)), statistics.median(col(f, 1))
    cpu = f"{statistics.median(c)/fc:5.2f}" if fc else "    -"  # under 10 ms
    ratios += f"  /{floor}: wall {statistics.median(w)/fw:5.2f} cpu {cpu}"
print(f"{sys.argv[2]:<22} wall min {min(w):7.2f} med {statistics.median(w):7.2f} s"
      f"  cpu min {min(c):7.2f} med {statistics.median(c):7.2f} s  rss max {max(m)/1024:7.1f} MB"
      f"  ({max(m)*1024/calls:6.2f} B/call){ratios}")
EOF
}

for ((i = 0; i < repeats; i++)); do
    measure raw "$raw" "$run"
    measure summary "$sp" summary "$run"
    measure inspect "$sp" inspect "$run"
    measure ranks "$sp" ranks "$run"
done
echo "$calls calls, 2 threads, $repeats repeats:"
for v in raw summary inspect ranks; do report "$v" "$calls"; done

if [[ -n $ranks ]]; then
    mr="$dir/ranks.h5"
    echo "bench_read: writing $ranks ranks x $per_rank calls ..." >&2
    "$gen" ranks "$mr" "$ranks" "$per_rank" >/dev/null
    rm -f "$dir/raw"
    for ((i = 0; i < repeats; i++)); do
        measure raw "$raw" "$mr"
        measure raw_every "$raw" --every "$mr"
        measure ranks_verb "$sp" ranks "$mr"
        measure summary_ranks "$sp" summary "$mr"
    done
    echo "$ranks ranks x $per_rank calls (raw: the event columns; raw_every: every dataset of the rank groups):"
    for v in raw raw_every ranks_verb summary_ranks; do
        report "$v" $((ranks * per_rank)) raw raw_every
    done
fi
