#!/usr/bin/env bash
# Mends the manual page swift-argument-parser's generate-manual writes:
# blank lines inside the command's discussion (mdoc warns "Empty input
# line") become a zero-width escape, and the generic EXIT STATUS ("0 on
# success, >0 if an error occurs") becomes the command's real statuses, as
# its --help gives them.
# Usage: scripts/fix-manual.sh PAGE.1
set -euo pipefail
page=$1
awk '
  /^\.Ex -std$/ {
    print ".Bl -tag -width 8n"
    print ".It 0"; print "Finished."
    print ".It 1"; print "Anything else that went wrong; one line on standard error says what."
    print ".It 2"; print "Bad usage (one line on standard error)."
    print ".It 130"; print "Cancelled by the user (q, Esc, Ctrl-C)."
    print ".It 143, 129"; print "Ended by SIGTERM or SIGHUP (logout, shutdown, a closed terminal): with"
    print ".Fl -state"; print "the timers run on in the file and"
    print ".Ic tocsin resume"; print "carries them on; without, they are cancelled."
    print ".El"
    next
  }
  /^$/ { print "\\&"; next }
  { print }
' "$page" > "$page.fixed"
mv "$page.fixed" "$page"
