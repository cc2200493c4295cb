"""The notifier through the real libtocsin-notify.so, outside any desktop
session: alerts fail fast and say why, timers are not held up. (Inside a
real session: Tests/desktop, run by `make test-desktop`.)"""

import time
from datetime import timedelta

import pytest

import tocsin
import tocsin.notify


@pytest.fixture
def no_desktop(monkeypatch):
    for name in ("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "PULSE_SERVER", "DISPLAY"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_desktop_reports_arrive_fast_and_finish_is_untouched(no_desktop, manual):
    reports = []
    with tocsin.notify.Notifier(quiet=True) as notifier:
        notifier.on_report(reports.append)
        timer = manual.countdown(2, label="Tea")
        finishes = []
        timer.on_finish(finishes.append)
        notifier.attach(timer, body="Tea is ready")
        timer.start()
        began = time.monotonic()
        manual.advance(2)
        assert len(finishes) == 1  # delivered in advance(), not held up by the notifier
        assert notifier.flush(5)
        assert time.monotonic() - began < 1.0
    by_kind = {report.kind: report for report in reports}
    assert by_kind["alert_failed"].detail == "no session bus: DBUS_SESSION_BUS_ADDRESS is not set"
    assert by_kind["alert_failed"].status == -8 and by_kind["alert_failed"].timer == timer.handle
    assert ("sound_failed" in by_kind) or by_kind["sound"].detail == "terminal-bell"


def test_diagnosis_without_a_desktop(no_desktop):
    with tocsin.notify.Notifier(quiet=True) as notifier:
        text = notifier.diagnose()
    assert "no session bus: DBUS_SESSION_BUS_ADDRESS is not set" in text
    assert "sound alarm-clock-elapsed:" in text


def test_bad_alert_options_are_rejected(manual):
    with tocsin.notify.Notifier(quiet=True) as notifier:
        timer = manual.countdown(1)
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.attach(timer, urgency="panic")
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.attach(timer, repeat=float("nan"))
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.attach(timer, repeat=7200)
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.attach(timer, body="a\0b")
        for warn in (-1, float("nan"), float("inf"), 86401):
            with pytest.raises(tocsin.InvalidArgumentError):
                notifier.attach(timer, live=True, warn=warn)
        for snooze in (0, -1, 0.5, float("nan"), float("inf"), 86401, 1e300, timedelta(days=2)):
            with pytest.raises(tocsin.InvalidArgumentError):
                notifier.attach(timer, snooze=snooze)
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.attach(timer, snooze="5m")  # type: ignore[arg-type]
        for volume in (-61, 11, float("nan"), float("inf"), "loud", True):
            with pytest.raises(tocsin.InvalidArgumentError, match="volume must be -60 to \\+10 dB"):
                notifier.attach(timer, volume=volume)  # type: ignore[arg-type]
        for fade in (-1, float("nan"), 301, 1e300):
            with pytest.raises(tocsin.InvalidArgumentError):
                notifier.attach(timer, fade=fade)
        for path, reason in (("", "name is empty"), ("/nonexistent/gong.wav", "No such file or directory"),
                             ("/tmp", "not a regular file")):
            with pytest.raises(tocsin.InvalidArgumentError, match=reason):
                notifier.attach(timer, sound_file=path)
        notifier.attach(timer, sound_file="/etc/hostname", volume=-20, fade=30)
        notifier.attach(timer, live=True, warn=60, warn_sound="bell")  # good options pass
        notifier.attach(timer, snooze=timedelta(minutes=5))
        notifier.attach(timer, snooze=86400)
        for media in ("mute", "Pause", 1, True):
            with pytest.raises(tocsin.InvalidArgumentError, match="media must be"):
                notifier.attach(timer, media=media)  # type: ignore[arg-type]
        notifier.attach(timer, media="pause", fade=60)  # a sleep timer
        notifier.attach(timer, media="stop")
        timer.free()
        with pytest.raises(tocsin.NoSuchTimerError):
            notifier.attach(timer)


def test_closing_the_engine_detaches_its_alerts(no_desktop):
    engine = tocsin.Engine(manual_clock=True)
    with tocsin.notify.Notifier(quiet=True) as notifier:
        timer = engine.countdown(1)
        notifier.attach(timer)
        engine.close()  # the notifier forgets the engine before it goes
        with pytest.raises(tocsin.EngineClosedError):
            notifier.attach(timer)


@pytest.mark.parametrize("count", [-1, 1001, 2.5, "3", True, None])
def test_bad_live_limits_are_refused(count):
    with tocsin.notify.Notifier(quiet=True) as notifier:
        with pytest.raises(tocsin.InvalidArgumentError):
            notifier.set_live_limit(count)
        notifier.set_live_limit(0)
        notifier.set_live_limit(1000)
