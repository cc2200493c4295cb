#!/usr/bin/env bash
# The Debian packages and the wheel (dist/, from make deb and make wheel) on
# fresh Debian roots that have no Swift: minimal roots made by `debootstrap
# --variant=minbase` from the Debian mirror (once per machine, cached in
# out/debian/SUITE), copied afresh for each run, with /proc and /dev
# mounted. The checks run inside (Tests/debian/inside.sh). Debian 12: apt
# resolves every dependency from Debian alone; a C program through
# pkg-config, python3-tocsin, `tocsin 2s Tea --json`, the timer service
# activated on a private bus, the wheel in a fresh venv; reinstall; purge
# leaves nothing behind. Debian 11 (glibc 2.31, older than the build's 2.36
# and from before the threads moved into libc): the wheel in a fresh venv,
# which proves its manylinux_2_17 tag where it matters. Needs root.
#   scripts/test-debian.sh       (make test-debian)
#   scripts/test-debian.sh --roots   only make the cached roots (scripts/test.sh
#                                    starts this first, in the background: it
#                                    waits on the network, not the processor)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define TOCSIN_VERSION_STRING "\(.*\)"/\1/p' include/tocsin.h)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=out/debian/root
mkdir -p out/debian
unmount() { for point in dev/pts dev proc; do umount -l "$root/$point" 2> /dev/null || true; done; }
trap unmount EXIT

# make_root SUITE: the cached minimal root, made once (under a lock: a run
# started meanwhile waits for the one making it, then uses it).
make_root() {
  local suite=$1 cache=out/debian/$1
  (
    flock 9
    if [ ! -d "$cache" ]; then
      echo "test-debian: debootstrap --variant=minbase $suite (once; cached in $cache)"
      rm -rf "$cache.new"
      debootstrap --variant=minbase "$suite" "$PWD/$cache.new" "$mirror" > "out/debian/$suite.log" 2>&1 \
        || { tail -20 "out/debian/$suite.log" >&2; exit 1; }
      # The tools the checks use, ahead of time (inside.sh installs what is
      # missing; the packages under test come after them either way).
      cp /etc/resolv.conf "$cache.new/etc/resolv.conf"
      # shellcheck disable=SC2046
      chroot "$cache.new" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $(bash Tests/debian/inside.sh --tools \
        "$([ "$suite" = bookworm ] || echo wheel)")" >> "out/debian/$suite.log" 2>&1 || echo "test-debian: tools not put in $suite ahead"
      mv "$cache.new" "$cache"
    fi
  ) 9> "out/debian/$suite.lock"
}
if [ "${1:-}" = --roots ]; then
  trap - EXIT  # the root in use is the other run's to unmount
  make_root bookworm & bookworm=$!
  make_root bullseye || status=1
  wait $bookworm || status=1
  exit "${status:-0}"
fi

# in_fresh_root SUITE [inside.sh's argument]
in_fresh_root() {
  local suite=$1 cache=out/debian/$1
  make_root "$suite" || return 1
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
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash /work/inside.sh "${@:2}"
}
status=0
in_fresh_root bookworm || status=1
in_fresh_root bullseye wheel || status=1
unmount
rm -rf "$root"
exit $status
