"""The notifier as a person sees and hears it, in a real headless session."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import SESSION, NotifyMonitor, audio_rms, boot_time, red_pixels, screenshot
from servicebus import wait_until

REPORT_SHOWN, REPORT_ALERT_FAILED, REPORT_SOUND, REPORT_SOUND_FAILED, REPORT_ACTION = 1, 2, 3, 4, 5


def reports(lines, kind):
    return [line.split(" ", 5) for line in lines if line.startswith(f"REPORT {kind} ")]


def event_time(line):
    return float(line.split()[3])


def test_finish_shows_the_alert_and_plays_the_sound(run_driver):
    monitor = NotifyMonitor()
    try:
        before = screenshot("before-alert.png")
        driver = run_driver(seconds=1.0, label="Tea", body="Tea is ready", hold=2.0)
        finish = event_time(driver.wait_for("EVENT finish")[0])
        driver.wait_for(f"REPORT {REPORT_SHOWN} ")
        shot = screenshot("alert.png", until_red=True)
        lines = driver.finish()
    finally:
        monitor.close()
    start = float(next(line for line in lines if line.startswith("START")).split()[1])
    assert finish - start >= 1.0 - 1e-6  # FINISH on time, never early

    # What went over D-Bus: app name, summary, body, actions, hints.
    (notify,) = monitor.named("Notify")
    application, _, _, summary, body, actions, hints, _ = notify.args
    assert (application, summary, body) == ("Tocsin", "Tea", "Tea is ready")
    assert {"restart", "Restart", "stop", "snooze", "+1 min"} <= set(actions)
    assert hints["desktop-entry"] == ("s", "tocsin") and hints["category"] == ("s", "x-tocsin.timer")
    assert hints["urgency"] == ("y", 2)  # critical
    assert hints["suppress-sound"] == ("b", True)

    # What a person sees: a red critical alert box appeared top right.
    assert red_pixels(before) < 0.01
    assert red_pixels(shot) > 0.05

    # What a person hears: silence before FINISH, the alarm within a second after.
    assert audio_rms(finish - 0.9, 0.8) < 0.001
    assert audio_rms(finish, 1.0) > 0.01
    assert reports(lines, REPORT_SOUND)[0][5] == "alarm-clock-elapsed"

    # What the server recorded, once the alert is closed.
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    shown = {key: value["data"] for key, value in history["data"][0][0].items()}
    assert (shown["appname"], shown["summary"], shown["body"]) == ("Tocsin", "Tea", "Tea is ready")
    assert shown["category"] == "x-tocsin.timer"
    assert shown["timeout"] == 0  # critical: it never expires by itself


def displayed():
    """How many notifications dunst shows now."""
    return int(subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True, check=True).stdout)


def press(label):
    (SESSION / "want-action").write_text(label)
    subprocess.run(["dunstctl", "context"], check=True, timeout=30)


def test_restart_and_stop_buttons(run_driver):
    driver = run_driver(seconds=1.0, label="Pasta", body="Drain it", repeat=30, hold=6)
    driver.wait_for(f"REPORT {REPORT_SHOWN} ")
    press("Restart")
    driver.wait_for(f"REPORT {REPORT_ACTION} ")
    driver.wait_for("EVENT state 1", count=2)  # running again
    wait_until(lambda: displayed() == 0, what="the restarted timer's alert to be withdrawn")
    finish = event_time(driver.wait_for("EVENT finish", count=2)[1])  # and finishing again a second later
    driver.wait_for(f"REPORT {REPORT_SHOWN} ", count=2)
    assert audio_rms(finish, 1.0) > 0.01  # ringing again (it repeats for up to 30 s)
    press("Stop")
    driver.wait_for(f"REPORT {REPORT_ACTION} ", count=2)
    # From when the notifier has the Stop (its report is out), not from the
    # click: on a loaded machine dunst's action reaches it a while later.
    stopped = boot_time()
    lines = driver.finish()
    assert f"REPORT {REPORT_SOUND} 0" in "\n".join(lines)
    actions = [report[5] for report in reports(lines, REPORT_ACTION)]
    assert actions == ["restart", "stop"]
    assert "FLUSH 0" in lines  # nothing left ringing: the 30 s repeat was silenced
    assert audio_rms(stopped + 0.5, 1.0) < 0.001


def test_stop_from_the_program_silences_the_sound_and_withdraws_the_alert(run_driver):
    """tocsin_notify_stop(), called by the program (no button pressed): the
    30 s repeating sound stops and the alert leaves the screen."""
    driver = run_driver(seconds=1.0, label="Soup", body="Soup is hot", repeat=30, hold=6)
    finish = event_time(driver.wait_for("EVENT finish")[0])
    driver.wait_for(f"REPORT {REPORT_SHOWN} ")
    wait_until(lambda: displayed() == 1, what="the alert on screen")
    assert audio_rms(finish, 1.0) > 0.01
    driver.process.send_signal(signal.SIGUSR1)
    stopped = float(driver.wait_for("STOPPED 0 ")[0].split()[2])
    wait_until(lambda: displayed() == 0, timeout=5, what="the alert withdrawn by tocsin_notify_stop")
    assert audio_rms(stopped + 0.5, 1.0) < 0.001  # the repeat silenced
    lines = driver.finish()
    assert "FLUSH 0" in lines and not reports(lines, REPORT_ACTION)  # no button was pressed


def test_snooze_gives_the_same_timer_one_more_minute(run_driver):
    driver = run_driver(seconds=0.5, label="Eggs", hold=3)
    driver.wait_for(f"REPORT {REPORT_SHOWN} ")
    press("+1 min")
    driver.wait_for(f"REPORT {REPORT_ACTION} ")
    lines = driver.finish()
    (_, _, _, timer, new_timer, detail) = reports(lines, REPORT_ACTION)[0]
    assert detail == "snooze" and new_timer == timer  # the same timer, run again (tocsin_timer_adjust)
    after_finish = lines[next(i for i, line in enumerate(lines) if line.startswith("EVENT finish")):]
    assert any(line.startswith("EVENT state 1") and line.endswith(timer) for line in after_finish), "\n".join(lines)


def test_frozen_notification_server_fails_fast(run_driver):
    # This session's notification server (another session's may run beside it).
    owner = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.Notifications"],
                           capture_output=True, text=True, check=True).stdout
    dunst = [owner.split()[-1]]
    for pid in dunst:
        os.kill(int(pid), signal.SIGSTOP)
    try:
        driver = run_driver(seconds=0.5, hold=2.5)
        finish = event_time(driver.wait_for("EVENT finish")[0])
        failed = driver.wait_for(f"REPORT {REPORT_ALERT_FAILED} ")[0]
        reported = boot_time()
        lines = driver.finish()
    finally:
        for pid in dunst:
            os.kill(int(pid), signal.SIGCONT)
    assert "no notification server" in failed
    assert reported - finish < 2.0  # the 1 s probe, not libnotify's 25 s
    assert reports(lines, REPORT_SOUND)  # the sound still played


def test_outside_any_session_finish_is_on_time_and_errors_are_reported(run_driver):
    env = {key: value for key, value in os.environ.items()
           if key not in ("DBUS_SESSION_BUS_ADDRESS", "PULSE_SERVER", "DISPLAY", "XDG_RUNTIME_DIR")}
    began = time.monotonic()
    driver = run_driver(seconds=1.0, hold=0.5, env=env)
    lines = driver.finish()
    assert time.monotonic() - began < 15  # no 25 s D-Bus time-out on the way
    start = float(next(line for line in lines if line.startswith("START")).split()[1])
    finish = event_time(next(line for line in lines if line.startswith("EVENT finish")))
    assert 1.0 - 1e-6 <= finish - start < 1.5
    assert "no session bus: DBUS_SESSION_BUS_ADDRESS is not set" in reports(lines, REPORT_ALERT_FAILED)[0][5]
    sound = reports(lines, REPORT_SOUND_FAILED) + reports(lines, REPORT_SOUND)
    assert sound and sound[0][2] == "-8"  # TOCSIN_EUNAVAILABLE
    assert driver.stderr.count("no session bus") == 1  # logged once


def test_python_binding_alert_and_diagnosis():
    import tocsin
    import tocsin.notify

    seen = []
    with tocsin.notify.Notifier(quiet=True) as notifier:
        notifier.on_report(seen.append)
        text = notifier.diagnose()
        assert "notification server: dunst" in text and "actions" in text
        assert "sound server: ok" in text
        assert "sound alarm-clock-elapsed: /usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga" in text
        with tocsin.Engine() as engine:
            finished = threading.Event()
            timer = engine.countdown(0.3, label="Rice")
            timer.on_finish(lambda event: finished.set())
            notifier.attach(timer, body="Rice is done", sound="complete")
            timer.start()
            assert finished.wait(10)
            assert notifier.flush(10)
    kinds = {report.kind: report.detail for report in seen}
    assert kinds.get("sound") == "complete"
    assert "dunst" in kinds.get("shown", "")


def test_python_notifier_stop_silences_the_sound_and_withdraws_the_alert():
    import tocsin
    import tocsin.notify

    with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine() as engine:
        finished = threading.Event()
        timer = engine.countdown(0.3, label="Beans")
        timer.on_finish(lambda event: finished.set())
        notifier.attach(timer, body="Beans are done", repeat=30)
        timer.start()
        assert finished.wait(10)
        finish = boot_time()
        wait_until(lambda: displayed() == 1, what="the alert on screen")
        assert audio_rms(finish, 1.0) > 0.01
        notifier.stop(timer)
        stopped = boot_time()
        wait_until(lambda: displayed() == 0, timeout=5, what="the alert withdrawn by Notifier.stop()")
        assert audio_rms(stopped + 0.5, 1.0) < 0.001  # the 30 s repeat silenced
        assert notifier.flush(5)


def test_a_python_alarms_notice_skips_its_ring_or_cancels_a_one_time_alarm():
    """notice= from Python (tocsin_alert.notice_seconds): the notice shows on
    the real server; its Skip this one skips a calendar alarm's coming ring
    (tocsin_calendar_skip) and cancels a one-time alarm."""
    import tocsin
    import tocsin.notify

    monitor = NotifyMonitor()
    try:
        with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine() as engine:
            # Once a minute, its first ring about 15 s away: the notice (30 s
            # before) shows at once and is pressed well before that ring.
            beat = engine.calendar(f"*:*:{(int(time.time()) + 15) % 60:02d} UTC", label="Beat")
            notifier.attach(beat, sound=False, notice=30)
            beat.start()
            coming = beat.alarm_time
            notice = wait_until(lambda: [c for c in monitor.calls() if c["summary"] == "Beat" and c["body"].startswith("Rings at ")],
                                timeout=30, what="Beat's notice")[0]
            assert notice["actions"] == ["skip", "Skip this one"], notice
            press("Skip this one")
            # The ring the notice was for is skipped (the one after it, if a
            # loaded machine let that ring pass before the press arrived).
            skipped_until = wait_until(lambda: beat.skipped_until, what="a ring skipped")
            assert skipped_until in (coming + 60, coming + 120) and beat.alarm_time == skipped_until, (coming, skipped_until)
            assert beat.state == tocsin.State.RUNNING
            notifier.detach(beat)  # its next notice would offer a second Skip this one
            wait_until(lambda: displayed() == 0, what="Beat's notice withdrawn")
            once = engine.alarm(time.time() + 30, label="Once")
            notifier.attach(once, sound=False, notice=60)  # due at once
            once.start()
            wait_until(lambda: [c for c in monitor.calls() if c["summary"] == "Once"], what="Once's notice")
            press("Skip this one")
            wait_until(lambda: once.state == tocsin.State.CANCELED, what="the one-time alarm cancelled")
    finally:
        monitor.close()


def test_notifiers_one_after_another_and_side_by_side_each_get_their_buttons():
    """libnotify is one per process, and its D-Bus proxy delivers every
    button to the thread it was made on: a notifier made after another has
    closed, and one that outlives another made before it, still get their
    buttons (each had none before the notifiers shared one thread)."""
    import tocsin
    import tocsin.notify

    monitor = NotifyMonitor()

    def alert_and_press(notifier, engine, label):
        actions = []
        notifier.on_report(lambda report: actions.append(report.detail) if report.kind == "action" else None)
        timer = engine.countdown(0.2, label=label)
        notifier.attach(timer, sound=False)
        timer.start()
        return timer, actions

    try:
        with tocsin.Engine() as engine:
            with tocsin.notify.Notifier(quiet=True) as first:
                _, actions = alert_and_press(first, engine, "One")
                wait_until(lambda: [c for c in monitor.calls() if c["summary"] == "One"], what="One's alert")
                press("Restart (One)")
                wait_until(lambda: actions, what="One's Restart")
            with tocsin.notify.Notifier(quiet=True) as second, tocsin.notify.Notifier(quiet=True) as third:
                _, second_actions = alert_and_press(second, engine, "Two")
                _, third_actions = alert_and_press(third, engine, "Three")
                wait_until(lambda: {c["summary"] for c in monitor.calls()} >= {"Two", "Three"}, what="Two's and Three's alerts")
                press("Restart (Two)")
                wait_until(lambda: second_actions, what="Two's Restart")
                second.close()
                press("Restart (Three)")
                wait_until(lambda: third_actions, what="Three's Restart, after Two's notifier closed")
    finally:
        monitor.close()


def test_an_unknown_sound_falls_back_and_says_which_played():
    import tocsin
    import tocsin.notify

    seen = []
    with tocsin.notify.Notifier(quiet=True) as notifier:
        notifier.on_report(seen.append)
        notifier.show("Tocsin", "fallback check", sound="no-such-sound-in-any-theme", popup=False)
        assert notifier.flush(10)
    assert [(report.kind, report.detail) for report in seen] == [("sound", "alarm-clock-elapsed")]


def test_the_command_alerts_and_rings_at_zero():
    """`tocsin 1s "Tea is ready"`: the command's own alert and sound."""
    monitor = NotifyMonitor()
    try:
        result = subprocess.run([os.environ["TOCSIN_BIN"], "1s", "Tea is ready"], capture_output=True, text=True,
                                timeout=60)
    finally:
        monitor.close()
    assert result.returncode == 0
    assert result.stdout == "Tea is ready: finished after 00:01\n"
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    shown = {key: value["data"] for key, value in history["data"][0][0].items()}
    assert (shown["appname"], shown["summary"], shown["body"]) == ("Tocsin", "Tea is ready", "00:01 countdown finished")
    (alert,) = monitor.calls()
    assert audio_rms(alert["boot"], 1.0) > 0.01  # the alarm, as the alert went up


def test_a_sound_server_that_comes_back_late_still_plays_the_alarm(run_driver, tmp_path):
    """The sound server is not there when the timer finishes (as right after
    a resume, while its sinks are re-created) and comes up 2 s later: the
    alarm is tried again with backoff and plays; the report says how late."""
    late = tmp_path / "pulse-later"  # the session's server appears at this path 2 s after the finish
    env = {**os.environ, "PULSE_SERVER": f"unix:{late}"}
    driver = run_driver(seconds=0.5, label="Rice", body="Rice is ready", hold=8.0, env=env)
    finish = event_time(driver.wait_for("EVENT finish")[0])
    time.sleep(max(0.0, finish + 2.0 - boot_time()))
    linked = boot_time()
    os.symlink(os.environ["PULSE_SERVER"].removeprefix("unix:"), late)
    line = driver.wait_for(f"REPORT {REPORT_SOUND} ", timeout=10)[0]
    played = boot_time()
    detail = line.split(" ", 5)[5]
    assert detail.startswith("alarm-clock-elapsed (after ") and "no sound server" in detail, detail
    assert played - linked < 2.5  # the next try after it came back (backoff: 0.25 s doubling to 4 s)
    assert audio_rms(finish + 0.2, linked - finish - 0.3) < 0.005  # silent while there was no server
    assert audio_rms(linked, played - linked + 1.0) > 0.01  # then the alarm
    lines = driver.finish()
    assert not reports(lines, REPORT_SOUND_FAILED)


def test_a_sound_server_that_never_comes_falls_back_to_the_bell_and_says_why(run_driver, tmp_path):
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path}/no-pulse", "TOCSIN_NOTIFY_SOUND_RETRY_SECONDS": "2"}
    driver = run_driver(seconds=0.3, label="Rice", body="Rice is ready", hold=5.0, env=env)
    finish = event_time(driver.wait_for("EVENT finish")[0])
    line = driver.wait_for(f"REPORT {REPORT_SOUND_FAILED} ", timeout=10)[0]
    assert boot_time() - finish >= 2.0  # tried again for the retry time first
    assert "no sound server" in line and "(tried for 2 s)" in line and "no terminal for a bell" in line, line


RESUME_SCRIPT = """
import sys, threading, time, tocsin, tocsin.notify
reports = []
played = threading.Event()

def note(report):
    reports.append(report)
    if report.kind == "sound":
        played.set()

with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine(manual_clock=True) as engine:
    notifier.on_report(note)
    bread = engine.countdown(60, label="Bread")
    notifier.attach(bread, body="Bread is ready")
    bread.start()
    engine.simulate_suspend(300)  # asleep past its end: the FINISH comes late, on resume
    print("RESUMED", time.clock_gettime(time.CLOCK_BOOTTIME), flush=True)
    played.wait(30)
    print("SOUND", time.clock_gettime(time.CLOCK_BOOTTIME), [r.detail for r in reports if r.kind == "sound"], flush=True)
    sys.stdin.readline()  # until the test has heard it: closing the notifier stops the sound
"""


def test_the_first_ring_after_a_resume_waits_for_the_sound_server(tmp_path):
    """A suspend simulated on a manual clock: the FINISH comes on resume,
    when the (real) sound server is not back yet; it comes 1.5 s later and
    the alarm plays."""
    late = tmp_path / "pulse-later"
    env = {**os.environ, "PULSE_SERVER": f"unix:{late}"}
    child = subprocess.Popen([sys.executable, "-c", RESUME_SCRIPT], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        resumed = float(child.stdout.readline().split()[1])
        time.sleep(max(0.0, resumed + 1.5 - boot_time()))
        linked = boot_time()
        os.symlink(os.environ["PULSE_SERVER"].removeprefix("unix:"), late)
        line = child.stdout.readline()
        assert line.startswith("SOUND") and "alarm-clock-elapsed (after" in line, line
        played = float(line.split()[1])
        assert audio_rms(linked, played - linked + 1.0) > 0.01
    finally:
        child.kill()
        child.wait()


def test_the_commands_upcoming_alarm_notice_skips_a_ring_in_the_foreground():
    """`tocsin every SPEC Beat --notice 8s --ring 2s`: the command's own
    notifier shows the notice; Skip this one skips that ring in its engine,
    so the first ring heard is the one after. Started a second before a
    ring, whose own notice is shown too close to it to be pressed: the
    notice pressed is the next ring's, due after a ring whose sound ran out
    unanswered (its alert gives way to the notice)."""
    period = 15
    monitor = NotifyMonitor()
    wait_until(lambda: period - 1.2 <= time.time() % period <= period - 0.8, timeout=20, step=0.01,
               what="a second before a ring")
    child = subprocess.Popen([os.environ["TOCSIN_BIN"], "every", f"*:*:0/{period} UTC", "Beat", "--json", "--notice", "8s",
                              "--ring", "2s", "--no-wake"], stdout=subprocess.PIPE, text=True)
    rings = []
    reader = threading.Thread(target=lambda: [rings.append(json.loads(line)) for line in child.stdout], daemon=True)
    reader.start()
    try:
        # A notice whose ring is at least 2 s away (one shown just before its
        # ring is let pass: pressed after the ring, it would skip the next).
        ring_of = lambda call: (int(call["time"]) // period + 1) * period  # the ring it announces
        notice = wait_until(lambda: [c for c in monitor.calls() if c["body"].startswith("Rings at ")
                                     and ring_of(c) - time.time() > 2], timeout=30, what="a notice")[0]
        skipped = ring_of(notice)
        assert notice["summary"] == "Beat" and notice["actions"] == ["skip", "Skip this one"], notice
        press("Skip this one")
        heard = lambda: [ring for ring in rings if ring["event"] == "ring" and ring["next"] > skipped]  # (not those before)
        wait_until(heard, timeout=40, what="a ring after the skipped one")
        assert heard()[0]["next"] == skipped + 2 * period, (skipped, rings)  # rang at skipped + period, not at skipped
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=10)
        monitor.close()
