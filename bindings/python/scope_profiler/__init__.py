# SPDX-License-Identifier: MIT
"""scope-profiler for Python: the tutorial's API on the C recorder.

    from scope_profiler import ProfileManager, read_h5

    ProfileManager.setup(file_path="run.h5")

    @ProfileManager.profile                 # or profile("name"), profile(recursive=True)
    def solve():
        with ProfileManager.region("assemble"):
            ...

    solve()
    ProfileManager.finalize()               # writes run.h5, prints the summary tree
    read_h5("run.h5")["assemble"].num_calls

The recording itself (timestamps, buffers, the HDF5 file, MPI) is the C
library libscope_profiler; this package is a thin CPython extension on its
public API, so files are the same as a C program's and every
``scope-profiler`` verb and the viewer open them. Under an MPI launcher the
MPI build is used (see ``scope_profiler._flavour`` for the rule).
"""
import atexit as _atexit

from . import _flavour

_core = _flavour.load()

from ._api import ProfileManager, read_h5  # noqa: E402


def open_run(path):
    """A run file's calls and statistics as numpy arrays (needs numpy):
    see scope_profiler._data."""
    from ._data import open_run as _open
    return _open(path)


ProfileRegion = _core.ProfileRegion
DisabledProfileRegion = _core.DisabledProfileRegion
TimeOnlyProfileRegion = _core.TimeOnlyProfileRegion
FullProfileRegion = _core.FullProfileRegion
LineProfilerRegion = _core.LineProfilerRegion
ProfiledFunction = _core.ProfiledFunction
Run = _core.Run
RegionResult = _core.RegionResult
ScopeProfilerError = _core.ScopeProfilerError

__version__ = _core.library_version
__all__ = ["ProfileManager", "read_h5", "open_run", "ProfileRegion", "DisabledProfileRegion",
           "TimeOnlyProfileRegion", "FullProfileRegion", "LineProfilerRegion",
           "ProfiledFunction", "Run", "RegionResult", "ScopeProfilerError"]


def _finalize_at_exit():
    """A session still open when the interpreter exits is finalized (its
    file written), so forgetting finalize() loses nothing. Python's atexit
    functions run before mpi4py finalizes MPI, so under MPI this is still
    collective."""
    if _core.session_active():
        ProfileManager._finalize_at_exit()


_atexit.register(_finalize_at_exit)
