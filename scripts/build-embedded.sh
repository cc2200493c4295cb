#!/usr/bin/env bash
# Builds a C library of Tocsin from its own sources in Embedded Swift: no
# Swift runtime library to carry (the little it needs is compiled in).
#   scripts/build-embedded.sh OUTPUT.so              libtocsin.so, the engine's C ABI
#                                                    (TocsinBase, Tocsin, TocsinC):
#                                                    about 330 KB stripped, libc, libm and libpthread only
#   scripts/build-embedded.sh --notifier OUTPUT.so   libtocsin-notify.so, the notifier's
#                                                    (TocsinBase, TocsinDesktop, TocsinNotifyC):
#                                                    about 300 KB, libc, libm, libpthread, libdl and the desktop's libraries
# (work files in OUTPUT's ../embedded-build). The modules are those of
# Package.swift, each compiled whole (-wmo, as Embedded Swift requires) and
# optimized for size, with the Swift settings Package.swift gives every
# target; where Package.swift's C modules would import the C library
# themselves, embedded/ has module maps that take it from the Glibc module.
# SANITIZE=address|thread|fuzzer,address instruments libtocsin.so the way
# `swift build --sanitize` does (the program that loads it brings the
# sanitizer's runtime: its symbols are left for it to define).
# VARIANT_CFLAGS and VARIANT_SWIFTFLAGS build a variant to measure
# (bench/variants.sh): -D TOCSIN_NO_PREFAULT (a Swift flag).
set -euo pipefail
cd "$(dirname "$0")/.."
notifier=false
if [ "${1:-}" = --notifier ]; then notifier=true; shift; fi
output=${1:?usage: build-embedded.sh [--notifier] OUTPUT.so}
work="$(dirname "$output")/../embedded-build"
if $notifier; then work+=-notify; fi
mkdir -p "$work"
swiftc=${SWIFTC:-swiftc}
bin=$(dirname "$(readlink -f "$(command -v "$swiftc")")")  # the toolchain's, through any symlink
clang=${CLANG:-$bin/clang}
triple="$(uname -m)-unknown-linux-gnu"
runtime="$bin/../lib/swift/embedded/$triple"
flags=(-target "$triple" -enable-experimental-feature Embedded -wmo -Osize -swift-version 6 -parse-as-library
       -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
       -package-name tocsin -I embedded/Glibc -I embedded/CTocsin -I embedded/CTocsinSystem -I "$work"
       -Xcc -ISources/CTocsin/include -Xcc -fPIC -g)
read -r -a variant_cflags <<< "${VARIANT_CFLAGS:-}"
read -r -a variant_swiftflags <<< "${VARIANT_SWIFTFLAGS:-}"
for flag in "${variant_cflags[@]}"; do flags+=(-Xcc "$flag"); done
flags+=("${variant_swiftflags[@]}")
sanitize=${SANITIZE:-}
instrument=()
defs=(-Wl,-z,defs)
# glibc symbol versions held at 2.17 (embedded/glibc-floor.c says how), except
# in sanitized builds, whose runtimes intercept these functions by name.
floor_object=()
link_flags=()
link_dl=()
if [ -n "$sanitize" ]; then
  instrument=(-sanitize="$sanitize")
  defs=()
else
  floor_object=("$work/glibc-floor.o")
  for symbol in pthread_create pthread_join pthread_detach pthread_sigmask pthread_mutexattr_init \
      pthread_mutexattr_destroy pthread_mutexattr_settype pthread_condattr_setclock fstat stat dlopen dlsym dladdr \
      arc4random_buf; do
    link_flags+=("-Wl,--wrap=$symbol")
  done
  # Before glibc 2.34 these old versions live in libpthread and libdl: named
  # as needed even though today's are empty stubs.
  link_flags+=(-Wl,--push-state,--no-as-needed -l:libpthread.so.0 -Wl,--pop-state)
  link_dl=(-Wl,--push-state,--no-as-needed -l:libdl.so.2 -Wl,--pop-state)  # the notifier's
  # GNU ld: gold applies --wrap to the versioned references too (the
  # wrappers would call themselves).
  link_flags+=(-fuse-ld=bfd)
  link_flags+=(-Wl,-z,relro,-z,now)  # hardened as Debian builds libraries (lintian's hardening-no-bindnow)
fi

compile_c() {
  for source in "$@"; do
    "$clang" -Os -fPIC -g -ffunction-sections -fdata-sections ${sanitize:+-fsanitize=${sanitize/fuzzer/fuzzer-no-link}} \
      -D_GNU_SOURCE -ISources/CTocsin/include -ISources/CTocsinSystem/include -ISources/CTocsinNotify/include \
      "${desktop_cflags[@]}" "${variant_cflags[@]}" -c "$source" -o "$work/$(basename "$source" .c).o"
  done
}
# TocsinBase and the middle module are only modules for the C ABI's module
# to import: in Embedded Swift the importing module compiles what it uses of
# them itself, so that module's object is the whole library (objects of all
# three would carry each function twice). -z defs proves nothing is missing.
"$swiftc" "${flags[@]}" -module-name TocsinBase -emit-module-path "$work/TocsinBase.swiftmodule" Sources/TocsinBase/*.swift embedded/LibcShims.swift
if ! $notifier; then
  desktop_cflags=()
  compile_c Sources/CTocsin/status.c Sources/CTocsinSystem/lock.c Sources/CTocsinSystem/system.c
  [ -n "$sanitize" ] || compile_c embedded/glibc-floor.c
  "$swiftc" "${flags[@]}" -module-name Tocsin -emit-module-path "$work/Tocsin.swiftmodule" \
    Sources/Tocsin/*.swift embedded/LibcShims.swift
  "$swiftc" "${flags[@]}" "${instrument[@]}" -module-name TocsinC -emit-object -o "$work/TocsinC.o" Sources/TocsinC/*.swift
  "$clang" -shared -o "$output" "$work"/{TocsinC,status,lock,system}.o "${floor_object[@]}" "${link_flags[@]}" \
    -Wl,--version-script=Sources/TocsinC/exports.map -Wl,-soname=libtocsin.so.0 -Wl,--gc-sections "${defs[@]}" \
    -L"$runtime" -lswiftUnicodeDataTables -lm
  exit
fi
# libnotify, libcanberra and GLib: their headers' directories from
# pkg-config, for clang and for Swift's clang importer.
read -r -a desktop_cflags <<< "$(pkg-config --cflags-only-I libnotify libcanberra)"
notify_flags=(-I embedded/CNotify -I embedded/CCanberra -I embedded/CTocsinNotify)
for include in "${desktop_cflags[@]}"; do notify_flags+=(-Xcc "$include"); done
compile_c Sources/CTocsinNotify/notify.c Sources/CTocsin/status.c Sources/CTocsinSystem/lock.c Sources/CTocsinSystem/intl.c
[ -n "$sanitize" ] || compile_c embedded/glibc-floor.c
"$swiftc" "${flags[@]}" "${notify_flags[@]}" -module-name TocsinDesktop -emit-module-path "$work/TocsinDesktop.swiftmodule" \
  Sources/TocsinDesktop/*.swift embedded/LibcShims.swift
"$swiftc" "${flags[@]}" "${notify_flags[@]}" "${instrument[@]}" -module-name TocsinNotifyC -emit-object \
  -o "$work/TocsinNotifyC.o" Sources/TocsinNotifyC/*.swift
"$clang" -shared -o "$output" "$work"/{TocsinNotifyC,notify,status,lock,intl}.o "${floor_object[@]}" "${link_flags[@]}" "${link_dl[@]}" \
  -Wl,--version-script=Sources/TocsinNotifyC/exports.map -Wl,-soname=libtocsin-notify.so.0 -Wl,--gc-sections \
  "${defs[@]}" -L"$runtime" -lswiftUnicodeDataTables $(pkg-config --libs libnotify libcanberra) -lm -ldl
