#!/usr/bin/env bash
# The Rust crates (bindings/rust: tocsin-sys, tocsin) against the freshly
# built library (make test-rust; out/CONFIG/lib):
#   tocsin-sys against the contract's manifest (scripts/check-rust-contract.py:
#   bindings/contract/abi.json), cargo fmt --check, cargo clippy -D
#   warnings, cargo test (unit, integration and doc tests of both crates,
#   every feature: notify, tokio; tocsin/tests/scenarios.rs runs the
#   contract's scenarios through the safe crate, one count per file),
#   a build without features (std only), cargo doc with -D warnings,
#   cargo package --list; valgrind memcheck of examples/drop_armed.rs
#   (engines dropped with armed timers and closures: no leak of the
#   binding's); examples/threads.rs under ThreadSanitizer (nightly, against
#   the TSan-built libtocsin of make instrumented-libs, when both are there).
# There is no crates.io here: tokio comes from Debian's librust-tokio-dev (a
# directory source under /usr/share/cargo/registry), through a source
# replacement written into a throw-away CARGO_HOME, never into the tree.
# Ends with "rust: N passed, N failed" (scripts/test.sh totals it): each
# cargo test counts as its tests, every other check as one.
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(readlink -f "${1:-out/debug/lib}")
registry=${TOCSIN_CARGO_REGISTRY:-/usr/share/cargo/registry}
[ -e "$lib/libtocsin.so" ] || { echo "test-rust: no $lib/libtocsin.so (make lib)"; echo "rust: 0 passed, 1 failed"; exit 1; }
command -v cargo > /dev/null || { echo "test-rust: no cargo (rustup's, or Debian's cargo)"; echo "rust: 0 passed, 1 failed"; exit 1; }
ls -d "$registry"/tokio-1.* > /dev/null 2>&1 ||
  { echo "test-rust: no tokio in $registry (scripts/install-deps.sh installs librust-tokio-dev)"; echo "rust: 0 passed, 1 failed"; exit 1; }

cargo_home=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$cargo_home" "$work"' EXIT
cat > "$cargo_home/config.toml" <<TOML
# Written by scripts/test-rust.sh for one run: crates from Debian's packages.
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$registry"
[net]
offline = true
TOML
# rustup's proxies find their toolchains through RUSTUP_HOME, which follows
# CARGO_HOME's default unless set.
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
export CARGO_HOME=$cargo_home TOCSIN_LIB_DIR=$lib LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CARGO_TERM_COLOR=never
cd bindings/rust
passed=0 failed=0
check() {  # check NAME COMMAND...: one check, its output kept in $work/NAME.log
  local name=$1; shift
  if "$@" > "$work/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "test-rust: $name: ok"
  else
    failed=$((failed + 1)); echo "test-rust: $name: FAILED"; tail -40 "$work/$name.log"
  fi
}

check fmt cargo fmt --all --check -- --color never
check contract python3 ../../scripts/check-rust-contract.py
check clippy cargo clippy --offline --workspace --all-features --all-targets -- -D warnings
check std-only cargo build --offline -p tocsin --no-default-features
# The tests: count cargo's own "test result" lines.
cargo test --offline --workspace --all-features > "$work/test.log" 2>&1
status=$?
read -r tests_passed tests_failed < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$work/test.log")
passed=$((passed + tests_passed)); failed=$((failed + tests_failed))
if [ "$status" -ne 0 ]; then
  [ "$tests_failed" -gt 0 ] || failed=$((failed + 1))  # it did not build
  grep -E "^(error|test .* FAILED|---- |FAIL )" -A12 "$work/test.log" | tail -60
fi
echo "test-rust: cargo test: $tests_passed passed, $tests_failed failed (unit, integration and doc tests)"
check doc env RUSTDOCFLAGS="-D warnings" cargo doc --offline --workspace --all-features --no-deps
# The README's section as written: its rust blocks are the crate README's
# (run above as doc tests); a project depending on the crate by path builds
# and runs as its toml and sh blocks say.
check readme python3 ../../scripts/check-rust-readme.py
check package bash -c 'cargo package --list --offline --allow-dirty -p tocsin > "$0/list" && grep -qx src/lib.rs "$0/list" && ! grep -q "^target/" "$0/list"' "$work"

# The minimum Rust version (rust-version = 1.63) with Debian 12's own
# rustc and cargo (/usr/bin, beside rustup's): both crates' libraries with
# the notify feature, from a copy (its cargo cannot read the newer
# Cargo.lock). The tokio feature's 1.63 build takes a minute more: run
# scripts/test-rust.sh with TOCSIN_RUST_MSRV_ALL=1 for it and the tests.
if [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] && /usr/bin/rustc --version | grep -q '^rustc 1\.63\.'; then
  mkdir -p "$work/msrv" && cp -r Cargo.toml tocsin tocsin-sys "$work/msrv/"
  if [ "${TOCSIN_RUST_MSRV_ALL:-0}" = 1 ]; then
    check msrv-1.63 env RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc TOCSIN_SCENARIOS="$PWD/../contract/scenarios" \
      /usr/bin/cargo test --offline --all-features \
      --manifest-path "$work/msrv/Cargo.toml" --target-dir target/msrv
  else
    check msrv-1.63 env RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline -p tocsin --features notify \
      --manifest-path "$work/msrv/Cargo.toml" --target-dir target/msrv
  fi
else
  echo "test-rust: msrv-1.63: skipped (no Debian rustc 1.63 in /usr/bin: apt install rustc cargo)"
fi

# Memcheck: the library copy stripped (valgrind cannot read the Embedded
# library's debug info, as bench/instructions.sh says).
if command -v valgrind > /dev/null; then
  mkdir -p "$work/lib" && cp -L "$lib/libtocsin.so.0" "$work/lib/" && strip "$work/lib/libtocsin.so.0"
  cargo build --offline -p tocsin --example drop_armed > "$work/drop.log" 2>&1
  # valgrind.supp: the standard library's main-thread handle, nothing else.
  check valgrind env LD_LIBRARY_PATH="$work/lib" valgrind -q --suppressions=valgrind.supp \
    --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=1 target/debug/examples/drop_armed
else
  failed=$((failed + 1)); echo "test-rust: valgrind: not installed (scripts/install-deps.sh)"
fi

# ThreadSanitizer: the crate built by nightly with -Zsanitizer=thread (std
# stays uninstrumented: there is no rust-src for -Zbuild-std here), against
# libtocsin built with TSan (make instrumented-libs), whose locks TSan must
# see. Skipped, and said, when either is missing.
tsan_lib=$(readlink -f ../../out/thread/lib)
if ! rustup run nightly rustc --version > /dev/null 2>&1; then
  echo "test-rust: thread sanitizer: skipped (no nightly toolchain)"
elif [ ! -e "$tsan_lib/libtocsin.so.0" ]; then
  echo "test-rust: thread sanitizer: skipped (no out/thread/lib/libtocsin.so.0: make instrumented-libs)"
else
  target=$(rustc -vV | sed -n 's/^host: //p')
  flags="-Zsanitizer=thread -Cunsafe-allow-abi-mismatch=sanitizer --cfg tocsin_tsan"
  check tsan-build env RUSTFLAGS="$flags" cargo +nightly build --offline -p tocsin --lib --target "$target" --target-dir target/tsan
  # -rdynamic: the instrumented library calls the TSan runtime linked into
  # the program (clang's -fsanitize=thread exports it the same way).
  check tsan-link rustup run nightly rustc --edition 2021 $flags -g --target "$target" -C link-arg=-rdynamic \
    -L "dependency=target/tsan/$target/debug/deps" -L "native=$lib" \
    --extern "tocsin=target/tsan/$target/debug/libtocsin.rlib" tocsin/examples/threads.rs -o target/tsan/threads
  check tsan env LD_LIBRARY_PATH="$tsan_lib" TSAN_OPTIONS=halt_on_error=1:exitcode=66 target/tsan/threads
fi
echo "rust: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
