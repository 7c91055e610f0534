# SPDX-License-Identifier: MIT
"""Read a scope-profiler file of schema version 2 with h5py, knowing only
h5schema/SCHEMA.md.

    /usr/bin/python3 read_v2_with_schema_md.py FILE.h5 EXPECTED.tsv

The block between the snippet markers is copied verbatim from SCHEMA.md
("Reading version 2 with h5py"); test_h5py_reads_with_schema_md.c checks
that both copies are identical. EXPECTED.tsv is written by that C test from
the run our C reader found in the file, one fact per line:

    region <TAB> name <TAB> calls <TAB> total_ns <TAB> dropped
    path   <TAB> rank <TAB> call <TAB> "a > b > c"
    meta   <TAB> key <TAB> value
    wait   <TAB> rank <TAB> share of its run it waited for a CPU, or "none"

Exit status 0 when every fact matches, 1 otherwise (mismatches printed).
"""
import sys

# --- begin SCHEMA.md v2 snippet ---
import h5py
import numpy as np


def open_run(path):
    """Open a run: finished, still recording, or left by a killed job.
    swmr=True lets HDF5 read the parts of a run whose writer still has them
    open (or had them open when it was killed); it changes nothing else."""
    return h5py.File(path, "r", swmr=True)


def names(table):
    """The rows of a regions/ or threads/ table as text: the raw bytes of
    each name, decoded as UTF-8 with any other byte shown as \\xNN."""
    raw = table["name_bytes"][:].tobytes()
    end = table["name_end"][:].tolist()
    return [raw[a:b].decode("utf-8", "backslashreplace") for a, b in zip([0] + end[:-1], end)]


def calls(f, rank):
    """The calls of one rank as numpy arrays: start_ns, end_ns, region (row
    of the rank's regions/), thread (row of its threads/) and parent (index
    of the enclosing call, -1 at top level); thread by thread, each thread's
    calls in start order. A call still open (a killed run) ends at its
    thread's last event."""
    g = f[f"rank{rank}"]
    b = g["blocks"]
    k = min(len(b["thread"]), len(b["events"]), len(b["t0"]))
    counts = b["events"][:k].astype(np.int64)
    used = int(counts.sum())  # events the blocks announce (a file that grows has more)
    dt = g["events/dt"][:used].tolist()
    region = g["events/region"][:used].tolist()
    threads = {}  # thread row -> (calls as [start, end, region, parent], open stack, last tick)
    pos = 0
    for thread, n, tick in zip(b["thread"][:k].tolist(), counts.tolist(), b["t0"][:k].tolist()):
        rows, stack, _ = threads.setdefault(thread, ([], [], 0))
        for i in range(pos, pos + n):
            if i > pos:
                tick += dt[i]  # ticks since the previous event of the block
            if region[i] >= 0:  # a begin: a new call inside the innermost open one
                rows.append([tick, None, region[i], stack[-1] if stack else -1])
                stack.append(len(rows) - 1)
            else:  # -1: the innermost open call ends
                rows[stack.pop()][1] = tick
        threads[thread] = (rows, stack, tick)
        pos += n
    start, end, reg, thr, parent = [], [], [], [], []
    for thread in sorted(threads):
        rows, _, last = threads[thread]
        base = len(start)
        for s, e, r, p in rows:
            start.append(s)
            end.append(last if e is None else e)
            reg.append(r)
            thr.append(thread)
            parent.append(-1 if p < 0 else base + p)
    # Ticks to ns: the line through the first and the last calibration point.
    c = g["clock"]
    t, ns = c["ticks"][:].astype(np.int64), c["ns"][:].astype(np.int64)
    p = min(len(t), len(ns)) - 1
    scale = (ns[p] - ns[0]) / (t[p] - t[0]) if t[p] != t[0] else 1.0

    def to_ns(x):
        return ns[0] + np.rint((np.array(x, np.int64) - t[0]) * scale).astype(np.int64)

    return (to_ns(start), to_ns(end), np.array(reg, np.int32), np.array(thr, np.int32),
            np.array(parent, np.int64))


def region_summary(path):
    """Calls, total time [ns] and dropped calls per region name, all ranks."""
    out = {}
    with open_run(path) as f:
        version = int(f.attrs["scope_profiler_schema"])
        if version != 2:
            raise ValueError(f"{path}: schema version {version}; this code reads 2")
        for rank in range(int(f.attrs["num_ranks"])):
            g = f.get(f"rank{rank}")
            if g is None:  # a rank of a killed job that never created its part
                continue
            rnames = names(g["regions"])
            start, end, region, _, _ = calls(f, rank)
            n = np.bincount(region, minlength=len(rnames))
            total = np.bincount(region, weights=end - start, minlength=len(rnames))
            d = g["dropped"]
            k = min(len(d["region"]), len(d["calls"]))  # rows repeat a region: they add up
            lost = np.bincount(d["region"][:k], weights=d["calls"][:k], minlength=len(rnames))
            for i, name in enumerate(rnames):
                c, t, x = out.get(name, (0, 0, 0))
                out[name] = (c + int(n[i]), t + int(total[i]), x + int(lost[i]))
    return out


def call_path(path, rank, call):
    """Region names from the top-level call down to call `call` of `rank`."""
    with open_run(path) as f:
        rnames = names(f[f"rank{rank}/regions"])
        _, _, region, _, parent = calls(f, rank)
    chain = []
    while call != -1:  # -1: no enclosing call
        chain.append(rnames[region[call]])
        call = parent[call]
    return " > ".join(reversed(chain))


def metadata(path):
    """Run metadata; every value is a str."""
    with open_run(path) as f:
        return dict(f["metadata"].attrs)

def cpu_wait(path):
    """Per rank, the share of its threads' sampled time they were runnable
    but waited for a CPU (sched/: each thread's last sample minus its
    first), or None for a rank without samples (files of older builds)."""
    out = {}
    with open_run(path) as f:
        for rank in range(int(f.attrs["num_ranks"])):
            g = f.get(f"rank{rank}")
            s = g.get("sched") if g is not None else None
            if s is None:
                out[rank] = None
                continue
            cols = ("tid", "t_ns", "cpu_ns", "wait_ns")
            k = min(len(s[c]) for c in cols)  # a file that grows: rows every column has
            tid, t, cpu, wait = (s[c][:k] for c in cols)
            covered = waited = 0
            for x in set(tid.tolist()) & set(g["threads/os_tid"][:].tolist()):
                m = (tid == x) & (cpu >= 0) & (wait >= 0)  # -1: not known
                if m.sum() >= 2 and t[m][-1] > t[m][0]:
                    covered += int(t[m][-1] - t[m][0])
                    waited += int(wait[m][-1] - wait[m][0])
            out[rank] = waited / covered if covered else None
    return out
# --- end SCHEMA.md v2 snippet ---


def main():
    path, expected = sys.argv[1], sys.argv[2]
    summary = region_summary(path)
    meta = metadata(path)
    waits = cpu_wait(path)
    bad = 0
    checked = 0
    regions = 0
    with open(expected, encoding="utf-8") as fh:
        for line in fh:
            kind, *fields = line.rstrip("\n").split("\t")
            checked += 1
            if kind == "region":
                regions += 1
                name, want = fields[0], tuple(int(x) for x in fields[1:])
                got = summary.get(name)
            elif kind == "path":
                want = fields[2]
                got = call_path(path, int(fields[0]), int(fields[1]))
            elif kind == "meta":
                want = fields[1]
                got = meta.get(fields[0])
            elif kind == "wait":  # a share, or "none"
                want = fields[1]
                w = waits.get(int(fields[0]))
                got = "none" if w is None else want if abs(w - float(want)) < 1e-9 else repr(w)
            else:
                want, got = "a known kind", kind
            if got != want:
                print(f"MISMATCH {kind} {fields[0]!r}: got {got!r}, want {want!r}")
                bad += 1
    if len(summary) != regions:
        print(f"MISMATCH: {len(summary)} regions in the file, {regions} expected")
        bad += 1
    print(f"{checked} facts checked, {bad} mismatches")
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
