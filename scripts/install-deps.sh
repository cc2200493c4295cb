#!/usr/bin/env bash
# Installs what building and testing Tocsin needs on a Debian or Ubuntu
# machine that has a Swift toolchain. Installs only what is missing; quiet
# and quick when everything is there already.
set -euo pipefail

# command -> Debian package that provides it
declare -A needs=(
  [cc]=gcc
  [c++]=g++
  [make]=make
  [pkg-config]=pkg-config
  [readelf]=binutils
  [nm]=binutils
  [python3]=python3
  [strace]=strace  # bench/live.sh: the service's timer wake-ups
  [valgrind]=valgrind  # bench/instructions.sh (make test): instructions per call
  [callgrind_annotate]=valgrind
  [bwrap]=bubblewrap  # the timer service's tests: a caller in a sandbox, as Flatpak runs apps
  [xdg-dbus-proxy]=xdg-dbus-proxy  # the same, behind the bus proxy Flatpak puts between an app and the bus
  [msgfmt]=gettext  # the translations (po/): built by make, checked by make check
  [xgettext]=gettext
  [node]=nodejs  # the Node.js binding (make test-node); its headers are in /usr/include/node
  [tsc]=node-typescript  # make test-node: bindings/node/index.d.ts checked by tsc --noEmit
  [npm]=npm  # make test-node: npm pack and an offline npm install of the addon (npm brings node-gyp)
)

missing=()
for command in "${!needs[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${needs[$command]}")
done
# Libraries the desktop notifier builds on, and what its tests run: a
# headless X server, a notification server, a sound server, sound and image
# tools, the freedesktop sound theme, time zones (the DST tests), gdbus and
# busctl (the timer service's tests and docs), a media player with MPRIS
# and playerctl (an alarm pauses the music), i3 with i3bar and xdotool (a
# real status bar, clicked); Debian's packaging tools
# (make deb) and debootstrap (the fresh-Debian test). (Not dbus-x11: with it a program that
# has a display but no bus address silently starts a stray bus.)
desktop_packages=(tzdata libglib2.0-dev libnotify-dev libcanberra-dev libcanberra-pulse sound-theme-freedesktop
  dbus libglib2.0-bin systemd man-db xvfb dunst pulseaudio pulseaudio-utils sox imagemagick x11-utils
  mpv mpv-mpris playerctl i3-wm xdotool
  dpkg-dev lintian debootstrap xz-utils
  librust-tokio-dev  # the Rust crates' tokio feature (make test-rust): no crates.io needed
  rustc cargo  # Debian's 1.63 (/usr/bin, beside rustup's): the Rust crates' minimum version (make test-rust)
  locales)  # the sources of the translation tests' locales (de_DE, fr_FR, es_ES), made below
for package in "${desktop_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

# python3 -m venv needs ensurepip, a separate package on Debian.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi

# The locales the translation tests run in (Debian has none but C.UTF-8 until made).
make_locales() {
  for locale in de_DE fr_FR es_ES en_US; do  # (en_US: a 12-hour clock)
    locale -a 2>/dev/null | grep -qi "^$locale.utf-\?8$" && continue
    $sudo localedef -i "$locale" -c -f UTF-8 "$locale.UTF-8" || echo "install-deps: cannot make the locale $locale.UTF-8" >&2
  done
}
if [ ${#missing[@]} -eq 0 ]; then make_locales; exit 0; fi

packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
echo "install-deps: installing $packages"
if [ -n "$sudo" ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install: $packages" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
make_locales
