#!/usr/bin/env bash
# What `make install` prints at its end: where things went and, for a prefix
# the system does not search, the lines that make it usable (the command on
# PATH, the libraries for the linker and pkg-config, the timer service for
# the session bus).
#   scripts/after-install.sh PREFIX LIBDIR
set -euo pipefail
prefix=$1 libdir=$2
echo "install: Tocsin is in $prefix (the command, libraries, headers, service files, manual, completions)"
searched() { case ":$2:" in *":$1:"*) return 0 ;; esac; return 1; }
case "$prefix" in
  /usr|/usr/local) ;;
  *)
    echo "install: $prefix is a prefix of your own; to use it:"
    searched "$prefix/bin" "${PATH:-}" || echo "  export PATH=\"$prefix/bin:\$PATH\"                # the tocsin command"
    echo "  export PKG_CONFIG_PATH=\"$libdir/pkgconfig:\${PKG_CONFIG_PATH:-}\"   # cc ... \$(pkg-config --cflags --libs tocsin)"
    echo "  export LD_LIBRARY_PATH=\"$libdir:\${LD_LIBRARY_PATH:-}\"   # (or link with -Wl,-rpath,$libdir)"
    echo "  $prefix/bin/tocsin service --enable   # lets your session's bus start the timer service (-b, ls)"
    echo "  make uninstall PREFIX=$prefix         # removes it again (tocsin service --disable first)"
    ;;
esac
