#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An mpi4py simulation instrumented with the tutorial's API, unchanged for MPI:

    mpirun -n 4 python3 examples/python/mpi_sim.py run.h5 [--steps N] [--no-finalize]
    scope-profiler ranks run.h5

Nothing in the script is MPI-specific for the profiler: under mpirun the
module uses its MPI build and every rank's calls end in one file with a
rank<N> group per rank. Rank r computes (r+1) times longer, so the ranks
are imbalanced and the fast ones wait in the halo exchange. It also reads
the file back with h5py at the end (rank 0), in the same process: with
python3-h5py-mpi both use the Open MPI flavour of HDF5. With --no-finalize
it never calls finalize(): the module finalizes at interpreter exit, before
mpi4py finalizes MPI, and the file is the same.
"""
import sys

import numpy as np
from mpi4py import MPI

from scope_profiler import ProfileManager


@ProfileManager.profile
def compute(u, rank):
    for _ in range(rank + 1):
        u[1:-1] = 0.5 * u[1:-1] + 0.25 * (u[:-2] + u[2:])
    return u


@ProfileManager.profile("halo_exchange")
def exchange(comm, u):
    rank, size = comm.Get_rank(), comm.Get_size()
    left = rank - 1 if rank > 0 else MPI.PROC_NULL
    right = rank + 1 if rank < size - 1 else MPI.PROC_NULL
    comm.Sendrecv(u[-2:-1], dest=right, recvbuf=u[0:1], source=left)
    comm.Sendrecv(u[1:2], dest=left, recvbuf=u[-1:], source=right)


def main(path, steps=50, finalize=True):
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    ProfileManager.setup(file_path=path)
    u = np.sin(np.linspace(0, 3.14, 50_000) + rank)
    for _ in range(steps):
        with ProfileManager.region("timestep"):
            exchange(comm, u)
            compute(u, rank)
            with ProfileManager.region("allreduce"):
                total = comm.allreduce(float(u.sum()))
    if not finalize:
        if rank == 0:
            print(f"mpi sim: {comm.Get_size()} ranks, total {total:.3f}, finalize left to exit")
        return
    results = ProfileManager.finalize(verbose=rank == 0, return_results=True)
    if rank == 0:
        import h5py  # after scope_profiler: the same HDF5 flavour
        from scope_profiler import _flavour
        with h5py.File(path, "r") as f:
            ranks = sorted(k for k in f if k.startswith("rank"))
        print(f"mpi sim: {comm.Get_size()} ranks, total {total:.3f}, "
              f"timestep calls {results['timestep'].num_calls}, groups {ranks}, "
              f"HDF5 loaded: {sorted(_flavour.loaded_hdf5())}")


if __name__ == "__main__":
    args = sys.argv[1:]
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 50
    files = [a for a in args if a.endswith(".h5")]
    main(files[0] if files else "mpi_sim.h5", steps, "--no-finalize" not in args)
