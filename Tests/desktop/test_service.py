"""The timer service in the desktop session: what it shows and sounds (its
alerts, live notifications and their buttons), driven with busctl as a
third-party script would. The session's bus activates the service from the
prefix `make stage-service` staged ($TOCSIN_SERVICE_DIR): every test starts
with no service running and its own state folder. Its calls, signals and
restarts without a desktop are tested in Tests/service (make check)."""

import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import SESSION, NotifyMonitor, audio_frequency, audio_rms
from servicebus import (SmallDisk, activation_environment, add, boot_time, call, properties, service_pid, stop_service,
                        timers, wait_until)

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)


@pytest.fixture(autouse=True)
def fresh_service(tmp_path):
    """No service running; state in this test's folder; quiet alerts off."""
    stop_service()
    activation_environment(XDG_STATE_HOME=tmp_path / "state", TOCSIN_SERVICE_IDLE_EXIT=60, TOCSIN_SERVICE_GRACE=3600,
                           G_DEBUG="fatal-criticals")
    yield tmp_path / "state" / "tocsin" / "timers.json"
    stop_service()


def test_the_id_of_a_timers_live_notification_is_journaled(fresh_service):
    """(Activation, the journal and the snapshot without a desktop: Tests/service.)"""
    timer = add("Tea", 60)
    journal = fresh_service.with_suffix(".journal")
    # The Add, then the id of its live notification once it is showing.
    wait_until(lambda: len(journal.read_text().splitlines()) == 2)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [line["id"] for line in lines] == [timer, timer] and lines[1]["notification"] > 0


def test_adjust_moves_the_finish_and_it_comes_on_time_with_the_alert_and_sound(signals):
    began = boot_time()
    timer = add("Rice", 1.5)
    call("Adjust", "td", timer, 1)
    (finish,) = signals.wait_for("Finished")
    assert finish.args[:2] == (timer, "Rice")
    assert finish.at - began >= 2.5 and finish.args[2] < 1.0  # never early, late by less than a second
    assert audio_rms(finish.at, 1.5) > 0.01
    wait_until(lambda: displayed() >= 1, what="the alert to be up")
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    shown = {key: value["data"] for key, value in history["data"][0][0].items()}
    assert (shown["summary"], shown["body"]) == ("Rice", "Time is up")
    assert timers()[timer]["state"] == "finished"


def test_sigkill_at_random_moments_loses_no_answered_call(signals):
    """A client adds, pauses, resumes and adjusts timers while the service is
    killed with SIGKILL a hundred times at random moments. Every answered
    call must be in what the service lists after; no id twice; no finish
    announced twice unless marked as a repeat, none unannounced, one alert on
    screen for each (signals and desktop alerts)."""
    import random
    import threading

    random.seed(20)
    subprocess.run(["dunstctl", "close-all"], check=True)
    kills = []

    def killer():
        while len(kills) < 100:
            time.sleep(random.uniform(0.02, 0.25))
            pid = service_pid()
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer)
    thread.start()
    added = {}  # id -> {"short": bool, "label": str, "adjusts": (answered, tried), "last": (op, answered)}
    answered_ids = []  # every id an Add answered, in order: none twice
    tried_adds = 0
    while thread.is_alive():
        roll = random.random()
        if roll < 0.3 or not added:
            short = random.random() < 0.4
            tried_adds += 1
            # Live, as by default: some 400 of them, but the three soonest
            # show their own notification and one summary the rest, all on
            # one beat a second, so Finished and the alarms never wait.
            # Each label is unique: an answered Add lost, its id then given
            # to the next Add, shows as that id listed under another label.
            label = f"Short {tried_adds}" if short else f"Long {tried_adds}"
            result = call("Add", "sda{sv}", label, 1 if short else 3600, "0", check=False)
            if isinstance(result, list):
                answered_ids.append(result[0])
                added[result[0]] = {"short": short, "label": label, "adjusts": [0, 0], "last": None}
            continue
        timer = random.choice([id for id, facts in added.items() if not facts["short"]] or list(added))
        facts = added[timer]
        if facts["short"]:
            continue
        op = random.choice(["Pause", "Resume", "Adjust"])
        result = call(op, "td" if op == "Adjust" else "t", timer, *([10] if op == "Adjust" else []), check=False)
        answered = isinstance(result, list)
        failed_by_rule = not answered and "dev.tocsin.Timers1.Error" in getattr(result, "stderr", "")
        if op == "Adjust":
            facts["adjusts"][1] += 1
            facts["adjusts"][0] += answered
        if not failed_by_rule:  # a WrongState answer changes nothing
            facts["last"] = (op, answered)
    thread.join()
    # The last one killed may still own the name for a moment: a call then
    # would fail ("disconnected from message bus without replying").
    wait_until(lambda: service_pid() != kills[-1], what="the last killed service to leave the bus")
    short_ids = [timer for timer, facts in added.items() if facts["short"]]
    wait_until(lambda: all(timers()[timer]["state"] == "finished" for timer in short_ids),
               what="the last short timers to finish")
    listed = timers()
    signals.sync()  # every Finished the service sent so far has been read
    assert len(kills) == 100
    assert len(answered_ids) == len(set(answered_ids)), "an id was answered twice"
    assert set(added) <= set(listed), "an answered Add was lost"
    lost = {timer: (facts["label"], listed[timer]["label"]) for timer, facts in added.items()
            if listed[timer]["label"] != facts["label"]}
    assert not lost, f"answered Adds lost, their ids given again (id: answered label, listed label): {lost}"
    assert len(listed) <= tried_adds
    for timer, facts in added.items():
        state = listed[timer]
        if facts["short"]:
            continue
        answered, tried = facts["adjusts"]
        assert 3600 + 10 * answered <= state["duration"] <= 3600 + 10 * tried, (timer, facts, state)
        if facts["last"] and facts["last"][1]:
            expected = {"Pause": "suspended", "Resume": "running"}.get(facts["last"][0])
            if expected:
                assert state["state"] == expected, (timer, facts, state)
    finished = {timer for timer, state in listed.items() if state["state"] == "finished"}
    wait_until(lambda: finished <= {record.args[0] for record in signals.named("FinishAnnounced")},
               what="every finish to be announced")
    live = sum(state["state"] in ("running", "suspended") for state in listed.values())
    live_shown = min(3, live) + (live > 3)  # their own notifications, and the summary
    # The live notifications killed services left are closed a few per beat
    # while the last service shows its own: the count is read once it holds
    # across two beats. (One a service showed in the few ms before it could
    # record its id stays if that timer is now summed up: nothing knows its
    # id, and dunst replaces by stack tag only what is shown again.)
    wait_until(lambda: (settled_on_screen() or 0) >= len(finished) + live_shown, timeout=90,
               what="the last alerts to reach dunst, and the notifications killed services left to close")
    signals.sync()
    strays = check_announcements(signals, listed, finished, prefix="Short ", live_shown=live_shown)
    repeats = sum(record.args[4] for record in signals.named("FinishAnnounced"))
    short_states = [listed[timer]["state"] for timer, facts in added.items() if facts["short"]]
    print(f"{len(kills)} kills, {len(added)} answered adds of {tried_adds}, {len(finished)} finished, {strays} stray live, "
          f"{repeats} announced again; short states {sorted(set((s, short_states.count(s)) for s in short_states))}")


def test_200_kills_around_finishes_lose_no_announcement_and_show_no_alert_twice(signals):
    """Short timers (0.05 to 0.3 s, half of them live), the service killed
    with SIGKILL around each one's deadline, from 10 ms before to 30 ms
    after: before its finish (then it rang while the service was away), in
    the middle of recording and announcing it, or after. Every timer that
    finished gets Finished and FinishAnnounced at least once, a repeat is
    marked `again`, no timer that did not finish is announced, and each
    finished timer shows in exactly one notification."""
    import random

    random.seed(33)
    subprocess.run(["dunstctl", "close-all"], check=True)
    kills, tried = 0, 0
    while kills < 200:
        tried += 1
        seconds = random.uniform(0.05, 0.3)
        began = time.monotonic()
        live = "true" if random.random() < 0.5 else "false"
        call("Add", "sda{sv}", f"Kill {tried}", seconds, "1", "live", "b", live, check=False)
        pid = service_pid()
        time.sleep(max(0.0, began + seconds + random.uniform(-0.01, 0.03) - time.monotonic()))
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                kills += 1
            except ProcessLookupError:
                pass
    wait_until(lambda: service_pid() is None, what="the last killed service to leave the bus")
    # The service back, announcing what it had not; the timer killed just
    # before its deadline rings then.
    listed = wait_until(lambda: (now := timers()) and all(state["state"] == "finished" for state in now.values()) and now,
                        what="every timer to have finished")
    finished = set(listed)
    wait_until(lambda: finished <= {record.args[0] for record in signals.named("FinishAnnounced")},
               what="every finish to be announced")
    wait_until(lambda: all(state.get("finishes") == 1 for state in timers().values()))
    wait_until(lambda: alerts_on_screen() >= len(finished), what="the last alerts to reach dunst")
    signals.sync()
    check_announcements(signals, listed, finished, prefix="Kill ")
    repeats = sum(record.args[4] for record in signals.named("FinishAnnounced"))
    print(f"{kills} kills, {len(listed)} timers of {tried} adds, {repeats} finishes announced again")


def alerts_on_screen():
    """What dunst shows or holds back to show (beyond its limit)."""
    return sum(int(subprocess.run(["dunstctl", "count", kind], capture_output=True, text=True, check=True).stdout)
               for kind in ("displayed", "waiting"))


def settled_on_screen():
    """What dunst shows or holds back, once the same over 2 s (two beats of
    the live notifications); None while it changes."""
    first = alerts_on_screen()
    time.sleep(2)
    return first if alerts_on_screen() == first else None


def check_announcements(signals, listed, finished, prefix, live_shown=0):
    """Every timer that finished was announced at least once (Finished and
    FinishAnnounced), no other was, a finish announced twice is marked
    `again`, and each shows in exactly one notification (besides the
    `live_shown` live notifications of the timers still running)."""
    announced = signals.named("FinishAnnounced")
    finishes = [record.args[0] for record in signals.named("Finished")]
    assert set(finishes) == finished, "a finish lost, or one announced for a timer that did not finish"
    assert {record.args[0] for record in announced} == finished
    assert all(record.args[3] == 1 for record in announced)  # each finished once
    first_times = [record.args[0] for record in announced if not record.args[4]]
    assert len(first_times) == len(set(first_times)), "a finish announced twice without `again`"
    # Each alert critical (it stays): one on screen per finished timer, none twice.
    on_screen = alerts_on_screen()
    # A live notification closed when sooner timers took its place is in
    # dunst's history too: only the alerts count here.
    labels = [summary for summary, body in history()
              if summary.startswith(prefix) and not re.fullmatch(r"[0-9:]+ left( · paused)?", body)]
    assert sorted(labels) == sorted(listed[timer]["label"] for timer in finished), "a timer with two alerts, or none"
    # Live frames a killed service left for timers now summed up (see the
    # caller): never an alert, and never fewer than expected.
    assert on_screen >= len(finished) + live_shown
    assert live_shown or on_screen == len(finished)
    return on_screen - len(finished) - live_shown


def history():
    """(summary, body) of the alerts shown so far, newest first (it closes those showing)."""
    subprocess.run(["dunstctl", "close-all"], check=True)
    shown = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    return [(item["summary"]["data"], item["body"]["data"]) for item in shown["data"][0]]


def displayed():
    """How many notifications dunst shows now."""
    return int(subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True, check=True).stdout)


def test_a_finish_long_ago_gets_one_quiet_alert_and_a_recent_one_the_alarm(signals, notifications):
    activation_environment(TOCSIN_SERVICE_GRACE=2)
    add("Stew", 0.5)
    add("Toast", 3)
    stop_service()
    time.sleep(4)  # away: Stew ran out 3.5 s ago (past the grace), Toast 1 s ago
    began = boot_time()
    assert {timer["label"]: timer["state"] for timer in timers().values()} == {"Stew": "finished", "Toast": "finished"}
    lateness = {record.args[1]: record.args[2] for record in signals.wait_for("Finished", 2)}
    assert lateness["Stew"] > 2 > lateness["Toast"]  # the grace falls between them
    wait_until(lambda: {"Stew", "Toast"} <= {call["summary"] for call in notifications.calls() if call["boot"] >= began},
               what="both alerts to be shown")
    assert audio_rms(began, 1.5) > 0.01  # Toast's alarm (Stew's alert is silent)
    alerts = history()
    assert ("Stew", f"Stew ran out {int(lateness['Stew'])} s ago") in alerts
    assert ("Toast", f"Finished {int(lateness['Toast'])} s ago") in alerts


def test_the_alert_buttons_act_on_the_service_timer(signals):
    """Snooze on the alarm of a service timer (its default: 5 min) runs the
    same timer again for that long (Changed: running again)."""
    from test_desktop import press

    timer = add("Pasta", 0.5)
    signals.wait_for("Finished")
    wait_until(lambda: displayed() >= 1, what="the alert to be drawn")
    press("Snooze 5 min")
    wait_until(lambda: timers()[timer]["state"] == "running")
    assert 295 < timers()[timer]["remaining"] <= 300
    assert len(timers()) == 1  # the same timer, not a new one


def test_the_service_stays_up_while_an_alarm_is_on_screen_and_exits_once_it_is_closed(signals):
    """With a 1 s idle exit: a timer that rang leaves its alarm on screen,
    and the service stays up (exiting would close it, and its buttons would
    answer to no one) until the person closes it; then it exits."""
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    try:
        tea = add("Tea", 0.3, live=("b", False), ring=("d", 0))
        signals.wait_for("FinishAnnounced", id=tea)
        wait_until(lambda: displayed() == 1, what="the alarm on screen")
        pid = service_pid()
        time.sleep(3)  # three idle exits' worth: nothing may happen
        assert service_pid() == pid and displayed() == 1
        subprocess.run(["dunstctl", "close-all"], check=True)
        wait_until(lambda: service_pid() is None, what="the service to exit once the alarm is closed")
    finally:
        activation_environment(TOCSIN_SERVICE_IDLE_EXIT=60)


def test_service_timers_are_live_and_their_buttons_go_through_the_service(signals, tmp_path):
    """A background timer shows a live notification by default; Pause and
    +1 min on it are the service's own calls (journaled: they survive
    SIGKILL); after the kill the restarted service replaces its notification
    in place instead of leaving the old one behind; Cancel withdraws it."""
    from test_desktop import press

    monitor = NotifyMonitor()
    try:
        stew = add("Stew", 30, warn=("d", 5))
        listed = timers()[stew]
        assert listed["live"] is True and listed["warn"] == 5
        assert wait_until(lambda: [c for c in monitor.calls() if c["summary"] == "Stew"])
        first = [c for c in monitor.calls() if c["summary"] == "Stew"][0]
        assert first["replaces"] == 0 and first["body"].endswith(" left") and "value" in first["hints"]
        press("Pause")
        assert wait_until(lambda: timers()[stew]["state"] == "suspended")
        remaining = timers()[stew]["remaining"]
        press("+1 min")
        assert wait_until(lambda: timers()[stew]["remaining"] > remaining + 59)
        changed = signals.wait_for("Changed", 3, id=stew)  # the start, the pause, and the adjust (no state change) too
        assert [properties(record)["state"] for record in changed] == ["running", "suspended", "suspended"]
        assert wait_until(lambda: monitor.calls()[-1]["body"].startswith("1:") and
                          monitor.calls()[-1]["body"].endswith(" left · paused")), monitor.calls()[-1]
        notification = next(c["replaces"] for c in monitor.calls() if c["replaces"])
        stop_service(signal.SIGKILL)
        assert timers()[stew]["state"] == "suspended"  # reactivated: the button's change was kept
        assert abs(timers()[stew]["remaining"] - (remaining + 60)) < 1e-6  # exactly: paused, a minute added
        assert wait_until(lambda: len(monitor.calls()) and monitor.calls()[-1]["body"].endswith("paused") and
                          monitor.calls()[-1]["replaces"] == notification), monitor.calls()[-1]
        assert displayed() == 1  # one notification for the timer, not one per service run
        press("Cancel")
        assert wait_until(lambda: timers()[stew]["state"] == "canceled")
        wait_until(lambda: displayed() == 0)
    finally:
        monitor.close()
    assert [c["replaces"] for c in monitor.calls()].count(0) == 1


def test_snooze_pressed_on_the_alarm_rings_again_after_its_length_in_the_same_notification(signals, notifications):
    """The alarm offers "Snooze 2 s" (the timer's `snooze`); pressed in
    dunst, the alert says "Snoozed for 2 s" and the timer rings again 2 s
    later, with its sound, replacing that same notification."""
    from test_desktop import press

    tea = add("Tea", 0.5, live=("b", False), snooze=("d", 2))
    signals.wait_for("FinishAnnounced", id=tea)
    alarms = lambda: [c for c in notifications.calls() if c["summary"] == "Tea" and c["body"] == "Time is up"]
    first = wait_until(alarms, what="the alarm")[0]
    assert first["replaces"] == 0 and first["actions"][-2:] == ["snooze", "Snooze 2 s"]
    pressed = boot_time()
    press("Snooze 2 s")
    snoozed = wait_until(lambda: [c for c in notifications.calls() if c["body"] == "Snoozed for 2 s"],
                         what="the alert saying it is snoozed")[0]
    assert snoozed["replaces"] > 0
    (_, again) = signals.wait_for("FinishAnnounced", count=2, id=tea)
    assert again.args[3:] == (2, False) and 2.0 <= again.at - pressed < 3.5
    second = wait_until(lambda: alarms()[1:], what="the second ring's alert")[0]
    assert second["replaces"] == snoozed["replaces"]  # the same notification, shown again
    assert displayed() == 1
    assert audio_rms(again.at, 1.0) > 0.01


def test_a_ring_loops_the_sound_for_its_time_then_says_it_was_unanswered(signals, notifications):
    """The option `ring` (8 s here): the alarm sound (alarm-clock-elapsed,
    6.1 s long: beeps and its own pauses) plays again as soon as it ends,
    so the recording has sound through the ring, not one play; it is cut
    when the ring is over; the alert, unanswered, says so and stays."""
    tea = add("Tea", 0.5, live=("b", False), ring=("d", 8))
    (finish,) = signals.wait_for("Finished", id=tea)
    windows = [audio_rms(finish.at + 0.25 * index, 0.25) for index in range(32)]  # the 8 s, in quarter-seconds
    print("ring: " + " ".join(f"{rms:.3f}" for rms in windows))
    first, second = windows[:24], windows[26:32]  # one play (6.1 s, ending by 6.2 s), and the start of the next
    assert sum(rms > 0.01 for rms in first) >= 8
    assert sum(rms > 0.01 for rms in second) >= 2, "the sound did not play again"
    assert audio_rms(finish.at + 8.6, 2.0) < 0.005  # cut at 8 s (one more play would sound until 12 s)
    unanswered = wait_until(lambda: [c for c in notifications.calls() if c["body"].startswith("Rang for 8 s at ")],
                            what="the unanswered text")[0]
    assert unanswered["body"].endswith(", unanswered") and unanswered["replaces"] > 0
    alarm = [c for c in notifications.calls() if c["body"] == "Time is up"][0]
    assert unanswered["hints"]["urgency"] == "2" and alarm["replaces"] == 0
    assert displayed() == 1


def test_stop_ends_the_ring_at_once(signals, notifications):
    from test_desktop import press

    tea = add("Tea", 0.5, live=("b", False), ring=("d", 30))
    (finish,) = signals.wait_for("Finished", id=tea)
    wait_until(lambda: [c for c in notifications.calls() if c["body"] == "Time is up"])
    wait_until(lambda: audio_rms(finish.at + 0.2, 0.6) > 0.01, step=0.25, what="the ring to be heard")
    press("Stop")
    stopped = boot_time()
    assert audio_rms(stopped + 1.0, 2.0) < 0.005  # silent soon after Stop, 28 s before its ring would end
    assert not [c for c in notifications.calls() if c["body"].startswith("Rang for")]


def tone(path, seconds=2.0, hertz=440):
    """A sine WAV made with sox, at half scale (16-bit: what libcanberra reads)."""
    subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", "-e", "signed-integer", str(path), "synth", str(seconds), "sine", str(hertz), "vol", "0.5"],
                   check=True)
    return path


def quiet_since(start):
    """True once the recording from boot time `start` to a moment ago holds
    a whole silent second (the alarm sound's own pauses are shorter)."""
    end = boot_time() - 0.3
    return end - start >= 1.0 and audio_rms(end - 1.0, 1.0) < 0.003


def test_the_alarm_plays_its_own_sound_file_at_its_volume(signals, tmp_path):
    """`sound_file`: the recording hears the test's 440 Hz tone, not the
    theme's alarm; `volume` -20 dB plays it at a tenth of the amplitude."""
    gong = tone(tmp_path / "gong.wav")
    loud = add("Loud", 0.3, live=("b", False), alert=("b", False), ring=("d", 0), sound_file=("s", gong))
    (finish,) = signals.wait_for("Finished", id=loud)
    loud_rms, frequency = audio_rms(finish.at + 0.4, 1.2), audio_frequency(finish.at + 0.4, 1.2)
    wait_until(lambda: quiet_since(finish.at + 2.0), step=0.25, what="the 2 s tone to end")
    quiet = add("Quiet", 0.3, live=("b", False), alert=("b", False), ring=("d", 0), sound_file=("s", gong),
                volume=("d", -20))
    (finish,) = signals.wait_for("Finished", id=quiet)
    quiet_rms = audio_rms(finish.at + 0.4, 1.2)
    print(f"own sound: rough frequency {frequency:.0f} Hz; RMS {loud_rms:.4f} at 0 dB, {quiet_rms:.4f} at -20 dB")
    assert loud_rms > 0.1 and frequency < 1000  # the tone (alarm-clock-elapsed: about 5,500 Hz)
    assert 0.05 < quiet_rms / loud_rms < 0.2  # -20 dB: a tenth
    assert timers()[quiet]["volume"] == -20 and timers()[loud]["sound_file"] == str(gong)


def test_the_volume_applies_to_the_theme_sound_too(signals):
    rms = []
    for label, volume in (("Loud", 0), ("Quiet", -20)):
        timer = add(label, 0.3, live=("b", False), alert=("b", False), ring=("d", 0), volume=("d", volume))
        (finish,) = signals.wait_for("Finished", id=timer)
        rms.append(audio_rms(finish.at + 0.2, 1.5))
        wait_until(lambda: quiet_since(finish.at + 6.0), timeout=20, step=0.25, what="the 6.1 s alarm sound to end")
    print(f"theme sound: RMS {rms[0]:.4f} at 0 dB, {rms[1]:.4f} at -20 dB")
    assert rms[0] > 0.05 and 0.05 < rms[1] / rms[0] < 0.2


def test_a_fade_raises_the_ring_from_quiet(signals, tmp_path):
    gong = tone(tmp_path / "gong.wav", seconds=10)
    timer = add("Fade", 0.3, live=("b", False), alert=("b", False), ring=("d", 8), sound_file=("s", gong), fade=("d", 5))
    (finish,) = signals.wait_for("Finished", id=timer)
    first, last = audio_rms(finish.at + 0.3, 0.7), audio_rms(finish.at + 5.5, 1.0)
    print(f"fade: RMS {first:.4f} in the first second, {last:.4f} after the fade")
    assert last > 0.1 and first < last / 10  # starts 30 dB below (a thirtieth), ends at full volume


def test_a_sound_file_that_cannot_play_rings_the_theme_sound_and_says_so(tmp_path):
    """A file that exists but is no sound: the command's alarm rings the
    theme's sound instead, and its report (--json) says why."""
    bad = tmp_path / "notes.wav"
    bad.write_text("not a sound")
    result = subprocess.run([os.environ["TOCSIN_BIN"], "0.2s", "Tea", "--json", "--ring", "0", "--no-alert", "--sound", str(bad)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    reports = [json.loads(line) for line in result.stdout.splitlines() if '"notifier"' in line]
    played = [report for report in reports if report["report"] == "sound"]
    assert played and played[0]["detail"].startswith("alarm-clock-elapsed (instead of " + str(bad) + ": "), reports


def playerctl(player, *arguments):
    return subprocess.run(["playerctl", "-p", player, *arguments], capture_output=True, text=True, timeout=10).stdout.strip()


def player_of(pid):
    """The MPRIS name (as playerctl takes it) that process `pid` owns: "mpv"
    for the first mpv, "mpv.instance<pid>" for the next."""
    listed = subprocess.run(["busctl", "--user", "list", "--no-legend"], capture_output=True, text=True, timeout=10).stdout
    for line in listed.splitlines():
        name, owner = (line.split() + ["", ""])[:2]
        if name.startswith("org.mpris.MediaPlayer2.") and owner == str(pid):
            return name.removeprefix("org.mpris.MediaPlayer2.")
    return None


@pytest.fixture
def players(tmp_path):
    """Real media players: mpv with its MPRIS plugin (mpv-mpris), playing a
    generated file into a null audio output (nothing reaches the
    recording), read and driven with playerctl. `players(paused=True)`
    starts one paused; each is named as playerctl knows it."""
    music = tone(tmp_path / "music.wav", seconds=120, hertz=220)
    started = []

    def start(paused=False):
        process = subprocess.Popen(["mpv", "--no-config", "--no-terminal", "--ao=null", "--vo=null", "--loop=inf",
                                    "--script=/usr/lib/mpv-mpris/mpris.so", *(["--pause"] if paused else []), str(music)])
        started.append(process)
        name = wait_until(lambda: player_of(process.pid), what=f"mpv (pid {process.pid}) on the bus")
        wait_until(lambda: playerctl(name, "status") == ("Paused" if paused else "Playing"), what=f"{name} to start")
        return name

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_the_alarm_pauses_the_players_that_play_and_resumes_only_those(signals, players):
    playing, idle = players(), players(paused=True)
    tea = add("Tea", 0.5, live=("b", False), ring=("d", 3))
    (finish,) = signals.wait_for("Finished", id=tea)
    wait_until(lambda: playerctl(playing, "status") == "Paused", timeout=2, what="the music to pause at the ring")
    paused_at = boot_time()
    assert paused_at - finish.at < 1.5
    assert playerctl(idle, "status") == "Paused"
    wait_until(lambda: playerctl(playing, "status") == "Playing", timeout=8, what="the music back after the ring")
    resumed_at = boot_time()
    assert 2.5 < resumed_at - finish.at < 6  # at the ring's end (3 s), not before
    time.sleep(0.5)
    assert playerctl(idle, "status") == "Paused"  # it was not playing: left alone


def test_stop_resumes_the_players_at_once_and_pause_media_off_leaves_them(signals, players, notifications):
    from test_desktop import press

    playing = players()
    tea = add("Tea", 0.5, live=("b", False), ring=("d", 60))
    signals.wait_for("Finished", id=tea)
    wait_until(lambda: playerctl(playing, "status") == "Paused", timeout=2)
    wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Tea"])
    press("Stop")
    wait_until(lambda: playerctl(playing, "status") == "Playing", timeout=2, what="the music back at Stop")
    rice = add("Rice", 0.5, live=("b", False), ring=("d", 3), pause_media=("b", False))
    (finish,) = signals.wait_for("Finished", id=rice)
    while boot_time() < finish.at + 2:
        assert playerctl(playing, "status") == "Playing"
        time.sleep(0.1)
    assert timers()[rice]["pause_media"] is False and timers()[tea]["pause_media"] is True


def test_a_calendar_alarms_ring_offers_its_snooze_and_the_button_goes_through_the_service(signals, notifications):
    from test_desktop import press

    wake = add("Wake", 0, calendar=("s", "*-*-* 03:17:00 UTC"), live=("b", False), sound=("b", False),
               snooze=("d", 600))
    call("Snooze", "td", wake, 1)  # a ring now, without waiting for 03:17
    signals.wait_for("FinishAnnounced", id=wake)
    ring = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Wake" and c["body"].startswith("Alarm")],
                      what="the ring's alert")[0]
    assert ring["actions"] == ["stop", "Stop", "snooze", "Snooze 10 min"]
    press("Snooze 10 min")
    listed = wait_until(lambda: "snoozed_until" in timers()[wake] and timers()[wake], what="the snooze, in the service")
    assert abs(listed["snoozed_until"] - (time.time() + 600)) < 3 and listed["state"] == "running"
    wait_until(lambda: [c for c in notifications.calls() if c["body"] == "Snoozed for 10 min"])


@pytest.mark.skipif(not SmallDisk.available(), reason="needs root to mount a small tmpfs")
def test_a_button_press_that_cannot_be_saved_is_not_made_and_the_notification_says_so(tmp_path, notifications):
    """Pause pressed on a live notification while the state folder's disk is
    full: the service refuses its own call, the timer runs on, and a
    notification says what went wrong."""
    from test_desktop import press

    disk = SmallDisk(tmp_path / "state", size="256k")  # the service's state folder (see fresh_service)
    try:
        stew = add("Stew", 60, sound=("b", False))
        stop_service()  # its journal folded into the snapshot
        disk.fill()
        assert timers()[stew]["state"] == "running"  # back, reading its timers
        wait_until(lambda: [call for call in notifications.calls() if call["summary"] == "Stew" and call["replaces"]],
                   what="the live notification of the restarted service")
        press("Pause")
        said = wait_until(lambda: [call for call in notifications.calls() if call["body"].startswith("Could not pause")],
                          what="a notification saying the pause was not made")
        assert "No space left on device" in said[0]["body"] and said[0]["summary"] == "Stew"
        assert timers()[stew]["state"] == "running"
        disk.free()
        press("Pause")  # room again
        wait_until(lambda: timers()[stew]["state"] == "suspended",
                   what=f"the pause; menus {(SESSION / 'menu.log').read_text()!r}, calls {notifications.calls()[-4:]}")
    finally:
        stop_service()
        disk.close()


def test_a_calendar_alarm_rings_with_its_alert_and_stop_ends_that_ring_only(signals, notifications):
    """Each occurrence: the Finished signal, the alert with Stop alone (no
    Restart, no +1 min: its times are its spec's) and the alarm sound.
    Stop closes that ring; the alarm runs on and rings at the next one."""
    from test_desktop import press

    alarm = add("Stand-up", 0, calendar=("s", "*:*:0/5 UTC"), live=("b", False))
    (first,) = signals.wait_for("Finished", id=alarm, timeout=10)
    wait_until(lambda: any(call["summary"] == "Stand-up" for call in notifications.calls()), what="the alert")
    (shown,) = [call for call in notifications.calls() if call["summary"] == "Stand-up"]
    labels = shown["actions"][1::2]
    assert "Stop" in labels and "Restart" not in labels and "+1 min" not in labels, shown["actions"]
    assert shown["body"] == "Alarm: *-*-* *:*:00/5 UTC"
    assert audio_rms(first.at, 1.0) > 0.01  # the alarm sound
    wait_until(lambda: displayed() >= 1, what="the alert to be drawn")
    press("Stop")
    wait_until(lambda: displayed() == 0, what="Stop to close the ring's alert")
    assert timers()[alarm]["state"] == "running"  # the alarm itself goes on
    second = signals.wait_for("Finished", 2, id=alarm, timeout=10)[1]
    assert 4 < second.at - first.at < 6
    wait_until(lambda: len([call for call in notifications.calls() if call["summary"] == "Stand-up"]) == 2,
               what="the next ring's alert")


def test_a_ring_missed_while_the_service_was_down_is_announced_when_it_comes_back(signals, notifications):
    alarm = add("Stand-up", 0, calendar=("s", "*:*:0/4 UTC"), live=("b", False))
    coming = timers()[alarm]["next"]
    stop_service()
    time.sleep(max(0.0, coming - time.time()) + 1.5)  # the ring passes while no service runs
    began = boot_time()
    assert timers()[alarm]["state"] == "running"  # activated again
    (late,) = signals.wait_for("Finished", id=alarm)
    assert late.args[2] >= 1.0
    rang = time.strftime("%H:%M", time.localtime(coming))
    wait_until(lambda: any(call["boot"] >= began and call["body"] == f"Stand-up rang at {rang}, {int(late.args[2])} s ago"
                           for call in notifications.calls()), what="the late ring's alert")
    assert audio_rms(began, 1.5) > 0.01  # within the grace: with the alarm sound
    following = signals.wait_for("Finished", 2, id=alarm, timeout=10)[1]  # and it rings on, with its own alert
    assert following.args[2] < 0.5
    wait_until(lambda: any(call["boot"] >= following.at - 0.1 and call["body"] == "Alarm: *-*-* *:*:00/4 UTC"
                           for call in notifications.calls()), what="the next ring's alert")


def test_many_live_timers_show_the_three_soonest_and_one_summary_on_one_beat(notifications):
    """Eight live timers: the three ending soonest have their own live
    notification, the other five are summed up in one ("5 more timers"),
    updated in place; every live update falls on the one beat at each whole
    second of the wall clock; cancelling the soonest moves the next one up,
    and the summary goes once three or fewer are left."""
    ids = [add(f"T{seconds}", seconds) for seconds in range(40, 120, 10)]
    wait_until(lambda: displayed() == 4, what="3 live notifications and the summary")
    settled = time.time()
    # Four beats' worth of updates (the running timers change every second).
    wait_until(lambda: len({int(c["time"]) for c in notifications.calls() if c["time"] > settled}) >= 4,
               what="updates in four different seconds")
    calls = [c for c in notifications.calls() if c["time"] > settled]
    assert calls and all(c["time"] % 1.0 < 0.3 for c in calls), [round(c["time"] % 1.0, 3) for c in calls]
    per_second = {}
    for c in calls:
        per_second[int(c["time"])] = per_second.get(int(c["time"]), 0) + 1
    assert max(per_second.values()) <= 4, per_second  # three frames and the summary, each only when its text changes
    latest = {}
    for c in notifications.calls():
        latest[c["summary"]] = c
    assert {"T40", "T50", "T60"} <= set(latest) and not {"T70", "T80", "T90", "T100", "T110"} & set(latest)
    summary = latest["5 more timers"]
    assert [part.split()[0] for part in summary["body"].split(" · ")] == ["T70", "T80", "T90", "T100", "T110"]
    assert summary["hints"]["urgency"] == "0" and summary["actions"] == []
    summary_id = next(c["replaces"] for c in notifications.calls() if c["summary"].endswith("more timers") and c["replaces"])

    before = len(notifications.calls())  # (a "4 more timers" may have shown while the eighth was being added)
    call("Cancel", "t", ids[0])
    promoted = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "T70"], what="T70 shown on its own")
    assert promoted[0]["replaces"] == 0
    now_summary = wait_until(lambda: [c for c in notifications.calls()[before:] if c["summary"] == "4 more timers"])[-1]
    assert now_summary["replaces"] == summary_id and now_summary["body"].startswith("T80 ")
    for timer in ids[1:5]:
        call("Cancel", "t", timer)
    wait_until(lambda: summary_id in [c["id"] for c in notifications.calls("CloseNotification")],
               what="the summary to close once three are left")
    wait_until(lambda: displayed() == 3, what="T90, T100 and T110 on their own")
    latest = {c["summary"]: c for c in notifications.calls()}
    assert {"T90", "T100", "T110"} <= set(latest)


def test_a_killed_services_summary_is_replaced_in_place_and_closed_when_no_longer_needed(notifications, fresh_service):
    """Five live timers, three on their own and two summed up; SIGKILL: the
    restarted service's summary replaces the killed one's (the same server
    id: GNOME and Plasma ignore the stack tag that makes dunst replace it,
    so a new one would leave the old behind); once three are left, that
    summary is closed."""
    ids = [add(f"S{seconds}", seconds) for seconds in range(40, 90, 10)]
    summaries = lambda: [c for c in notifications.calls() if c["summary"] == "2 more timers"]
    # Updated in place at the next beat (the times in it move): its id.
    summary_id = wait_until(lambda: next((c["replaces"] for c in summaries() if c["replaces"]), None),
                            what="the summary updated in place")
    wait_until(lambda: snapshot_field(fresh_service, "summary_notification") == summary_id,
               what="the summary's id in the snapshot")
    before = len(notifications.calls())
    stop_service(signal.SIGKILL)
    assert len(timers()) == 5  # reactivated
    wait_until(lambda: [c for c in notifications.calls()[before:] if c["summary"] == "2 more timers"],
               what="the restarted service's summary")
    again = [c for c in notifications.calls()[before:] if c["summary"] == "2 more timers"]
    assert again[0]["replaces"] == summary_id, again[0]
    wait_until(lambda: displayed() == 4, what="3 live notifications and the one summary")
    for timer in ids[:2]:
        call("Cancel", "t", timer)
    wait_until(lambda: summary_id in [c["id"] for c in notifications.calls("CloseNotification")],
               what="the summary to close once three are left")
    wait_until(lambda: snapshot_field(fresh_service, "summary_notification", "gone") == "gone",
               what="its id gone from the snapshot")


def snapshot_field(path, name, missing=None):
    """A top-level field of the service's snapshot (`missing` if it has none)."""
    try:
        return json.loads(path.read_text()).get(name, missing)
    except (OSError, ValueError):
        return None


def test_the_live_limit_is_the_services_option(notifications):
    """TOCSIN_SERVICE_LIVE_LIMIT=1 in the activation environment: of three
    live timers one shows its own notification, the other two the summary."""
    activation_environment(TOCSIN_SERVICE_LIVE_LIMIT=1)
    try:
        for seconds in (50, 60, 70):
            add(f"L{seconds}", seconds)
        wait_until(lambda: displayed() == 2, what="one live notification and the summary")
        latest = {c["summary"]: c for c in notifications.calls()}
        assert "L50" in latest and "L60" not in latest and "L70" not in latest
        assert [part.split()[0] for part in latest["2 more timers"]["body"].split(" · ")] == ["L60", "L70"]
    finally:
        activation_environment(TOCSIN_SERVICE_LIVE_LIMIT=3)


def test_an_upcoming_alarm_notice_offers_skip_this_one_and_gives_way_to_the_ring(signals, notifications):
    """A calendar alarm with a notice: from that long before a ring, a
    notification "Rings at HH:MM, in 1 min" with Skip this one. Pressed, the
    ring is skipped (it never sounds) and the notice closes; the notice of
    the ring after comes again, and gives way to its ring's alert."""
    from test_desktop import press

    # Added 10 s before a ring: its notice is due at once, pressed well before it.
    wait_until(lambda: 9.5 <= time.time() % 20 <= 10.5, timeout=25, step=0.01, what="10 s before a ring")
    alarm = add("Stand-up", 0, calendar=("s", "*:*:0/20 UTC"), live=("b", False), sound=("b", False), notice=("d", 12.0))
    notices = lambda: [c for c in notifications.calls() if c["summary"] == "Stand-up" and c["body"].startswith("Rings at ")]
    first = wait_until(notices, timeout=25, what="the notice")[0]
    skipped = timers()[alarm]["next"]
    assert first["actions"] == ["skip", "Skip this one"], first
    assert 0 < skipped - time.time() <= 12.5 and first["body"].endswith(", in 1 min"), (first, skipped - time.time())
    assert first["body"] == f"Rings at {time.strftime('%H:%M', time.localtime(skipped))}, in 1 min"
    wait_until(lambda: displayed() == 1, what="the notice to be drawn")
    press("Skip this one")
    wait_until(lambda: timers()[alarm]["next"] == skipped + 20, what="the skip, in the service")
    wait_until(lambda: displayed() == 0, what="the notice to close once its ring is skipped")
    # The next ring's notice, then its ring; the skipped one never rang.
    wait_until(lambda: len(notices()) == 2, timeout=30, what="the next ring's notice")
    (ring,) = signals.wait_for("Finished", id=alarm, timeout=30)
    assert abs(ring.wall - ring.args[2] - (skipped + 20)) < 1, (ring.wall, ring.args, skipped)
    wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Stand-up" and not c["body"].startswith("Rings at ")],
               what="the ring's alert")
    # The notice gave way: replaced by the alert, or closed as the alarm moved on to its next ring.
    wait_until(lambda: displayed() == 1, what="the ring's alert alone")
