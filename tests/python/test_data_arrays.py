# SPDX-License-Identifier: MIT
"""scope_profiler.open_run: a run's calls and statistics as numpy arrays.

    test_data_arrays.py DATA_DIR WORKDIR

Records a mini-app with the module itself (a solver with nested regions on
a main thread and two worker threads), then checks open_run against
`scope-profiler export json` (every call, from the whole-file reader) and
`inspect`: every (rank, thread)'s calls as arrays (start, end, region,
parent, depth) equal to the run's, windows equal to the calls overlapping
them, max_calls cutting a prefix, region_stats equal to the run's figures,
to_pandas() (when pandas is installed) one row per call / per region, and
the Python package's own files (data/python-0.2.1) opening the same way.
"""
import json
import os
import subprocess
import sys
import threading

import numpy as np

from scope_profiler import ProfileManager, open_run

CLI = os.environ["SP_CLI"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def record(path):
    ProfileManager.setup(file_path=path)
    step = ProfileManager.region("timestep")

    def kernel(n):
        with ProfileManager.region("kernel"):
            s = 0.0
            for i in range(n):
                s += i * 0.5
            return s

    def worker(k):
        for _ in range(40):
            with ProfileManager.region("worker_task"):
                kernel(200 + 50 * k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    with ProfileManager.region("main"):
        for i in range(60):
            with step:
                kernel(300)
                with ProfileManager.region("halo"):
                    kernel(50)
    for t in threads:
        t.join()
    ProfileManager.finalize(verbose=False)


def truth(path, work):
    out = os.path.join(work, os.path.basename(path) + ".json")
    subprocess.run([CLI, "export", "json", path, "-o", out], check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)


def lane_calls(doc, rank, thread):
    rk = doc["ranks"][rank]
    c, off = rk["calls"], rk["clock_offset_ns"]
    idx = [i for i in range(len(c["thread"])) if c["thread"][i] == thread]
    names = [r["name"] for r in doc["regions"]]
    return [(c["start_ns"][i] + off, c["end_ns"][i] + off, names[c["region"][i]], c["depth"][i])
            for i in idx]


def check_lane(run, doc, rank, thread):
    want = sorted(lane_calls(doc, rank, thread), key=lambda x: (x[0], -x[1]))
    c = run.calls(rank, thread)
    if len(c) != len(want):
        fail("rank %d thread %d: %d calls, want %d" % (rank, thread, len(c), len(want)))
    for a in (c.start, c.end, c.parent):
        if a.dtype != np.int64:
            fail("dtype %s" % a.dtype)
    got = list(zip(c.start.tolist(), c.end.tolist(), c.names.tolist(), c.depth.tolist()))
    if got != want:
        i = next(i for i in range(len(got)) if got[i] != want[i])
        fail("rank %d thread %d: call #%d %s, want %s" % (rank, thread, i, got[i], want[i]))
    # parent: the enclosing call, which contains the child and is one level up
    for i, p in enumerate(c.parent.tolist()):
        if p == -1:
            if c.depth[i] != 0:
                fail("call %d at depth %d has no parent" % (i, c.depth[i]))
        elif not (c.start[p] <= c.start[i] and c.end[i] <= c.end[p] and c.depth[p] + 1 == c.depth[i]):
            fail("call %d: parent %d does not enclose it one level up" % (i, p))
    if np.any(c.duration != c.end - c.start):
        fail("duration")
    return c


def check_window(run, c, rank, thread):
    if len(c) < 10:
        return
    t0, t1 = int(c.start[len(c) // 3]), int(c.start[len(c) // 2])
    w = run.calls(rank, thread, start=(t0 - run.first_ns) / 1e9, end=(t1 - run.first_ns) / 1e9)
    lo, hi = run.first_ns + round((t0 - run.first_ns) / 1e9 * 1e9), \
        run.first_ns + round((t1 - run.first_ns) / 1e9 * 1e9)
    keep = (c.end >= lo) & (c.start <= hi)
    if not (np.array_equal(w.start, c.start[keep]) and np.array_equal(w.end, c.end[keep])
            and np.array_equal(w.region, c.region[keep])):
        fail("window [%d, %d]: %d calls, want %d" % (lo, hi, len(w), int(keep.sum())))
    p = run.calls(rank, thread, max_calls=5)
    if len(p) != 5 or not p.truncated or not np.array_equal(p.start, c.start[:5]):
        fail("max_calls=5: %d calls, truncated %s" % (len(p), p.truncated))


def check_stats(run, doc):
    st = run.region_stats()
    if st.dtype.names[:4] != ("name", "calls", "total", "own"):
        fail("region_stats fields %s" % (st.dtype.names,))
    for reg in doc["regions"]:
        row = st[st["name"] == reg["name"]]
        if len(row) != 1 or row["calls"][0] != reg["calls"]:
            fail("%s: %s calls, want %d" % (reg["name"], row["calls"], reg["calls"]))
        for f in ("total", "own", "min", "max"):
            if abs(row[f][0] - reg[f + "_s"]) > 1e-9 * max(1.0, abs(reg[f + "_s"])):
                fail("%s: %s %r, want %r" % (reg["name"], f, row[f][0], reg[f + "_s"]))
        for r, pr in enumerate(reg.get("per_rank", [])):
            one = run.region_stats(rank=pr["rank"])
            if one[one["name"] == reg["name"]]["calls"][0] != pr["calls"]:
                fail("%s rank %d calls" % (reg["name"], pr["rank"]))
    return st


def check_pandas(run, c, st):
    try:
        import pandas  # noqa: F401  (optional: Debian's python3-pandas)
    except ImportError:
        print("pandas not installed: to_pandas() not checked")
        return
    df = c.to_pandas()
    if len(df) != len(c) or list(df["region"].astype(str)) != c.names.tolist():
        fail("Calls.to_pandas(): %d rows" % len(df))
    if not np.array_equal(df["duration"].to_numpy(), c.duration):
        fail("Calls.to_pandas(): durations")
    t = run.to_dataframe()
    if list(t.index) != st["name"].tolist() or not np.array_equal(t["calls"].to_numpy(), st["calls"]):
        fail("RunData.to_pandas(): the per-region table differs from region_stats()")


def main():
    data, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "mini.h5")
    record(path)
    doc = truth(path, work)
    run = open_run(path)
    if run.regions != [r["name"] for r in doc["regions"]] or run.nranks != len(doc["ranks"]):
        fail("regions %s / ranks %d" % (run.regions, run.nranks))
    threads = run.threads(0)
    if len(threads) != 3 or sum(t.calls for t in threads) != sum(r["calls"] for r in doc["regions"]):
        fail("threads %s" % threads)
    if run.metadata.get("hostname") != doc["metadata"].get("hostname"):
        fail("metadata")
    for t in threads:
        c = check_lane(run, doc, 0, t.index)
        check_window(run, c, 0, t.index)
    st = check_stats(run, doc)
    check_pandas(run, run.calls(0, 0), st)
    # the Python package's files (calls, not events: read whole, same API)
    for name in ("py_readme_example.h5", "py_mpi4_imbalance.h5"):
        p = os.path.join(data, "python-0.2.1", name)
        d, r = truth(p, work), open_run(p)
        for rank in range(r.nranks):
            for t in r.threads(rank):
                check_lane(r, d, rank, t.index)
        check_stats(r, d)
    try:
        open_run(os.path.join(work, "missing.h5"))
        fail("a missing file opened")
    except OSError:
        pass
    print("data arrays: ok")


if __name__ == "__main__":
    main()
