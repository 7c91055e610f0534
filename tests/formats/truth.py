# SPDX-License-Identifier: MIT
"""What a run holds, read by `scope-profiler export json` (every call, from
the whole-file reader) and `summary` / `inspect`, for the format checks."""
import collections
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(map(str, args)), p.returncode,
                                  p.stderr.decode(errors="replace")))
    return p.stdout


class Truth:
    """Per (rank, thread): the calls as (start, end, region name), clocks
    aligned to rank 0, in begin order; per region: calls and summed
    durations; the run's first call (where --from counts from)."""

    def __init__(self, cli, path, work):
        out = os.path.join(work, "truth.json")
        run([cli, "export", "json", path, "-o", out])
        with open(out) as f:
            doc = json.load(f)
        self.doc = doc
        self.names = [r["name"] for r in doc["regions"]]
        self.lanes = collections.defaultdict(list)
        self.thread_names = {}
        for rk in doc["ranks"]:
            r, off, c = rk["rank"], rk["clock_offset_ns"], rk["calls"]
            for t, th in enumerate(rk["threads"]):
                self.thread_names[(r, t)] = th.get("name") if isinstance(th, dict) else th
            for i in range(len(c["region"])):
                self.lanes[(r, c["thread"][i])].append(
                    (c["start_ns"][i] + off, c["end_ns"][i] + off, self.names[c["region"][i]]))
        for calls in self.lanes.values():
            calls.sort(key=lambda x: (x[0], -x[1]))
        self.origin = min((c[0] for calls in self.lanes.values() for c in calls), default=0)
        # per region: calls on every rank (export json) and inspect's
        # calls/rank column ("N", or "lo-hi" when ranks differ)
        nranks = len(doc["ranks"])
        self.region_calls = {r["name"]: r["calls"] for r in doc["regions"]}
        for name in self.names:
            got = sum(1 for calls in self.lanes.values() for c in calls if c[2] == name)
            if self.region_calls[name] != got:
                fail("truth: %d calls of %r in export json's calls, %d in its regions"
                     % (got, name, self.region_calls[name]))
        text = run([cli, "inspect", path]).decode()
        checked = 0
        for reg in doc["regions"]:
            per = {p["rank"]: p["calls"] for p in reg.get("per_rank", [])}
            lo, hi = (min(per.get(r, 0) for r in range(nranks)),
                      max(per.get(r, 0) for r in range(nranks)))
            want = str(lo) if lo == hi else "%d-%d" % (lo, hi)
            if not re.fullmatch(r"[!-~]+", reg["name"]):
                continue  # inspect shows it escaped: compared through export json only
            m = re.search(r"^%s +(\S+) " % re.escape(reg["name"]), text, re.M)
            if not m or m.group(1) != want:
                fail("truth: inspect shows %s calls of %s, export json %s"
                     % (m and m.group(1), reg["name"], want))
            checked += 1
        self.inspect_checked = checked

    def selected(self, t0=None, t1=None, regions=None):
        """The calls a selection keeps, per lane: overlapping [t0, t1]
        (aligned ns), of the given region names."""
        out = {}
        for lane, calls in self.lanes.items():
            keep = [c for c in calls
                    if (t0 is None or c[1] >= t0) and (t1 is None or c[0] <= t1)
                    and (regions is None or c[2] in regions)]
            if keep:
                out[lane] = keep
        return out

    def region_totals(self, lanes):
        """Per region: (calls, summed durations in ns) over lanes."""
        tot = collections.defaultdict(lambda: [0, 0])
        for calls in lanes.values():
            for s, e, name in calls:
                tot[name][0] += 1
                tot[name][1] += e - s
        return {k: tuple(v) for k, v in tot.items()}

    def top_regions(self, n):
        """The n regions with the most total time (all ranks), ties by name:
        the order of inspect --sort total, as export --top selects them."""
        per = sorted((-reg["total_s"], reg["name"]) for reg in self.doc["regions"])
        return {name for _, name in per[:n]}


def pair_calls(events):
    """Begin/end events of one lane [(t, region or None for an end, is_begin)]
    as calls (start, end, region name), checking they nest."""
    stack, calls = [], []
    last = None
    for t, name, begin in events:
        if last is not None and t < last:
            fail("events out of time order: %d after %d" % (t, last))
        last = t
        if begin:
            stack.append((t, name))
        else:
            if not stack:
                fail("an end with no call open")
            s, n = stack.pop()
            if name is not None and name != n:
                fail("end of %s closes %s" % (name, n))
            calls.append((s, t, n))
    if stack:
        fail("%d calls never end" % len(stack))
    calls.sort(key=lambda x: (x[0], -x[1]))
    return calls
