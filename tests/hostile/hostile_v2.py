# SPDX-License-Identifier: MIT
"""Crafted schema v2 files (h5schema/SCHEMA.md, "Schema version 2") for
make_hostile_files.py: blocks tables that lie, decompression bombs in event
chunks, regions out of range, tick sums that overflow, times that go back,
unbalanced events, names with control bytes, and the external links of a run
that records (PATH -> PATH.rank<N>.part) pointed at everything a link must
never reach: /etc/passwd, /dev/zero, a FIFO, an absolute path elsewhere,
`../`, a symbolic link, another run's part, chains and cycles of links.

Also the optional MPI tables (SCHEMA.md, "MPI messages and collectives"):
communicators naming ranks that do not exist, call paths that loop, record
rows out of range or backwards in time, columns that disagree in a finished
file, and a record table that claims 2^28 rows in a few kilobytes.

Each kind is (status, regex) in EXPECT, as in make_hostile_files.py.
"""
import os

import h5py
import numpy as np

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
U32_MAX = 2**32 - 1

EXPECT = {
    "v2_ok_finished": (0, ""),
    "v2_ok_in_progress": (0, ""),
    "v2_blocks_events_lie": (2, "the blocks announce .* events, the event columns hold"),
    "v2_blocks_begins_lie": (2, "has 9 begins among 2 events"),
    "v2_blocks_thread_range": (2, "names thread 7 \\(the thread table has 1 rows\\)"),
    "v2_blocks_thread_negative": (2, "names thread -1 "),
    "v2_blocks_2e20": (2, "claims .* elements but stores only|over the read limit"),
    "v2_events_bomb_2e28": (2, "claims 268435456 elements but stores only"),
    "v2_events_zip_2e19": (0, ""),
    "v2_region_range": (2, "region row 99 \\(the region table has 2 rows\\)"),
    "v2_region_negative": (2, "region -5 \\(an end is -1\\)"),
    "v2_end_without_begin": (2, "an end with no open call"),
    "v2_unbalanced_finished": (2, "calls never end in a finished file"),
    "v2_dt_overflow": (2, "the ticks overflow"),
    "v2_clock_identity_extremes": (2, "times lie within"),
    "v2_clock_ratio_extreme": (2, "times lie within"),
    "v2_clock_backwards": (2, "clock calibration .* cannot convert"),
    "v2_times_backwards_negative_own": (2, "does not precede it|own time would be negative|ends before it starts"),
    "v2_num_ranks_lies": (2, "num_ranks is 1099511627776 but / holds only"),
    "v2_name_end_lies": (2, "ends at byte 4096"),
    "v2_name_end_backwards": (2, "ends at byte 1 \\(previous end 4"),
    "v2_name_bytes_bomb": (2, "claims 1073741824 elements but stores only"),
    "v2_threads_bomb_2e30": (2, "claims 1073741824 elements but stores only"),
    "v2_dropped_region_range": (2, "dropped row 0 names region row 12"),
    "v2_escape_names": (0, ""),
    # a run that records, its part torn by a write that failed (a full disk)
    "v2_torn_events_in_progress": (0, ""),
    "v2_torn_regions_in_progress": (0, ""),
    "v2_soft_link_table": (2, "is a soft link|is missing"),
    "v2_external_in_table": (2, "is an external link|is missing"),
    # external links of a run that records
    "v2_link_etc_passwd": (2, "refused: it points at '/etc/passwd'"),
    "v2_link_dev_zero": (2, "refused: it points at '/dev/zero'"),
    "v2_link_fifo": (2, "is a FIFO, not a file"),
    "v2_link_abs_elsewhere": (2, "refused: it points at '/"),
    "v2_link_dotdot": (2, "refused: it points at '\\.\\./"),
    "v2_link_symlink": (2, "is a symbolic link"),
    "v2_link_other_run": (2, "refused: it points at 'other_run.h5.rank0.part'"),
    "v2_link_wrong_rank": (2, "refused: it points at 'v2_link_wrong_rank.h5.rank0.part'"),
    "v2_link_object_path": (2, "refused: it points at .*:/secret"),
    "v2_link_chain": (2, "rank0.part: /rank0 is an external link"),
    "v2_link_cycle": (2, "rank0.part: /rank0 is an external link"),
    "v2_link_in_finished": (2, "a finished file .*has no links"),
    "v2_link_self": (2, "is the run file itself: refused"),
    # MPI messages and collectives
    "v2_mpi_ok": (0, ""),
    "v2_mpi_member_range": (2, "communicator member 1 is rank 9 \\(2 ranks\\)"),
    "v2_mpi_path_loop": (2, "call path 0 is out of range"),
    "v2_mpi_path_region_range": (2, "call path 0 names region row 40"),
    "v2_mpi_peer_range": (2, "point-to-point row 0 is out of range"),
    "v2_mpi_times_backwards": (2, "point-to-point row 0: times out of order"),
    "v2_mpi_coll_op_unknown": (2, "collective row 0 is out of range"),
    "v2_mpi_columns_differ": (2, "the columns of kind differ in length"),
    "v2_mpi_p2p_bomb_2e28": (2, "claims 268435456 elements but stores only"),
}

STATUS_BOTH = "0 2"


def _col(g, name, data, dtype, chunked=True, compression="gzip"):
    a = np.asarray(data, dtype=dtype)
    if chunked:
        g.create_dataset(name, data=a, maxshape=(None,),
                         chunks=(max(1, min(len(a), 65536)),) if len(a) else (1024,),
                         compression=compression)
    else:
        g.create_dataset(name, data=a)


def _bomb(g, name, n, dtype):
    """Claims n elements, stores no chunk (reads would give the fill)."""
    g.create_dataset(name, shape=(n,), maxshape=(None,), dtype=dtype, chunks=(1 << 16,),
                     compression="gzip")


def _names(g, names):
    b = [n if isinstance(n, bytes) else n.encode("utf-8", "surrogateescape") for n in names]
    ends = np.cumsum([len(x) for x in b]).astype("u8") if b else np.zeros(0, "u8")
    _col(g, "name_bytes", np.frombuffer(b"".join(b), "u1"), "u1", chunked=False)
    _col(g, "name_end", ends, "u8", chunked=False)


def simple_events():
    """main > solve > kernel, then io, on thread 0: one block."""
    region = [0, 1, 2, -1, -1, 3, -1, -1]
    dt = [0, 10, 10, 50, 10, 5, 20, 5]
    return [(0, 1000, dt, region)]


P2P = ("kind", "op", "done_op", "thread", "path", "comm", "peer", "tag", "bytes",
       "post_enter", "post_exit", "done_enter", "done_exit")
COLL = ("op", "thread", "path", "comm", "root", "bytes_sent", "bytes_recv", "enter", "exit")


def mpi_group(g, r, members=(0, 1), paths=((-1, 0),), p2p=None, coll=None, p2p_bomb=None):
    """/rank<r>/mpi: one communicator (members), call paths (parent, region
    row), rows of p2p and coll as tuples in the order of P2P and COLL. By
    default rank 0 sends 64 bytes to rank 1 (MPI_Send), rank 1 receives them
    (MPI_Recv), and both call MPI_Allreduce."""
    m = g.create_group("mpi")
    c = m.create_group("comms")
    _col(c, "members", members, "i4")
    _col(c, "members_end", [len(members)], "u8")
    _col(c, "flags", [1], "i4")
    pt = m.create_group("paths")
    _col(pt, "parent", [x[0] for x in paths], "i4")
    _col(pt, "region", [x[1] for x in paths], "i4")
    if p2p is None:
        p2p = [(0, 1, 1, 0, 0, 0, 1, 7, 64, 100, 110, 100, 110)] if r == 0 else \
              [(1, 5, 5, 0, 0, 0, 0, 7, 64, 90, 120, 90, 120)]
    if coll is None:
        coll = [(25, 0, 0, 0, -1, 8, 8, 200 + r, 300)]
    t = m.create_group("p2p")
    for k, name in enumerate(P2P):
        if p2p_bomb:
            _bomb(t, name, p2p_bomb, "i8" if k >= 8 else "i4")
        else:
            _col(t, name, [row[k] for row in p2p], "i8" if k >= 8 else "i4")
    t = m.create_group("coll")
    for k, name in enumerate(COLL):
        _col(t, name, [row[k] for row in coll], "i8" if k >= 5 else "i4")


def rank_group(g, r, regions=("main", "solve", "kernel", "io"), threads=((100, "main"),),
               blocks=None, clock=((0, 1000000), (0, 1000000)), dropped=(), events_bomb=None,
               blocks_bomb=None, name_bytes_bomb=False, threads_bomb=None, name_end=None,
               mpi=None):
    """blocks: list of (thread, t0, dt list, region list[, begins]); mpi:
    None, or the keyword arguments of mpi_group."""
    g.attrs.create("rank", r, dtype="i4")
    g.attrs.create("clock_offset_ns", 0, dtype="i8")
    g.attrs.create("clock_offset_err_ns", 0, dtype="i8")
    g.create_group("metadata")
    c = g.create_group("clock")
    _col(c, "ticks", clock[0], "i8", chunked=False)
    _col(c, "ns", clock[1], "i8", chunked=False)
    rg = g.create_group("regions")
    if name_bytes_bomb:
        _bomb(rg, "name_bytes", 1 << 30, "u1")
        _col(rg, "name_end", [1, 2], "u8", chunked=False)
    else:
        _names(rg, regions)
        if name_end is not None:
            del rg["name_end"]
            _col(rg, "name_end", name_end, "u8", chunked=False)
    th = g.create_group("threads")
    if threads_bomb:
        _bomb(th, "os_tid", threads_bomb, "i8")
        _bomb(th, "name_bytes", threads_bomb, "u1")
        _bomb(th, "name_end", threads_bomb, "u8")
    else:
        _col(th, "os_tid", [t[0] for t in threads], "i8", chunked=False)
        _names(th, [t[1] for t in threads])
    bl = g.create_group("blocks")
    ev = g.create_group("events")
    if blocks is None:
        blocks = simple_events()
    if blocks_bomb:
        for n, dt in (("thread", "i4"), ("events", "u4"), ("begins", "u4"), ("t0", "i8")):
            _bomb(bl, n, blocks_bomb, dt)
    else:
        _col(bl, "thread", [b[0] for b in blocks], "i4")
        _col(bl, "events", [len(b[2]) for b in blocks], "u4")
        _col(bl, "begins", [b[4] if len(b) > 4 else sum(1 for x in b[3] if x >= 0)
                            for b in blocks], "u4")
        _col(bl, "t0", [b[1] for b in blocks], "i8")
    if events_bomb:
        _bomb(ev, "dt", events_bomb, "u4")
        _bomb(ev, "region", events_bomb, "i4")
    else:
        _col(ev, "dt", [x for b in blocks for x in b[2]], "u4")
        _col(ev, "region", [x for b in blocks for x in b[3]], "i4")
    d = g.create_group("dropped")
    _col(d, "region", [x[0] for x in dropped], "i4", chunked=False)
    _col(d, "calls", [x[1] for x in dropped], "u8", chunked=False)
    if mpi is not None:
        mpi_group(g, r, **mpi)


def root(f, nranks, complete, wd):
    f.attrs.create("scope_profiler_schema", 2, dtype="i4")
    f.attrs.create("num_ranks", nranks, dtype="i8")
    f.attrs.create("complete", 1 if complete else 0, dtype="i4")
    m = f.create_group("metadata")
    m.attrs["working_directory"] = wd
    m.attrs["hostname"] = "hostile"


def finished(path, ranks, wd, meta=None):
    """ranks: list of kwargs for rank_group."""
    with h5py.File(path, "w", libver=("v108", "latest")) as f:
        root(f, len(ranks), True, wd)
        for k, v in (meta or {}).items():
            f["metadata"].attrs[k] = v
        for r, kw in enumerate(ranks):
            rank_group(f.create_group(f"rank{r}"), r, **kw)
    return path


def part(path, r, marker=None, **kw):
    """A part file as a recording rank leaves it (not SWMR-flagged: the
    reader opens both kinds the same way)."""
    with h5py.File(path, "w", libver=("v110", "latest")) as f:
        if marker:
            kw = dict(kw, regions=(marker, "b", "c", "d"))
        rank_group(f.create_group(f"rank{r}"), r, **kw)
    return path


def in_progress(path, links, wd):
    """PATH with one external link per rank: links[r] = (file, object)."""
    with h5py.File(path, "w", libver=("v108", "latest")) as f:
        root(f, len(links), False, wd)
        for r, (fname, obj) in enumerate(links):
            f[f"rank{r}"] = h5py.ExternalLink(fname, obj)
    return path


def build(files, wd, secret_dir, secret_marker, note, esc):
    """Write every v2 kind into files/; note(path) records it."""
    p = lambda kind: os.path.join(files, kind + ".h5")  # noqa: E731

    def fin(kind, ranks, meta=None):
        note(finished(p(kind), ranks, wd, meta))

    fin("v2_ok_finished", [{}, {"regions": ("main", "other", "kernel", "io")}])
    base = p("v2_ok_in_progress")
    in_progress(base, [(os.path.basename(base) + ".rank0.part", "/rank0"),
                       (os.path.basename(base) + ".rank1.part", "/rank1")], wd)
    part(base + ".rank0.part", 0, blocks=[(0, 1000, [0, 10, 10, 50], [0, 1, 2, -1])])
    note(base)  # rank 1 never created its part: a missing rank, read
    via = os.path.join(wd, "v2_ok_in_progress_link.h5")  # hostile_v2_run_via_symlink
    if not os.path.lexists(via):
        os.symlink(base, via)
    # ---- a torn last append in a run that records (a full disk): the
    # blocks before it are kept, the reader says how many were dropped ----
    good = [(0, 1000, [0, 10, 10, 50, 10, 5, 20, 5], [0, 1, 2, -1, -1, 3, -1, -1]),
            (0, 2000, [0, 10, 10, 5], [0, 1, -1, -1])]
    for kind, torn in (("v2_torn_events_in_progress", "events"),
                       ("v2_torn_regions_in_progress", "regions")):
        base = p(kind)
        in_progress(base, [(os.path.basename(base) + ".rank0.part", "/rank0")], wd)
        if torn == "events":  # the last block's events never reached the columns
            blocks = good + [(0, 3000, [0, 10, 10, 5], [0, 1, -1, -1])]
            part(base + ".rank0.part", 0, blocks=blocks)
            with h5py.File(base + ".rank0.part", "r+") as f:
                for col in ("dt", "region"):
                    d = f[f"rank0/events/{col}"][:-3]
                    del f[f"rank0/events/{col}"]
                    _col(f["rank0/events"], col, d, "u4" if col == "dt" else "i4")
        else:  # the last block's region column holds zeros (never written)
            blocks = good + [(0, 3000, [0, 10, 10, 5], [0, 0, 0, 0], 2)]
            part(base + ".rank0.part", 0, blocks=blocks)
        note(base)
    # ---- the blocks table against the real sizes ----
    fin("v2_blocks_events_lie", [{"blocks": [(0, 0, [0, 1], [0, -1])]}])
    with h5py.File(p("v2_blocks_events_lie"), "r+") as f:
        f["rank0/blocks/events"][0] = 60000
    fin("v2_blocks_begins_lie", [{"blocks": [(0, 0, [0, 1], [0, -1], 9)]}])
    fin("v2_blocks_thread_range", [{"blocks": [(7, 0, [0, 1], [0, -1])]}])
    fin("v2_blocks_thread_negative", [{"blocks": [(-1, 0, [0, 1], [0, -1])]}])
    fin("v2_blocks_2e20", [{"blocks_bomb": 1 << 20}])
    # ---- decompression ----
    fin("v2_events_bomb_2e28", [{"events_bomb": 1 << 28,
                                 "blocks": [(0, 0, [0] * 65536, [0, -1] * 32768)] * 1}])
    with h5py.File(p("v2_events_bomb_2e28"), "r+") as f:  # blocks announce 2^28 events
        for n, v in (("thread", 0), ("events", 65536), ("begins", 32768), ("t0", 0)):
            d = f["rank0/blocks/" + n]
            d.resize((4096,))
            d[:] = v
    # real data that inflates 1000-fold: 2^19 events, 2^18 calls, a few KB
    nz = 1 << 19
    per = 1 << 16
    blocks = [(0, i * per, [0] + [1] * (per - 1), [0, -1] * (per // 2)) for i in range(nz // per)]
    fin("v2_events_zip_2e19", [{"blocks": blocks, "regions": ("tick",)}])
    # ---- indices and nesting ----
    fin("v2_region_range", [{"regions": ("a", "b"), "blocks": [(0, 0, [0, 1], [99, -1])]}])
    fin("v2_region_negative", [{"regions": ("a", "b"), "blocks": [(0, 0, [0, 1], [-5, -1])]}])
    fin("v2_end_without_begin", [{"blocks": [(0, 0, [0, 1, 1], [0, -1, -1])]}])
    fin("v2_unbalanced_finished", [{"blocks": [(0, 0, [0, 1, 1], [0, 1, -1])]}])
    # ---- ticks and clocks ----
    fin("v2_dt_overflow", [{"blocks": [(0, I64_MAX - 10, [0, U32_MAX], [0, -1])]}])
    fin("v2_clock_identity_extremes",
        [{"clock": ((-100, -90), (-100, -90)),
          "blocks": [(0, I64_MAX - 5, [0, 1], [0, -1]), (0, I64_MIN, [0, 1], [1, -1])]}])
    fin("v2_clock_ratio_extreme",
        [{"clock": ((0, 1), (0, 2**62)), "blocks": [(0, 0, [0, 1000], [0, -1])]}])
    fin("v2_clock_backwards", [{"clock": ((0, 100), (500, 10))}])
    # thread 0: P begins at 100 in block 0; block 1 goes back to 0: C 0..1000
    # inside P, then P ends at 1000: a child that starts before its parent.
    fin("v2_times_backwards_negative_own",
        [{"regions": ("P", "C"),
          "blocks": [(0, 100, [0], [0]), (0, 0, [0, 1000, 0], [1, -1, -1])]}])
    fin("v2_num_ranks_lies", [{}])
    with h5py.File(p("v2_num_ranks_lies"), "r+") as f:
        f.attrs.modify("num_ranks", 1 << 40)
    # ---- names ----
    fin("v2_name_end_lies", [{"name_end": [4, 4096, 4097, 5000]}])
    fin("v2_name_end_backwards", [{"name_end": [4, 1, 8, 10]}])
    fin("v2_name_bytes_bomb", [{"name_bytes_bomb": True, "blocks": []}])
    fin("v2_threads_bomb_2e30", [{"threads_bomb": 1 << 30, "blocks": []}])
    fin("v2_dropped_region_range", [{"dropped": [(12, 5)]}])
    esc_regions = tuple(f"r{i} {s}" for i, s in enumerate(esc)) + \
        (b"raw\x1b[31m\xff\xfe", b"\x9b2J\xc2\x9b")
    n = len(esc_regions)
    region = [x for i in range(n) for x in (i, -1)]
    fin("v2_escape_names",
        [{"regions": esc_regions, "threads": ((1, "thr\x1b[5mead\x07"), (2, b"w\xf6\x1b]0;x\x07")),
          "blocks": [(0, 0, [0, 5] * n, region), (1, 3, [0, 5] * n, region)],
          "dropped": [(1, 3)]}],
        meta={"user": "\x1b[2J\x1b]0;owned\x07eve", "key\x1b[1m": "v\r\nInjected: yes"})
    # ---- MPI messages and collectives ----
    fin("v2_mpi_ok", [{"mpi": {}}, {"mpi": {}}])
    fin("v2_mpi_member_range", [{"mpi": {"members": (0, 9)}}, {"mpi": {}}])
    fin("v2_mpi_path_loop", [{"mpi": {"paths": ((1, 0), (0, 1))}}, {"mpi": {}}])
    fin("v2_mpi_path_region_range", [{"mpi": {"paths": ((-1, 40),)}}, {"mpi": {}}])
    fin("v2_mpi_peer_range",
        [{"mpi": {"p2p": [(0, 1, 1, 0, 0, 0, 5, 7, 64, 100, 110, 100, 110)]}}, {"mpi": {}}])
    fin("v2_mpi_times_backwards",
        [{"mpi": {"p2p": [(0, 1, 1, 0, 0, 0, 1, 7, 64, 100, 110, 105, 100)]}}, {"mpi": {}}])
    fin("v2_mpi_coll_op_unknown",
        [{"mpi": {"coll": [(4242, 0, 0, 0, -1, 8, 8, 200, 300)]}}, {"mpi": {}}])
    fin("v2_mpi_columns_differ", [{"mpi": {}}, {"mpi": {}}])
    with h5py.File(p("v2_mpi_columns_differ"), "r+") as f:
        f["rank0/mpi/p2p/kind"].resize((2,))
    fin("v2_mpi_p2p_bomb_2e28", [{"mpi": {"p2p_bomb": 1 << 28}}, {"mpi": {}}])
    # ---- links inside a finished file: never followed ----
    fin("v2_soft_link_table", [{}])
    with h5py.File(p("v2_soft_link_table"), "r+") as f:
        del f["rank0/events"]
        f["rank0/events"] = h5py.SoftLink("/rank0/blocks")
    fin("v2_external_in_table", [{}])
    with h5py.File(p("v2_external_in_table"), "r+") as f:
        del f["rank0/events"]
        f["rank0/events"] = h5py.ExternalLink("/dev/zero", "/x")
    # ---- the links of a run that records ----
    secret_part = part(os.path.join(secret_dir, "secret.h5.rank0.part"), 0, secret_marker)

    def linked(kind, target, obj="/rank0", nranks=1):
        path = p(kind)
        in_progress(path, [(target, obj)] + [(f"{kind}.h5.rank{r}.part", f"/rank{r}")
                                              for r in range(1, nranks)], wd)
        note(path)
        return path

    linked("v2_link_etc_passwd", "/etc/passwd")
    linked("v2_link_dev_zero", "/dev/zero")
    path = linked("v2_link_fifo", "v2_link_fifo.h5.rank0.part")
    if not os.path.exists(path + ".rank0.part"):
        os.mkfifo(path + ".rank0.part")
    linked("v2_link_abs_elsewhere", secret_part)
    linked("v2_link_dotdot", "../secret/secret.h5.rank0.part")
    path = linked("v2_link_symlink", "v2_link_symlink.h5.rank0.part")
    if not os.path.lexists(path + ".rank0.part"):
        os.symlink(secret_part, path + ".rank0.part")
    part(os.path.join(files, "other_run.h5.rank0.part"), 0, secret_marker)
    linked("v2_link_other_run", "other_run.h5.rank0.part")
    # rank 1's link names rank 0's part (whose regions carry the marker)
    path = p("v2_link_wrong_rank")
    in_progress(path, [("v2_link_wrong_rank.h5.rank0.part", "/rank0"),
                       ("v2_link_wrong_rank.h5.rank0.part", "/rank0")], wd)
    part(path + ".rank0.part", 0, secret_marker)
    note(path)
    path = linked("v2_link_object_path", "v2_link_object_path.h5.rank0.part", obj="/secret")
    with h5py.File(path + ".rank0.part", "w") as f:
        rank_group(f.create_group("secret"), 0, regions=(secret_marker,))
    # a part whose /rank0 is itself an external link: to the secret part
    # (a chain), and back to the run file (a cycle)
    for kind, target in (("v2_link_chain", secret_part), ("v2_link_cycle", None)):
        path = linked(kind, f"{kind}.h5.rank0.part")
        with h5py.File(path + ".rank0.part", "w") as f:
            f["rank0"] = h5py.ExternalLink(target or os.path.basename(path), "/rank0")
    # a finished file (complete = 1) with a link: finished files have none
    path = p("v2_link_in_finished")
    in_progress(path, [("v2_link_in_finished.h5.rank0.part", "/rank0")], wd)
    with h5py.File(path, "r+") as f:
        f.attrs.modify("complete", 1)
    part(path + ".rank0.part", 0)
    note(path)
    # the link names the run file itself under the part's name: a hard link
    path = p("v2_link_self")
    in_progress(path, [("v2_link_self.h5.rank0.part", "/rank0")], wd)
    if os.path.lexists(path + ".rank0.part"):
        os.unlink(path + ".rank0.part")
    os.link(path, path + ".rank0.part")
    note(path)
