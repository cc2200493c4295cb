"""Times of day as the user's locale writes them (LC_TIME), where a person
reads them: a 12-hour clock in en_US, a 24-hour one in de_DE and C. The
locales are made by scripts/install-deps.sh."""

import json
import os
import re
import subprocess

from conftest import TOCSIN


def tocsin(*arguments, lang):
    clean = {name: value for name, value in os.environ.items() if not name.startswith("LC_") and name != "LANGUAGE"}
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=30, env={**clean, "LANG": lang})


def test_a_background_timers_end_is_said_as_the_locale_writes_times():
    # (After 23:35 they end tomorrow, said with the date.)
    us = tocsin("25m", "Tea", "-b", "--quiet", lang="en_US.UTF-8")
    assert us.returncode == 0 and re.fullmatch(
        r"Tea: id \d+, ends (at ([1-9]|1[0-2]):\d\d:\d\d|\S+ \d{4}-\d\d-\d\d ([1-9]|1[0-2]):\d\d) [AP]M\n", us.stdout), us
    de = tocsin("25m", "Tee", "-b", "--quiet", lang="de_DE.UTF-8")
    assert re.fullmatch(r"Tee: ID \d+, endet (um ([01]\d|2[0-3]):\d\d:\d\d|am \S+ \d{4}-\d\d-\d\d ([01]\d|2[0-3]):\d\d)\n",
                        de.stdout), de
    c = tocsin("25m", "Tea", "-b", "--quiet", lang="C")
    assert re.fullmatch(r"Tea: id \d+, ends (at ([01]\d|2[0-3]):\d\d:\d\d|\S+ \d{4}-\d\d-\d\d ([01]\d|2[0-3]):\d\d)\n",
                        c.stdout), c


def test_ls_and_its_errors_speak_the_users_language_and_json_stays_english():
    assert tocsin("25m", "Tee", "-b", "--quiet", lang="C").returncode == 0
    assert tocsin("10m", "Reis", "-b", "--quiet", lang="C").returncode == 0
    assert tocsin("pause", "Reis", lang="C").returncode == 0
    german = tocsin("ls", lang="de_DE.UTF-8")
    assert german.returncode == 0, german
    lines = {line.split()[1]: line for line in german.stdout.splitlines()}
    assert re.search(r"  läuft +noch 2[45]:\d\d$", lines["Tee"]) and lines["Reis"].endswith("  pausiert   noch 10:00"), german.stdout
    assert lines["Tee"].index("noch") == lines["Reis"].index("noch")  # in columns
    spanish = tocsin("ls", lang="es_ES.UTF-8").stdout
    assert re.search(r"Reis +en pausa +quedan 10:00$", spanish, re.M), spanish
    # What programs read stays English.
    listed = [json.loads(line) for line in tocsin("ls", "--json", lang="de_DE.UTF-8").stdout.splitlines()]
    assert {timer["label"]: timer["state"] for timer in listed} == {"Tee": "running", "Reis": "suspended"}
    missing = tocsin("pause", "Suppe", lang="fr_FR.UTF-8")
    assert missing.returncode == 1 and "aucun minuteur Suppe (tocsin ls les liste)" in missing.stderr, missing
    # A skipped calendar alarm: the weekday and the time as the locale writes them.
    assert tocsin("every", "*-*-* 07:00 UTC", "Wecker", "-b", lang="C").returncode == 0
    assert tocsin("skip", "Wecker", lang="C").returncode == 0
    (line,) = [line for line in tocsin("ls", lang="de_DE.UTF-8").stdout.splitlines() if "Wecker" in line]
    assert re.search(r", nächster (Mo|Di|Mi|Do|Fr|Sa|So) \d{4}-\d\d-\d\d \d\d:\d\d, übersprungen bis (Mo|Di|Mi|Do|Fr|Sa|So) ", line), line
    (line,) = [line for line in tocsin("ls", lang="en_US.UTF-8").stdout.splitlines() if "Wecker" in line]
    assert re.search(r", next (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d{1,2}:\d\d [AP]M, skipped until ", line), line
    for label in ("Tee", "Reis", "Wecker"):
        tocsin("rm", label, lang="C")


def test_the_services_refusals_are_in_its_sessions_language():
    """A refused call's message (which the command prints as it is) is
    written in the service's language, the session's; the error's name
    stays the same."""
    from servicebus import activation_environment, stop_service

    stop_service()
    activation_environment(LANG="de_DE.UTF-8", LANGUAGE="")
    try:
        assert tocsin("10m", "Reis", "-b", "--quiet", lang="C").returncode == 0
        assert tocsin("pause", "Reis", lang="C").returncode == 0
        again = tocsin("pause", "Reis", lang="C")
        assert again.returncode != 0 and "Reis ist schon pausiert" in again.stderr, again
        adjust = tocsin("adjust", "Reis", "-20m", lang="C")
        assert "Reis hat noch 10:00; -20m beendete ihn vor jetzt: cancel verwenden oder -9m59s" in adjust.stderr, adjust
        tocsin("rm", "Reis", lang="C")
    finally:
        stop_service()
        activation_environment(LANG=os.environ.get("LANG", "C.UTF-8"))
