#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 23's test program on 4 real ranks (examples/late_sender_mpi.c):
# rank 2 computes 3x longer in "compute" before sending to rank 0, then
# every rank calls MPI_Allreduce. `scope-profiler waits` must report
# rank 0's late-sender wait on rank 2 and the Allreduce waits of ranks 1
# and 3 (and 0 with --compute-after) on rank 2, each within 5 % of the
# wait the program measured itself (its own timestamps, taken beside the
# calls: the send's start carried in the message; every rank's entry into
# MPI_Allreduce), with "compute" on rank 2 as the cause; and the messages
# per pair of ranks must be what the program sent, by the CLI and by
# SCHEMA.md's h5py code. "compute" sleeps (the default) so the run keeps
# its shape on a loaded machine.
#
# The report has the "Why ranks wait" section, and the late sender (the
# Allreduce wait with --compute-after) among its findings.
#
#   check_late_sender.sh MPIRUN LATE_SENDER_MPI SCOPE_PROFILER PYTHON3 SCHEMA_MD SOURCE_DIR
set -u
mpirun=$1 exe=$2 cli=$3 py=$4 schema=$5 src=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
env_args=()
[ -n "${ASAN_OPTIONS:-}" ] && env_args+=(-x ASAN_OPTIONS)

for variant in plain after; do
  f=$work/$variant.h5
  args=(--steps 3 --unit-ms 100)
  [ $variant = after ] && args+=(--compute-after)
  "$mpirun" --allow-run-as-root --oversubscribe -n 4 "${env_args[@]}" "$exe" "$f" "${args[@]}" \
    >"$work/$variant.out" 2>&1 || { cat "$work/$variant.out"; fail "late_sender_mpi ($variant)"; }
  "$cli" waits --all --pairs "$f" >"$work/$variant.txt" || { cat "$work/$variant.txt"; fail "waits"; }
  "$cli" waits --csv - "$f" >"$work/$variant.csv" || fail "waits --csv -"
  cat "$work/$variant.txt"
  "$py" - "$work/$variant.out" "$work/$variant.csv" "$work/$variant.txt" "$variant" "$schema" "$f" <<'PY' ||
import csv, re, sys
out, csv_path, txt, variant, schema, h5 = sys.argv[1:7]
bad = []
measured = {}  # rank -> (Recv s, Allreduce s): the waits the program measured
sent = {}     # (src, dst) -> (messages, bytes)
for line in open(out):
    m = re.match(r"rank (\d+): waited in MPI_Recv ([\d.]+) s, in MPI_Allreduce ([\d.]+) s", line)
    if m:
        measured[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    m = re.match(r"sent (\d+) -> (\d+): (\d+) messages, (\d+) bytes", line)
    if m:
        sent[(int(m.group(1)), int(m.group(2)))] = (int(m.group(3)), int(m.group(4)))
assert len(measured) == 4 and sent, "the program's own measurements are missing"
rows = list(csv.DictReader(open(csv_path)))

def row(pattern, rank, call):
    got = [r for r in rows if r["pattern"] == pattern and int(r["rank"]) == rank
           and r["call_path"].endswith(call)]
    return got

def check_wait(pattern, rank, call, truth):
    got = row(pattern, rank, call)
    if not got:
        bad.append(f"no {pattern} row for rank {rank} in {call}")
        return
    r = got[0]
    wait = float(r["wait_s"])
    print(f"{variant}: rank {rank} {pattern} in {call}: {wait:.6f} s, the program measured {truth:.6f} s")
    if abs(wait - truth) > 0.05 * truth + 0.0005:
        bad.append(f"rank {rank} {pattern}: {wait:.6f} s, not within 5 % of {truth:.6f} s")
    # At the Allreduce the rank waited for is the last to arrive: rank 2,
    # or on a loaded machine rank 0 when it was descheduled after its late
    # sender's message arrived (then itself held up by rank 2, which the
    # cause below must name).
    if int(r["late_rank"]) != 2 and not (pattern == "wait at N x N" and int(r["late_rank"]) == 0):
        bad.append(f"rank {rank} {pattern}: waited for rank {r['late_rank']}, not 2")
    causes = sorted(got, key=lambda x: -float(x["cause_s"] or 0))
    top = causes[0]
    if top["cause_rank"] != "2" or not top["cause_region"].endswith("compute"):
        bad.append(f"rank {rank} {pattern}: top cause {top['cause_region']!r} on rank "
                   f"{top['cause_rank']}, not compute on rank 2")
    elif float(top["cause_s"]) < 0.5 * wait:
        bad.append(f"rank {rank} {pattern}: compute explains {top['cause_s']} s of {wait} s")

check_wait("late sender", 0, "MPI_Recv", measured[0][0])
for rank in (1, 3):
    check_wait("wait at N x N", rank, "MPI_Allreduce", measured[rank][1])
if variant == "after":
    check_wait("wait at N x N", 0, "MPI_Allreduce", measured[0][1])
else:  # rank 0 left MPI_Recv when rank 2 sent: a wait here is noise, but on rank 2
    for r in row("wait at N x N", 0, "MPI_Allreduce"):
        if int(r["late_rank"]) != 2:
            bad.append(f"rank 0 waited in MPI_Allreduce for rank {r['late_rank']}")
# (Not against the design's 2 units x 3 steps: on a loaded machine a
# rank's busy loop overshoots its deadline when it is descheduled, and the
# program's own measurement above is what really happened.)

# Messages per pair: the CLI's table and SCHEMA.md's h5py code.
cli_pairs = {}
for line in open(txt):
    m = re.match(r"\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
    if m:
        v = [int(x) for x in m.groups()]
        cli_pairs[(v[0], v[1])] = v[2:]
text = open(schema, encoding="utf-8").read()
scope = {}
for which in ("v2", "messages"):
    m = re.search(rf"# --- begin SCHEMA.md {which} snippet ---\n(.*?)"
                  rf"# --- end SCHEMA.md {which} snippet ---", text, re.S)
    exec(m.group(1), scope)
h5_pairs = scope["messages_per_pair"](h5)
for pair, (n, b) in sent.items():
    c = cli_pairs.get(pair)
    if c != [n, b, n, b, n]:
        bad.append(f"pair {pair}: CLI says sent/bytes/received/bytes/matched {c}, program {n}, {b}")
    if h5_pairs.get(pair) != [n, b, n, b]:
        bad.append(f"pair {pair}: h5py says {h5_pairs.get(pair)}, program {n}, {b}")
for pair in set(cli_pairs) | set(h5_pairs):
    if pair not in sent:
        bad.append(f"pair {pair}: messages the program never sent")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
    fail "waits of the $variant run"
  "$cli" report "$f" -o "$work/$variant.html" >/dev/null || fail "report ($variant)"
  # The findings are the three largest waits: in the plain run rank 0's
  # late sender and ranks 1 and 3 at the Allreduce; with --compute-after
  # rank 0's Allreduce wait is as large as its late sender (either may be
  # third), rank 1's Allreduce wait is always among them.
  finding="rank 0 waits [0-9.]+ s in MPI_Recv for rank 2 \(late sender\), because rank 2 spent [0-9.]+ s more than rank 0 in compute"
  [ $variant = after ] &&
    finding="rank 1 waits [0-9.]+ s in MPI_Allreduce for rank (2 \(wait at N x N\), because rank 2 spent [0-9.]+ s more than rank 1 in compute|0 \(wait at N x N\), itself held up by rank 2: [0-9.]+ s of the wait is rank 2.{1,6}s extra time in compute)"
  "$py" "$src/tests/cli_verbs/check_report.py" "$work/$variant.html" --sections waits,ranks \
    --contains "<h2>Why ranks wait</h2>" \
    --contains "<b>Waiting</b> $finding" \
    --contains "<a href=\"#waits\">Waits</a>" >"$work/rc.txt" || { cat "$work/rc.txt"; fail "report ($variant)"; }
done
echo "late sender: ok"
