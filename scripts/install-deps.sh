#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian 12 packages scope-profiler needs (run as root).
#   install-deps.sh build   what building everything needs
#   install-deps.sh test    that, plus what the tests drive (Xvfb, h5py, tmux, ...)
set -euo pipefail
what=${1:-build}

build_pkgs=(
  build-essential cmake pkg-config            # toolchain
  libhdf5-dev hdf5-tools                       # required: HDF5 (serial) + h5dump
  hdf5-filter-plugin                           # LZ4 for the event tables (else deflate)
  libcairo2-dev libpango1.0-dev                # optional: plots/ (charts, report, viewer)
  libgtk-4-dev                                 # optional: viewer/
  libncurses-dev                               # optional: scope-profiler tui
  libopenmpi-dev openmpi-bin                   # optional: MPI recording
  libdw-dev libunwind-dev likwid               # optional: recording modes
  libotf2-trace-dev                            # optional: export otf2 (OTF2 library)
  zlib1g-dev                                   # gzip of export perfetto (libhdf5-dev has it too)
  python3-dev python3-numpy gfortran           # optional: Python and Fortran bindings
  python3                                      # man pages and completions (packaging/tools)
)
test_pkgs=(
  python3-h5py                                 # cross-checks files with h5py
  python3-scipy                                # reference values of the comparison statistics
  xvfb xauth                                   # viewer tests under xvfb-run
  imagemagick                                  # screenshot pixel checks
  tmux                                         # tui tests
  chromium                                     # report test (headless screenshot)
  python3-mpi4py python3-h5py-mpi              # Python module under mpirun (h5py on MPI HDF5)
  python3-line-profiler                        # Python line timings checked against it
  python3-pyflakes python3-networkx            # `run` on installed Python packages
  otf2-tools python3-otf2                      # export otf2 read back (otf2-print, OTF2's Python)
  protobuf-compiler                            # export perfetto decoded with Perfetto's schema
  python3-pandas                               # json-split and open_run().to_pandas() checks
  desktop-file-utils appstream shared-mime-info librsvg2-bin  # packaging: desktop files, icons
  man-db bash-completion zsh                   # packaging: man pages, completions
  clang-14 libclang-rt-14-dev                  # fuzzing: libFuzzer (scripts/fuzz.sh)
  bsdutils util-linux                          # script(1): the TUI in a pty; setarch (TSan)
)

pkgs=("${build_pkgs[@]}")
[ "$what" = test ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all ${#pkgs[@]} packages present"
