# SPDX-License-Identifier: MIT
"""Run `scope-profiler export FORMAT FILE -o OUT` and validate the output.

    check_export.py BIN FORMAT FILE WORKDIR [KEY=VALUE...]

Reads FILE's truth with `scope-profiler export json` (itself checked
against `inspect` for the call counts) and checks the format against it:
json (document shape, names, counts, imbalance=REGION:LO:HI), csv
(RFC 4180 parse, names, calls), chrome-trace (X events, one per call,
ts/dur in microseconds, process/thread names), speedscope (shared frames,
balanced open/close events in time order), collapsed (lines
"a;b;c VALUE", values sum to the own time), plot-data (every file, parse).
Names with quotes, backslashes, control characters and UTF-8 must come
back exactly (JSON) or with the documented substitutions (CSV: control
characters escaped as on the terminal, formulas neutralised; collapsed:
separators replaced, control characters escaped).
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args):
    p = subprocess.run(args, capture_output=True)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout.decode()


def display_escape(s, keep_newline):
    """What sp_display_escape_bytes() (common/sp_display.h) writes for s."""
    out = []
    for c in s:
        o = ord(c)
        if keep_newline and c in "\n\t":
            out.append(c)
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0x80 <= o <= 0x9F or o in (0x61C, 0x200E, 0x200F) or 0x202A <= o <= 0x202E \
                or 0x2066 <= o <= 0x2069:
            out.append("\\u%04x" % o)
        else:
            out.append(c)
    return "".join(out)


def csv_text(s):
    """A text cell as export writes it: escaped, formulas neutralised."""
    cell = display_escape(s, True)
    if s[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(s)
        except ValueError:
            cell = "'" + cell
    return cell


def main():
    binary, fmt, path, work = sys.argv[1:5]
    opts = dict(a.split("=", 1) for a in sys.argv[5:])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    truth_path = os.path.join(work, "truth.json")
    run([binary, "export", "json", path, "-o", truth_path])
    truth = json.load(open(truth_path, encoding="utf-8"))
    regions = {r["name"]: r for r in truth["regions"] if r["calls"] > 0}
    ncalls = sum(rk["ncalls"] for rk in truth["ranks"])
    if sum(r["calls"] for r in regions.values()) != ncalls:
        fail("json: region calls do not add up to the calls")
    for rk in truth["ranks"]:
        cols = rk["calls"]
        if any(len(cols[k]) != rk["ncalls"] for k in cols):
            fail("json: call columns of rank %d differ in length" % rk["rank"])
    if "names" in opts:
        want = json.loads(opts["names"])
        if sorted(regions) != sorted(want):
            fail("json: names %r, want %r" % (sorted(regions), sorted(want)))
    if "imbalance" in opts:
        name, lo, hi = opts["imbalance"].split(":")
        imb = regions[name]["imbalance"]
        print("imbalance of %s: %.3f" % (name, imb))
        if not float(lo) <= imb <= float(hi):
            fail("imbalance of %s is %.3f, not in [%s, %s]" % (name, imb, lo, hi))
    if "largest_rank" in opts:  # region:rank with the largest total
        name, want = opts["largest_rank"].split(":")
        per = regions[name]["per_rank"]
        got = max(per, key=lambda x: x["total_s"])["rank"]
        if got != int(want):
            fail("%s is largest on rank %d, want %s" % (name, got, want))

    out = os.path.join(work, "out")
    printed = run([binary, "export", fmt, path, "-o", out]).split("\n")
    if fmt == "json":
        doc = json.load(open(out, encoding="utf-8"))
        if doc != truth or doc["format"] != "scope-profiler-export":
            fail("json: second export differs")
    elif fmt == "csv":
        want = ["regions.csv", "per_rank.csv", "calls.csv", "call_tree.csv", "metadata.csv"]
        if [os.path.basename(p) for p in printed if p] != want:
            fail("csv: printed %r" % printed)
        rows = list(csv.DictReader(open(os.path.join(out, "regions.csv"), newline="",
                                        encoding="utf-8")))
        # Calls are per rank; the sum over the ranks says so (calls_sum_ranks).
        if {r["region"]: int(r["calls_sum_ranks"]) for r in rows} != {
                csv_text(n): r["calls"] for n, r in regions.items()}:
            fail("csv: regions.csv names or calls differ from the JSON export")
        nranks = len(truth["ranks"])
        for r in rows:
            per = [p["calls"] for p in regions[r["region"]]["per_rank"]] if r["region"] in regions \
                else None
            if per and (abs(float(r["calls_per_rank"]) - sum(per) / nranks) > 1e-6 * sum(per)
                        or int(r["calls_max_rank"]) != max(per)):
                fail("csv: %s calls_per_rank %s / calls_max_rank %s, want %g / %d"
                     % (r["region"], r["calls_per_rank"], r["calls_max_rank"], sum(per) / nranks,
                        max(per)))
        calls = list(csv.DictReader(open(os.path.join(out, "calls.csv"), newline="",
                                         encoding="utf-8")))
        if len(calls) != ncalls or any(int(c["duration_ns"]) != int(c["end_ns"]) - int(c["start_ns"])
                                       for c in calls):
            fail("csv: calls.csv has %d rows / bad durations (want %d calls)" % (len(calls), ncalls))
        if {c["region"] for c in calls} != {csv_text(n) for n in regions}:
            fail("csv: calls.csv region names differ")
        # one depth convention: 0 = top level, parent -1 = none, in both files
        if any((c["parent"] == "-1") != (c["depth"] == "0") for c in calls):
            fail("csv: calls.csv depth 0 is not exactly the calls without a parent")
        tree = list(csv.DictReader(open(os.path.join(out, "call_tree.csv"), newline="",
                                        encoding="utf-8")))
        if tree and any((t["parent"] == "-1") != (t["depth"] == "0") for t in tree):
            fail("csv: call_tree.csv depth 0 is not exactly the top-level paths")
    elif fmt == "chrome-trace":
        doc = json.load(open(out, encoding="utf-8"))
        ev = doc["traceEvents"]
        xs = [e for e in ev if e["ph"] == "X"]
        if len(xs) != ncalls:
            fail("chrome-trace: %d X events for %d calls" % (len(xs), ncalls))
        for e in xs:
            if not (isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float))
                    and e["dur"] >= 0 and e["ts"] >= 0 and isinstance(e["pid"], int)
                    and isinstance(e["tid"], int)):
                fail("chrome-trace: bad event %r" % e)
        if {e["name"] for e in xs} != set(regions):
            fail("chrome-trace: names differ")
        pnames = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
        if pnames != {rk["rank"]: "rank %d" % rk["rank"] for rk in truth["ranks"]}:
            fail("chrome-trace: process names %r" % pnames)
        # dur in us of the outermost calls equals the per-region totals
        # (recursion counted once: a call inside a call of the same region
        # on the same thread is inside its duration already).
        def outermost_sum(name):
            tot, lanes = 0.0, {}
            for e in xs:
                if e["name"] == name:
                    lanes.setdefault((e["pid"], e["tid"]), []).append(e)
            for lane in lanes.values():
                end = None
                for e in sorted(lane, key=lambda e: (e["ts"], -e["dur"])):
                    if end is None or e["ts"] >= end - 5e-4:  # adjacent, within rounding
                        tot += e["dur"]
                        end = e["ts"] + e["dur"]
            return tot
        for n, r in regions.items():
            tot = outermost_sum(n) * 1e-6
            if abs(tot - r["total_s"]) > 1e-9 * max(1, r["calls"]):
                fail("chrome-trace: %s durations sum to %r, total %r" % (n, tot, r["total_s"]))
        if opts.get("fractional") == "1" and not any(
                v != int(v) for e in xs for v in (e["ts"], e["dur"])):
            fail("chrome-trace: no fractional microseconds (ns precision lost)")
    elif fmt == "speedscope":
        doc = json.load(open(out, encoding="utf-8"))
        if doc["$schema"] != "https://www.speedscope.app/file-format-schema.json":
            fail("speedscope: schema")
        frames = [f["name"] for f in doc["shared"]["frames"]]
        opens = 0
        for prof in doc["profiles"]:
            if prof["type"] != "evented" or prof["unit"] != "nanoseconds":
                fail("speedscope: profile type/unit")
            stack, last = [], prof["startValue"]
            for e in prof["events"]:
                if e["at"] < last:
                    fail("speedscope: events out of order in %s" % prof["name"])
                last = e["at"]
                if e["type"] == "O":
                    stack.append(e["frame"])
                    opens += 1
                elif not stack or stack.pop() != e["frame"]:
                    fail("speedscope: unbalanced close in %s" % prof["name"])
            if stack or last > prof["endValue"]:
                fail("speedscope: %s left open or ends after endValue" % prof["name"])
        if opens != ncalls:
            fail("speedscope: %d open events for %d calls" % (opens, ncalls))
        if set(frames) < set(regions):
            fail("speedscope: frames miss regions")
    elif fmt == "collapsed":
        text = open(out, encoding="utf-8").read()
        total = 0
        for line in text.splitlines():
            m = re.fullmatch(r"(.+) (\d+)", line)
            if not m:
                fail("collapsed: bad line %r" % line)
            total += int(m.group(2))
        own = sum(r["own_s"] for r in regions.values()) * 1e9
        if abs(total - own) > 1 + 1e-6 * own + len(text.splitlines()):
            fail("collapsed: values sum to %d ns, own time is %.0f ns" % (total, own))
        for n in regions:
            frame = display_escape(n.replace(";", ":").replace("\n", " ").replace("\r", " ")
                                   .replace("\t", " "), False)
            if frame not in text:
                fail("collapsed: frame %r missing" % frame)
    elif fmt == "plot-data":
        want = ["timeline.csv", "flame.csv", "ranks.csv", "heatmap.csv", "histogram.csv",
                "timeseries.csv", "summary.json"]
        if [os.path.basename(p) for p in printed if p] != want:
            fail("plot-data: printed %r" % printed)
        for f in want[:-1]:
            rows = list(csv.reader(open(os.path.join(out, f), newline="", encoding="utf-8")))
            if not rows:
                fail("plot-data: %s empty" % f)
        summ = json.load(open(os.path.join(out, "summary.json"), encoding="utf-8"))
        if {r["name"] for r in summ["regions"]} != set(regions):
            fail("plot-data: summary names differ")
        tl = list(csv.DictReader(open(os.path.join(out, "timeline.csv"), newline="",
                                      encoding="utf-8")))
        if len(tl) != ncalls:
            fail("plot-data: timeline has %d rows for %d calls" % (len(tl), ncalls))
        flame = list(csv.DictReader(open(os.path.join(out, "flame.csv"), newline="",
                                         encoding="utf-8")))
        if flame and any((f["parent"] == "-1") != (f["depth"] == "0") for f in flame):
            fail("plot-data: flame.csv depth 0 is not exactly the top-level paths")
        if any(r["calls_sum_ranks"] != regions[r["name"]]["calls"] for r in summ["regions"]) or \
                any("calls" in r for r in summ["regions"]):
            fail("plot-data: summary.json calls must be per rank or say calls_sum_ranks")
        if any(not re.fullmatch(r"#[0-9a-f]{6}", r["color"]) for r in summ["regions"]):
            fail("plot-data: summary.json regions need a colour #rrggbb")
        hist = list(csv.DictReader(open(os.path.join(out, "histogram.csv"), newline="",
                                        encoding="utf-8")))
        for n, r in regions.items():
            if sum(int(h["count"]) for h in hist if h["region"] == csv_text(n)) != r["calls"]:
                fail("plot-data: histogram of %s does not count every call" % n)
    else:
        fail("unknown format " + fmt)
    print("cli case: ok")


main()
