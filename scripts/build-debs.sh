#!/usr/bin/env bash
# Builds Tocsin's Debian binary packages into dist/ with Debian's own tools:
# `make install` (release build) into a staging root, split into
#   libtocsin0          libtocsin.so.0 (Embedded Swift: libc alone)
#   libtocsin-notify0   libtocsin-notify.so.0 (libnotify, libcanberra, GLib)
#   libtocsin-dev       headers, the .so links, pkg-config files
#   tocsin              the command and the timer service: D-Bus activation
#                       file, systemd user unit, man page, completions
#   python3-tocsin      the Python binding, loading libtocsin.so.0 by soname
# Depends from dpkg-shlibdeps, a symbols file for each library from
# dpkg-gensymbols, then dpkg-deb (root-owned files) and lintian.
#   scripts/build-debs.sh          (make deb)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define TOCSIN_VERSION_STRING "\(.*\)"/\1/p' include/tocsin.h)
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maintainer="Tocsin developers <maintainers@users.noreply.a-seed-23b9eb97.example>"
homepage="https://github.com/tocsin-dev/tocsin"
# Reproducible: every date and mtime from the last commit, not the clock.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
work=out/deb
stage=$work/stage
rm -rf "$work"
mkdir -p "$work" dist
make --no-print-directory install CONFIG=release DESTDIR="$PWD/$stage" PREFIX=/usr LIBDIR="/usr/lib/$triplet" > "$work/install.log"

# package NAME: its root, with the directories the files below need.
root() { echo "$work/pkg/$1"; }
take() {  # take PACKAGE PATH...: moves staged paths (relative to the stage) into PACKAGE
  local package=$1; shift
  for path in "$@"; do
    mkdir -p "$(root "$package")/$(dirname "$path")"
    mv "$stage/$path" "$(root "$package")/$path"
  done
}
lib=usr/lib/$triplet
take libtocsin0 "$lib/libtocsin.so.$version" "$lib/libtocsin.so.0"
# The translations (po/) are the notifier's texts and the command's: with the
# notifier, which every program that shows Tocsin's alerts has (identical on
# every architecture, as Multi-Arch: same wants); tocsin recommends it.
take libtocsin-notify0 "$lib/libtocsin-notify.so.$version" "$lib/libtocsin-notify.so.0" usr/share/locale
take libtocsin-dev "$lib/libtocsin.so" "$lib/libtocsin-notify.so" "$lib/pkgconfig" usr/include
take tocsin usr/bin usr/share/bash-completion usr/share/zsh usr/share/fish usr/share/man usr/share/dbus-1 \
  usr/share/systemd usr/share/doc/tocsin
python=$(root python3-tocsin)/usr/lib/python3/dist-packages/tocsin
mkdir -p "$python"
cp bindings/python/tocsin/*.py bindings/python/tocsin/py.typed "$python/"
leftover=$(cd "$stage" && find . -type f -o -type l)
[ -z "$leftover" ] || { echo "build-debs: staged but in no package: $leftover" >&2; exit 1; }

strip --remove-section=.comment --remove-section=.note --strip-unneeded "$(root tocsin)/usr/bin/tocsin"
strip --remove-section=.comment "$(root libtocsin0)/$lib/libtocsin.so.$version" \
  "$(root libtocsin-notify0)/$lib/libtocsin-notify.so.$version"
gzip -9n "$(root tocsin)"/usr/share/man/man1/*.1
# bash-completion sources its files: no #! line.
sed -i '1{/^#!/d}' "$(root tocsin)/usr/share/bash-completion/completions/tocsin"
for package in libtocsin0 libtocsin-notify0 libtocsin-dev tocsin python3-tocsin; do mkdir -p "$(root "$package")/DEBIAN"; done

changelog_date=$(date -R -u -d "@$SOURCE_DATE_EPOCH")
for package in libtocsin0 libtocsin-notify0 libtocsin-dev tocsin python3-tocsin; do
  docs=$(root "$package")/usr/share/doc/$package
  mkdir -p "$docs"
  cat > "$docs/copyright" <<EOF
Tocsin: a scriptable timer engine for Linux ($homepage)

Copyright 2026 the Tocsin developers.

The project has not chosen a license yet: until it does, these packages
are for evaluation and no other rights are granted.
EOF
  # The header's reference for the saved file's format, where the header is.
  [ "$package" = libtocsin-dev ] && cp docs/timer-file.md "$docs/"
  printf 'tocsin (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- %s  %s\n' \
    "$version" "$version" "$maintainer" "$changelog_date" | gzip -9n > "$docs/changelog.gz"
done

# A debian/control for dpkg-shlibdeps and dpkg-gensymbols, which insist on one.
mkdir -p "$work/debian"
printf 'Source: tocsin\nMaintainer: %s\n\nPackage: tocsin\nArchitecture: any\n' "$maintainer" > "$work/debian/control"
shlibs() {  # shlibs FILE...: the Depends dpkg-shlibdeps computes for these files (relative to $work)
  (cd "$work" && dpkg-shlibdeps -O "$@" | sed -n 's/^shlibs:Depends=//p')
}
symbols() {  # symbols PACKAGE LIBRARY: DEBIAN/symbols, every export at this version
  mkdir -p "$(root "$1")/DEBIAN"
  (cd "$work" && dpkg-gensymbols -q -p"$1" -v"$version" -P"pkg/$1" -e"pkg/$1/$2" -O"pkg/$1/DEBIAN/symbols")
  sed -i '1a * Build-Depends-Package: libtocsin-dev' "$(root "$1")/DEBIAN/symbols"
}
symbols libtocsin0 "$lib/libtocsin.so.$version"
symbols libtocsin-notify0 "$lib/libtocsin-notify.so.$version"
printf 'libtocsin 0 libtocsin0 (>= %s)\n' "$version" > "$(root libtocsin0)/DEBIAN/shlibs"
printf 'libtocsin-notify 0 libtocsin-notify0 (>= %s)\n' "$version" > "$(root libtocsin-notify0)/DEBIAN/shlibs"
depends_lib=$(shlibs "pkg/libtocsin0/$lib/libtocsin.so.$version")
# The notifier drives the libtocsin.so.0 its host loaded (found by soname, not linked).
depends_notify="$(shlibs "pkg/libtocsin-notify0/$lib/libtocsin-notify.so.$version"), libtocsin0 (= $version)"
depends_command=$(shlibs pkg/tocsin/usr/bin/tocsin)

control() {  # control PACKAGE ARCHITECTURE DEPENDS SECTION DESCRIPTION [EXTRA FIELDS]
  local dir; dir=$(root "$1")/DEBIAN
  mkdir -p "$dir"
  local size; size=$(du -sk --exclude=DEBIAN "$(root "$1")" | cut -f1)
  {
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %s\n' \
      "$1" "$version" "$2" "$maintainer" "$size"
    [ -z "$3" ] || printf 'Depends: %s\n' "$3"
    [ -z "${6:-}" ] || printf '%s\n' "$6"
    printf 'Section: %s\nPriority: optional\nHomepage: %s\nDescription: %s\n' "$4" "$homepage" "$5"
  } > "$dir/control"
}
control libtocsin0 "$arch" "$depends_lib" libs "timer engine: many countdowns and stopwatches on one kernel timer
 Tocsin keeps any number of countdowns and stopwatches on one kernel timer,
 each started, suspended, resumed and cancelled on its own, with exact time
 across suspend and resume and drift-free ticks. This is its C library
 (include/tocsin.h in libtocsin-dev is its reference manual)." "Multi-Arch: same"
control libtocsin-notify0 "$arch" "$depends_notify" libs "desktop alerts and alarm sounds for Tocsin timers
 A notification and an alarm sound when a Tocsin timer ends, with buttons
 to restart or stop it, and live notifications while it runs: libnotify
 and libcanberra, for the timers of a libtocsin engine." "Multi-Arch: same"
control libtocsin-dev "$arch" "libtocsin0 (= $version), libtocsin-notify0 (= $version)" libdevel \
  "timer engine: C headers and pkg-config files
 Headers (tocsin.h, tocsin_notify.h, each a reference manual), the .so
 links and the pkg-config files (tocsin, tocsin-notify) to build programs
 with libtocsin and libtocsin-notify." "Multi-Arch: same"
control tocsin "$arch" "$depends_command" utils "countdowns, alarms and stopwatches in the terminal and on the desktop
 tocsin counts down (tocsin 25m Tea), to a time of day, in sequences, and up
 as a stopwatch, with a live display, keys, JSON events and a desktop alert
 and sound at zero. With -b it hands the timers to its timer service on the
 D-Bus session bus (started by D-Bus activation), which keeps them across
 logout and restarts." "Recommends: sound-theme-freedesktop, libtocsin-notify0 (= $version)"
control python3-tocsin all "python3 (>= 3.9), libtocsin0 (>= $version)" python \
  "Python binding of the Tocsin timer engine
 A ctypes binding of libtocsin: countdowns and stopwatches with handlers on
 the engine's thread, with asyncio, or on a manual clock for tests."

# The libraries: ldconfig after install and removal.
for package in libtocsin0 libtocsin-notify0; do
  echo "activate-noawait ldconfig" > "$(root "$package")/DEBIAN/triggers"
done
# The binding's byte code: made after install, gone before removal, so
# nothing is left behind (Python would write it as root otherwise).
cat > "$(root python3-tocsin)/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] && command -v python3 > /dev/null; then
  python3 -m compileall -q /usr/lib/python3/dist-packages/tocsin > /dev/null || true
fi
EOF
cat > "$(root python3-tocsin)/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
rm -rf /usr/lib/python3/dist-packages/tocsin/__pycache__
EOF
chmod 0755 "$(root python3-tocsin)"/DEBIAN/postinst "$(root python3-tocsin)"/DEBIAN/prerm

for package in libtocsin0 libtocsin-notify0 libtocsin-dev tocsin python3-tocsin; do
  dir=$(root "$package")
  find "$dir" -path "$dir/DEBIAN" -prune -o -type d -exec chmod 0755 {} +
  find "$dir" -path "$dir/DEBIAN" -prune -o -type f -exec chmod 0644 {} +
  [ ! -d "$dir/usr/bin" ] || chmod 0755 "$dir"/usr/bin/*
  (cd "$dir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$dir/DEBIAN/md5sums"
  find "$dir" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  dpkg-deb --root-owner-group -Zxz --build "$dir" "dist/${package}_${version}_$(sed -n 's/^Architecture: //p' "$dir/DEBIAN/control").deb" \
    > /dev/null
done
ls -l dist/*.deb
