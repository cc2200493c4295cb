#!/usr/bin/env bash
# Builds the Swift API's documentation (the DocC catalog
# Sources/Tocsin/Tocsin.docc with the Tocsin module's public symbols) into
# out/docs/Tocsin.doccarchive, with every warning an error: a link to a
# symbol that does not exist (or no longer does) fails the build. Uses the
# toolchain's docc directly, so a package that depends on Tocsin does not
# fetch swift-docc-plugin. Run from a built tree (make test-swift builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=out/docs/symbol-graphs
rm -rf out/docs && mkdir -p "$graphs"
swift package dump-symbol-graph --minimum-access-level public > out/docs/dump.log 2>&1 || { cat out/docs/dump.log; exit 1; }
dumped=$(sed -n 's/^Files written to //p' out/docs/dump.log)
# Only the Tocsin module's graphs (and its extensions of other modules'
# types): DocC documents one module per archive.
cp "$dumped"/Tocsin.symbols.json "$dumped"/Tocsin@*.symbols.json "$graphs"/
docc convert Sources/Tocsin/Tocsin.docc --additional-symbol-graph-dir "$graphs" \
  --output-path out/docs/Tocsin.doccarchive --warnings-as-errors \
  --fallback-display-name Tocsin --fallback-bundle-identifier dev.tocsin.Tocsin > out/docs/docc.log 2>&1 \
  || { cat out/docs/docc.log; echo "build-docs: docc failed"; exit 1; }
pages=$(find out/docs/Tocsin.doccarchive/data/documentation -name '*.json' | wc -l)
echo "build-docs: out/docs/Tocsin.doccarchive, $pages pages, no warning"
