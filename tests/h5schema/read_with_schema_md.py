# SPDX-License-Identifier: MIT
"""Read a scope-profiler file with h5py, knowing only h5schema/SCHEMA.md.

    /usr/bin/python3 read_with_schema_md.py FILE.h5 EXPECTED.tsv

The block between the snippet markers is copied verbatim from SCHEMA.md
("Reading a file with h5py"); test_h5py_reads_with_schema_md.c checks that
both copies are identical. EXPECTED.tsv is written by that C test from the
run it wrote, one fact per line:

    region <TAB> name <TAB> calls <TAB> total_ns <TAB> dropped
    path   <TAB> rank <TAB> call <TAB> "a > b > c"
    meta   <TAB> key <TAB> value

Exit status 0 when every fact matches, 1 otherwise (mismatches printed).
"""
import sys

# --- begin SCHEMA.md snippet ---
import h5py
import numpy as np


def region_summary(path):
    """Calls, total time [ns] and dropped calls per region, all ranks."""
    with h5py.File(path, "r") as f:
        version = int(f.attrs["scope_profiler_schema"])
        if version > 1:
            raise ValueError(f"{path}: schema version {version}; this code reads 1")
        names = f["region_names"].asstr()[:]  # row = region id
        calls = np.zeros(len(names), np.int64)
        total_ns = np.zeros(len(names), np.int64)
        dropped = np.zeros(len(names), np.int64)
        for rank in range(int(f.attrs["num_ranks"])):
            c = f[f"rank{rank}/calls"]
            region = c["region"][:]
            np.add.at(calls, region, 1)
            np.add.at(total_ns, region, c["end_ns"][:] - c["start_ns"][:])
            d = f[f"rank{rank}/dropped"]
            np.add.at(dropped, d["region"][:], d["calls"][:].astype(np.int64))
        return {name: (int(calls[i]), int(total_ns[i]), int(dropped[i]))
                for i, name in enumerate(names)}


def call_path(path, rank, call):
    """Region names from the top-level call down to call `call` of `rank`."""
    with h5py.File(path, "r") as f:
        names = f["region_names"].asstr()[:]
        c = f[f"rank{rank}/calls"]
        region, parent = c["region"][:], c["parent"][:]
        chain = []
        while call != -1:  # -1: no enclosing call
            chain.append(names[region[call]])
            call = parent[call]
        return " > ".join(reversed(chain))


def metadata(path):
    """Run metadata; every value is a str."""
    with h5py.File(path, "r") as f:
        return dict(f["metadata"].attrs)
# --- end SCHEMA.md snippet ---


def main():
    path, expected = sys.argv[1], sys.argv[2]
    summary = region_summary(path)
    meta = metadata(path)
    bad = 0
    checked = 0
    with open(expected, encoding="utf-8") as fh:
        for line in fh:
            kind, *fields = line.rstrip("\n").split("\t")
            checked += 1
            if kind == "region":
                name, want = fields[0], tuple(int(x) for x in fields[1:])
                got = summary.get(name)
            elif kind == "path":
                want = fields[2]
                got = call_path(path, int(fields[0]), int(fields[1]))
            elif kind == "meta":
                want = fields[1]
                got = meta.get(fields[0])
            else:
                want, got = "a known kind", kind
            if got != want:
                print(f"MISMATCH {kind} {fields[0]!r}: got {got!r}, want {want!r}")
                bad += 1
    if len(summary) != sum(1 for _ in open(expected, encoding="utf-8")
                           if _.startswith("region\t")):
        print(f"MISMATCH: {len(summary)} regions in the file")
        bad += 1
    print(f"{checked} facts checked, {bad} mismatches")
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
