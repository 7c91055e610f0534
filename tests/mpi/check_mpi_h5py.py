# SPDX-License-Identifier: MIT
"""Check a file written by mpi_record under mpirun with h5py, knowing only
h5schema/SCHEMA.md: the reading code is the "v2" and the "MPI" snippets of
SCHEMA.md, extracted from the page at run time, so the page and this test
cannot drift.

    /usr/bin/python3 check_mpi_h5py.py SCHEMA.md FILE NRANKS [--mpi-regions]
        [--no-setup-clock] [--no-clock]

The expected counts follow tests/mpi/mpi_case.h (restated below). Exit 0
when every fact matches, 1 otherwise (each mismatch printed).
"""
import re
import sys

SILENT_RANK, STEPS, THREADS = 2, 3, 4  # mpi_case.h


def snippet(schema_md):
    text = open(schema_md, encoding="utf-8").read()
    scope = {}
    for which in ("v2", "MPI"):
        m = re.search(rf"# --- begin SCHEMA.md {which} snippet ---\n(.*?)"
                      rf"# --- end SCHEMA.md {which} snippet ---", text, re.S)
        if not m:
            sys.exit(f"{schema_md}: no {which} snippet")
        exec(m.group(1), scope)
    return scope


def expected(rank, nranks, mpi_regions):
    records = rank != SILENT_RANK
    work = sum((rank + 1) * (t + 1) for t in range(THREADS)) if records else 0
    want = {"work": work, "inner": work, "step": STEPS if records else 0,
            f"rank{rank} only": rank + 1 if records else 0}
    if mpi_regions:
        want["MPI_Allreduce"] = want["MPI_Barrier"] = STEPS
    return want


def main():
    schema_md, path, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mpi_regions = "--mpi-regions" in sys.argv
    setup_clock = "--no-setup-clock" not in sys.argv
    no_clock = "--no-clock" in sys.argv  # a run without MPI measures nothing
    s = snippet(schema_md)
    bad = []

    calls = s["per_rank_calls"](path)
    for name, per_rank in calls.items():
        if len(per_rank) != nranks:
            bad.append(f"{name}: {len(per_rank)} ranks, want {nranks}")
    for rank in range(nranks):
        want = expected(rank, nranks, mpi_regions)
        for name, n in want.items():
            got = calls.get(name, [0] * nranks)[rank]
            if got != n:
                bad.append(f"rank {rank}: {got} calls of {name!r}, want {n}")
        extra = {name for name, per_rank in calls.items() if per_rank[rank] and name not in want}
        if extra:
            bad.append(f"rank {rank}: unexpected regions {sorted(extra)}")

    # "work" on rank r has (r+1) * (1+2+...+T) calls of equal cost: imbalance
    # of the per-rank totals is about max/mean of the call counts; only check
    # it is a sane ratio (>= 1), as timing is not asserted.
    ratio = s["imbalance"](path, "work")
    if not ratio >= 1.0:
        bad.append(f"imbalance of work: {ratio}, want >= 1")

    for rank, (off, err, measured) in enumerate(s["clock_offsets"](path)):
        if rank == 0 and (off, err) != (0, 0):
            bad.append(f"rank 0: clock offset {off} +- {err}, want 0 +- 0")
        if err < 0 or abs(off) > err:
            bad.append(f"rank {rank}: clock offset {off} +- {err} (one host: |offset| <= err)")
        want_when = set() if no_clock else {"setup", "finalize"} if setup_clock else {"finalize"}
        if set(measured) != want_when:
            bad.append(f"rank {rank}: measurements {sorted(measured)}, want {sorted(want_when)}")
        for when, (o, e) in measured.items():
            if e < 0 or abs(o) > e:
                bad.append(f"rank {rank}: {when} offset {o} +- {e}")

    for line in bad:
        print("FAIL:", line)
    print("h5py check:", "FAILED" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
