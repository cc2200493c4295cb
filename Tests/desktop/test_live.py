"""Live notifications as a person sees, hears and uses them: real dunst,
real D-Bus, real PulseAudio (make test-desktop)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SESSION, NotifyMonitor, audio_rms, screenshot
from servicebus import wait_until

REPORT_SHOWN, REPORT_ALERT_FAILED, REPORT_ACTION, REPORT_WARNING = 1, 2, 5, 7
HERE = Path(__file__).parent


def press(label):
    (SESSION / "want-action").write_text(label)
    subprocess.run(["dunstctl", "context"], check=True, timeout=30)


def event_time(line):
    return float(line.split()[3])


def displayed():
    """How many notifications dunst shows now."""
    return int(subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True, check=True).stdout)


@pytest.fixture
def monitor():
    watching = NotifyMonitor()
    yield watching
    watching.close()


def test_a_live_countdown_is_one_notification_updated_once_a_second_then_the_alarm(run_driver, monitor):
    driver = run_driver(seconds=6.0, label="Tea", body="Tea is ready", hold=14.0, live=True)
    start = float(driver.wait_for("START")[0].split()[1])
    driver.wait_for(f"REPORT {REPORT_SHOWN} ")
    wait_until(lambda: [call for call in monitor.calls() if call["body"] == "0:05 left"], what="the second frame")
    screenshot("live-running.png")
    press("Pause")
    paused_at = event_time(driver.wait_for("EVENT state 2")[0])
    time.sleep(2.5)  # nothing is sent while it is paused (checked below)
    screenshot("live-paused.png")
    press("Resume")
    resumed_at = event_time(driver.wait_for("EVENT state 1", count=2)[1])
    finish = event_time(driver.wait_for("EVENT finish")[0])
    screenshot("live-alarm.png", until_red=True)
    lines = driver.finish()
    calls = monitor.calls()

    # One notification: created once, every later call replaces it.
    assert calls[0]["replaces"] == 0
    ids = {call["replaces"] for call in calls[1:]}
    assert len(ids) == 1 and ids != {0}, [call["replaces"] for call in calls]
    closes = monitor.calls("CloseNotification")
    assert not closes or closes[0]["boot"] > finish + 10  # not withdrawn before the host let go

    live = [call for call in calls if call["boot"] < finish - 0.01]
    alarm = [call for call in calls if call["boot"] >= finish - 0.01]
    # Live: low urgency, resident, silent, never expiring, a rising value.
    for call in live:
        assert call["hints"]["urgency"] == "0" and call["hints"]["resident"] == "true"
        assert call["hints"]["suppress-sound"] == "true" and call["expire"] == 0
        assert call["summary"] == "Tea"
    values = [int(call["hints"]["value"]) for call in live]
    assert values == sorted(values) and values[0] == 0 and values[-1] >= 70, values
    assert live[0]["actions"] == ["pause", "Pause", "snooze", "+1 min", "cancel", "Cancel"]

    # At most one update a second while it runs (a button's shows at once,
    # and the beat's next one waits 0.9 s after it); none while paused.
    first_paused = next(i for i, call in enumerate(live) if call["body"].endswith("paused"))
    last_paused = max(i for i, call in enumerate(live) if call["body"].endswith("paused"))
    running_before, paused, running_after = live[:first_paused], live[first_paused:last_paused + 1], live[last_paused + 1:]
    gaps = [b["boot"] - a["boot"] for a, b in zip(live, live[1:])]
    assert all(gap >= 0.9 for i, gap in enumerate(gaps) if i + 1 != first_paused), \
        [(round(call["boot"] - start, 4), call["body"], call["hints"].get("value")) for call in live]
    assert abs(paused[0]["boot"] - paused_at) < 0.3 and abs(running_after[0]["boot"] - resumed_at) < 0.3
    assert [call["body"] for call in paused] == [paused[0]["body"]] and paused[0]["body"].endswith(" left · paused")
    assert paused[0]["actions"][:2] == ["resume", "Resume"]
    # Its time left stayed put: resumed, it shows what it showed paused.
    assert running_after[0]["body"] == paused[0]["body"].replace(" · paused", "")
    assert finish - start >= 6.0 + (resumed_at - paused_at) - 0.05
    bodies = [call["body"] for call in running_before]
    assert bodies[:2] == ["0:06 left", "0:05 left"]

    # At zero the same notification turns into the alarm, then counts overtime.
    assert alarm[0]["hints"]["urgency"] == "2" and alarm[0]["body"] == "Tea is ready"
    assert alarm[0]["actions"] == ["stop", "Stop", "restart", "Restart", "snooze", "+1 min"]
    assert "value" not in alarm[0]["hints"] and "resident" not in alarm[0]["hints"]
    assert audio_rms(finish, 1.0) > 0.01
    overtime = [call for call in alarm if "Ran out 0:10 ago" in call["body"]]
    # (The beat is on the wall clock's whole seconds: the first after 10 s,
    # up to a second later, and a loaded machine's timer a little after it.)
    assert overtime and 9.9 <= overtime[0]["boot"] - finish <= 11.5, [(c["boot"] - finish, c["body"]) for c in alarm]
    assert len(alarm) == 2  # the alarm and one overtime line in the 11-13 s it is held
    assert "FLUSH 0" in lines


def test_plus_one_minute_gives_the_same_timer_more_time_and_cancel_withdraws_it(run_driver, monitor):
    driver = run_driver(seconds=5.0, label="Eggs", hold=2.0, live=True)
    timer = driver.wait_for("START")[0].split()[2]
    driver.wait_for(f"REPORT {REPORT_SHOWN} ")
    wait_until(lambda: displayed() >= 1, what="the notification to be drawn")
    press("+1 min")
    action = driver.wait_for(f"REPORT {REPORT_ACTION} ")[0].split(" ", 5)
    assert action[5] == "snooze" and action[3] == action[4] == timer  # the same timer (tocsin_timer_adjust)
    wait_until(lambda: [call for call in monitor.calls() if call["body"].startswith("1:0")], what="the minute added")
    press("Cancel")
    canceled_at = event_time(driver.wait_for("EVENT state 4")[0])
    lines = driver.finish()
    calls = monitor.calls()
    assert [call["replaces"] for call in calls].count(0) == 1  # never a second notification
    bodies = [call["body"] for call in calls]
    assert any(body.startswith("1:0") and body.endswith(" left") for body in bodies), bodies
    assert not any(line.startswith("EVENT finish") for line in lines)
    closed = monitor.calls("CloseNotification")
    assert closed and closed[0]["id"] == calls[-1]["replaces"]
    assert closed[0]["boot"] - canceled_at < 0.5
    assert displayed() == 0


def test_the_command_warns_before_zero_with_a_sound_and_the_text():
    """`tocsin 4s Tea --live --warn 2s`: a short sound and "2 seconds left" at
    2 s before zero, silence before it, the alarm at zero."""
    monitor = NotifyMonitor()
    try:
        result = subprocess.run([os.environ["TOCSIN_BIN"], "4s", "Tea", "--live", "--warn", "2s"],
                                capture_output=True, text=True, timeout=60)
    finally:
        monitor.close()
    assert result.returncode == 0, result.stderr
    calls = monitor.calls()
    began = calls[0]["boot"]  # its live notification, shown as it starts ("0:04 left")
    assert calls[0]["body"] == "0:04 left"
    warning = [call for call in calls if call["body"] == "2 seconds left"]
    assert len(warning) == 1
    warned_at = warning[0]["boot"]
    assert 1.95 <= warned_at - began <= 2.6, warned_at - began
    assert warning[0]["hints"]["urgency"] == "1"  # it stands out from here on
    alarm_at = next(call["boot"] for call in calls if call["hints"].get("urgency") == "2")  # at zero
    assert audio_rms(began + 0.3, 1.5) < 0.001  # nothing before the warning
    assert audio_rms(warned_at - 0.05, 0.6) > 0.005  # the warning sound
    assert audio_rms(alarm_at, 1.0) > 0.01  # the alarm
    assert [call["replaces"] for call in calls].count(0) == 1


BARE_SERVER = HERE / "bare_notification_server.py"


@pytest.mark.parametrize("capabilities", [["body"], []])
def test_a_server_without_actions_gets_the_live_text_and_no_error_spam(run_driver, tmp_path, capabilities):
    """A stand-in notification server on a bus of its own that offers only
    what `capabilities` says: no buttons are sent, the time still is (in the
    summary when there is no body), and nothing fails."""
    bus = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                         capture_output=True, text=True, check=True).stdout.split()
    address, bus_pid = bus[0], int(bus[1])
    log = tmp_path / "calls.jsonl"
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
    server = subprocess.Popen([sys.executable, str(BARE_SERVER), str(log), ",".join(capabilities)], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "READY"
        driver = run_driver(seconds=2.5, label="Tea", hold=1.0, live=True, env=env)
        lines = driver.finish()
    finally:
        server.terminate()
        server.wait()
        os.kill(bus_pid, 15)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    notify = [call for call in calls if call["member"] == "Notify"]
    assert notify and all(call["actions"] == [] for call in notify)
    # The time counts down on the beat at each whole second; the beat just
    # after the first frame may be too close to it (under 0.9 s) to send,
    # which skips one frame.
    frames = ["0:03 left", "0:02 left", "0:01 left"]
    if "body" in capabilities:
        shown = [call["body"] for call in notify if call["body"] in frames]
    else:
        shown = [call["summary"].removeprefix("Tea: ") for call in notify if call["summary"].removeprefix("Tea: ") in frames]
        assert all(call["body"] == "" for call in notify)
    assert shown[0] == "0:03 left" and len(shown) >= 2 and shown == sorted(set(shown), key=frames.index), shown
    assert len(notify) <= 5  # three live frames, the alarm: no retry loop
    assert not [line for line in lines if line.startswith(f"REPORT {REPORT_ALERT_FAILED} ")]
    assert driver.stderr == ""


def test_detaching_or_freeing_the_timer_withdraws_its_live_notification(monitor):
    """From Python: the live notification goes when the host detaches the
    timer, and when the timer is freed without a detach."""
    import tocsin
    import tocsin.notify

    with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine() as engine:
        shown = []
        notifier.on_report(lambda report: shown.append(report) if report.kind == "shown" else None)
        rice = engine.countdown(60, label="Rice")
        notifier.attach(rice, live=True)
        rice.start()
        wait_until(lambda: shown, what="Rice's live notification")
        assert shown[0].detail.startswith("live, shown by dunst")
        notifier.detach(rice)
        wait_until(lambda: len(monitor.calls("CloseNotification")) == 1, what="Rice's to be withdrawn")
        soup = engine.countdown(60, label="Soup")
        notifier.attach(soup, live=True)
        soup.start()
        wait_until(lambda: len(shown) == 2, what="Soup's live notification")
        soup.free()  # no detach: the notifier finds it gone at its next look
        wait_until(lambda: len(monitor.calls("CloseNotification")) == 2, what="Soup's to be withdrawn")
    summaries = {call["summary"] for call in monitor.calls()}
    assert summaries == {"Rice", "Soup"}


def test_a_hosts_live_limit_sums_up_the_rest(monitor):
    """From Python: with set_live_limit(1), of two live timers the one ending
    sooner shows its own notification and the other the summary; raised to 2,
    both show their own and the summary goes."""
    import tocsin
    import tocsin.notify

    with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine() as engine:
        notifier.set_live_limit(1)
        timers = [engine.countdown(seconds, label=label) for seconds, label in ((60, "Rice"), (90, "Soup"))]
        for timer in timers:
            notifier.attach(timer, live=True)
            timer.start()
        wait_until(lambda: displayed() == 2, what="Rice and the summary")
        latest = {call["summary"]: call for call in monitor.calls()}
        assert "Rice" in latest and "Soup" not in latest
        assert latest["1 more timer"]["body"].startswith("Soup 1:")
        # Its id: the beat's next update of the summary replaces it.
        summary = wait_until(lambda: [call["replaces"] for call in monitor.calls()
                                      if call["summary"] == "1 more timer" and call["replaces"]], what="an update")[0]
        notifier.set_live_limit(2)
        wait_until(lambda: [call for call in monitor.calls() if call["summary"] == "Soup"], what="Soup on its own")
        wait_until(lambda: summary in [call["id"] for call in monitor.calls("CloseNotification")], what="the summary to go")
