# SPDX-License-Identifier: MIT
"""Which build of the extension this process loads, and the MPI rules.

Two builds of the same C extension exist: ``_core`` on libscope_profiler
(serial HDF5) and ``_core_mpi`` on libscope_profiler_mpi (Open MPI and the
Open MPI flavour of HDF5; every rank's data goes into one file). Debian
installs the two HDF5 flavours side by side and a process must never load
both, so the choice is made once, at import, with the rule Debian's h5py
uses (h5py/__init__.py), so that both pick the same HDF5:

* the MPI build when the process was started by an MPI launcher
  (``OMPI_COMM_WORLD_SIZE`` or ``MPI_LOCALNRANKS`` is set) or
  ``H5PY_ALWAYS_USE_MPI`` is set; the serial build otherwise;
* ``SCOPE_PROFILER_MPI=1`` / ``=0`` overrides;
* an HDF5 flavour already in the process (h5py imported first) wins.

Under a launcher, h5py itself uses the Open MPI flavour only when Debian's
``python3-h5py-mpi`` is installed; without it h5py loads serial HDF5, and a
process that imports h5py before scope_profiler then gets the serial build
(each rank writes ``<stem>.rank<N>.h5``, with a warning). Import
scope_profiler first, or install python3-h5py-mpi, to get one file.
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
    want = wants_mpi()
    have = loaded_hdf5()
    reason = None
    if want and have == {"serial"}:
        want = False
        reason = ("serial HDF5 is already loaded (h5py imported before scope_profiler?); "
                  "a process must not load both HDF5 flavours")
    elif not want and have == {"openmpi"}:
        want = True  # follow the HDF5 already there
    if want:
        try:
            return importlib.import_module("scope_profiler._core_mpi")
        except ImportError as e:
            reason = f"the MPI build is not available ({e})"
    core = importlib.import_module("scope_profiler._core")
    if reason and launched_by_mpi():
        warnings.warn(f"scope_profiler: using the serial build under MPI: {reason}; each rank "
                      "writes its own file <stem>.rank<N>.h5. To get one file for all ranks, "
                      "import scope_profiler before h5py and install python3-h5py-mpi.",
                      RuntimeWarning, stacklevel=3)
    return core


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


_warned = False


def check_hdf5():
    """Warn once when both HDF5 flavours ended up in the process (h5py imported
    after scope_profiler under mpirun, without python3-h5py-mpi)."""
    global _warned
    if _warned or loaded_hdf5() != {"serial", "openmpi"}:
        return
    _warned = True
    warnings.warn("scope_profiler: both HDF5 flavours (serial and Open MPI) are loaded in this "
                  "process: h5py was imported after scope_profiler under mpirun and uses serial "
                  "HDF5. Install python3-h5py-mpi (then h5py uses the Open MPI flavour too).",
                  RuntimeWarning, stacklevel=3)


def is_rank0():
    r = launcher_rank()
    return r is None or r == 0
