#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the big crafted runs of issue 22's adversarial campaign.

    make_campaign_files.py OUTDIR      write OUTDIR/<kind>.h5 for every kind
    make_campaign_files.py --kinds     print the kinds (for CMake; no h5py needed)

Each kind once made a verb or a viewer page take minutes, overflow the
stack or take gigabytes (issue 22, "Why"); tests/hostile/CMakeLists.txt puts
every file through the verbs and pages; ctest's TIMEOUT is the limit.
Schema v1 (one call table per rank, SCHEMA.md), built with numpy columns
so that millions of rows take seconds:

threads_2e18   2^18 threads of one rank, one call each (6.7 MB)
regions_2e19   2^19 regions, one call each under one top-level call
nesting_2e20   one chain of 2^20 nested calls (gzip: ~40 KB)
chunks_2e20    2^20 calls whose start column is stored as 2^20 compressed
               one-element chunks (libhdf5 itself took 102 s and 6.9 GB to
               read the like): refused before reading, naming the limit
chunks_2e16    2^16 calls, every column in 2^16 one-element chunks: within
               the chunk limit, but libhdf5 needs ~300 MB to read it (the
               reading process's memory cap is tested on it)
metadata_16mb  one 16 MiB metadata value (the viewer's Info page took 58 s)

The runs the library records itself (10^6-deep recursion, 10^6 region
names) are written by record_campaign.c.
"""
import os
import sys
import zlib

KINDS = ["threads_2e18", "regions_2e19", "nesting_2e20", "chunks_2e20", "chunks_2e16",
         "metadata_16mb"]

if len(sys.argv) != 2:
    sys.exit(__doc__)
if sys.argv[1] == "--kinds":
    print(";".join(KINDS))
    sys.exit(0)

import h5py  # noqa: E402  (not needed for --kinds)
import numpy as np  # noqa: E402

STR = h5py.string_dtype("utf-8")
OUT = sys.argv[1]


def col(g, name, data, dtype, direct_chunks=False):
    data = np.ascontiguousarray(data, dtype=dtype)
    if not direct_chunks:
        g.create_dataset(name, data=data, chunks=True, compression="gzip",
                         compression_opts=1, shuffle=True)
        return
    # One element per compressed chunk, written raw (write_direct_chunk):
    # libhdf5 would take minutes to compress 2^20 chunks one by one.
    d = g.create_dataset(name, shape=data.shape, dtype=dtype, chunks=(1,),
                         compression="gzip")
    w = d.id.write_direct_chunk
    for i, v in enumerate(data):
        w((i,), zlib.compress(v.tobytes()))


def strings(g, name, values):
    g.create_dataset(name, data=np.array(values, dtype=object), dtype=STR, chunks=True,
                     compression="gzip", compression_opts=1)


def v1(kind, regions, calls, threads=1, meta=None, direct=()):
    """calls: dict of numpy columns start, end, region, thread, parent (model
    order: by thread, then start, longer first); the call columns named in
    `direct` are stored one element per chunk."""
    path = os.path.join(OUT, kind + ".h5")
    tmp = path + ".tmp"
    with h5py.File(tmp, "w", libver=("v108", "latest")) as f:
        f.attrs.create("scope_profiler_schema", 1, dtype="i4")
        f.attrs.create("num_ranks", 1, dtype="i8")
        strings(f, "region_names", regions)
        m = f.create_group("metadata")
        for k, v in (meta or {"program": "campaign"}).items():
            m.attrs[k] = v
        g = f.create_group("rank0")
        g.attrs.create("rank", 0, dtype="i4")
        g.attrs.create("clock_offset_ns", 0, dtype="i8")
        g.attrs.create("clock_offset_err_ns", 0, dtype="i8")
        g.create_group("metadata")
        t = g.create_group("threads")
        col(t, "os_tid", np.arange(1000, 1000 + threads), "i8")
        strings(t, "name", ["main"] + [f"worker {i}" for i in range(1, threads)])
        c = g.create_group("calls")
        for name, key, dt in (("start_ns", "start", "i8"), ("end_ns", "end", "i8"),
                              ("region", "region", "i4"), ("thread", "thread", "i4"),
                              ("parent", "parent", "i8")):
            col(c, name, calls[key], dt, direct_chunks=name in direct)
        d = g.create_group("dropped")
        d.create_dataset("region", data=np.zeros(0, "i4"))
        d.create_dataset("calls", data=np.zeros(0, "u8"))
    os.replace(tmp, path)
    print(f"{kind}: {os.path.getsize(path)} bytes")


def flat(n, region=None, thread=None):
    """n top-level calls, one after the other."""
    i = np.arange(n, dtype=np.int64)
    return {"start": 10 * i, "end": 10 * i + 5,
            "region": np.zeros(n, "i4") if region is None else region,
            "thread": np.zeros(n, "i4") if thread is None else thread,
            "parent": np.full(n, -1, "i8")}


def threads_2e18():
    n = 1 << 18
    calls = flat(n, thread=np.arange(n, dtype="i4"))
    v1("threads_2e18", ["work"], calls, threads=n)


def regions_2e19():
    n = 1 << 19
    i = np.arange(n, dtype=np.int64)
    calls = {"start": np.where(i == 0, 0, 10 * i), "end": np.where(i == 0, 10 * n + 10, 10 * i + 5),
             "region": i.astype("i4"), "thread": np.zeros(n, "i4"),
             "parent": np.where(i == 0, -1, 0)}
    v1("regions_2e19", ["main"] + [f"region_{k:06d}" for k in range(1, n)], calls)


def nesting_2e20():
    n = 1 << 20
    i = np.arange(n, dtype=np.int64)
    calls = {"start": i, "end": 2 * n - i, "region": np.zeros(n, "i4"),
             "thread": np.zeros(n, "i4"), "parent": i - 1}
    v1("nesting_2e20", ["recurse"], calls)


def chunks_2e20():
    v1("chunks_2e20", ["tick"], flat(1 << 20), direct=("start_ns",))


def chunks_2e16():
    v1("chunks_2e16", ["tick"], flat(1 << 16),
       direct=("start_ns", "end_ns", "region", "thread", "parent"))


def metadata_16mb():
    big = ("0123456789abcdef" * (1 << 20))  # 16 MiB, one line
    v1("metadata_16mb", ["main"], flat(4), meta={"program": "campaign", "huge_value": big})


os.makedirs(OUT, exist_ok=True)
for kind in KINDS:
    if not os.path.exists(os.path.join(OUT, kind + ".h5")):
        globals()[kind]()
