#!/usr/bin/env bash
# Checks a Tocsin library against its header:
#  - it exports exactly the functions the header declares (no more, no fewer);
#  - it needs only the C runtime (the Swift runtime is linked in), plus the
#    libraries matched by EXTRA_NEEDED, and has no run path into a Swift
#    toolchain; its soname is libNAME.so.MAJOR;
#  - the header compiles cleanly as C99 and as C++;
#  - with FOOTPRINT_KB set (the Embedded Swift builds): it needs libc, libm
#    (libpthread and libdl for the old symbol versions) and the EXTRA_NEEDED
#    libraries alone (no C++ runtime: no Swift runtime in it), references no
#    glibc symbol version newer than 2.17, and stripped it is at most that many KB.
# (Each function's signature is checked at compile time by the
# SignatureCheck.swift of the library's C ABI target.)
# Usage: check-abi.sh LIBRARY.so HEADER.h [EXTRA_NEEDED_REGEX]
set -uo pipefail
library=${1:?usage: check-abi.sh LIBRARY.so HEADER.h [EXTRA_NEEDED_REGEX]}
header=${2:?usage: check-abi.sh LIBRARY.so HEADER.h [EXTRA_NEEDED_REGEX]}
extra=${3:-}
name=$(basename "$library" .so)
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   $name.$1"; }
fail() { failed=$((failed + 1)); echo "FAIL $name.$1"; shift; printf '  %s\n' "$@"; }

declared=$(grep -oE 'TOCSIN_EXTERN[^(]*\(' "$header" | grep -oE 'tocsin_[a-z0-9_]+ *\($' | tr -d ' (' | sort)
exported=$(nm -D -g --defined-only "$library" | awk '$2 == "T" { print $3 }' | sort)
if [ "$declared" = "$exported" ] && [ -n "$declared" ]; then
  pass "exports_match_header ($(echo "$declared" | wc -l) functions)"
else
  fail exports_match_header "$(diff <(echo "$declared") <(echo "$exported") | grep -E '^[<>]' | sed 's/^</declared, not exported:/; s/^>/exported, not declared:/')"
fi

allowed="^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1${extra:+|$extra})\$"
needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
unexpected=$(echo "$needed" | grep -vE "$allowed" || true)
if [ -z "$unexpected" ]; then pass "needs_only_allowed_libraries"; else fail needs_only_allowed_libraries "unexpected: $unexpected"; fi

if readelf -d "$library" | grep -E 'R(UN)?PATH' | grep -qi swift; then
  fail no_swift_run_path "$(readelf -d "$library" | grep -E 'R(UN)?PATH')"
else
  pass no_swift_run_path
fi

soname=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
major=$(sed -n 's/#define TOCSIN_VERSION_MAJOR \([0-9]*\)/\1/p' include/tocsin.h)
if [ "$soname" = "$name.so.$major" ]; then pass "soname_is_$name.so.$major"; else fail soname "got '$soname'"; fi

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if [ -n "${FOOTPRINT_KB:-}" ]; then
  others=$(echo "$needed" | grep -vE "^((libc|libm)\.so\.6|libpthread\.so\.0|libdl\.so\.2${extra:+|$extra})\$" || true)
  if [ -z "$others" ]; then pass needs_no_runtime_library; else fail needs_no_runtime_library "also: $others"; fi
  # The glibc floor (embedded/glibc-floor.c): manylinux2014's, so the wheel's tag holds.
  newest=$(objdump -T "$library" | grep -oE 'GLIBC_[0-9.]+' | sort -uV | tail -1)
  if [ "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -1)" = GLIBC_2.17 ]; then
    pass "glibc_symbols_at_most_2.17 (newest $newest)"
  else
    fail glibc_symbols_at_most_2.17 "$(objdump -T "$library" | grep -E 'GLIBC_2\.(1[89]|[2-9][0-9])')"
  fi
  strip -o "$probe/stripped.so" "$library"
  bytes=$(stat -c %s "$probe/stripped.so")
  if [ "$bytes" -le $((FOOTPRINT_KB * 1024)) ]; then
    pass "stripped_at_most_${FOOTPRINT_KB}_KB ($bytes bytes)"
  else
    fail "stripped_at_most_${FOOTPRINT_KB}_KB" "$bytes bytes"
  fi
fi
printf '#include "%s"\nint main(void) { return 0; }\n' "$(basename "$header")" > "$probe/c.c"
cp "$probe/c.c" "$probe/cxx.cpp"
if out=$(cc -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -c "$probe/c.c" -o "$probe/c.o" 2>&1); then
  pass header_compiles_as_c99
else
  fail header_compiles_as_c99 "$out"
fi
if out=$(c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c "$probe/cxx.cpp" -o "$probe/cxx.o" 2>&1); then
  pass header_compiles_as_cxx
else
  fail header_compiles_as_cxx "$out"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
