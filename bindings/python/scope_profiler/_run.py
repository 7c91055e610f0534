# SPDX-License-Identifier: MIT
"""ProfileManager.run_script and ``python3 -m scope_profiler run``: profile a
script that was never edited by tracing every Python function call."""
import os
import runpy
import site
import sys
import sysconfig
import threading
import traceback

from . import _core


def skip_prefixes(all_code):
    """File name prefixes whose code is not traced.

    Always: this package and runpy (the machinery running the script).
    Unless all_code: the standard library, site-packages / dist-packages
    (including Debian's /usr/lib/python3/dist-packages) and frozen modules."""
    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    skip = {here, os.path.abspath(runpy.__file__)}
    if not all_code:
        paths = sysconfig.get_paths()
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            if paths.get(key):
                skip.add(os.path.join(paths[key], ""))
        for p in list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]:
            skip.add(os.path.join(p, ""))
        for p in sys.path:
            if p and ("site-packages" in p or "dist-packages" in p):
                skip.add(os.path.join(p, ""))
        skip.add("<frozen ")
    return tuple(sorted(skip))


def run_script(script, args=(), *, file_path="profiling_data.h5", all=False, module=False,
               verbose=True):
    from ._api import ProfileManager
    ProfileManager.setup(file_path=file_path)
    old_argv, old_path0 = sys.argv, list(sys.path)
    status = 0
    if module:
        sys.argv = [script, *args]
    else:
        script = os.fspath(script)
        sys.argv = [script, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    threading.setprofile(_core.thread_installer)
    _core.trace_start(filter=True, skip_prefixes=skip_prefixes(all))
    try:
        if module:
            runpy.run_module(script, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code
        else:
            print(code, file=sys.stderr)
            status = 1
    except BaseException:  # the script failed: its traceback, then the profile
        traceback.print_exc()
        status = 1
    finally:
        _core.trace_stop()
        threading.setprofile(None)
        sys.argv = old_argv
        sys.path[:] = old_path0
    sys.stdout.flush()
    run = _core.finalize(verbose=False, want_run=True)
    if verbose and run is not None and _flavour_rank0():
        run.print_summary(file=sys.stderr)
    return status


def _flavour_rank0():
    from . import _flavour
    return _flavour.is_rank0()
