"""The command in the user's language (po/): its human lines translated,
what scripts read (JSON) not, a language without a translation in English
without an error. The locales are made by scripts/install-deps.sh."""

import json
import os
import subprocess

import pytest

TOCSIN = os.environ.get("TOCSIN_BIN", "")
if not TOCSIN:
    pytest.skip("run through `make test-cli`", allow_module_level=True)


def run(*arguments, **environment):
    clean = {name: value for name, value in os.environ.items() if not name.startswith("LC_") and name != "LANGUAGE"}
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=30,
                          env={**clean, **environment}, stdin=subprocess.DEVNULL)


def installed(locale):
    return locale.lower().replace("utf-8", "utf8") in subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.lower()


@pytest.mark.parametrize("lang, line", [
    ("de_DE.UTF-8", "Tee: abgelaufen nach 00:01\n"),
    ("fr_FR.UTF-8", "Tee : terminé après 00:01\n"),
    ("es_ES.UTF-8", "Tee: terminado tras 00:01\n"),
])
def test_the_final_line_is_in_the_users_language(lang, line):
    if not installed(lang):
        pytest.fail(f"the locale {lang} is missing: scripts/install-deps.sh makes it")
    result = run("1s", "Tee", "--quiet", LANG=lang)
    assert (result.returncode, result.stdout, result.stderr) == (0, line, "")


def test_languages_follow_gettexts_order_and_json_stays_english():
    # LANGUAGE first (a list), then LC_ALL, LC_MESSAGES, LANG.
    assert run("1s", "Tee", "--quiet", LANG="de_DE.UTF-8", LANGUAGE="it:es").stdout == "Tee: terminado tras 00:01\n"
    assert run("1s", "Tee", "--quiet", LANG="de_DE.UTF-8", LC_MESSAGES="fr_FR.UTF-8").stdout == "Tee : terminé après 00:01\n"
    assert run("1s", "Tee", "--quiet", LANG="fr_FR.UTF-8", LC_ALL="de_DE.UTF-8").stdout == "Tee: abgelaufen nach 00:01\n"
    events = [json.loads(line) for line in run("1s", "Tee", "--json", "--quiet", LANG="de_DE.UTF-8").stdout.splitlines()]
    (finish,) = [event for event in events if event["event"] == "finish"]
    assert (finish["label"], finish["state"], finish["elapsed"]) == ("Tee", "finished", 1.0)
    # Numbers stay as C writes them in every locale (a German one has a decimal comma).
    assert run("1.5s", "Tee", "--quiet", LANG="de_DE.UTF-8").stdout == "Tee: abgelaufen nach 00:01.5\n"


def test_the_command_found_through_path_finds_its_translations(tmp_path):
    """The translations are found beside the program (PREFIX/bin and
    PREFIX/share/locale) however it was started: found through PATH its
    argv[0] is a bare "tocsin", which once made it fall back to
    /usr/share/locale and speak English (issue 58)."""
    bin_folder = os.path.dirname(TOCSIN)
    clean = {name: value for name, value in os.environ.items()
             if not name.startswith("LC_") and name not in ("LANGUAGE", "TOCSIN_LOCALEDIR")}
    result = subprocess.run(["tocsin", "1s", "Tee", "--quiet"], capture_output=True, text=True, timeout=30, cwd=tmp_path,
                            env={**clean, "PATH": bin_folder + os.pathsep + clean.get("PATH", ""), "LANG": "de_DE.UTF-8"},
                            stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stdout) == (0, "Tee: abgelaufen nach 00:01\n"), result


def test_a_language_without_a_translation_is_english_without_an_error():
    result = run("1s", "Tè", "--quiet", LANG="it_IT.UTF-8")  # neither translated nor (here) a locale
    assert (result.returncode, result.stdout, result.stderr) == (0, "Tè: finished after 00:01\n", "")


def test_doctor_says_where_the_translations_are_and_which_language_it_speaks():
    folder = os.path.join(os.path.dirname(os.path.dirname(TOCSIN)), "share", "locale")  # beside bin/, as make builds it
    lines = run("doctor", LANG="fr_FR.UTF-8").stdout.splitlines()
    assert f"translations: {os.path.realpath(folder)} (de, es, fr); messages in français" in lines, lines
    assert "messages in English" in run("doctor", LANG="C.UTF-8").stdout


def test_a_specs_coming_rings_name_their_weekday_in_the_users_language():
    """Days in the spec's zone, systemd's form with the locale's weekday and
    days; JSON keeps systemd's English weekday (a program reads it)."""
    spec = ["2030-01-07 07:00 UTC"]  # a Monday, years away
    german = run("next", *spec, LANG="de_DE.UTF-8").stdout.splitlines()
    assert german[1].startswith("Mo 2030-01-07 07:00:00 +00:00  in ") and "T " in german[1], german
    french = run("next", *spec, LANG="fr_FR.UTF-8").stdout.splitlines()
    assert french[1].startswith("lun. 2030-01-07 07:00:00 +00:00  dans ") and "j " in french[1], french
    english = run("next", *spec, LANG="C.UTF-8").stdout.splitlines()
    assert english[1].startswith("Mon 2030-01-07 07:00:00 +00:00  in ") and "d " in english[1], english
    assert json.loads(run("next", *spec, "--json", LANG="de_DE.UTF-8").stdout)["local"] == "Mon 2030-01-07 07:00:00 +00:00"


def test_mistakes_are_explained_in_the_users_language():
    """Errors a person makes on the command line, in German, French and
    Spanish: the usage error of a time, of an option's value, of an option
    that does not go with another; the exit status stays the same."""
    not_a_time = run("25x", "Tee", LANG="de_DE.UTF-8")
    assert not_a_time.returncode == 2 and "'25x' ist keine Zeit: bitte Sekunden (90), Einheiten" in not_a_time.stderr, not_a_time
    ambiguous = run("5:00", LANG="fr_FR.UTF-8")
    assert ambiguous.returncode == 2 and ("'5:00' peut être 5 min ou l'heure 05:00 : écrivez 5m (ou 0:05:00) pour la durée, "
                                           "until 5:00 pour l'heure") in ambiguous.stderr, ambiguous
    warn = run("5m", "--warn", "25h", LANG="es_ES.UTF-8")
    assert warn.returncode == 2 and "--warn admite una duración de un día como máximo (30s, 1m)" in warn.stderr, warn
    negative = run("-5s", LANG="de_DE.UTF-8")
    assert negative.returncode == 2 and "-5s: eine Zeit kann nicht negativ sein" in negative.stderr, negative
    english = run("25x", "Tea", LANG="C.UTF-8")
    assert english.returncode == 2 and "'25x' is not a time: give seconds (90)" in english.stderr, english


@pytest.mark.parametrize("lang, length", [
    ("es_ES.UTF-8", "'12:30' puede ser 12 min y 30 s o la hora 12:30"),
    ("de_DE.UTF-8", "'12:30' kann 12 Min. 30 Sek. oder die Uhrzeit 12:30 sein"),
])
def test_a_length_of_two_units_is_translated_as_one_phrase(lang, length):
    """"12 min 30 s" is one message, not "12 min" and "30 s" joined with a
    space: Spanish joins the units with "y"."""
    result = run("12:30", "Tee", LANG=lang)
    assert result.returncode == 2 and length in result.stderr, result


def test_the_live_line_is_in_the_users_language():
    """In a terminal: the countdown's live line says its state in German,
    and pausing it (space) says so."""
    import pexpect

    environment = {name: value for name, value in os.environ.items() if not name.startswith("LC_") and name != "LANGUAGE"}
    child = pexpect.spawn(TOCSIN, ["30s", "Tee", "--quiet"], dimensions=(24, 80), encoding="utf-8", timeout=15,
                          env={**environment, "LANG": "de_DE.UTF-8"})
    try:
        child.expect("läuft")
        child.send(" ")
        child.expect("pausiert")
        child.send("q")
        child.expect(r"Tee: abgebrochen, 00:\d\d waren übrig")
    finally:
        child.close(force=True)
