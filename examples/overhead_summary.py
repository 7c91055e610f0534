#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The summary of run_lulesh_waits.sh's and run_hpccg_waits.sh's overhead
rounds: FILE has one line "CONFIG VALUE" per run (none, regions, messages;
VALUE a time, smaller is better). Prints per configuration the min and
median and the ratios of the configurations, min and median.

  overhead_summary.py FILE UNIT"""
import statistics
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    v = {}
    for line in open(sys.argv[1]):
        cfg, x = line.split()
        v.setdefault(cfg, []).append(float(x))
    for cfg in [c for c in ("none", "regions", "messages") if c in v]:
        x = v[cfg]
        print(f"{cfg:9s} min {min(x):10.4f}  median {statistics.median(x):10.4f} {sys.argv[2]}"
              f"  ({len(x)} runs)")
    for a, b in (("regions", "none"), ("messages", "regions"), ("messages", "none")):
        if a in v and b in v:
            print(f"{a} / {b}: min {min(v[a]) / min(v[b]):.3f}  median "
                  f"{statistics.median(v[a]) / statistics.median(v[b]):.3f}")


main()
