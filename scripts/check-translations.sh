#!/usr/bin/env bash
# The translations are whole and current (make check): po/tocsin.pot is what
# `make pot` makes from the sources now; po/POTFILES names exactly the source
# files that translate (call tr or trn); every language of po/LINGUAS passes
# msgfmt --check, has every message of the .pot translated (none fuzzy, none
# missing), and keeps each message's {values}.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v xgettext >/dev/null || ! command -v msgfmt >/dev/null; then
  echo "check-translations: needs gettext (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
status=0
translating=$(grep -rlE '\btrn?\("' Sources --include='*.swift' | sort)
if [ "$translating" != "$(sort po/POTFILES)" ]; then
  echo "check-translations: po/POTFILES must list the files that call tr/trn:" >&2
  diff <(sort po/POTFILES) <(echo "$translating") >&2 || true
  status=1
fi
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
scripts/xgettext-swift.sh "$fresh"
if ! diff <(grep -v '^"POT-Creation-Date' po/tocsin.pot) <(grep -v '^"POT-Creation-Date' "$fresh") >/dev/null; then
  echo "check-translations: po/tocsin.pot is out of date: run make pot (it also merges the .po files), then translate" >&2
  diff <(grep -v '^"POT-Creation-Date' po/tocsin.pot) <(grep -v '^"POT-Creation-Date' "$fresh") | head -20 >&2 || true
  status=1
fi
for lang in $(cat po/LINGUAS); do
  statistics=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "po/$lang.po" 2>&1) || { echo "po/$lang.po: $statistics" >&2; status=1; continue; }
  if ! msgcmp "po/$lang.po" po/tocsin.pot 2>/dev/null || [[ "$statistics" == *fuzzy* || "$statistics" == *untranslated* ]]; then
    echo "check-translations: po/$lang.po is not complete against po/tocsin.pot ($statistics): make pot, then translate" >&2
    status=1
  fi
done
# Each translation keeps its message's {values}, no more and no fewer.
python3 - "$(cat po/LINGUAS)" <<'PY' || status=1
import re, sys
def entries(path):
    text, found, key, current = open(path, encoding="utf-8").read(), [], None, {}
    for line in text.splitlines() + [""]:
        match = re.match(r'^(msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$', line)
        if match:
            key = match.group(1)
            current[key] = current.get(key, "") + bytes(match.group(2), "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
        elif line.startswith('"') and key:
            current[key] += bytes(line[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
        elif not line.strip():
            if current.get("msgid"):
                found.append(current)
            current, key = {}, None
    return found
bad = False
values = lambda text: set(re.findall(r"[{][a-z]+[}]", text))
for lang in sys.argv[1].split():
    for entry in entries(f"po/{lang}.po"):
        plural = "msgid_plural" in entry
        want = values(entry["msgid"] + entry.get("msgid_plural", ""))
        for name, text in entry.items():
            if not name.startswith("msgstr") or not text:
                continue
            have = values(text)
            # (A plural's form may leave out its {count}: "one more timer".)
            if not have <= want or not (want - ({"{count}"} if plural else set())) <= have:
                print(f"check-translations: po/{lang}.po: {entry['msgid']!r}: {name} has {sorted(have)},"
                      f" the message {sorted(want)}", file=sys.stderr)
                bad = True
sys.exit(1 if bad else 0)
PY
[ $status -eq 0 ] && echo "check-translations: po/tocsin.pot current, $(wc -w < po/LINGUAS) languages complete"
exit $status
