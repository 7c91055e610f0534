# SPDX-License-Identifier: MIT
"""Write small files in the Python scope-profiler package's layouts with h5py.

    /usr/bin/python3 make_py_files.py OUTDIR

No real file of the package's columnar layout exists, so this writes the
shape documented in h5schema/SCHEMA.md ("Files written by the Python
package") the way h5py code naturally would (numpy arrays, default dtypes,
string dtype for names). test_h5_python_files.c reads every file and checks
the values below; keep the two in step.
"""
import os
import sys

import h5py
import numpy as np

REGIONS = ["main", "solve", "io/write data.v2 \u2713", "unused"]

# Event rows, grouped by (rank, region) as the index requires:
#   rank 0: main | solve solve | io io | (unused: none)
#   rank 1: main | solve
START = [0, 100, 600, 920, 50, 10, 20]
END = [1000, 500, 900, 990, 80, 2000, 1500]
TID = [111, 111, 111, 111, 222, 333, 333]
PARENT = [-1, 0, 0, 0, -1, -1, 5]
OFFSETS = [[0, 1, 3, 5], [5, 6, 7, 7]]
COUNTS = [[1, 2, 2, 0], [1, 1, 0, 0]]


def write_metadata(f):
    m = f.create_group("metadata")
    m.attrs["hostname"] = "py-host"
    m.attrs["mpi_size"] = 2  # int64, as the package writes numbers
    m.attrs["ratio"] = 0.1
    m.attrs["flag"] = True
    m.attrs.create("modules", ["numpy", "h5py"], dtype=h5py.string_dtype())


def write_columnar(path, offsets=OFFSETS, counts=COUNTS, parent=PARENT,
                   end=END, names=REGIONS):
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = 1
        write_metadata(f)
        f.create_dataset("region_names", data=names, dtype=h5py.string_dtype())
        idx = f.create_group("index")
        idx.create_dataset("offsets", data=np.asarray(offsets, dtype=np.int64))
        idx.create_dataset("counts", data=np.asarray(counts, dtype=np.int64))
        ev = f.create_group("events")
        ev.create_dataset("start_times", data=np.asarray(START, dtype=np.int64))
        ev.create_dataset("end_times", data=np.asarray(end, dtype=np.int64))
        ev.create_dataset("thread_ids", data=np.asarray(TID, dtype=np.int64))
        ev.create_dataset("parent_ids", data=np.asarray(parent, dtype=np.int64))


def write_per_region_nested(path):
    """Per-region layout as newer package versions write it (schema
    attribute on the root), with a '/' in a name (h5py nests groups), a
    region that is both a region and a parent group, and no rank1 group."""
    with h5py.File(path, "w") as f:
        f.attrs["scope_profiler_schema"] = 1
        write_metadata(f)
        calls = {
            "rank0": {"main": ([0], [1000]),
                      "io": ([100], [400]),
                      "io/write data.v2 \u2713": ([150, 250], [200, 300])},
            "rank2": {"main": ([5], [50])},
        }
        for rank, regions in calls.items():
            grp = f.create_group(rank).create_group("regions")
            for name, (s, e) in regions.items():
                r = grp.require_group(name)
                r.create_dataset("start_times", data=np.asarray(s, dtype=np.int64))
                r.create_dataset("end_times", data=np.asarray(e, dtype=np.int64))
                r.attrs["source_file"] = "solver.py"  # ignored by the reader
            grp["main"].create_dataset("gpu_durations", data=np.zeros(1, np.int64))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_columnar(os.path.join(out, "columnar.h5"))
    write_per_region_nested(os.path.join(out, "per_region_nested.h5"))
    # Broken variants: each must be refused with SP_EFORMAT.
    write_columnar(os.path.join(out, "columnar_overlap.h5"),
                   offsets=[[0, 0, 3, 5], [5, 6, 7, 7]])
    write_columnar(os.path.join(out, "columnar_gap.h5"),
                   counts=[[1, 2, 1, 0], [1, 1, 0, 0]])
    write_columnar(os.path.join(out, "columnar_outside.h5"),
                   offsets=[[0, 1, 3, 5], [5, 6, 7, 6]], counts=[[1, 2, 2, 0], [1, 1, 0, 2]])
    write_columnar(os.path.join(out, "columnar_parent_rank.h5"),
                   parent=[-1, 0, 0, 0, -1, -1, 0])
    write_columnar(os.path.join(out, "columnar_parent_range.h5"),
                   parent=[-1, 0, 0, 0, -1, -1, 70])
    write_columnar(os.path.join(out, "columnar_not_enclosing.h5"),
                   end=[1000, 500, 900, 1990, 80, 2000, 1500])
    write_columnar(os.path.join(out, "columnar_shape.h5"),
                   offsets=[[0, 1, 3], [5, 6, 7]], counts=[[1, 2, 2], [1, 1, 0]])
    write_columnar(os.path.join(out, "columnar_dup_names.h5"),
                   names=["main", "solve", "main", "unused"])


if __name__ == "__main__":
    main()
