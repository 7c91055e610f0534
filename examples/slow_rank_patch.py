#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Make one rank of an MPI mini-app slower, for the imbalanced variants of
run_lulesh_waits.sh and run_hpccg_waits.sh: patches a copy of a source file
so that the loop at LOOP_ANCHOR (the first one after FUNCTION) runs
SP_SLOW_FACTOR times (default 4) on rank SP_SLOW_RANK and once elsewhere.
The loop must only compute (fill temporaries, or a product it overwrites):
the results stay the same, the rank is slower.

  slow_rank_patch.py FILE INCLUDE FUNCTION LOOP_ANCHOR

INCLUDE is a line of FILE (an #include) before which the helper goes."""
import sys

HELPER = """#include <mpi.h>
#include <stdlib.h>
/* scope-profiler: the imbalanced variant (examples/slow_rank_patch.py) */
static int sp_slow_reps(void)
{
   static int reps = -1;
   if (reps < 0) {
      int r = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &r);
      const char *s = getenv("SP_SLOW_RANK"), *f = getenv("SP_SLOW_FACTOR");
      reps = s && atoi(s) == r ? (f ? atoi(f) : 4) : 1;
   }
   return reps;
}
"""


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, include, function, anchor = sys.argv[1:]
    s = open(path).read()
    try:
        loop = s.index(anchor, s.index(function))
        inc = s.index(include)
    except ValueError:
        sys.exit(f"slow_rank_patch.py: {path} has no {function!r}, {anchor!r} or {include!r}")
    if inc > loop:
        sys.exit(f"slow_rank_patch.py: {include!r} comes after the loop in {path}")
    line = s.rfind("\n", 0, loop) + 1
    s = (s[:inc] + HELPER + s[inc:line] +
         "   for (int sp_rep = 0; sp_rep < sp_slow_reps(); ++sp_rep)\n" + s[line:])
    open(path, "w").write(s)


main()
