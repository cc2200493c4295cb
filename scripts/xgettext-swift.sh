#!/usr/bin/env bash
# po/tocsin.pot's messages from the Swift sources of po/POTFILES, into $1.
# xgettext has no Swift lexer; its C one reads `tr("…")` calls well but
# not Swift's multi-line strings ("""…""", the commands' help texts): each
# is blanked first (its lines kept, so locations stay right), in a copy of
# the files at the same paths.
set -euo pipefail
cd "$(dirname "$0")/.."
output=$(realpath -m "$1")
version=$(sed -n 's/^#define TOCSIN_VERSION_STRING "\(.*\)"/\1/p' include/tocsin.h)
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
python3 - "$copy" <<'PY'
import os, re, sys
for path in open("po/POTFILES").read().split():
    text = open(path, encoding="utf-8").read()
    text = re.sub(r'"""(.*?)"""', lambda match: '""' + "\n" * match.group(1).count("\n"), text, flags=re.S)
    os.makedirs(os.path.join(sys.argv[1], os.path.dirname(path)), exist_ok=True)
    open(os.path.join(sys.argv[1], path), "w", encoding="utf-8").write(text)
PY
cp po/POTFILES "$copy/POTFILES"
cd "$copy"
xgettext --language=C --from-code=UTF-8 --keyword= --keyword=tr --keyword=trn:1,2 --add-comments=TRANSLATORS: \
  --add-location=file --package-name=tocsin --package-version="$version" --sort-by-file -f POTFILES -o "$output"
