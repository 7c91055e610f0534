#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small numpy application instrumented with the tutorial's API.

    PYTHONPATH=build/bindings/python /usr/bin/python3 examples/python/mini_app.py [FILE.h5]

What it exercises, as a user's code would: numpy work in a few functions, a
class whose method is decorated, a generator with a region inside, an
exception raised inside a region (caught outside it), worker threads each
recording their own calls, and a region object held in a variable.
"""
import sys
import threading

import numpy as np

from scope_profiler import ProfileManager, read_h5


class Diffusion:
    """Explicit 2-D diffusion on a periodic grid."""

    def __init__(self, n, alpha=0.1):
        self.u = np.random.default_rng(0).random((n, n))
        self.alpha = alpha

    @ProfileManager.profile("Diffusion.step")
    def step(self):
        with ProfileManager.region("stencil"):
            u = self.u
            lap = (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1)
                   - 4.0 * u)
            self.u = u + self.alpha * lap
        return float(self.u.mean())


def batches(data, size):
    """A generator: each batch is prepared inside a region."""
    for start in range(0, len(data), size):
        with ProfileManager.region("make_batch"):
            batch = np.sqrt(data[start:start + size] + 1.0)
        yield batch


@ProfileManager.profile
def analyse(data):
    return sum(float(np.linalg.norm(b)) for b in batches(data, 1000))


@ProfileManager.profile
def load_checkpoint(path):
    raise FileNotFoundError(f"no checkpoint at {path}")


def worker(k, out, fft_region):
    for _ in range(5):
        with fft_region:  # one region object shared by the threads
            out[k] += float(np.abs(np.fft.rfft(np.arange(4096.0) * (k + 1))).sum())


def main(path):
    ProfileManager.setup(file_path=path)
    fft_region = ProfileManager.region("worker_fft")
    sim = Diffusion(128)
    failures = 0
    sums = [0.0, 0.0, 0.0]
    with ProfileManager.region("main"):
        for _ in range(20):
            sim.step()
        norm = analyse(np.arange(10_000.0))
        try:
            with ProfileManager.region("io"):
                load_checkpoint("missing.npy")
        except FileNotFoundError:
            failures += 1
        threads = [threading.Thread(target=worker, args=(k, sums, fft_region)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    results = ProfileManager.finalize(verbose=True, return_results=True)
    print(f"mini app: mean {sim.u.mean():.6f}, norm {norm:.1f}, {failures} failed load, "
          f"{len(results)} regions")
    run = read_h5(path)
    for name in ("main", "Diffusion.step", "stencil", "make_batch", "analyse", "io",
                 "load_checkpoint", "worker_fft"):
        print(f"  {name:16s} {run[name].num_calls:4d} calls  {run[name].total_duration:.6f} s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "mini_app.h5")
