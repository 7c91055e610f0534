# SPDX-License-Identifier: MIT
"""The MPI messages and collectives of a real 4-rank run in `export otf2`.

    check_otf2_mpi.py CLI MPIRUN LATE_SENDER_MPI WORKDIR

Runs issue 23's program (examples/late_sender_mpi.c: MPI_Send/MPI_Recv of
a late sender, a ring of MPI_Irecv/MPI_Isend/MPI_Waitall, MPI_Allreduce
and MPI_Barrier) on 4 ranks with use_mpi_regions (messages recorded),
exports it to OTF2 and reads the archive with otf2-print. Per location:
the sends (MPI_SEND + MPI_ISEND) to each receiver and the receives
(MPI_RECV + MPI_IRECV) from each sender, their counts and bytes, equal
what the program says it sent ("sent I -> J: N messages, B bytes");
every MPI_ISEND has its MPI_ISEND_COMPLETE and every MPI_IRECV its
MPI_IRECV_REQUEST; as many collective begin/end pairs as Enters of the
MPI_Allreduce and MPI_Barrier regions; every MPI event inside an open
MPI_* region (timestamps aligned as the calls'); MPI_COMM_WORLD defined.
Then `--ranks 0,2`: only the messages between ranks 0 and 2 remain, the
sender/receiver given as ranks of the exported world (rank 2 is 1).
"""
import collections
import csv
import os
import re
import shutil
import subprocess
import sys

MPI_EVENTS = ("MPI_SEND", "MPI_ISEND", "MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "MPI_IRECV",
              "MPI_RECV", "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout.decode()[-4000:]))
    return p.stdout.decode()


def read_archive(anchor):
    """Per location: its rank (from the definitions) and its events in
    stream order as (event, region or attributes)."""
    defs = run(["otf2-print", "-G", anchor])
    regions = {int(m.group(1)): m.group(2)
               for m in re.finditer(r'^REGION +(\d+) +Name: "([^"]*)"', defs, re.M)}
    group_rank = {int(m.group(1)): int(m.group(2))
                  for m in re.finditer(r'^LOCATION_GROUP +(\d+) +Name: "rank (\d+)"', defs, re.M)}
    loc_rank = {}
    for m in re.finditer(r"^LOCATION +(\d+) +Name: .*Group: (?:\"[^\"]*\" <(\d+)>|(\d+))", defs, re.M):
        loc_rank[int(m.group(1))] = group_rank[int(m.group(2) or m.group(3))]
    if not re.search(r'^COMM +\d+ +Name: "MPI_COMM_WORLD"', defs, re.M):
        fail("no MPI_COMM_WORLD communicator in the definitions:\n" + defs[-3000:])
    events = collections.defaultdict(list)
    for line in run(["otf2-print", anchor]).splitlines():
        m = re.match(r"^(\w+) +(\d+) +\d+ +(.*)$", line)
        if not m:
            continue
        ev, loc, rest = m.group(1), int(m.group(2)), m.group(3)
        if ev in ("ENTER", "LEAVE"):
            r = re.search(r"Region: \"([^\"]*)\"", rest) or re.search(r"Region: (\d+)", rest)
            name = r.group(1) if r and not r.group(1).isdigit() else regions.get(int(r.group(1)))
            events[loc].append((ev, name))
        elif ev in MPI_EVENTS:
            events[loc].append((ev, rest))
    return loc_rank, events, defs


def peer_of(rest, key):
    m = re.search(key + r": (\d+)", rest)
    if not m:
        fail("no %s in %r" % (key, rest))
    return int(m.group(1))


def check(anchor, sent, ranks, tag):
    """sent: (src, dst) -> (messages, bytes) between the exported ranks
    (world ranks); ranks: the exported ranks in order."""
    loc_rank, events, defs = read_archive(anchor)
    rank_of = {i: r for i, r in enumerate(ranks)}  # rank in the exported world -> world rank
    got_sent = collections.Counter()
    got_bytes = collections.Counter()
    got_recv = collections.Counter()
    got_rbytes = collections.Counter()
    total = collections.Counter()
    for loc, evs in events.items():
        rank = loc_rank[loc]
        stack = []
        n = collections.Counter()
        for ev, what in evs:
            if ev == "ENTER":
                stack.append(what)
                n["enter " + what] += 1
                continue
            if ev == "LEAVE":
                stack.pop()
                continue
            n[ev] += 1
            total[ev] += 1
            if not stack or not stack[-1].startswith("MPI_"):
                fail("%s: %s on location %d (rank %d) outside an MPI call (open: %s)"
                     % (tag, ev, loc, rank, stack[-1:] or "none"))
            if ev in ("MPI_SEND", "MPI_ISEND"):
                dst = rank_of[peer_of(what, "Receiver")]
                got_sent[(rank, dst)] += 1
                got_bytes[(rank, dst)] += peer_of(what, "Length")
            elif ev in ("MPI_RECV", "MPI_IRECV"):
                src = rank_of[peer_of(what, "Sender")]
                got_recv[(src, rank)] += 1
                got_rbytes[(src, rank)] += peer_of(what, "Length")
        if n["MPI_ISEND"] != n["MPI_ISEND_COMPLETE"] or n["MPI_IRECV"] != n["MPI_IRECV_REQUEST"]:
            fail("%s: rank %d: %s" % (tag, rank, dict(n)))
        colls = n["enter MPI_Allreduce"] + n["enter MPI_Barrier"]
        if n["MPI_COLLECTIVE_BEGIN"] != colls or n["MPI_COLLECTIVE_END"] != colls:
            fail("%s: rank %d: %d collective begins, %d ends, %d collective calls"
                 % (tag, rank, n["MPI_COLLECTIVE_BEGIN"], n["MPI_COLLECTIVE_END"], colls))
        print("%s: location %d (rank %d): %s" % (tag, loc, rank,
              ", ".join("%s %d" % (e, n[e]) for e in MPI_EVENTS if n[e])))
    if sent is None:
        return total
    want = {k: v[0] for k, v in sent.items()}
    want_bytes = {k: v[1] for k, v in sent.items()}
    if dict(got_sent) != want or dict(got_bytes) != want_bytes:
        fail("%s: sends per pair %s (bytes %s), the program sent %s" % (tag, dict(got_sent),
             dict(got_bytes), sent))
    if dict(got_recv) != want or dict(got_rbytes) != want_bytes:
        fail("%s: receives per pair %s (bytes %s), the program sent %s" % (tag, dict(got_recv),
             dict(got_rbytes), sent))
    if not total["MPI_COLLECTIVE_BEGIN"]:
        fail("%s: no collective" % tag)
    print("%s: %s" % (tag, dict(total)))
    return total


def quiet_window(cli, h5, work):
    """A window (seconds since the run's first call) whose edges fall where
    no message is under way on any rank: in the first and the last gap of
    the union of every rank's message spans (a ring's MPI_Irecv enter to
    its MPI_Waitall exit, an MPI_Send or MPI_Recv call), on the clock the
    export aligns ranks to. A window fixed in seconds cut a ring's
    Isend...Waitall when the run stretched on a loaded machine, and the
    export keeps only the events inside the window (FORMATS.md), so that
    row was not whole. (Not the collectives as edges: on one host under
    load the ranks' estimated clock offsets are off by up to 0.4 ms, so one
    rank's MPI_Allreduce may seem to end before another's begins.)"""
    out = os.path.join(work, "csv")
    run([cli, "export", "csv", h5, "-o", out])
    offset = collections.defaultdict(int)
    with open(os.path.join(out, "metadata.csv")) as f:
        for row in csv.reader(f):
            m = re.match(r"rank(\d+)\.clock_offset_ns$", row[0]) if row else None
            if m:
                offset[int(m.group(1))] = int(row[1])
    first = None
    calls = collections.defaultdict(list)  # rank -> [(enter, exit, region)], aligned
    with open(os.path.join(out, "calls.csv")) as f:
        for c in csv.DictReader(f):
            r = int(c["rank"])
            a, b = int(c["start_ns"]) + offset[r], int(c["end_ns"]) + offset[r]
            first = a if first is None else min(first, a)
            calls[r].append((a, b, c["region"]))
    spans = []
    for rank_calls in calls.values():
        ring = None
        for a, b, region in sorted(rank_calls):
            if region in ("MPI_Irecv", "MPI_Isend") and ring is None:
                ring = a
            elif region == "MPI_Waitall" and ring is not None:
                spans.append((ring, b))
                ring = None
            elif region in ("MPI_Send", "MPI_Recv"):
                spans.append((a, b))
    merged = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if len(merged) < 3:
        fail("window: the messages leave fewer than 2 gaps: %s" % merged)
    t0 = (merged[0][1] + merged[1][0]) / 2
    t1 = (merged[-2][1] + merged[-1][0]) / 2
    return (t0 - first) / 1e9, (t1 - first) / 1e9


def main():
    cli, mpirun, exe, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The MPI library's own allocations live to exit: leaks are checked in
    # the CLI (this test's environment), not in the MPI program.
    asan = ":".join(x for x in (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               ASAN_OPTIONS=asan)
    h5 = os.path.join(work, "run.h5")
    cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "4", "-x", "ASAN_OPTIONS"]
    out = run(cmd + [exe, h5, "--steps", "3", "--unit-ms", "20"], env=env)
    sent = {}
    for m in re.finditer(r"^sent (\d+) -> (\d+): (\d+) messages, (\d+) bytes$", out, re.M):
        sent[(int(m.group(1)), int(m.group(2)))] = (int(m.group(3)), int(m.group(4)))
    if len(sent) < 5:
        fail("the program's own counts are missing:\n" + out)
    whole = os.path.join(work, "whole")
    printed = run([cli, "export", "otf2", h5, "-o", whole]).strip()
    if printed != os.path.join(whole, "traces.otf2"):
        fail("export printed %r" % printed)
    whole_total = check(printed, sent, [0, 1, 2, 3], "whole")
    part = os.path.join(work, "ranks02")
    printed = run([cli, "export", "otf2", h5, "-o", part, "--ranks", "0,2"]).strip()
    check(printed, {k: v for k, v in sent.items() if k[0] in (0, 2) and k[1] in (0, 2)}, [0, 2],
          "ranks 0,2")
    # A window in the middle of the run: fewer events, each still inside its
    # MPI call, nonblocking rows still whole.
    t0, t1 = quiet_window(cli, h5, work)
    win = os.path.join(work, "window")
    printed = run([cli, "export", "otf2", h5, "-o", win, "--from", "%.9f" % t0,
                   "--to", "%.9f" % t1]).strip()
    part_total = check(printed, None, [0, 1, 2, 3], "window")
    if not 0 < sum(part_total.values()) < sum(whole_total.values()):
        fail("window: %s MPI events, the whole run %s" % (dict(part_total), dict(whole_total)))
    print("window: %s" % dict(part_total))
    print("otf2 mpi messages: ok")


main()
