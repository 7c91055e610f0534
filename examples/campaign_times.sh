#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# campaign_times.sh - wall and CPU time of every reading verb and viewer page
# on issue 22's crafted and recorded runs (2^20-deep nesting, 2^18 threads,
# 2^19 regions, 10^6 recorded names, ...), the figures behind the README's
# "within 10 s" statement. The tests (ctest -L campaign) hold each case to
# a time limit generous enough for a loaded machine; this prints what each
# one took, so that a busy machine's wall time can be read against the CPU
# time the case needed.
#
#   campaign_times.sh BUILD CAMPAIGN_DIR
#
# BUILD: a build tree configured with -DSCOPE_PROFILER_CAMPAIGN_TESTS=ON
# whose campaign files were written (ctest -R campaign_files, or
# tests/hostile/make_campaign_files.py and record_campaign by hand);
# CAMPAIGN_DIR: where they are (BUILD/tests/hostile/campaign). Prints one
# line per case: kind, verb or page, wall s, CPU s (user + system, the
# viewer's helper process and Xvfb included for pages), exit status.
set -u
build=$1 dir=$2
cli=$build/cli/scope-profiler viewer=$build/viewer/scope-profiler-viewer
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %-18s %8s %8s %s\n' kind case wall_s cpu_s rc
timed() { # KIND CASE COMMAND...: one line
  local kind=$1 name=$2
  shift 2
  /usr/bin/time -f '%e %U %S' -o "$out/t" "$@" >/dev/null 2>&1
  local rc=$?
  # the last line: a failing command adds "Command exited with ..." first
  read -r wall user sys < <(tail -1 "$out/t") || { wall=? user=0 sys=0; }
  printf '%-22s %-18s %8s %8.2f %s\n' "$kind" "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rc"
}
for f in "$dir"/*.h5; do
  kind=$(basename "$f" .h5)
  case $kind in chunks_*) continue ;; esac # refused or the memory cap's case
  timed "$kind" inspect "$cli" inspect "$f"
  timed "$kind" report "$cli" report "$f" -o "$out/r.html"
  timed "$kind" plot "$cli" plot all --format png "$f" -o "$out/plots"
  timed "$kind" export_plot_data "$cli" export plot-data "$f" -o "$out/pd"
  rm -rf "$out/plots" "$out/pd" "$out/r.html"
  [ -x "$viewer" ] || continue
  for page in timeline regions calltree ranks lines info compare; do
    files=("$f")
    [ $page = compare ] && files=("$f" "$f")
    timed "$kind" "viewer_$page" env GSK_RENDERER=cairo xvfb-run -a -s "-screen 0 1920x1200x24" \
      "$viewer" --size 1280x800 --page "$page" --screenshot "$out/s.png" "${files[@]}"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
