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
    """(prefix, kind) of the file names whose code is not traced; the longest
    matching prefix decides (a site-packages below the standard library's
    folder is "package").

    Always: this package and runpy, the machinery running the script
    ("internal"). Unless all_code: the standard library ("stdlib"),
    site-packages / dist-packages, including Debian's
    /usr/lib/python3/dist-packages ("package"), and code without a file
    ("<frozen importlib._bootstrap>", "<string>" of namedtuple,
    "<__array_function__ internals>" of numpy: "generated")."""
    here = os.path.dirname(os.path.abspath(__file__)) + os.sep
    # runpy may be frozen ("<frozen runpy>", Python 3.11) or a file.
    skip = {here: "internal", os.path.abspath(runpy.__file__): "internal",
            "<frozen runpy>": "internal"}
    if not all_code:
        paths = sysconfig.get_paths()
        for key, kind in (("stdlib", "stdlib"), ("platstdlib", "stdlib"),
                          ("purelib", "package"), ("platlib", "package")):
            if paths.get(key):
                skip.setdefault(os.path.join(paths[key], ""), kind)
        for p in list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]:
            skip[os.path.join(p, "")] = "package"
        for p in sys.path:
            if p and ("site-packages" in p or "dist-packages" in p):
                skip[os.path.join(p, "")] = "package"
        skip["<"] = "generated"
    return tuple(sorted(skip.items()))


# The filter left (almost) nothing when fewer than this share of the calls
# were recorded: say which packages had the rest and how to trace them.
NOTICE_SHARE = 0.05


def _notice(recorded, skipped):
    """The lines telling the user what the default filter left out, or []."""
    total = sum(calls for _, _, calls in skipped)
    if total == 0 or recorded >= NOTICE_SHARE * (recorded + total):
        return []
    top = sorted(skipped, key=lambda t: -t[2])
    words = {"package": " (installed)", "stdlib": " (standard library)", "generated": ""}
    shown = ", ".join(f"{name} {calls:,}{words[kind]}" for name, kind, calls in top[:4])
    # The packages worth naming: those with a tenth of the calls or more.
    packages = [name for name, kind, calls in top if kind == "package" and calls >= total / 10]
    hint = packages[:2] or [name for name, kind, _ in top if kind == "stdlib"][:1]
    out = [f"scope-profiler run: {recorded:,} of {recorded + total:,} Python calls recorded; "
           f"the rest ran in the standard library and installed packages (site-packages, "
           f"dist-packages), left out by default: {shown}{', ...' if len(top) > 4 else ''}"]
    flags = "".join(f"--include-package {name} " for name in hint)
    out.append(f"  to trace them: scope-profiler run {flags}... (repeatable), or --all for "
               f"everything (the standard library too)")
    return out


def run_script(script, args=(), *, file_path="profiling_data.h5", all=False, module=False,
               verbose=True, include=()):
    from ._api import ProfileManager, _RUN
    if _RUN["active"]:
        raise RuntimeError("run_script: a script is already running under scope_profiler")
    include = tuple(include)
    if module and not all:
        # `run python3 -m pyflakes DIR` asks for pyflakes: its package is
        # traced even where it is installed (the standard library is not).
        include += (script.split(".")[0],)
    ProfileManager.setup(file_path=file_path)
    _RUN["active"] = True
    old_argv, old_path0 = sys.argv, list(sys.path)
    status = 0
    if module:
        sys.argv = [script, *args]
    else:
        script = os.fspath(script)
        sys.argv = [script, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    pairs = skip_prefixes(all)
    threading.setprofile(_core.thread_installer)
    _core.trace_start(filter=True, skip_prefixes=tuple(p for p, _ in pairs),
                      kinds=tuple(k for _, k in pairs), include=include)
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
        _RUN["active"] = False
        _core.trace_stop()
        threading.setprofile(None)
        sys.argv = old_argv
        sys.path[:] = old_path0
    sys.stdout.flush()
    skipped = _core.trace_skipped()
    _core.metadata_set("python_run_filter",
                       "none (--all)" if all else
                       "standard library and installed packages skipped" +
                       (f"; traced anyway: {', '.join(sorted(set(include)))}" if include else ""))
    _core.metadata_set("python_calls_skipped", str(sum(c for _, _, c in skipped)))
    run = _core.finalize(verbose=False, want_run=True)
    if verbose and run is not None and _flavour_rank0():
        run.print_summary(file=sys.stderr)
        recorded = sum(r.num_calls for r in run.regions.values())
        for line in _notice(recorded, skipped):
            print(line, file=sys.stderr)
    return status


def _flavour_rank0():
    from . import _flavour
    return _flavour.is_rank0()
