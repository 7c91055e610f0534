# SPDX-License-Identifier: MIT
"""A run's calls and statistics as numpy arrays (and pandas DataFrames).

    run = open_run("run.h5")            # one streaming pass; no call is kept
    run.regions                         # names, by region id
    run.threads(rank=0)                 # [Thread(index, name, calls, os_tid)]
    c = run.calls(rank=0, thread=0)                     # every call of a thread
    c = run.calls(rank=0, thread=0, start=0.5, end=0.6) # those overlapping a window (s)
    c.start, c.end, c.region, c.parent, c.depth         # numpy arrays, one entry per call
    c.duration, c.names                                 # end - start; region names per call
    c.to_pandas()                       # a DataFrame, one row per call (needs pandas)
    run.region_stats()                  # per-region statistics, a numpy structured array
    run.to_pandas()                     # the same as a DataFrame, one row per region

Times are int64 nanoseconds on rank 0's clock (each rank's clock offset
applied); `start=` / `end=` are seconds from the run's first call. Calls come
in begin order; `parent` is the index of the enclosing call in the same
array (-1 at the top, or when the enclosing call lies outside the window),
`depth` is 0 for a top-level call. Nothing here loops over calls in Python:
the arrays are filled in C and viewed by numpy without a copy.
"""
import collections

import numpy as np

from . import _flavour

_core = _flavour.load()

Thread = collections.namedtuple("Thread", "index name calls os_tid")

# region_stats(): one row per region (all ranks, or one rank). Times in
# seconds; percentiles from log-bucket histograms (within 0.8 %).
REGION_STATS_DTYPE = np.dtype([
    ("name", object), ("calls", np.int64), ("total", np.float64), ("own", np.float64),
    ("mean", np.float64), ("min", np.float64), ("max", np.float64), ("std", np.float64),
    ("p50", np.float64), ("p95", np.float64), ("p99", np.float64), ("nested_calls", np.int64),
])
_STAT_FIELDS = REGION_STATS_DTYPE.names[1:]


class Calls:
    """The calls of one thread of one rank (a window of them, or all)."""

    def __init__(self, run, rank, thread, arrays, truncated):
        start, end, region, parent, depth = arrays
        self.run, self.rank, self.thread = run, rank, thread
        self.start = np.frombuffer(start, dtype=np.int64)
        self.end = np.frombuffer(end, dtype=np.int64)
        self.region = np.frombuffer(region, dtype=np.int32)
        self.parent = np.frombuffer(parent, dtype=np.int64)
        self.depth = np.frombuffer(depth, dtype=np.uint32)
        self.truncated = truncated  # max_calls was reached: the arrays hold a prefix

    def __len__(self):
        return len(self.start)

    def __repr__(self):
        return "<Calls rank %d thread %d: %d calls>" % (self.rank, self.thread, len(self))

    @property
    def duration(self):
        """end - start, ns."""
        return self.end - self.start

    @property
    def names(self):
        """The region name of every call (an object array; region ids index
        run.regions)."""
        return np.asarray(self.run.regions, dtype=object)[self.region]

    def to_pandas(self):
        """A DataFrame, one row per call: start, end, duration (ns), region
        (a categorical of the names), region_id, parent, depth."""
        import pandas as pd  # optional dependency (Debian: python3-pandas)
        names = pd.Categorical.from_codes(self.region, categories=list(self.run.regions))
        return pd.DataFrame({"start": self.start, "end": self.end, "duration": self.duration,
                             "region": names, "region_id": self.region,
                             "parent": self.parent, "depth": self.depth}, copy=False)

    to_dataframe = to_pandas


class RunData:
    """A run file opened aggregate-first (see the module's documentation)."""

    def __init__(self, path):
        self._r = _core.Reader(path)
        self.path = path
        self.regions = self._r.regions
        self.metadata = self._r.metadata
        self.nranks = self._r.nranks
        span = self._r.span
        self.first_ns, self.last_ns = span if span else (0, 0)

    def __repr__(self):
        return "<RunData %r: %d ranks, %d regions>" % (self.path, self.nranks, len(self.regions))

    def threads(self, rank=0):
        """The threads of a rank: [Thread(index, name, calls, os_tid)]."""
        return [Thread(*t) for t in self._r.threads(rank)]

    def calls(self, rank=0, thread=0, start=None, end=None, max_calls=0):
        """The calls of (rank, thread) overlapping [start, end] (seconds from
        the run's first call; None: the run's start / end), as a Calls of
        numpy arrays. max_calls > 0 stops after that many (truncated set)."""
        t0 = -2**63 if start is None else self.first_ns + int(round(start * 1e9))
        t1 = 2**63 - 1 if end is None else self.first_ns + int(round(end * 1e9))
        if t1 < t0:
            raise ValueError("end %r is before start %r" % (end, start))
        out = self._r.calls(rank, thread, t0, t1, max_calls)
        return Calls(self, rank, thread, out[:5], out[5])

    def region_stats(self, rank=None):
        """Per-region statistics as a numpy structured array
        (REGION_STATS_DTYPE: name, calls, total, own, mean, min, max, std,
        p50, p95, p99 in seconds, nested_calls), over every rank or of one."""
        raw = np.frombuffer(self._r.region_stats(-1 if rank is None else rank), dtype=np.float64)
        raw = raw.reshape(len(self.regions), len(_STAT_FIELDS))
        out = np.empty(len(self.regions), dtype=REGION_STATS_DTYPE)
        out["name"] = self.regions
        for i, f in enumerate(_STAT_FIELDS):
            out[f] = raw[:, i]
        return out

    def to_pandas(self, rank=None):
        """region_stats() as a DataFrame indexed by region name (needs pandas)."""
        import pandas as pd
        return pd.DataFrame(self.region_stats(rank)).set_index("name")

    to_dataframe = to_pandas


def open_run(path):
    """Open a run file (any schema, the Python package's layouts too) for
    arrays: see RunData."""
    return RunData(path)
