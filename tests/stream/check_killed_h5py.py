# SPDX-License-Identifier: MIT
"""Read the file a killed run left with h5py, knowing only SCHEMA.md (its
"v2" and "MPI" snippets, taken from the page at run time): every rank holds
at least the calls of "work" that had ended 1.5 s into the run.

    /usr/bin/python3 check_killed_h5py.py SCHEMA.md FILE CHECKPOINT_0 [CHECKPOINT_1 ...]
"""
import re
import sys


def snippets(schema_md):
    text = open(schema_md, encoding="utf-8").read()
    scope = {}
    for which in ("v2", "MPI"):
        m = re.search(rf"# --- begin SCHEMA.md {which} snippet ---\n(.*?)"
                      rf"# --- end SCHEMA.md {which} snippet ---", text, re.S)
        if not m:
            sys.exit(f"{schema_md}: no {which} snippet")
        exec(m.group(1), scope)
    return scope


def main():
    schema_md, path, checkpoints = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
    s = snippets(schema_md)
    bad = []
    per_rank = s["per_rank_calls"](path).get("work", [])
    summary = s["region_summary"](path)
    if len(per_rank) != len(checkpoints):
        bad.append(f"{len(per_rank)} ranks hold work, want {len(checkpoints)}")
    for rank, (got, want) in enumerate(zip(per_rank, checkpoints)):
        print(f"h5py: rank {rank}: {got} calls of work (begins), {want} had ended by 1.5 s")
        if got < want:
            bad.append(f"rank {rank}: {got} calls of work, want at least {want}")
    calls, total_ns, _ = summary.get("work", (0, 0, 0))
    if calls < sum(checkpoints) or total_ns <= 0:
        bad.append(f"region_summary: work {calls} calls, {total_ns} ns")
    if s["metadata"](path).get("hostname") is None:
        bad.append("no hostname in the metadata")
    for line in bad:
        print("FAIL:", line)
    print("h5py check:", "FAILED" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
