#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every HDF5 tool copies our files (issue 22): libhdf5 1.10's object copy
(h5copy, h5py's Group.copy) crashed on the metadata groups of every file we
wrote, because their string attributes had moved to dense storage. Copies
/metadata and every rank group (and each rank's metadata) with h5copy and
with h5py, and repacks the whole file with h5repack, on:

  - a file of schema 1 with 18 metadata keys and 2 ranks (h5_make_golden),
  - a run that is still recording (live_demo; h5py opens it with swmr=True;
    h5copy copies its rank groups as the external links they are there),
  - the same run once finalized,
  - a finished run of a 2-rank MPI job (mpi_record under mpirun), if built.

Every copy must succeed (no signal, exit 0) and hold every attribute of the
original. Prints "copy tools: ok".

  check_copy_tools.py --work DIR --v1-maker BIN --live-demo BIN
                      [--mpirun M --mpi-record BIN]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py

failures = []


def fail(msg):
    print("FAIL: " + msg)
    failures.append(msg)


def run(cmd, what):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    if r.returncode != 0:
        how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
        fail(f"{what}: {how}: {r.stdout.strip()[-600:]}")
        return False
    return True


def attrs_of(path, obj, swmr):
    with h5py.File(path, "r", swmr=swmr) as f:
        return dict(f[obj].attrs)


def copies(src, objects, work, tag, swmr=False):
    """h5copy and h5py copies of each object of src; h5repack of the file.
    swmr: src is a run still recording. h5copy has no SWMR mode, and HDF5
    lets no other reader into a part being written in SWMR mode: h5copy
    copies its /rank<N> as what it is in the file at PATH, the external
    link (checked), and cannot reach inside; h5py (swmr=True) copies the
    groups themselves."""
    for obj in objects:
        name = obj.strip("/").replace("/", "_")
        want = attrs_of(src, obj, swmr)
        in_part = swmr and obj.startswith("/rank")
        if in_part and obj.count("/") > 1:
            pass  # inside a part being written: no h5copy
        else:
            dst = os.path.join(work, f"{tag}-h5copy-{name}.h5")
            if run(["h5copy", "-p", "-i", src, "-o", dst, "-s", obj, "-d", obj],
                   f"{tag}: h5copy {obj}"):
                if in_part:
                    with h5py.File(dst, "r") as g:
                        link = g.get(obj, getlink=True)
                    if not isinstance(link, h5py.ExternalLink):
                        fail(f"{tag}: h5copy {obj}: not the external link ({link})")
                else:
                    got = attrs_of(dst, obj, False)
                    if got != want:
                        fail(f"{tag}: h5copy {obj}: attributes differ ({len(got)} vs "
                             f"{len(want)})")
        # h5py's Group.copy, in a process of its own (a crash is a signal).
        dst = os.path.join(work, f"{tag}-h5py-{name}.h5")
        code = (f"import h5py\n"
                f"with h5py.File({src!r}, 'r', swmr={swmr}) as f, h5py.File({dst!r}, 'w') as g:\n"
                f"    f.copy({obj!r}, g, name={obj.strip('/').replace('/', '_')!r})\n")
        if run([sys.executable, "-c", code], f"{tag}: h5py copy {obj}"):
            with h5py.File(dst, "r") as g:
                got = dict(g[name].attrs)
            if got != want:
                fail(f"{tag}: h5py copy {obj}: attributes differ ({len(got)} vs {len(want)})")
    dst = os.path.join(work, f"{tag}-repack.h5")
    run(["h5repack", src, dst], f"{tag}: h5repack")
    print(f"{tag}: copied {', '.join(objects)} with h5copy and h5py; repacked")


def rank_objects(path, swmr):
    with h5py.File(path, "r", swmr=swmr) as f:
        ranks = sorted(k for k in f.keys() if k.startswith("rank"))
    objs = ["/metadata"]
    for r in ranks:
        objs += [f"/{r}", f"/{r}/metadata"]
    return objs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--v1-maker", required=True)
    ap.add_argument("--live-demo", required=True)
    ap.add_argument("--mpirun")
    ap.add_argument("--mpi-record")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)

    # Schema 1.
    v1 = os.path.join(a.work, "v1.h5")
    if run([a.v1_maker, v1], "writing the schema-1 file"):
        with h5py.File(v1, "r") as f:
            n = len(f["metadata"].attrs)
        if n <= 8:
            fail(f"the schema-1 file has {n} metadata keys: HDF5 keeps 8 compact by itself")
        copies(v1, rank_objects(v1, False), a.work, "v1")

    # A run that is recording, then the same run finished.
    live = os.path.join(a.work, "live.h5")
    proc = subprocess.Popen([a.live_demo, live, "60", "50", "0.2"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with h5py.File(live, "r", swmr=True) as f:
                    if "rank0" in f and len(f["rank0/events/dt"]) > 0:
                        break
            except (OSError, KeyError):
                pass
            time.sleep(0.2)
        else:
            fail("the live run's file did not appear with events")
        copies(live, rank_objects(live, True), a.work, "recording", swmr=True)
    finally:
        proc.send_signal(signal.SIGTERM)  # live_demo finalizes on SIGTERM
        proc.wait(timeout=120)
    if proc.returncode != 0:
        fail(f"live_demo exited with {proc.returncode}")
    else:
        copies(live, rank_objects(live, False), a.work, "finished")

    # A finished MPI run.
    if a.mpirun and a.mpi_record:
        mpi = os.path.join(a.work, "mpi.h5")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        r = subprocess.run([a.mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2",
                            a.mpi_record, mpi], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env, timeout=300)
        if r.returncode != 0:
            fail(f"mpi_record: exit {r.returncode}: {r.stdout[-600:]}")
        else:
            objs = rank_objects(mpi, False)
            if "/rank1" not in objs:
                fail(f"the MPI run has no rank1: {objs}")
            copies(mpi, objs, a.work, "mpi")

    if failures:
        print(f"copy tools: {len(failures)} failure(s)")
        return 1
    print("copy tools: ok")
    shutil.rmtree(a.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
