"""Tocsin in the user's language on the desktop (po/): what reaches the
notification server, read from the bus. The timer service's alarm in
German, its live notifications in French; libtocsin-notify.so inside a
program with its own text domain translates its own texts and leaves the
program's alone. The locales are made by scripts/install-deps.sh."""

import os
import re
import subprocess
import time

import pytest

from usermanager import UserManager
from servicebus import activation_environment, add, call, service_pid, stop_service, timers, wait_until

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)

OUT = os.path.dirname(os.path.dirname(os.environ["TOCSIN_LIBRARY"]))


@pytest.fixture
def service_in(tmp_path):
    """Starts the service in a language: the activation environment's LANG."""
    stop_service()
    yield lambda lang: activation_environment(XDG_STATE_HOME=tmp_path / "state", LANG=lang, LANGUAGE="",
                                              TOCSIN_SERVICE_IDLE_EXIT=60, TOCSIN_SERVICE_GRACE=3600)
    stop_service()
    activation_environment(LANG=os.environ.get("LANG", "C.UTF-8"))


def test_the_services_alarm_is_in_german(service_in, notifications):
    service_in("de_DE.UTF-8")
    add("Tee", 0.5, live=("b", False), sound=("b", False), snooze=("d", 300))
    (alert,) = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Tee"], what="the alarm")
    assert alert["body"] == "Die Zeit ist um", alert
    assert alert["actions"] == ["stop", "Stopp", "restart", "Neu starten", "snooze", "Schlummern 5 Min."], alert


def test_the_services_live_notifications_are_in_french(service_in, notifications):
    service_in("fr_FR.UTF-8")
    for label in ["Riz", "Œufs", "Thé", "Pâtes"]:  # one more than the three shown on their own
        add(label, 600, sound=("b", False))
    summary = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "1 autre minuteur"],
                         what="the summary of the fourth")[-1]
    assert re.fullmatch(r"\S+ \d+:\d\d", summary["body"]), summary
    live = [c for c in notifications.calls() if c["summary"] == "Riz"][-1]
    assert re.fullmatch(r"reste \d+:\d\d", live["body"]) and live["actions"] == [
        "pause", "Pause", "snooze", "+1 min", "cancel", "Annuler"], live
    call("Pause", "t", next(id for id, timer in timers().items() if timer["label"] == "Riz"))
    # Paused, it is ranked last: it goes to the summary, which says so.
    wait_until(lambda: any(c["summary"] == "1 autre minuteur" and re.fullmatch(r"Riz \d+:\d\d en pause", c["body"])
                           for c in notifications.calls()), what="the paused timer in the summary")


def systemctl_set_environment(*assignments):
    subprocess.run(["busctl", "--user", "call", "org.freedesktop.systemd1", UserManager.PATH, UserManager.MANAGER,
                    "SetEnvironment", "as", str(len(assignments)), *assignments], check=True, timeout=10)


def test_the_service_follows_the_user_managers_locale_once_it_is_set(service_in, notifications):
    """systemd #42960: the service started before the session's LANG reached
    the user manager; the alarms after it did are in the session's language,
    without a restart; LANGUAGE picks among the languages Tocsin speaks."""
    manager = UserManager(["PATH=/usr/bin:/bin", "HOME=/root"])
    try:
        service_in("C.UTF-8")

        def alarm(label):
            add(label, 0.3, live=("b", False), sound=("b", False))
            return wait_until(lambda: [c for c in notifications.calls() if c["summary"] == label], what=label)[0]

        english = alarm("Tea")
        pid = service_pid()
        assert english["body"] == "Time is up" and english["actions"][:4] == ["stop", "Stop", "restart", "Restart"]
        systemctl_set_environment("LANG=de_DE.UTF-8")
        german = alarm("Tee")
        assert german["body"] == "Die Zeit ist um" and german["actions"][:4] == ["stop", "Stopp", "restart", "Neu starten"]
        systemctl_set_environment("LANGUAGE=it:fr:de")  # no Italian: French
        french = alarm("Thé")
        assert french["body"] == "Le temps est écoulé" and french["actions"][:4] == ["stop", "Arrêter", "restart", "Relancer"]
        assert service_pid() == pid  # the same service all along
    finally:
        manager.close()


def test_a_notice_no_event_comes_before_is_in_the_language_of_its_moment(service_in, notifications):
    """A notice is shown at a time of its own, with no timer event before it:
    the service reads the user manager's locale a second before it is due,
    so the session's language set after the alarm was added is the notice's."""
    manager = UserManager(["PATH=/usr/bin:/bin", "HOME=/root"])
    try:
        service_in("C.UTF-8")
        ring = int(time.time()) + 16
        add("Weckruf", 0, calendar=("s", f"*:*:{ring % 60:02d} UTC"), live=("b", False), sound=("b", False), notice=("d", 8.0))
        systemctl_set_environment("LANG=de_DE.UTF-8")  # (the notice is due in about 8 s)
        notice = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Weckruf"], timeout=20, what="the notice")[0]
        assert notice["body"].startswith("Klingelt um ") and notice["actions"] == ["skip", "Diesmal auslassen"], notice
        assert notice["time"] >= ring - 8.5, (notice, ring)  # shown when due (the add alone showed nothing)
    finally:
        manager.close()


def playing_descriptions():
    """The event descriptions of the sounds PulseAudio plays now."""
    listed = subprocess.run(["pactl", "list", "sink-inputs"], capture_output=True, text=True, timeout=10).stdout
    return re.findall(r'event\.description = "([^"]*)"', listed)


def test_the_services_alarm_sound_is_described_in_the_sessions_language(service_in):
    """The sound's description (what mixers and screen readers name it) in
    the session's language, set after the service started in C: written by
    the notifier, not on the sound thread (which keeps the start locale)."""
    manager = UserManager(["PATH=/usr/bin:/bin", "HOME=/root"])
    try:
        service_in("C.UTF-8")
        systemctl_set_environment("LANG=de_DE.UTF-8")
        add("Tee", 0.3, live=("b", False), ring=("d", 5.0))
        assert wait_until(playing_descriptions, timeout=15, what="the alarm's sound") == ["Timer abgelaufen"]
    finally:
        manager.close()


HOST = r"""
#include <libintl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <tocsin.h>
#include <tocsin_notify.h>

/* A program with its own text domain, as GNOME applications have. */
int main(int argc, char **argv) {
    setlocale(LC_ALL, "");
    bindtextdomain("hostapp", argv[1]);
    textdomain("hostapp");
    tocsin_engine *engine;
    tocsin_notifier *notifier;
    tocsin_timer timer;
    if (tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine) || tocsin_notify_new(0, &notifier) ||
        tocsin_countdown_new(engine, 0.3, &timer))
        return 1;
    tocsin_timer_set_label(engine, timer, "Tee");
    tocsin_alert alert = TOCSIN_ALERT_INIT;
    alert.flags |= TOCSIN_ALERT_NO_SOUND;
    if (tocsin_notify_attach(notifier, engine, timer, &alert)) return 1;
    tocsin_timer_start(engine, timer);
    while (tocsin_timer_state(engine, timer) != TOCSIN_FINISHED) {
        struct timespec step = {0, 20000000};
        nanosleep(&step, NULL);
    }
    tocsin_notify_flush(notifier, 5);
    printf("%s|%s\n", textdomain(NULL), gettext("Hello"));
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
    return 0;
}
"""


def test_a_program_with_its_own_text_domain_keeps_it(tmp_path, notifications):
    (tmp_path / "host.c").write_text(HOST)
    folder = tmp_path / "locale/de/LC_MESSAGES"
    folder.mkdir(parents=True)
    (tmp_path / "hostapp.po").write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                                         'msgid "Hello"\nmsgstr "Hallo, Welt"\n')
    subprocess.run(["msgfmt", "-o", str(folder / "hostapp.mo"), str(tmp_path / "hostapp.po")], check=True)
    subprocess.run(["cc", "-Wall", "-Werror", str(tmp_path / "host.c"), f"-I{OUT}/include", f"-L{OUT}/lib", "-ltocsin",
                    "-ltocsin-notify", "-o", str(tmp_path / "host")], check=True)
    environment = {**os.environ, "LANG": "de_DE.UTF-8", "LANGUAGE": "", "LD_LIBRARY_PATH": f"{OUT}/lib"}
    done = subprocess.run([str(tmp_path / "host"), str(tmp_path / "locale")], capture_output=True, text=True,
                          env=environment, timeout=60)
    assert (done.returncode, done.stdout) == (0, "hostapp|Hallo, Welt\n"), done
    (alert,) = [c for c in notifications.calls() if c["summary"] == "Tee"]
    assert alert["body"] == "Die Zeit ist um" and "Stopp" in alert["actions"], alert
