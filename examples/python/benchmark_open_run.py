# SPDX-License-Identifier: MIT
"""What open_run costs: opening a run, the calls of its largest thread as
numpy arrays, and those calls as a pandas DataFrame (wall and CPU seconds,
best of REPEAT; CPU includes the reader's prefetch thread).

    PYTHONPATH=build/bindings/python /usr/bin/python3 \
        examples/python/benchmark_open_run.py RUN.h5 [REPEAT]

e.g. on `./build/examples/gen_big_run record x.h5 10000000 1` (one thread
of 10M calls). Prints figures; asserts nothing.
"""
import resource
import sys
import time

from scope_profiler import open_run


def timed(fn, repeat):
    best = None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        w, c = time.perf_counter() - w, time.process_time() - c
        best = (w, c, out) if best is None or w < best[0] else best
    return best


def main():
    path = sys.argv[1]
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    w, c, run = timed(lambda: open_run(path), 1)
    print("open_run: %.3f s wall, %.3f s CPU (%d ranks, %d regions)"
          % (w, c, run.nranks, len(run.regions)))
    rank, thread = max(((r, t.index, t.calls) for r in range(run.nranks) for t in run.threads(r)),
                       key=lambda x: x[2])[:2]
    w, c, calls = timed(lambda: run.calls(rank, thread), repeat)
    print("calls(rank %d, thread %d): %d calls, %.3f s wall, %.3f s CPU (best of %d)"
          % (rank, thread, len(calls), w, c, repeat))
    try:
        import pandas  # noqa: F401
        w, c, _ = timed(calls.to_pandas, repeat)
        print("to_pandas(): %.3f s wall, %.3f s CPU" % (w, c))
    except ImportError:
        print("to_pandas(): pandas not installed")
    print("peak RSS %.0f MB" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


if __name__ == "__main__":
    main()
