#!/usr/bin/env bash
# The Debian packages and the wheel (dist/, from make deb and make wheel) on
# a fresh Debian 12 that has no Swift: a minimal root made by `debootstrap
# --variant=minbase bookworm` from the Debian mirror (once per machine,
# cached in out/debian/minbase), copied afresh for each run, with /proc and
# /dev mounted. The checks run inside it (Tests/debian/inside.sh): apt
# resolves every dependency from Debian alone; a C program through
# pkg-config, python3-tocsin, `tocsin 2s Tea --json`, the timer service
# activated on a private bus, the wheel in a fresh venv; reinstall; purge
# leaves nothing behind. Needs root.
#   scripts/test-debian.sh       (make test-debian)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define TOCSIN_VERSION_STRING "\(.*\)"/\1/p' include/tocsin.h)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=out/debian/minbase
root=out/debian/root
if [ "$(id -u)" -ne 0 ]; then
  echo "test-debian: skipped: needs root (debootstrap, chroot, mount)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
if [ ! -d "$cache" ]; then
  echo "test-debian: debootstrap --variant=minbase bookworm (once; cached in $cache)"
  rm -rf "$cache.new"
  debootstrap --variant=minbase bookworm "$cache.new" "$mirror" > out/debian-debootstrap.log 2>&1 \
    || { tail -20 out/debian-debootstrap.log >&2; exit 1; }
  mv "$cache.new" "$cache"
fi
unmount() { for point in dev/pts dev proc; do umount -l "$root/$point" 2> /dev/null || true; done; }
trap unmount EXIT
unmount
rm -rf "$root"
cp -a "$cache" "$root"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/work"
cp dist/*_"$version"_*.deb dist/tocsin-"$version"-*.whl Tests/debian/inside.sh "$root/work/"
cp -r bindings/python/examples "$root/work/examples"
awk '/^```c$/ { inside = 1; next } /^```$/ && inside { exit } inside' README.md > "$root/work/tea.c"  # the README's example
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash /work/inside.sh
