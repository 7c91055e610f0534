#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sandbox.sh DIR LEFTOVERS COMMAND [ARG...]
#
# Run COMMAND as root in a throwaway copy of this machine: the root file
# system seen through an overlay (writes go to a tmpfs and vanish), in a
# private mount namespace, chrooted, with an empty environment. DIR appears
# inside as /sp-test (read-write, shared with the caller). Installing
# packages there is installing them on this machine as far as dpkg, the
# loader, man and the desktop databases can tell, without touching the real
# system or racing another process that uses it.
#
# After COMMAND, every path the sandbox left behind whose name mentions
# scope-profiler (files, links, folders; /tmp and DIR aside) is written to
# LEFTOVERS: after an install and a purge there must be none.
#
# Exit status: COMMAND's; 125 when the sandbox cannot be made (no overlayfs,
# not root, no unshare), so the caller can say why.
set -euo pipefail
dir=$(cd "$1" && pwd) leftovers=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "sandbox: needs root" >&2; exit 125; }
command -v unshare >/dev/null || { echo "sandbox: no unshare" >&2; exit 125; }
mnt=$(mktemp -d)
trap 'rmdir "$mnt" 2>/dev/null || true' EXIT

# shellcheck disable=SC2016
unshare --mount --propagation private -- bash -euc '
  dir=$1 leftovers=$2 mnt=$3
  shift 3
  mount -t tmpfs -o size=4g sp-sandbox "$mnt" || exit 125
  mkdir "$mnt/upper" "$mnt/work" "$mnt/root"
  mount -t overlay sp-sandbox -o "lowerdir=/,upperdir=$mnt/upper,workdir=$mnt/work" "$mnt/root" ||
    { echo "sandbox: overlayfs is not available" >&2; exit 125; }
  r=$mnt/root
  [ -x "$r/usr/bin/dpkg" ] || { echo "sandbox: the overlay does not show /usr" >&2; exit 125; }
  mount --rbind /dev "$r/dev"
  mount -t proc proc "$r/proc"
  mount --rbind /sys "$r/sys"
  mount -t tmpfs tmpfs "$r/tmp"
  mount -t tmpfs tmpfs "$r/run"
  mkdir -p "$r/run/lock" "$r/sp-test"
  mount --bind "$dir" "$r/sp-test"
  set +e
  chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 "$@"
  status=$?
  set -e
  (cd "$mnt/upper" && find . -path ./sp-test -prune -o -path ./tmp -prune -o \
     \( -iname "*scope*profiler*" -o -iname "*scopeprofiler*" -o -iname "*scope_profiler*" \) -print) \
    >"$leftovers"
  exit $status
' sandbox "$dir" "$leftovers" "$mnt" "$@"
