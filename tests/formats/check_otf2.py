# SPDX-License-Identifier: MIT
"""`scope-profiler export otf2` read back by OTF2's own readers.

    check_otf2.py CLI RUN WORKDIR [--groups N] [--locations M]

Exports RUN whole, then a time window and a top-2 selection, and reads
each archive with otf2-print (the command-line reader of OTF2) and with
python3-otf2 (OTF2's Python bindings over the same library): location
groups and locations as expected (one per rank, one per thread with
calls), per location as many Enter as Leave events and as many as the
run's calls there, the calls rebuilt from Enter/Leave equal to the run's
(start, end, region), exactly (OTF2 ticks are the run's ns), and per
region the calls equal `inspect`'s.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import Truth, fail, pair_calls, run  # noqa: E402

import otf2  # python3-otf2 (Debian)


def otf2_print_counts(anchor):
    """Per location id: (ENTER, LEAVE) from otf2-print; the numbers of
    LOCATION_GROUP and LOCATION definitions from otf2-print -G."""
    text = run(["otf2-print", anchor]).decode()
    counts = collections.defaultdict(lambda: [0, 0])
    for line in text.splitlines():
        m = re.match(r"^(ENTER|LEAVE) +(\d+) +\d+ ", line)
        if m:
            counts[int(m.group(2))][m.group(1) == "LEAVE"] += 1
    defs = run(["otf2-print", "-G", anchor]).decode()
    groups = len(re.findall(r"^LOCATION_GROUP +\d+ ", defs, re.M))
    locs = {int(m.group(1)): m.group(2)
            for m in re.finditer(r'^LOCATION +(\d+) +Name: "([^"]*)"', defs, re.M)}
    return counts, groups, locs


def read_python(anchor):
    """Per (rank, thread) the calls python3-otf2 rebuilds, and the counts."""
    events = collections.defaultdict(list)
    counts = collections.defaultdict(lambda: [0, 0])
    with otf2.reader.open(anchor) as tr:
        defs = tr.definitions
        if defs.clock_properties.timer_resolution != 10**9:
            fail("timer resolution %d, want 1e9" % defs.clock_properties.timer_resolution)
        ngroups = len(defs.location_groups)
        nlocs = len(defs.locations)
        for loc, ev in tr.events:
            m = re.match(r"rank (\d+)$", loc.group.name)
            t = re.search(r"thread (\d+)\)?$", loc.name)
            if not m or not t:
                fail("location %r of group %r is not named after its rank and thread"
                     % (loc.name, loc.group.name))
            key = (int(m.group(1)), int(t.group(1)))
            if isinstance(ev, otf2.events.Enter):
                events[key].append((ev.time, ev.region.name, True))
                counts[key][0] += 1
            elif isinstance(ev, otf2.events.Leave):
                events[key].append((ev.time, ev.region.name, False))
                counts[key][1] += 1
    return {k: pair_calls(v) for k, v in events.items()}, counts, ngroups, nlocs


def check(cli, path, work, truth, tag, extra, want, groups=None, locations=None):
    out = os.path.join(work, tag)
    shutil.rmtree(out, ignore_errors=True)
    printed = run([cli, "export", "otf2", path, "-o", out] + extra).decode().strip()
    anchor = os.path.join(out, "traces.otf2")
    if printed != anchor:
        fail("%s: export printed %r, want %r" % (tag, printed, anchor))
    calls, counts, ngroups, nlocs = read_python(anchor)
    pcounts, pgroups, plocs = otf2_print_counts(anchor)
    if groups is not None and (ngroups != groups or pgroups != groups):
        fail("%s: %d / %d location groups (python3-otf2 / otf2-print), want %d"
             % (tag, ngroups, pgroups, groups))
    if nlocs != len(want) or len(plocs) != len(want):
        fail("%s: %d / %d locations, want %d (threads with calls)"
             % (tag, nlocs, len(plocs), len(want)))
    if locations is not None and nlocs != locations:
        fail("%s: %d locations, want %d" % (tag, nlocs, locations))
    for lane, w in want.items():
        n = len(w)
        if counts[lane] != [n, n]:
            fail("%s: rank %d thread %d: %s Enter/Leave (python3-otf2), want %d each"
                 % (tag, lane[0], lane[1], counts[lane], n))
        if calls.get(lane) != w:
            got = calls.get(lane, [])
            diff = next((i for i in range(min(len(got), n)) if got[i] != w[i]), min(len(got), n))
            fail("%s: rank %d thread %d: calls differ at #%d: %s vs %s"
                 % (tag, lane[0], lane[1], diff, got[diff:diff + 1], w[diff:diff + 1]))
    # otf2-print: the same counts per location (its ids are in the names)
    by_lane = {}
    for lid, name in plocs.items():
        t = int(re.search(r"thread (\d+)\)?$", name).group(1))
        by_lane.setdefault(t, []).append(lid)
    total = sum(len(w) for w in want.values())
    got_total = sum(c[0] for c in pcounts.values())
    if got_total != total or any(c[0] != c[1] for c in pcounts.values()):
        fail("%s: otf2-print shows %d Enter (want %d) or unpaired Leave" % (tag, got_total, total))
    print("%s: %d location groups, %d locations, %d calls as Enter/Leave, equal to the run's"
          % (tag, ngroups, nlocs, total))
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("run")
    ap.add_argument("work")
    ap.add_argument("--groups", type=int)
    ap.add_argument("--locations", type=int)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    truth = Truth(a.cli, a.run, a.work)
    whole = truth.selected()
    calls = check(a.cli, a.run, a.work, truth, "whole", [], whole, a.groups, a.locations)
    for name, (n, _) in truth.region_totals(calls).items():
        if truth.region_calls.get(name) != n:
            fail("region %s: %d calls in OTF2, export json and inspect say %s" % (name, n, truth.region_calls.get(name)))
    # a window in the middle of the run: the calls overlapping it, whole
    # a window around the run's middle call: a few percent of the calls
    starts = sorted(c[0] for w in whole.values() for c in w)
    mid = starts[len(starts) // 2] - truth.origin
    span = max(c[1] for w in whole.values() for c in w) - truth.origin
    f0, f1 = mid / 1e9, (mid + 0.03 * span) / 1e9
    t0 = truth.origin + round(f0 * 1e9)
    t1 = truth.origin + round(f1 * 1e9)
    check(a.cli, a.run, a.work, truth, "window", ["--from", "%.9f" % f0, "--to", "%.9f" % f1],
          truth.selected(t0, t1))
    top = truth.top_regions(2)
    check(a.cli, a.run, a.work, truth, "top2", ["--top", "2"], truth.selected(regions=top))
    # a selection without calls is refused (OTF2 readers refuse an archive
    # without locations), and nothing is left
    empty = os.path.join(a.work, "empty")
    p = subprocess.run([a.cli, "export", "otf2", a.run, "-o", empty, "--from", "1e6"],
                       capture_output=True)
    if p.returncode != 1 or b"no call of the run is in the selection" not in p.stderr \
            or os.path.exists(empty):
        fail("an empty selection: exit %d, %r" % (p.returncode, p.stderr))
    # a directory that is not empty is refused, and left as it was
    p = subprocess.run([a.cli, "export", "otf2", a.run, "-o", a.work], capture_output=True)
    if p.returncode == 0 or b"not empty" not in p.stderr:
        fail("export into a non-empty directory: exit %d, %r" % (p.returncode, p.stderr))
    print("otf2 round trip: ok")


if __name__ == "__main__":
    main()
