#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write crafted (hostile) run files and the file-system traps they point at.

    make_hostile_files.py OUTDIR

OUTDIR/files/<kind>.h5   one crafted file per attack (see KINDS below)
OUTDIR/wd/               the "working directory" the line-sample files record:
                         ok.c (a real source file), a FIFO, a symlink out of the
                         tree, a directory, a file over the source size limit
OUTDIR/wd/lines_in_wd.h5 a line-sampled run saved in its working directory
                         (its sources may be shown; the traps never)
OUTDIR/secret/secret.txt a file no run owns: its marker must never be printed
OUTDIR/manifest.txt      one line per file: "<path>\t<status>\t<error regex>"
                         (EXPECT below: what every reading verb must do)

Every file is small (a few KB to a few hundred KB) and is built with h5py
from the public layouts in h5schema/SCHEMA.md, so each one is structurally
valid HDF5 whose *content* lies: sizes, links, times, names and paths.
"""
import os
import random
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_v2  # noqa: E402  (schema v2 kinds)

SECRET_MARKER = "HOSTILE-SECRET-MARKER-4f1c9a"
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
STR = h5py.string_dtype("utf-8")

OUT = sys.argv[1]
FILES = os.path.join(OUT, "files")
WD = os.path.join(OUT, "wd")
SECRET_DIR = os.path.join(OUT, "secret")
manifest = []


def path_of(kind):
    return os.path.join(FILES, kind + ".h5")


# What each kind must do: exit status of every reading verb, and a regex the
# error line (stderr of `summary`) must match when the status is 2.
EXPECT = {
    "size_v1_calls_2e26": (2, "decompression bomb"),
    "size_v1_calls_2e28": (2, "decompression bomb"),
    "size_pycolumnar_events_2e26": (2, "decompression bomb"),
    "size_pycolumnar_events_2e28": (2, "decompression bomb"),
    "size_pyregions_2e26": (2, "decompression bomb"),
    "size_region_names_2e24": (2, "decompression bomb"),
    "size_thread_names_2e20": (2, "decompression bomb"),
    "size_index_2e20_ranks": (2, "decompression bomb"),
    "size_pyregions_ranks_2e20": (2, "idle ranks"),
    "size_metadata_30k": (0, ""),
    "size_deep_nesting": (0, ""),
    "size_many_regions": (0, ""),
    "cycle_self": (2, "hard-link cycle"),
    "cycle_fanout": (2, "hard-link cycle"),
    "cycle_to_rank": (2, "hard-link cycle"),
    "cycle_rank_alias": (2, "hard-link alias"),
    "cycle_diamond_2e40_paths": (2, "hard-link cycle or alias"),
    "time_int64_extremes": (2, "times lie within"),
    "time_offset_extremes": (2, "clock offset .* is impossible"),
    "time_negative_offset_err": (2, "clock offset .* is impossible"),
    "time_sum_overflow": (2, "add up to more than 2\\^62"),
    "time_negative_own": (2, "own time would be negative"),
    "time_end_before_start": (2, "ends before it starts"),
    "time_pycolumnar_extremes": (2, "times lie within"),
    "time_pyregions_extremes": (2, "times lie within"),
    "lines_sum_overflow": (2, "line row 0: .*more than 2\\^62"),
    "dropped_overflow": (2, "add up past 2\\^62"),
    "counters_extremes": (2, "counter row 0: .*more than 2\\^62"),
    "num_ranks_lies": (2, "num_ranks is 1099511627776 but / holds only"),
    "escape_names": (0, ""),
    "escape_names_raw": (0, ""),
    "escape_in_error": (2, "broken\\\\x07: start_times has 2 values but end_times has 1"),
    "escape_formulas": (0, ""),
    "paths_wd_elsewhere": (0, ""),
    "paths_wd_root": (0, ""),
    "paths_wd_secret": (0, ""),
    "lines_in_wd": (0, ""),
}
EXPECT.update(hostile_v2.EXPECT)


def note(path, statuses=None):
    kind = os.path.basename(path)[:-3]
    if kind not in EXPECT:
        return  # a file with a test of its own
    status, regex = EXPECT[kind]
    manifest.append(f"{path}\t{status}\t{regex}")


# ------------------------------------------------------------ schema v1 ----

def column(g, name, data=None, dtype="i8", shape=None, bomb=None, fill=0):
    """A call column: exact data, or a "bomb": a chunked, compressed dataset
    that claims `bomb` elements but stores no chunk (reads give the fill)."""
    if bomb is not None:
        g.create_dataset(name, shape=(bomb,), dtype=dtype, chunks=(1 << 16,),
                         compression="gzip", fillvalue=fill)
    else:
        g.create_dataset(name, data=np.asarray(data, dtype=dtype))


def strings(g, name, values):
    g.create_dataset(name, data=np.array(values, dtype=object), dtype=STR)


def v1(kind, regions, ranks, meta=None, region_flags=None, statuses="0 2"):
    """A schema v1 file. ranks: list of dicts with keys calls (list of
    (start, end, region, thread, parent)), threads (list of (tid, name)),
    offset, offset_err, meta, lines, counters, dropped, bomb."""
    path = path_of(kind)
    with h5py.File(path, "w", track_order=True, libver=("v108", "latest")) as f:
        f.attrs.create("scope_profiler_schema", 1, dtype="i4")
        f.attrs.create("num_ranks", len(ranks), dtype="i8")
        if isinstance(regions, dict):  # {"bomb": n, "width": w}
            f.create_dataset("region_names", shape=(regions["bomb"],),
                             dtype=h5py.string_dtype("utf-8", regions["width"]),
                             chunks=(1024,), compression="gzip")
        else:
            strings(f, "region_names", regions)
        if region_flags is not None:
            column(f, "region_flags", region_flags, "i4")
        meta = meta or {"working_directory": WD}
        m = f.create_group("metadata", track_order=len(meta) < 60000)
        for k, v in meta.items():
            m.attrs[k] = v
        for r, rk in enumerate(ranks):
            g = f.create_group(f"rank{r}")
            g.attrs.create("rank", r, dtype="i4")
            g.attrs.create("clock_offset_ns", rk.get("offset", 0), dtype="i8")
            g.attrs.create("clock_offset_err_ns", rk.get("offset_err", 0), dtype="i8")
            rm = g.create_group("metadata")
            for k, v in rk.get("meta", {}).items():
                rm.attrs[k] = v
            t = g.create_group("threads")
            threads = rk.get("threads", [(100, "main")])
            if rk.get("thread_bomb"):
                n, w = rk["thread_bomb"]
                column(t, "os_tid", bomb=n)
                t.create_dataset("name", shape=(n,), dtype=h5py.string_dtype("utf-8", w),
                                 chunks=(1024,), compression="gzip")
            else:
                column(t, "os_tid", [x[0] for x in threads])
                strings(t, "name", [x[1] for x in threads])
            c = g.create_group("calls")
            bomb = rk.get("bomb")
            calls = rk.get("calls", [])
            cols = [("start_ns", "i8", 0), ("end_ns", "i8", 0), ("region", "i4", 0),
                    ("thread", "i4", 0), ("parent", "i8", -1)]
            for i, (name, dt, fill) in enumerate(cols):
                if bomb:
                    column(c, name, dtype=dt, bomb=bomb, fill=fill)
                else:
                    column(c, name, [x[i] for x in calls], dt)
            d = g.create_group("dropped")
            dropped = rk.get("dropped", [])
            column(d, "region", [x[0] for x in dropped], "i4")
            column(d, "calls", [x[1] for x in dropped], "u8")
            if "lines" in rk:
                ln = g.create_group("lines")
                rows = rk["lines"]  # (region, file, lineno, function, samples, time_ns)
                column(ln, "region", [x[0] for x in rows], "i4")
                strings(ln, "file", [x[1] for x in rows])
                column(ln, "lineno", [x[2] for x in rows], "i4")
                strings(ln, "function", [x[3] for x in rows])
                column(ln, "samples", [x[4] for x in rows], "u8")
                column(ln, "time_ns", [x[5] for x in rows], "i8")
            if "counters" in rk:
                k = g.create_group("counters")
                rows = rk["counters"]  # (region, thread, cpu, source, name, value, calls)
                for i, (name, dt) in enumerate([("region", "i4"), ("thread", "i4"),
                                                ("cpu", "i4"), ("source", "i4")]):
                    column(k, name, [x[i] for x in rows], dt)
                strings(k, "name", [x[4] for x in rows])
                column(k, "value", [x[5] for x in rows], "f8")
                column(k, "calls", [x[6] for x in rows], "u8")
    note(path, statuses)
    return path


def simple_calls():
    """main > solve > kernel x2, then io: a small valid tree on thread 0."""
    return [(0, 1000, 0, 0, -1), (100, 900, 1, 0, 0), (200, 400, 2, 0, 1),
            (500, 800, 2, 0, 1), (910, 990, 3, 0, 0)]


NAMES = ["main", "solve", "kernel", "io"]

# --------------------------------------------------- Python per-region ----

def pyregions(kind, fill, statuses="0 2", meta=None):
    path = path_of(kind)
    with h5py.File(path, "w") as f:
        m = f.create_group("metadata")
        for k, v in (meta or {"working_directory": WD}).items():
            m.attrs[k] = v
        fill(f)
    note(path, statuses)
    return path


def region(g, name, starts, ends):
    r = g.create_group(name)
    r.create_dataset("start_times", data=np.asarray(starts, dtype="i8"))
    r.create_dataset("end_times", data=np.asarray(ends, dtype="i8"))
    return r


# ---------------------------------------------------- Python columnar ----

def pycolumnar(kind, names, offsets, counts, events=None, bomb=None, statuses="0 2",
               index_bomb=None):
    path = path_of(kind)
    with h5py.File(path, "w") as f:
        strings(f, "region_names", names)
        ix = f.create_group("index")
        if index_bomb:
            for n in ("offsets", "counts"):
                ix.create_dataset(n, shape=index_bomb, dtype="i8", chunks=(1024, 1),
                                  compression="gzip")
        else:
            ix.create_dataset("offsets", data=np.asarray(offsets, dtype="i8"))
            ix.create_dataset("counts", data=np.asarray(counts, dtype="i8"))
        ev = f.create_group("events")
        for i, n in enumerate(("start_times", "end_times", "thread_ids", "parent_ids")):
            if bomb:
                column(ev, n, bomb=bomb, fill=-1 if n == "parent_ids" else 0)
            else:
                column(ev, n, [x[i] for x in events])
        f.create_group("metadata").attrs["working_directory"] = WD
    note(path, statuses)
    return path


# ------------------------------------------------------------- traps ----

def make_traps():
    os.makedirs(FILES, exist_ok=True)
    os.makedirs(WD, exist_ok=True)
    os.makedirs(SECRET_DIR, exist_ok=True)
    with open(os.path.join(SECRET_DIR, "secret.txt"), "w") as f:
        for i in range(50):
            f.write(f"{SECRET_MARKER} line {i + 1}\n")
    with open(os.path.join(WD, "ok.c"), "w") as f:
        for i in range(50):
            f.write(f"int line_{i + 1} = {i + 1}; /* fine */\n")
    fifo = os.path.join(WD, "fifo.c")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    link = os.path.join(WD, "link_out.c")
    if not os.path.lexists(link):
        os.symlink(os.path.join(SECRET_DIR, "secret.txt"), link)
    os.makedirs(os.path.join(WD, "dir.c"), exist_ok=True)
    with open(os.path.join(WD, "huge.c"), "wb") as f:  # sparse: 2 GiB, no disk
        f.truncate(2 << 30)
    os.makedirs(os.path.join(WD, "sub"), exist_ok=True)
    dlink = os.path.join(WD, "sub", "up")
    if not os.path.lexists(dlink):
        os.symlink(SECRET_DIR, dlink)  # a directory link out of the tree
    os.makedirs(os.path.join(WD, ".hidden"), exist_ok=True)
    with open(os.path.join(WD, ".hidden", "key.c"), "w") as f:
        f.write(f"{SECRET_MARKER} hidden\n")


# ----------------------------------------------------------- the files ----

ESC = ("\x1b[2J\x1b[31mRED\x1b[0m", "bell\x07", "back\x08space", "cr\rreturn",
       "osc\x1b]0;pwned title\x07", "c1\u009b31mcsi", "del\x7f", "bidi\u202eevil",
       "nul-ish\x01\x02")


def build_all():
    random.seed(13)
    lines_meta = {"working_directory": WD}
    secret = os.path.join(SECRET_DIR, "secret.txt")
    # ---- sizes ----
    for bits in (26, 28):
        v1(f"size_v1_calls_2e{bits}", NAMES, [{"bomb": 1 << bits}])
        pycolumnar(f"size_pycolumnar_events_2e{bits}", ["a"], [[0]], [[1 << bits]],
                   bomb=1 << bits)
    pyregions("size_pyregions_2e26", lambda f: [
        f.require_group("rank0/regions/a").create_dataset(
            n, shape=(1 << 26,), dtype="i8", chunks=(1 << 16,), compression="gzip")
        for n in ("start_times", "end_times")])
    v1("size_region_names_2e24", {"bomb": 1 << 24, "width": 4096}, [{}])
    v1("size_thread_names_2e20", NAMES, [{"thread_bomb": (1 << 20, 1 << 20)}])
    pycolumnar("size_index_2e20_ranks", ["a"], None, None, events=[], index_bomb=(1 << 20, 1))

    def sparse_ranks(f):
        for r in sorted(random.sample(range(1 << 20), 300)) + [(1 << 20) - 1]:
            region(f.require_group(f"rank{r}/regions"), "work", [r], [r + 10])
    pyregions("size_pyregions_ranks_2e20", sparse_ranks)

    # Every verb reads it (30,000 entries); the viewer's Info page is also
    # shown the 100,000 entries of the issue (viewer_metadata_100k.h5, its
    # own test: reading it takes seconds, the page must not add to that).
    for n, kind in ((30000, "size_metadata_30k"), (100000, "viewer_metadata_100k")):
        many_meta = {f"key{i:06d}": f"value {i}" for i in range(n)}
        many_meta["working_directory"] = WD
        v1(kind, NAMES, [{"calls": simple_calls()}], meta=many_meta)
    # deep nesting: one 20000-level chain
    depth = 20000
    deep = [(i, 2 * depth - i, 0, 0, i - 1) for i in range(depth)]
    v1("size_deep_nesting", ["recurse"], [{"calls": deep}])
    # many regions, one call each (20,000: `diff` on main matches regions by a
    # linear search, O(regions^2); the comparison rewrite hashes them)
    nreg = 20000
    v1("size_many_regions", [f"r{i}" for i in range(nreg)],
       [{"calls": [(0, 10 * nreg + 10, 0, 0, -1)] +
                  [(10 * i, 10 * i + 5, i, 0, 0) for i in range(1, nreg)]}])
    # ---- cycles (Python per-region layout; h5py assignment = hard link) ----
    def cycle(f):
        a = region(f.require_group("rank0/regions"), "a", [0], [10])
        a["b"] = a  # a/b is a again
    pyregions("cycle_self", cycle)

    def fanout(f):
        a = region(f.require_group("rank0/regions"), "a", [0], [10])
        a["x"] = a
        a["y"] = a
        a["z"] = a
    pyregions("cycle_fanout", fanout)

    def loop_up(f):
        g = f.require_group("rank0/regions")
        region(g, "a", [0], [10])
        g["a"]["up"] = f["rank0"]  # back to the rank group
    pyregions("cycle_to_rank", loop_up)

    def alias(f):
        g = f.require_group("rank0/regions")
        region(g, "a", [0], [10])
        f["rank1"] = f["rank0"]  # rank1 is rank0
    pyregions("cycle_rank_alias", alias)

    def diamond(f):  # 40 levels, each level's two links lead to the next
        g = f.require_group("rank0/regions")
        prev = region(g, "l0", [0], [100])
        for i in range(1, 40):
            nxt = f.create_group(f"pool/l{i}")
            nxt.create_dataset("start_times", data=np.array([1], "i8"))
            nxt.create_dataset("end_times", data=np.array([2], "i8"))
            prev["p"] = nxt
            prev["q"] = nxt
            prev = nxt
    pyregions("cycle_diamond_2e40_paths", diamond)
    # ---- extremes ----
    v1("time_int64_extremes", ["x", "y"],
       [{"calls": [(I64_MIN, I64_MAX, 0, 0, -1), (I64_MIN, I64_MAX, 1, 0, 0)]}])
    v1("time_offset_extremes", NAMES,
       [{"calls": simple_calls(), "offset": I64_MAX, "offset_err": I64_MAX},
        {"calls": simple_calls(), "offset": I64_MIN}])
    v1("time_negative_offset_err", NAMES, [{"calls": simple_calls(), "offset_err": -5}])
    big = 1 << 61  # times within the bound, durations of 2^62 - 2i: the sum overflows
    v1("time_sum_overflow", ["x"],
       [{"calls": [(-big + i, big - i, 0, 0, -1) for i in range(8)]}])
    v1("time_negative_own", ["parent", "child"],
       [{"calls": [(0, 100, 0, 0, -1), (0, 90, 1, 0, 0), (10, 100, 1, 0, 0)]}])
    v1("time_end_before_start", ["x"], [{"calls": [(100, 50, 0, 0, -1)]}])
    pycolumnar("time_pycolumnar_extremes", ["a", "b"], [[0, 2]], [[2, 1]],
               events=[(I64_MIN, I64_MAX, 1, -1), (I64_MIN + 1, I64_MAX - 1, 1, 0),
                       (0, I64_MAX, 2, -1)])
    pyregions("time_pyregions_extremes", lambda f: [
        region(f.require_group("rank0/regions"), "a", [I64_MIN, 0], [I64_MAX, 5]),
        region(f.require_group("rank0/regions"), "b", [I64_MIN + 1], [I64_MAX - 1])])
    v1("lines_sum_overflow", NAMES,
       [{"calls": simple_calls(),
         "lines": [(2, "ok.c", 3, "f", 2**63 - 1, I64_MAX),
                   (2, "ok.c", 3, "f", 2**63 - 1, I64_MAX),
                   (2, "ok.c", 4, "f", 2**64 - 1, I64_MIN)]}], meta=lines_meta)
    v1("dropped_overflow", NAMES,
       [{"calls": simple_calls(), "dropped": [(0, 2**64 - 1), (0, 2**64 - 1), (1, 2**63)]},
        {"calls": simple_calls(), "dropped": [(0, 2**64 - 1)]}])
    v1("counters_extremes", NAMES,
       [{"calls": simple_calls(),
         "counters": [(2, 0, -1, 0, "task-clock", float("inf"), 2**64 - 1),
                      (2, 0, -1, 0, "task-clock", float("nan"), 2**64 - 1),
                      (2, -1, 2**31 - 1, 2**31 - 1, "x\x1b[31m", -1e308, 5)]}])
    v1("num_ranks_lies", NAMES, [{"calls": simple_calls()}])
    with h5py.File(path_of("num_ranks_lies"), "r+") as f:
        f.attrs.modify("num_ranks", 1 << 40)
    # ---- escapes ----
    esc_names = [f"region {i} {s}" for i, s in enumerate(ESC)]
    calls = [(0, 10 * len(esc_names) + 10, 0, 0, -1)] + \
            [(10 * i, 10 * i + 5, i, 0, 0) for i in range(1, len(esc_names))]
    esc_meta = {"working_directory": WD, "user": "\x1b[2J\x1b]0;owned\x07eve",
                "hostname": "host\u009b31m\x07", "key\x1b[1m": "v\r\nInjected: yes"}
    v1("escape_names", esc_names,
       [{"calls": calls, "threads": [(1, "thr\x1b[5mead\x07")],
         "meta": {"hostname": "\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\"},
         "lines": [(1, "ok\x1b[31m.c", 1, "fn\x1b[2J", 10, 1000)],
         "counters": [(1, 0, -1, 0, "cnt\x1b[7m", 1.0, 1)]}], meta=esc_meta)
    with h5py.File(path_of("escape_names_raw"), "w") as f:  # raw bytes, not UTF-8
        f.attrs.create("scope_profiler_schema", 1, dtype="i4")
        f.attrs.create("num_ranks", 1, dtype="i8")
        f.create_dataset("region_names", data=np.array(
            [b"raw\x1b[31m\xff\xfe", b"\x9b2J\xc2\x9b"], dtype=object),
            dtype=h5py.string_dtype("ascii"))
        f.create_group("metadata").attrs.create("raw\x1bkey", np.bytes_(b"\x1b[41m\xff"))
        g = f.create_group("rank0")
        g.attrs.create("rank", 0, dtype="i4")
        g.attrs.create("clock_offset_ns", 0, dtype="i8")
        g.attrs.create("clock_offset_err_ns", 0, dtype="i8")
        g.create_group("metadata")
        t = g.create_group("threads")
        t["os_tid"] = np.array([1], "i8")
        t.create_dataset("name", data=np.array([b"t\x1b[0m"], dtype=object),
                         dtype=h5py.string_dtype("ascii"))
        c = g.create_group("calls")
        for n, d, dt in (("start_ns", [0, 1], "i8"), ("end_ns", [10, 5], "i8"),
                         ("region", [0, 1], "i4"), ("thread", [0, 0], "i4"),
                         ("parent", [-1, 0], "i8")):
            c[n] = np.array(d, dt)
        d = g.create_group("dropped")
        d["region"] = np.zeros(0, "i4")
        d["calls"] = np.zeros(0, "u8")
    note(path_of("escape_names_raw"), "0 2")

    def esc_error(f):  # a broken region whose name holds escapes: errors echo it
        region(f.require_group("rank0/regions"), "ok", [0], [10])
        region(f.require_group("rank0/regions"), "\x1b[2J\x1b[31mbroken\x07", [0, 1], [5])
    pyregions("escape_in_error", esc_error, statuses="2")
    v1("escape_formulas", ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)",
                           "\t=cmd", "<script>alert(1)</script>", "]]></svg><x>",
                           "a;b c\nd"],
       [{"calls": [(0, 100, 0, 0, -1), (1, 2, 1, 0, 0), (3, 4, 2, 0, 0), (5, 6, 3, 0, 0),
                   (7, 8, 4, 0, 0), (9, 10, 5, 0, 0), (11, 12, 6, 0, 0), (13, 14, 7, 0, 0)],
         "threads": [(1, "=1+1")]}],
       meta={"working_directory": WD, "=cmd|' /C calc'!A0": "@x", "note": "-1+2"})
    # ---- paths named by line samples ----
    trap_rows = [
        (2, "/etc/shadow", 1, "root_secrets", 10, 1000),
        (2, "/etc/passwd", 1, "passwd", 10, 1000),
        (2, secret, 1, "secret_abs", 10, 1000),
        (2, "../secret/secret.txt", 1, "secret_rel", 10, 1000),
        (2, "fifo.c", 1, "fifo", 10, 1000),
        (2, "/dev/zero", 1, "devzero", 10, 1000),
        (2, "/dev/tty", 1, "devtty", 10, 1000),
        (2, "/proc/self/environ", 1, "environ", 10, 1000),
        (2, "link_out.c", 1, "symlink_out", 10, 1000),
        (2, "sub/up/secret.txt", 1, "dirlink_out", 10, 1000),
        (2, ".hidden/key.c", 1, "hidden", 10, 1000),
        (2, "dir.c", 1, "directory", 10, 1000),
        (2, "huge.c", 1, "huge", 10, 1000),
        (2, "ok.c", 3, "fine", 10, 1000),
        (2, "ok.c", 2**31 - 1, "fine_far", 10, 1000),
    ]
    v1("paths_wd_elsewhere", NAMES, [{"calls": simple_calls(), "lines": trap_rows}],
       meta={"working_directory": WD})
    v1("paths_wd_root", NAMES, [{"calls": simple_calls(), "lines": trap_rows}],
       meta={"working_directory": "/"})
    v1("paths_wd_secret", NAMES,
       [{"calls": simple_calls(), "lines": [(2, "secret.txt", 1, "s", 10, 1000)]}],
       meta={"working_directory": SECRET_DIR})
    kind = "lines_in_wd"
    p = v1(kind, NAMES, [{"calls": simple_calls(), "lines": trap_rows}],
           meta={"working_directory": WD})
    inside = os.path.join(WD, kind + ".h5")
    os.replace(p, inside)
    manifest[-1] = manifest[-1].replace(p, inside)
    # ---- schema v2 (tests/hostile/hostile_v2.py) ----
    hostile_v2.build(FILES, WD, SECRET_DIR, SECRET_MARKER, note, ESC)


if sys.argv[1] == "--kinds":  # for CMake: one test per kind
    print(";".join(sorted(EXPECT)))
    sys.exit(0)
make_traps()
build_all()
missing = set(EXPECT) - {os.path.basename(m.split("\t")[0])[:-3] for m in manifest}
if missing:
    sys.exit(f"make_hostile_files: kinds expected but not written: {sorted(missing)}")
with open(os.path.join(OUT, "manifest.txt"), "w") as f:
    f.write("\n".join(manifest) + "\n")
print(f"make_hostile_files: {len(manifest)} files in {OUT}")
