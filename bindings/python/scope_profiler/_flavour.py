# SPDX-License-Identifier: MIT
"""Which build of the extension this process loads, and the MPI rules.

Two builds of the same C extension exist: ``_core`` on libscope_profiler and
``_core_mpi`` on libscope_profiler_mpi (Open MPI; every rank's data goes into
one file). Both write with serial, thread-safe HDF5 (the streaming writer:
each rank writes its own part file and rank 0 joins them), so h5py may use
either HDF5 flavour in the same process: Debian versions the symbols of each
flavour (HDF5_SERIAL_*, HDF5_OPENMPI_*), so h5py on the Open MPI flavour
(python3-h5py-mpi) and our serial HDF5 coexist. The choice is made once, at
import, with the rule Debian's h5py uses (h5py/__init__.py):

* the MPI build when the process was started by an MPI launcher
  (``OMPI_COMM_WORLD_SIZE`` or ``MPI_LOCALNRANKS`` is set) or
  ``H5PY_ALWAYS_USE_MPI`` is set; the serial build otherwise;
* ``SCOPE_PROFILER_MPI=1`` / ``=0`` overrides.
"""
import importlib
import os
import warnings

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")


def launched_by_mpi(environ=os.environ):
    """True when Debian's h5py would pick its MPI build (same variables)."""
    return any(environ.get(k) is not None
               for k in ("OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "H5PY_ALWAYS_USE_MPI"))


def wants_mpi(environ=os.environ):
    v = (environ.get("SCOPE_PROFILER_MPI") or "").strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return launched_by_mpi(environ)


def loaded_hdf5():
    """The HDF5 flavours mapped into this process: a subset of {"serial", "openmpi"}."""
    found = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                if "libhdf5_serial" in line:
                    found.add("serial")
                elif "libhdf5_openmpi" in line:
                    found.add("openmpi")
    except OSError:
        pass
    return found


def launcher_rank(environ=os.environ):
    """This process's rank according to the launcher, or None."""
    for k in _RANK_VARS:
        v = environ.get(k)
        if v is not None and v.isdigit():
            return int(v)
    return None


def load():
    """Import and return the extension module this process should use."""
    if wants_mpi():
        try:
            return importlib.import_module("scope_profiler._core_mpi")
        except ImportError as e:
            if launched_by_mpi():
                warnings.warn(f"scope_profiler: using the serial build under MPI: the MPI build "
                              f"is not available ({e}); each rank writes its own file "
                              "<stem>.rank<N>.h5.", RuntimeWarning, stacklevel=3)
    return importlib.import_module("scope_profiler._core")


def per_rank_path(path, rank):
    """"run.h5" -> "run.rank3.h5"."""
    stem, ext = os.path.splitext(path)
    return f"{stem}.rank{rank}{ext or '.h5'}"


def prepare_session(core, path):
    """Before setup(): under a launcher, make sure the ranks can meet.

    With the MPI build, MPI must be initialised for all ranks to write one
    file: mpi4py does it when imported (it is imported here if the script did
    not). Without mpi4py, or with the serial build, each rank gets its own
    file instead of all writing the same one. Returns the path to use."""
    rank = launcher_rank()
    if rank is None or not launched_by_mpi():
        return path
    if core.flavour == "mpi":
        try:
            from mpi4py import MPI  # noqa: F401  (initialises MPI)
            if MPI.Is_initialized() and not MPI.Is_finalized():
                return path
        except ImportError:
            warnings.warn("scope_profiler: under mpirun without mpi4py: each rank writes its "
                          "own file (install python3-mpi4py for one file)", RuntimeWarning,
                          stacklevel=3)
    return per_rank_path(path, rank)


def is_rank0():
    r = launcher_rank()
    return r is None or r == 0
