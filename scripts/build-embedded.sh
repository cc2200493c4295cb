#!/usr/bin/env bash
# Builds libtocsin.so, the C ABI, from the engine's own sources in Embedded
# Swift: no Swift runtime library to carry (the little it needs is compiled
# in), only libc and libm needed, about 270 KB stripped instead of 6 MB.
# The modules are those of Package.swift (TocsinBase, Tocsin, TocsinC), each
# compiled whole (-wmo, as Embedded Swift requires) and optimized for size,
# with the Swift settings Package.swift gives every target.
#   scripts/build-embedded.sh OUTPUT.so   (work files in OUTPUT's ../embedded-build)
# SANITIZE=address|thread|fuzzer,address instruments it the way
# `swift build --sanitize` does (the program that loads it brings the
# sanitizer's runtime: its symbols are left for it to define).
set -euo pipefail
cd "$(dirname "$0")/.."
output=$1
work="$(dirname "$output")/../embedded-build"
mkdir -p "$work"
swiftc=${SWIFTC:-swiftc}
bin=$(dirname "$(readlink -f "$(command -v "$swiftc")")")  # the toolchain's, through any symlink
clang=${CLANG:-$bin/clang}
triple="$(uname -m)-unknown-linux-gnu"
runtime="$bin/../lib/swift/embedded/$triple"
flags=(-target "$triple" -enable-experimental-feature Embedded -wmo -Osize -swift-version 6 -parse-as-library
       -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
       -package-name tocsin -I embedded/Glibc -I embedded/CTocsin -I embedded/CTocsinSystem -I "$work"
       -Xcc -fPIC -g)
sanitize=${SANITIZE:-}
instrument=()
defs=(-Wl,-z,defs)
if [ -n "$sanitize" ]; then
  instrument=(-sanitize="$sanitize")
  defs=()
fi

for source in Sources/CTocsin/status.c Sources/CTocsinSystem/lock.c Sources/CTocsinSystem/system.c; do
  "$clang" -Os -fPIC -g -ffunction-sections -fdata-sections ${sanitize:+-fsanitize=${sanitize/fuzzer/fuzzer-no-link}} \
    -D_GNU_SOURCE -ISources/CTocsin/include -ISources/CTocsinSystem/include \
    -c "$source" -o "$work/$(basename "$source" .c).o"
done
# TocsinBase and Tocsin are only modules for TocsinC to import: in Embedded
# Swift the importing module compiles what it uses of them itself, so
# TocsinC's object is the whole library (objects of all three would carry
# each function twice). -z defs proves nothing is missing.
"$swiftc" "${flags[@]}" -module-name TocsinBase -emit-module-path "$work/TocsinBase.swiftmodule" Sources/TocsinBase/*.swift
"$swiftc" "${flags[@]}" -module-name Tocsin -emit-module-path "$work/Tocsin.swiftmodule" \
  Sources/Tocsin/*.swift embedded/LibcShims.swift
"$swiftc" "${flags[@]}" "${instrument[@]}" -module-name TocsinC -emit-object -o "$work/TocsinC.o" Sources/TocsinC/*.swift
"$clang" -shared -o "$output" "$work"/{TocsinC,status,lock,system}.o \
  -Wl,--version-script=Sources/TocsinC/exports.map -Wl,-soname=libtocsin.so.0 -Wl,--gc-sections "${defs[@]}" \
  -L"$runtime" -lswiftUnicodeDataTables -lm
