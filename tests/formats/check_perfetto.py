# SPDX-License-Identifier: MIT
"""`scope-profiler export perfetto` decoded with Perfetto's own schema.

    check_perfetto.py CLI RUN WORKDIR PROTO [--max-bytes-per-call B]

Exports RUN (whole, a time window, the top 2 regions), gunzips each file
and decodes it with `protoc --decode=perfetto.protos.Trace PROTO`
(perfetto_trace.proto, Perfetto's merged trace schema: tests/formats/
perfetto/), then rebuilds the calls of every thread from the decoded
packets as Perfetto's importer does (track descriptors, sequence defaults,
the incremental clock of each sequence, interned event names) and checks:
a process track named "rank N" per rank and a thread track per thread with
calls, named after the thread; as many slice begins as ends as calls per
thread; every call's (start, end, region) equal to the run's; per region
the calls `inspect` counts.
"""
import argparse
import collections
import gzip
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import Truth, fail, pair_calls, run  # noqa: E402


def unescape(s):
    """A protobuf text-format string literal's bytes, as UTF-8 text."""
    out, i = bytearray(), 0
    simple = {"n": 10, "r": 13, "t": 9, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8, "f": 12,
              "v": 11, "?": 63}
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
    return out.decode("utf-8", errors="replace")


def packets(text):
    """The decoded Trace as a list of packets, each a nested dict of lists
    (field -> [values]); strings unescaped, numbers as ints, enums as names."""
    root = {}
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(node)
            stack.append(node)
        elif line == "}":
            stack.pop()
        else:
            key, _, val = line.partition(": ")
            if val.startswith('"'):
                val = unescape(val[1:-1])
            elif re.fullmatch(r"-?\d+", val):
                val = int(val)
            stack[-1].setdefault(key, []).append(val)
    return root.get("packet", [])


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def decode(path, proto):
    raw = gzip.open(path).read()
    p = subprocess.run(["protoc", "--proto_path=" + os.path.dirname(proto), "--decode=perfetto.protos.Trace",
                        proto], input=raw, capture_output=True)
    if p.returncode != 0:
        fail("protoc --decode: %s" % p.stderr.decode(errors="replace"))
    return len(raw), packets(p.stdout.decode())


def rebuild(pkts):
    """Per (rank, thread): the calls; the track names; the slice counts."""
    procs = {}          # process uuid -> (pid, name)
    threads = {}        # thread uuid -> (pid, tid, name)
    seq_track = {}      # sequence -> track uuid (its defaults)
    seq_clock = {}      # sequence -> current value of its clock 64
    interned = collections.defaultdict(dict)
    events = collections.defaultdict(list)
    counts = collections.defaultdict(lambda: [0, 0])
    for p in pkts:
        seq = one(p, "trusted_packet_sequence_id")
        if one(p, "sequence_flags", 0) & 1:
            interned[seq] = {}
        for td in p.get("track_descriptor", []):
            uuid = one(td, "uuid")
            if "process" in td:
                pr = td["process"][0]
                procs[uuid] = (one(pr, "pid"), one(pr, "process_name"))
            if "thread" in td:
                th = td["thread"][0]
                threads[uuid] = (one(th, "pid"), one(th, "tid"), one(th, "thread_name"))
        for d in p.get("trace_packet_defaults", []):
            if one(d, "timestamp_clock_id") != 64:
                fail("sequence %s: timestamps not on its clock 64" % seq)
            seq_track[seq] = one(one(d, "track_event_defaults"), "track_uuid")
        for cs in p.get("clock_snapshot", []):
            clocks = {one(c, "clock_id"): c for c in cs["clocks"]}
            if one(clocks[64], "is_incremental") != "true" or 6 not in clocks:
                fail("sequence %s: clock snapshot is not an incremental clock 64 tied to BOOTTIME" % seq)
            if one(clocks[64], "timestamp") != one(clocks[6], "timestamp"):
                fail("sequence %s: clock 64 is not BOOTTIME" % seq)
            seq_clock[seq] = one(clocks[64], "timestamp")
        for idata in p.get("interned_data", []):
            for en in idata.get("event_names", []):
                interned[seq][one(en, "iid")] = one(en, "name")
        te = one(p, "track_event")
        if te is None:
            continue
        if one(p, "sequence_flags", 0) != 2:
            fail("an event packet without SEQ_NEEDS_INCREMENTAL_STATE")
        seq_clock[seq] += one(p, "timestamp")
        uuid = one(te, "track_uuid", seq_track.get(seq))
        pid, tid, _ = threads[uuid]
        rank = pid - 1
        thread = 0 if tid == pid else tid >> 32
        kind = one(te, "type")
        if kind == "TYPE_SLICE_BEGIN":
            events[(rank, thread)].append((seq_clock[seq], interned[seq][one(te, "name_iid")], True))
            counts[(rank, thread)][0] += 1
        elif kind == "TYPE_SLICE_END":
            events[(rank, thread)].append((seq_clock[seq], None, False))
            counts[(rank, thread)][1] += 1
        else:
            fail("unexpected track event type %s" % kind)
    calls = {k: pair_calls(v) for k, v in events.items()}
    return calls, counts, procs, threads


def check(cli, path, work, proto, truth, tag, extra, want):
    out = os.path.join(work, tag + ".pftrace.gz")
    printed = run([cli, "export", "perfetto", path, "-o", out] + extra).decode().strip()
    if printed != out:
        fail("%s: export printed %r" % (tag, printed))
    with open(out, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            fail("%s: not gzip" % tag)
    raw, pkts = decode(out, proto)
    calls, counts, procs, threads = rebuild(pkts)
    names = {pid: name for pid, name in procs.values()}
    for (r, t), w in want.items():
        if names.get(r + 1) != "rank %d" % r:
            fail("%s: the process of rank %d is named %r" % (tag, r, names.get(r + 1)))
        tname = [n for (pid, tid, n) in threads.values()
                 if pid == r + 1 and (0 if tid == pid else tid >> 32) == t]
        expect = truth.thread_names.get((r, t)) or "thread %d" % t
        if tname != [expect]:
            fail("%s: rank %d thread %d track named %r, want %r" % (tag, r, t, tname, expect))
        if counts[(r, t)] != [len(w), len(w)]:
            fail("%s: rank %d thread %d: %s slice begins/ends, want %d each"
                 % (tag, r, t, counts[(r, t)], len(w)))
        rel = [(s - truth.origin, e - truth.origin, n) for s, e, n in w]
        if calls.get((r, t)) != rel:
            got = calls.get((r, t), [])
            i = next((i for i in range(min(len(got), len(rel))) if got[i] != rel[i]), 0)
            fail("%s: rank %d thread %d: calls differ at #%d: %s vs %s"
                 % (tag, r, t, i, got[i:i + 1], rel[i:i + 1]))
    if set(calls) != set(want):
        fail("%s: threads %s, want %s" % (tag, sorted(calls), sorted(want)))
    n = sum(len(w) for w in want.values())
    size = os.path.getsize(out)
    print("%s: %d tracks, %d calls as slice begin/end equal to the run's; %d bytes "
          "(%.2f a call; %d before gzip)" % (tag, len(procs) + len(threads), n, size,
                                             size / max(n, 1), raw))
    return calls, size / max(n, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("run")
    ap.add_argument("work")
    ap.add_argument("proto")
    ap.add_argument("--max-bytes-per-call", type=float)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    truth = Truth(a.cli, a.run, a.work)
    whole = truth.selected()
    calls, bpc = check(a.cli, a.run, a.work, a.proto, truth, "whole", [], whole)
    for name, (n, _) in truth.region_totals(calls).items():
        if truth.region_calls.get(name) != n:
            fail("region %s: %d slices, export json and inspect say %s" % (name, n, truth.region_calls.get(name)))
    if a.max_bytes_per_call is not None and bpc > a.max_bytes_per_call:
        fail("%.2f bytes a call, over %.2f" % (bpc, a.max_bytes_per_call))
    # a window around the run's middle call: a few percent of the calls
    starts = sorted(c[0] for w in whole.values() for c in w)
    mid = starts[len(starts) // 2] - truth.origin
    span = max(c[1] for w in whole.values() for c in w) - truth.origin
    f0, f1 = mid / 1e9, (mid + 0.03 * span) / 1e9
    check(a.cli, a.run, a.work, a.proto, truth, "window",
          ["--from", "%.9f" % f0, "--to", "%.9f" % f1],
          truth.selected(truth.origin + round(f0 * 1e9), truth.origin + round(f1 * 1e9)))
    check(a.cli, a.run, a.work, a.proto, truth, "top2", ["--top", "2"],
          truth.selected(regions=truth.top_regions(2)))
    print("perfetto round trip: ok")


if __name__ == "__main__":
    main()
