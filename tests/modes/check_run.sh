#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `scope-profiler run` on a program that knows nothing of scope-profiler:
# sampled call stacks (plain build), traced calls (-finstrument-functions
# build), exit() and SIGTERM endings, threads, --all, builds without -g,
# usage errors.
#   check_run.sh SCOPE_PROFILER RUN_TARGET RUN_TARGET_INSTRUMENTED \
#                RUN_TARGET_NO_G RUN_TARGET_INSTRUMENTED_NO_G
set -uo pipefail
sp=$1 plain=$2 instr=$3 nog_plain=$4 nog_instr=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }
lacks() { ! grep -q -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "$3"; }; }

# 1. Sampled (no instrumentation): the tree of main -> solve -> kernels,
#    the summary on stderr (stdout stays the program's), "sampled" said.
# 1200 ms of CPU: CPU-time timers fire at the kernel's tick at best (250 Hz here)
# and less often on a busy machine (18 samples for 300 ms at load 9), so
# kernel_b's third gets samples on a loaded machine too.
"$sp" run -o "$work/s.h5" "$plain" normal 1200 >"$work/out" 2>"$work/err"
rc=$?
[ $rc = 0 ] || fail "sampled run exited $rc"
has "$work/out" "^run_target: done$" "program output on stdout"
lacks "$work/out" "region" "summary must not go to stdout"
has "$work/err" "run_target.main" "main sampled"
has "$work/err" "└─ run_target.solve" "solve under main"
has "$work/err" "run_target.kernel_a" "kernel_a sampled"
has "$work/err" "run_target.kernel_b" "kernel_b sampled"
has "$work/err" "Sampled (~): calls and times of" "summary says sampled"
has "$work/err" "run_target.solve (~[0-9]*x) *~[0-9]*\.[0-9]" "sampled counts and times marked ~ (estimates)"
lacks "$work/err" "run_target.kernel_a ([0-9]" "no sampled count without ~"
lacks "$work/err" "_start" "_start is left out"
lacks "$work/err" "libc" "libc frames are left out by default"
"$sp" inspect "$work/s.h5" >"$work/inspect" || fail "inspect of the sampled file"
has "$work/inspect" "run_mode.*sampled" "metadata says sampled"
has "$work/inspect" "stack_samples" "sample count in metadata"
has "$work/inspect" "^run_target.solve  *~[0-9]* *~[0-9]*\.[0-9]*  *~[0-9]*\.[0-9]*  *~[0-9]*\.[0-9]*  *-  *-  *-  *-$" \
  "inspect marks sampled figures ~ and shows no min/max/std/p95"
has "$work/inspect" "taken every 1 ms of CPU time" "inspect prints the sampling period"
"$sp" summary "$work/s.h5" >"$work/summary" || fail "summary of the sampled file"
has "$work/summary" "Sampled (~):" "summary of the file says sampled"
has "$work/summary" "run_target.kernel_a" "file has kernel_a"

# 1b. No samples: the warning says why. A program that sleeps used less CPU
#     time than a period; a thread that blocks SIGPROF used plenty, and the
#     warning must not blame it for being short.
"$sp" run -o "$work/sl.h5" "$plain" sleep 300 >/dev/null 2>"$work/err" || fail "sleeping run"
has "$work/err" "no samples (the program used less CPU time than one sampling period)" \
  "a sleeping program is said to use too little CPU time"
"$sp" run -o "$work/bl.h5" "$plain" blocked 300 >/dev/null 2>"$work/err" || fail "blocked run"
has "$work/err" "1 thread(s) got no samples although they used [0-9]* ms of CPU time" \
  "blocked signals are told apart from a short program"
lacks "$work/err" "less CPU time than one" "a busy program is not called short"

# 2. --all keeps the system's frames (libc's start-up code above main).
"$sp" run --all -q -o "$work/all.h5" "$plain" normal 100 >/dev/null 2>&1 || fail "--all run"
"$sp" inspect "$work/all.h5" >"$work/inspect_all" || fail "inspect --all file"
has "$work/inspect_all" "libc" "--all keeps libc frames"

# 2b. run's own options after PROGRAM go to the program (as documented):
#     run says so, naming them; after "--" it does not.
"$sp" run -q -o "$work/late.h5" "$plain" normal 50 --all >/dev/null 2>"$work/err" ||
  fail "run with a late option"
has "$work/err" "warning: --all comes after PROGRAM, so it is passed to" "late option warned"
"$sp" run -q -o "$work/late2.h5" -- "$plain" normal 50 --all >/dev/null 2>"$work/err" ||
  fail "run with -- and a program option"
lacks "$work/err" "comes after PROGRAM" "no warning after --"

# 3. Traced (-finstrument-functions): exact calls, no sampling.
"$sp" run -o "$work/t.h5" "$instr" normal 200 >"$work/out" 2>"$work/err" || fail "traced run"
has "$work/err" "run_target.main" "main traced"
has "$work/err" "run_target.now_ms ([0-9]*x)" "now_ms traced with a call count"
lacks "$work/err" "Sampled" "traced is not sampled"
lacks "$work/err" "~[0-9]*\.[0-9]" "traced times are not estimates"
"$sp" inspect "$work/t.h5" >"$work/inspect" || fail "inspect of the traced file"
has "$work/inspect" "run_mode.*traced" "metadata says traced"
# --mode sample on the instrumented binary samples it anyway.
"$sp" run --mode sample -q -o "$work/ts.h5" "$instr" normal 100 >/dev/null 2>&1 || fail "forced sampling"
"$sp" inspect "$work/ts.h5" | grep -q "run_mode.*sampled" || fail "--mode sample"

# 4. exit() from inside a function: the file is written, the status kept.
"$sp" run -q -o "$work/e.h5" "$plain" exit 300 >/dev/null 2>&1
rc=$?
[ $rc = 3 ] || fail "exit status 3 expected, got $rc"
"$sp" summary "$work/e.h5" >"$work/summary" || fail "no file after exit()"
has "$work/summary" "run_target.kernel_a" "exit(): kernel_a recorded"
"$sp" run -q -o "$work/te.h5" "$instr" exit 200 >/dev/null 2>&1
[ $? = 3 ] || fail "traced exit status"
"$sp" summary "$work/te.h5" | grep -q "run_target.kernel_b" || fail "traced exit(): kernel_b"

# 5. SIGTERM: finalized in the handler, then the program dies of the signal.
"$sp" run -q -o "$work/k.h5" "$plain" term 300 >/dev/null 2>&1
rc=$?
[ $rc = 143 ] || fail "death by SIGTERM (143) expected, got $rc"
"$sp" summary "$work/k.h5" | grep -q "run_target.kernel_a" || fail "no file after SIGTERM"
"$sp" run -q -o "$work/tk.h5" "$instr" term 200 >/dev/null 2>&1
[ $? = 143 ] || fail "traced SIGTERM status"
"$sp" summary "$work/tk.h5" | grep -q "run_target.kernel_a" || fail "traced SIGTERM file"
#    ... and from outside, while the program runs.
"$sp" run -q -o "$work/k2.h5" "$plain" normal 5000 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "external SIGTERM: status $rc"
"$sp" summary "$work/k2.h5" | grep -q "run_target.main" || fail "external SIGTERM: no file"

# 6. Threads: every thread's stacks.
"$sp" run -o "$work/th.h5" "$plain" threads 200 >/dev/null 2>"$work/err" || fail "threads run"
has "$work/err" "run_target.worker (~2x)" "two worker threads sampled"
has "$work/err" "Times are per thread" "threads running one region: per-thread rule stated"

# 7. No debug information (built without -g, as a plain Release build is):
#    functions are named from the symbol table alone ("kernel_a", never the
#    executable's name as a module), and the run says once why file names
#    are missing and how to get them, traced and sampled alike.
for v in "$nog_plain" "$nog_instr"; do
  "$sp" run -o "$work/ng.h5" "$v" normal 200 >/dev/null 2>"$work/err" || fail "no -g run of $v"
  has "$work/err" "─ solve" "no -g: solve named by its symbol"
  has "$work/err" "─ kernel_a" "no -g: kernel_a named by its symbol"
  lacks "$work/err" "modes_run_target_nog" "no -g: the executable's name is no module"
  has "$work/err" "warning: no debug information in .*(compiled without -g).*compile with -g" \
    "no -g: the run says why"
  [ "$(grep -c "no debug information" "$work/err")" = 1 ] || fail "no -g: said more than once"
done

# 8. Usage.
"$sp" run >/dev/null 2>"$work/err"
[ $? = 2 ] || fail "missing PROGRAM is a usage error"
has "$work/err" "missing PROGRAM" "message for missing PROGRAM"
"$sp" run "$work/no-such-program" >/dev/null 2>"$work/err"
[ $? = 127 ] || fail "unknown program: 127"
"$sp" run --hz 0 "$plain" >/dev/null 2>&1
[ $? = 2 ] || fail "--hz 0 is a usage error"
echo "modes_run: ok"
