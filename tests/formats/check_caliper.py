# SPDX-License-Identifier: MIT
"""`scope-profiler export caliper-json` read as Caliper's json-split.

    check_caliper.py CLI RUN WORKDIR

The reader below follows Caliper's documentation of json-split
(OutputFormats.rst, "Json-split"): `data` rows of `columns`, a column whose
`column_metadata` says is_value false refers to `nodes` (label, parent
index, parents first), every other top-level key is run metadata (as
Hatchet's and Thicket's readers take them). It makes a pandas DataFrame
with one row per (call path, rank), and checks it against the run: every
path of the call tree, per path the mean over ranks of `time (inc)` and
`time` (a rank without the path counting 0) equal to what `summary` and
`export json` print per rank, the calls summed over ranks equal to the
tree's, metadata keys present, and `summary`'s first row to its 6
decimals.
"""
import json
import math
import os
import re
import sys

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truth import fail, run  # noqa: E402

SECTIONS = ("data", "columns", "column_metadata", "nodes")


def read_json_split(path):
    """A json-split file as (DataFrame, metadata): one row per record, the
    reference column replaced by the node's path ("a/b/c")."""
    with open(path) as f:
        doc = json.load(f)
    for k in SECTIONS:
        if k not in doc:
            fail("json-split without %r" % k)
    cols, meta = doc["columns"], doc["column_metadata"]
    if len(cols) != len(meta):
        fail("columns and column_metadata differ in length")
    nodes = doc["nodes"]
    paths = []
    for i, n in enumerate(nodes):
        p = n.get("parent")
        if p is not None and not 0 <= p < i:
            fail("node %d: parent %r does not come before it" % (i, p))
        paths.append(n["label"] if p is None else paths[p] + "/" + n["label"])
    refs = [c for c, m in zip(cols, meta) if not m["is_value"]]
    rows = []
    for rec in doc["data"]:
        if len(rec) != len(cols):
            fail("a data row of %d values for %d columns" % (len(rec), len(cols)))
        row = dict(zip(cols, rec))
        for c in refs:
            row[c] = paths[row[c]]
        rows.append(row)
    metadata = {k: v for k, v in doc.items() if k not in SECTIONS}
    return pd.DataFrame(rows, columns=cols), metadata, doc


def tree_paths(doc):
    """export json's call tree: path -> node (with the per-rank figures)."""
    names = {r["id"]: r["name"] for r in doc["regions"]}
    by_id = {n["node"]: n for n in doc["call_tree"]}
    out = {}
    for n in doc["call_tree"]:
        parts, k = [], n
        while k is not None and k["region"] >= 0:
            parts.append(names[k["region"]])
            k = by_id.get(k["parent"])
        if parts:
            out["/".join(reversed(parts))] = n
    return out


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def main():
    cli, path, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "run.json")
    printed = run([cli, "export", "caliper-json", path, "-o", out]).decode().strip()
    if printed != out:
        fail("export printed %r" % printed)
    df, metadata, raw = read_json_split(out)
    tj = os.path.join(work, "truth.json")
    run([cli, "export", "json", path, "-o", tj])
    with open(tj) as f:
        truth = json.load(f)
    nranks = len(truth["ranks"])
    if df.duplicated(["path", "mpi.rank"]).any():
        fail("more than one row for a (path, rank)")
    want = tree_paths(truth)
    if set(df["path"]) != set(want):
        fail("paths %s, want %s" % (sorted(set(df["path"])), sorted(want)))
    # one row per (path, rank) that called it; a missing rank counts 0
    full = (df.set_index(["path", "mpi.rank"])[["time (inc)", "time", "Calls"]]
              .unstack(fill_value=0).stack())
    per_path = full.groupby(level="path").agg({"time (inc)": "sum", "time": "sum", "Calls": "sum"})
    for p, node in want.items():
        inc = per_path.loc[p, "time (inc)"] / nranks
        own = per_path.loc[p, "time"] / nranks
        if not close(inc, node["inclusive_per_rank_s"]) or not close(own, node["own_per_rank_s"]):
            fail("%s: time (inc) %.12g, time %.12g per rank; export json %.12g, %.12g"
                 % (p, inc, own, node["inclusive_per_rank_s"], node["own_per_rank_s"]))
        if int(per_path.loc[p, "Calls"]) != node["calls"]:
            fail("%s: %d calls, the tree has %d" % (p, per_path.loc[p, "Calls"], node["calls"]))
    for k, v in truth["metadata"].items():
        if metadata.get(k if k not in ("data", "columns", "column_metadata", "nodes")
                        else k + " (metadata)") != v:
            fail("metadata %r: %r, want %r" % (k, metadata.get(k), v))
    if metadata.get("mpi.world.size") != str(nranks):
        fail("mpi.world.size %r, want %d" % (metadata.get("mpi.world.size"), nranks))
    # Hatchet's node ordering reads node i's order from row i, column 0
    for i in range(len(raw["nodes"])):
        if raw["data"][i][0] != i:
            fail("row %d holds node order %r, not %d" % (i, raw["data"][i][0], i))
    # summary's first row (the heaviest top-level path), mean per rank
    text = run([cli, "summary", path]).decode()
    m = re.search(r"^│ (\S+)(?: \(\S+x\))? +([0-9]+\.[0-9]{6})", text, re.M)
    if not m or m.group(1) not in per_path.index:
        fail("summary's first row not found among the paths: %r" % (m and m.group(0)))
    got = per_path.loc[m.group(1), "time (inc)"] / nranks
    if "%.6f" % got != m.group(2):
        fail("summary prints %s for %s, the file gives %.6f" % (m.group(2), m.group(1), got))
    print("caliper json-split: %d rows (path x rank), %d paths, %d ranks; per-rank times "
          "equal to summary's" % (len(df), len(want), nranks))
    print("caliper round trip: ok")


if __name__ == "__main__":
    main()
