#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench_mpi_cli.sh - when `mpirun -n N scope-profiler VERB RUN` pays off
# (issue 18 item 2): wall time of `summary` and `ranks` read by the command
# alone and by N MPI processes (the MPI helper: each process reads its share
# of the ranks, rank 0 merges), on a many-rank run and on a long run of a
# few ranks, both generated (gen_big_run ranks). Repeats are interleaved so
# a busy period hits every variant alike; min and median are printed, with
# mpirun's own start-up (`mpirun -n N true`) for scale, and the CPU time
# (user + sys, reading children included) of the command and of the
# busiest MPI process: on a loaded machine the wall time follows the load,
# while the busiest process's CPU time is what bounds the wall time when
# every process has a core of its own (several nodes).
#
#   bench_mpi_cli.sh BUILD_DIR [REPEATS] [PROCS]
#
#   BUILD_DIR  a build of this tree with MPI (lib/scope-profiler-mpi) and
#              the examples (gen_big_run)
#   REPEATS    default 3
#   PROCS      MPI processes, default 2
#
# Runs measured: 1,024 ranks x 40 calls, and 8 ranks x 1,250,000 calls (10M).
# Override with RUNS="RANKS:CALLS_PER_RANK ..." in the environment.
set -euo pipefail

build=${1:?usage: bench_mpi_cli.sh BUILD_DIR [REPEATS] [PROCS]}
repeats=${2:-3}
procs=${3:-2}
sp="$build/cli/scope-profiler"
gen="$build/examples/gen_big_run"
for x in "$sp" "$gen" "$build/lib/scope-profiler-mpi"; do
    [[ -x $x ]] || { echo "bench_mpi_cli: $x is missing (a build with MPI and examples)" >&2; exit 2; }
done
mpirun=$(command -v mpirun || command -v mpiexec) ||
    { echo "bench_mpi_cli: no mpirun" >&2; exit 2; }
mpi=("$mpirun" -n "$procs")
[[ $(id -u) == 0 ]] && mpi=("$mpirun" --allow-run-as-root --oversubscribe -n "$procs")

dir=$(mktemp -d /tmp/sp_bench_mpi_cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT

[[ -x /usr/bin/time ]] || { echo "bench_mpi_cli: needs /usr/bin/time (apt install time)" >&2; exit 2; }

# time_of NAME CMD...: appends the wall time [s] to $dir/NAME, and the CPU
# time of the busiest process (each writes $dir/cpu.*) to $dir/NAME.cpu
time_of() {
    local name=$1
    shift
    local t0 t1
    rm -f "$dir"/cpu.*
    t0=$(date +%s.%N)
    "$@" >"$dir/out" 2>"$dir/err" || { echo "bench_mpi_cli: $name failed:" >&2; cat "$dir/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l >>"$dir/$name"
    { cat "$dir"/cpu.* 2>/dev/null || true; } | awk '{c = $1 + $2; if (c > m) m = c} END {print m + 0}' >>"$dir/$name.cpu"
}

# timed CMD...: CMD under /usr/bin/time, its CPU time to $dir/cpu.<MPI rank>
timed() {
    /usr/bin/time -f "%U %S" -o "$dir/cpu.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"
}
export -f timed
export dir

stats() {
    python3 - "$dir/$1" <<'EOF'
import statistics, sys
v = [float(l) for l in open(sys.argv[1])]
print(f"{min(v):7.2f} {statistics.median(v):7.2f}")
EOF
}

echo "bench_mpi_cli: $procs processes, $repeats repeats, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for _ in $(seq "$repeats"); do time_of startup "${mpi[@]}" true; done
printf "%-36s %15s %15s\n" "" "wall [s]" "CPU [s]"
printf "%-36s %7s %7s %7s %7s\n" "" "min" "median" "min" "median"
printf "%-36s %s\n" "mpirun -n $procs true (start-up)" "$(stats startup)"
for spec in ${RUNS:-1024:40 8:1250000}; do
    ranks=${spec%%:*} per=${spec##*:}
    run="$dir/r${ranks}.h5"
    "$gen" ranks "$run" "$ranks" "$per" >/dev/null
    for _ in $(seq "$repeats"); do
        for verb in summary ranks; do
            time_of "$verb.serial" bash -c 'timed "$@"' timed "$sp" "$verb" "$run"
            cp "$dir/out" "$dir/want"
            time_of "$verb.mpi" "${mpi[@]}" bash -c 'timed "$@"' timed "$sp" "$verb" "$run"
            cmp -s "$dir/want" "$dir/out" || { echo "bench_mpi_cli: $verb output differs under mpirun" >&2; exit 1; }
        done
    done
    echo "$ranks ranks x $per calls ($(stat -c %s "$run") bytes):"
    for verb in summary ranks; do
        printf "  %-34s %s %s\n" "$verb" "$(stats "$verb.serial")" "$(stats "$verb.serial.cpu")"
        printf "  %-34s %s %s\n" "mpirun -n $procs $verb" "$(stats "$verb.mpi")" \
            "$(stats "$verb.mpi.cpu")"
    done
    rm -f "$dir"/summary.* "$dir"/ranks.* "$run"
done
