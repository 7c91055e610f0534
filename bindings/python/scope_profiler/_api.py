# SPDX-License-Identifier: MIT
"""ProfileManager and read_h5: the API of the tutorial chapter."""
import os
import sys

from . import _core, _flavour, _lines

# Set by run_script while a script runs under it.
_RUN = {"active": False}


def _stdout_is_fd1():
    try:
        return sys.stdout is not None and sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):  # io.StringIO, ipykernel streams
        return False


def read_h5(path):
    """The run stored in an HDF5 file (ours, or the Python package's layouts).

    ``read_h5(path)[name]`` is a RegionResult (num_calls, total_duration [s],
    average_duration); ``print_summary()`` prints the summary tree."""
    return _core.read_h5(os.fspath(path))


class ProfileManager:
    """One profiling session per process: setup(), regions, finalize().

    region(name, functions=None)
        The region called ``name``, a context manager (``with ...:``). The
        same object is returned for the same name, so it costs one dict
        lookup. ``functions=[fn]`` line-profiles ``fn`` while the region is
        open (with ``use_line_profiler=True``).
    profile / profile("name") / profile("name", recursive=True)
        Decorator: each call of the function is a call of the region (named
        after the function by default). With ``deactivate_profiling=True``
        it returns the original function. ``recursive=True`` also records
        every Python function it calls as ``<module>.<qualname>``.
    get_region(name)
        The region of this session (``num_calls``, ``capacity``,
        ``get_durations_numpy()``), or None if it never recorded.
    """

    region = _core.region
    get_region = _core.get_region
    profile = _core.profile

    @staticmethod
    def setup(*, deactivate_profiling=False, deactivate_file_output=False,
              file_path="profiling_data.h5", buffer_limit=1024, recursive_profile=False,
              use_likwid=False, use_line_profiler=False, max_depth=128, likwid_fallback=False,
              perf_events=None, use_mpi_regions=False):
        """Start a session (a second call discards an unfinalized one).

        deactivate_profiling    record nothing, write nothing; decorators
                                return the original function
        deactivate_file_output  record, but keep everything in memory
        file_path               the HDF5 file finalize() writes
        buffer_limit            initial calls per region buffer (doubles when full)
        recursive_profile       every region also records the Python
                                functions called inside it, "<module>.<qualname>"
        use_line_profiler       time the lines of decorated functions (and of
                                region(name, functions=[...])); finalize()
                                prints the per-line table. Wins over use_likwid.
        use_likwid              LIKWID marker regions (needs LIKWID and a
                                machine with counters; likwid_fallback=True
                                records time only instead of failing)
        max_depth               nesting of traced calls recorded (recursive)
        perf_events             e.g. "task-clock,page-faults": counters per region
        use_mpi_regions         under MPI, time the MPI calls of the C library
        The SCOPE_PROFILER_* environment variables override these, as in C.

        Under ``scope-profiler run`` (run_script) the run's session is kept:
        the script's own setup() and finalize() do nothing, and its explicit
        regions record beside the traced functions."""
        if _RUN["active"]:
            return
        path = _flavour.prepare_session(_core, os.fspath(file_path))
        _core.setup(deactivate_profiling=deactivate_profiling,
                    deactivate_file_output=deactivate_file_output, file_path=path,
                    buffer_limit=buffer_limit, recursive_profile=recursive_profile,
                    use_likwid=use_likwid, use_line_profiler=use_line_profiler,
                    max_depth=max_depth, likwid_fallback=likwid_fallback,
                    perf_events=perf_events, use_mpi_regions=use_mpi_regions)

    @staticmethod
    def finalize(verbose=True, return_results=False):
        """End the session: write the file (unless deactivated), print the
        summary tree (verbose; under MPI on rank 0 only) and, in line-profiling
        mode, the per-line table. Collective under MPI.

        return_results=True returns {name: RegionResult} (num_calls,
        total_duration in seconds; under MPI on rank 0 summed over all ranks).
        Unbalanced regions give a RuntimeWarning; a failed write raises OSError."""
        if _RUN["active"]:
            return {} if return_results else None
        lines = _core.mode() == "lines"
        if verbose and not _stdout_is_fd1():
            # sys.stdout replaced (Jupyter, pytest, redirect_stdout): the
            # library prints to file descriptor 1, so print the summary here.
            run = _core.finalize(verbose=False, want_run=True)
            if run is not None and _flavour.is_rank0():
                run.print_summary()
        else:
            run = _core.finalize(verbose=verbose, want_run=return_results)
        if lines and verbose and _flavour.is_rank0():
            _lines.print_tables(_core.line_stats())
        if return_results:
            return {} if run is None else run.regions
        return None

    @staticmethod
    def _finalize_at_exit():
        try:
            recording = _core.mode() not in ("none", "disabled")
            _core.finalize(verbose=False)
            if recording and _flavour.is_rank0() and _core.mode() == "none":
                print("scope_profiler: finalize() was not called: the session was finalized "
                      "at exit", file=sys.stderr)
        except Exception as e:  # exiting: report, never raise
            print(f"scope_profiler: finalize at exit failed: {e}", file=sys.stderr)

    @staticmethod
    def run_script(script, args=(), *, file_path="profiling_data.h5", all=False, module=False,
                   verbose=True, include=()):
        """Profile a script that was never edited (``scope-profiler run``).

        Every Python function call becomes a call of the region
        ``<module>.<qualname>`` (``__main__.<module>`` is the script itself),
        on every thread the script starts. Code of the standard library and
        of installed packages (site-packages, dist-packages) is skipped
        unless ``all=True`` or its top-level package is named in
        ``include`` (``("networkx",)``); ``module=True`` runs ``script`` as a
        module name (``python -m``) and traces its package even when it is
        installed. Writes ``file_path``, prints the summary to stderr when
        verbose (and, when the filter left almost every call out, which
        packages had them), and returns the script's exit status (its
        exceptions are printed, status 1)."""
        from . import _run
        return _run.run_script(script, args, file_path=file_path, all=all, module=module,
                               verbose=verbose, include=include)
