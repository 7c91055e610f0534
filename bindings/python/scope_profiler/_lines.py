# SPDX-License-Identifier: MIT
"""The per-line table of line profiling, in line_profiler's layout.

Times are those of the C line tracer (spy_lines.c): a line's time runs from
its start to the next line of the same frame, so it includes the calls it
makes and the tracer's own cost per line, as line_profiler's do."""
import inspect
import linecache
import sys

UNIT = 1e-6  # the Time column is in microseconds
HEADER = f"{'Line #':>6} {'Hits':>9} {'Time':>12} {'Per Hit':>8} {'% Time':>8}  Line Contents"


def _source(code):
    """(first line number, [source lines]) of the function, or (first, [])."""
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return first, []
    try:
        return first, inspect.getblock(lines[first - 1:])
    except Exception:  # a block inspect cannot delimit: its recorded lines only
        return first, []


def format_table(code, rows):
    """One function's table: rows are (line, hits, ns)."""
    by_line = {line: (hits, ns) for line, hits, ns in rows}
    total_ns = sum(ns for _, _, ns in rows)
    first, src = _source(code)
    numbers = range(first, first + len(src)) if src else sorted(by_line)
    out = [f"Total time: {total_ns * 1e-9:g} s",
           f"File: {code.co_filename}",
           f"Function: {code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}"
           f" at line {first}",
           "",
           HEADER,
           "=" * len(HEADER)]
    for n in numbers:
        text = src[n - first].rstrip("\n") if src else ""
        if n in by_line:
            hits, ns = by_line[n]
            t = ns * 1e-9 / UNIT
            per = t / hits if hits else 0.0
            pct = 100.0 * ns / total_ns if total_ns else 0.0
            out.append(f"{n:>6} {hits:>9} {t:>12.1f} {per:>8.1f} {pct:>8.1f}  {text}")
        else:
            out.append(f"{n:>6} {'':>9} {'':>12} {'':>8} {'':>8}  {text}")
    return "\n".join(out)


def print_tables(stats, file=None):
    """Print the table of every line-profiled function that ran."""
    file = file if file is not None else sys.stdout
    if not stats:
        return
    print(f"\nTimer unit: {UNIT:g} s", file=file)
    for code, rows in stats:
        print("\n" + format_table(code, rows), file=file)
    file.flush()
