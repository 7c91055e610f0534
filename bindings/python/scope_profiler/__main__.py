# SPDX-License-Identifier: MIT
"""python3 -m scope_profiler run [-o FILE] [--all] [--include-package NAME]... [-q]
                              (SCRIPT | -m MODULE) [ARGS...]

What ``scope-profiler run script.py`` executes: profile a Python script that
was never edited. Every Python function call becomes a call of the region
"<module>.<qualname>"; the standard library and installed packages
(site-packages, dist-packages) are skipped unless --all, or named with
--include-package (repeatable; -m MODULE's own package is traced anyway).
The summary goes to stderr; the exit status is the script's."""
import os
import sys

USAGE = ("usage: python3 -m scope_profiler run [-o FILE] [--all] [--include-package NAME]... "
         "[-q] (SCRIPT | -m MODULE) [ARGS...]")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() if argv else USAGE)
        return 0 if argv else 2
    if argv[0] != "run":
        print(f"scope_profiler: unknown command '{argv[0]}'\n{USAGE}", file=sys.stderr)
        return 2
    out, all_code, quiet, module, include = "profiling_data.h5", False, False, False, []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--output") and i + 1 < len(argv):
            out = argv[i + 1]
            i += 2
        elif a.startswith("--output="):
            out = a.split("=", 1)[1]
            i += 1
        elif a == "--include-package" and i + 1 < len(argv):
            include.append(argv[i + 1])
            i += 2
        elif a.startswith("--include-package="):
            include.append(a.split("=", 1)[1])
            i += 1
        elif a in ("-a", "--all"):
            all_code, i = True, i + 1
        elif a in ("-q", "--quiet"):
            quiet, i = True, i + 1
        elif a == "-m":
            module, i = True, i + 1
            break
        elif a == "--":
            i += 1
            break
        elif a.startswith("-"):
            print(f"scope_profiler run: unknown option '{a}'\n{USAGE}", file=sys.stderr)
            return 2
        else:
            break
    if i >= len(argv):
        print(f"scope_profiler run: missing {'MODULE' if module else 'SCRIPT'}\n{USAGE}",
              file=sys.stderr)
        return 2
    if not module and argv[i] == "-m":
        module, i = True, i + 1
        if i >= len(argv):
            print(f"scope_profiler run: missing MODULE\n{USAGE}", file=sys.stderr)
            return 2
    if not module and not os.path.isfile(argv[i]):
        print(f"scope_profiler run: {argv[i]}: no such file", file=sys.stderr)
        return 2
    from scope_profiler import ProfileManager
    return ProfileManager.run_script(argv[i], argv[i + 1:], file_path=out, all=all_code,
                                     module=module, verbose=not quiet, include=include)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
