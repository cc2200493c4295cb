#!/usr/bin/env bash
# dunst's "dmenu" in test sessions: dunst writes the notification's actions,
# one per line, to standard input; this prints the one whose text contains
# the label in $TOCSIN_SESSION/want-action, as if a person chose it.
want=$(cat "${TOCSIN_SESSION:?}/want-action" 2>/dev/null)
tee -a "$TOCSIN_SESSION/menu.log" | grep -m1 -F -- "$want"
