"""An alarm people live with, over D-Bus and from the command, without a
desktop. Snooze: a countdown or alarm that has rung runs again for the
timer's snooze (the option `snooze`, 5 min by default) or the length given;
a calendar alarm rings once more and keeps its times; each snooze is
journaled before it is answered and survives SIGKILL. Ring: the option
`ring` (1 min by default) kept and checked. What the desktop shows and
plays (the Snooze button, the ring's sound, "unanswered"): Tests/desktop."""

import math
import os
import signal
import subprocess
import time

import pytest

from servicebus import DEADLINE, add, boot_time, call, gdbus_call, service_pid, timers, wait_until

TOCSIN = os.environ.get("TOCSIN_BIN", "")
QUIET = {"live": ("b", False), "alert": ("b", False), "sound": ("b", False)}


def tocsin(*arguments):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=DEADLINE)


def refused(method, *arguments):
    status, output = gdbus_call(method, *arguments)
    assert status != 0, f"{method} {arguments} was answered: {output}"
    return output


def test_a_finished_countdown_snoozed_rings_again_after_its_snooze(signals):
    timer = add("Tea", 0.2, snooze=("d", 1.5), **QUIET)
    signals.wait_for("FinishAnnounced", id=timer)
    assert timers()[timer]["snooze"] == 1.5
    snoozed = boot_time()
    call("Snooze", "td", timer, 0)  # 0: its own snooze
    listed = timers()[timer]
    assert listed["state"] == "running" and 1.0 < listed["remaining"] <= 1.5
    (_, again) = signals.wait_for("FinishAnnounced", count=2, id=timer)
    assert again.args[3:] == (2, False)
    assert 1.5 <= again.at - snoozed < 2.5  # never early
    call("Snooze", "td", timer, 2)  # a length of its own this time
    assert 1.5 < timers()[timer]["remaining"] <= 2
    assert timers()[timer]["snooze"] == 1.5  # the timer's own stays


def test_the_default_snooze_is_five_minutes_and_tocsin_snooze_takes_a_length(signals):
    timer = add("Eggs", 0.2, **QUIET)
    signals.wait_for("FinishAnnounced", id=timer)
    assert timers()[timer]["snooze"] == 300
    result = tocsin("snooze", "Eggs")
    assert result.returncode == 0, result.stderr
    assert 299 < timers()[timer]["remaining"] <= 300
    call("Cancel", "t", timer)
    call("Restart", "t", timer)
    signals.wait_for("FinishAnnounced", count=2, id=timer)
    result = tocsin("snooze", "Eg", "10m")  # a unique prefix, a length
    assert result.returncode == 0, result.stderr
    assert 599 < timers()[timer]["remaining"] <= 600


def test_an_alarm_that_rang_snoozes_from_now(signals):
    timer = add("Wake", time.time() + 0.3, kind=("s", "alarm"), snooze=("d", 60), **QUIET)
    signals.wait_for("FinishAnnounced", id=timer)
    call("Snooze", "td", timer, 0)
    listed = timers()[timer]
    assert listed["state"] == "running" and abs(listed["alarm_time"] - (time.time() + 60)) < 2


def test_a_calendar_alarm_snoozed_rings_once_more_and_keeps_its_times(signals):
    timer = add("Stand-up", 0, calendar=("s", "*-*-* 03:17:00 UTC"), **QUIET)
    before = timers()[timer]
    snoozed, asked = boot_time(), time.time()
    call("Snooze", "td", timer, 1)
    listed = timers()[timer]
    answered = time.time()
    assert asked + 1 - 1e-3 <= listed["snoozed_until"] <= answered + 1 + 1e-3, (asked, listed["snoozed_until"], answered)
    (ring,) = signals.wait_for("FinishAnnounced", id=timer)
    assert ring.args[3:] == (1, False) and ring.at - snoozed >= 1.0  # never before its snooze
    after = timers()[timer]
    assert after["state"] == "running" and after["next"] == before["next"] and after["calendar"] == before["calendar"]
    assert "snoozed_until" not in after and after["finishes"] == 1
    time.sleep(1.5)
    signals.sync()
    assert len(signals.named("FinishAnnounced", id=timer)) == 1  # once more, not every second


def test_a_cancelled_calendar_alarm_forgets_its_snooze(signals):
    timer = add("Yoga", 0, calendar=("s", "*-*-* 03:17:00 UTC"), **QUIET)
    call("Snooze", "td", timer, 1)
    call("Cancel", "t", timer)
    assert "snoozed_until" not in timers()[timer]
    time.sleep(1.5)
    signals.sync()
    assert signals.named("Finished", id=timer) == []


@pytest.mark.parametrize("kind", ["countdown", "calendar"])
def test_a_snooze_survives_sigkill(signals, kind):
    if kind == "countdown":
        timer = add("Rice", 0.2, **QUIET)
        signals.wait_for("FinishAnnounced", id=timer)
    else:
        timer = add("Rice", 0, calendar=("s", "*-*-* 03:17:00 UTC"), **QUIET)
    rings = len(signals.named("FinishAnnounced", id=timer))
    snoozed = boot_time()
    call("Snooze", "td", timer, 2)
    os.kill(service_pid(), signal.SIGKILL)  # right after the answer
    wait_until(lambda: service_pid() is None)
    listed = timers()[timer]  # back, from the journal
    assert listed["state"] == "running"
    (*_, ring) = signals.wait_for("FinishAnnounced", count=rings + 1, id=timer)
    assert 2.0 <= ring.at - snoozed < 3.5


def test_snooze_refuses_what_it_cannot_do_and_changes_nothing():
    running = add("Soup", 600, **QUIET)
    watch = add("Run", 0, kind=("s", "stopwatch"), **QUIET)
    rows = [
        ((running, 0), "WrongState", "Soup is running: only a timer that has rung can be snoozed"),
        ((watch, 0), "InvalidArgument", "Run is a stopwatch: nothing rings to snooze"),
        ((running, -1), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((running, 0.5), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((running, 86401), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((running, math.nan), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((running, math.inf), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((running, 1e300), "InvalidArgument", "snooze must be 1 to 86400 seconds"),
        ((999, 0), "NoSuchTimer", "no timer 999"),
    ]
    before = timers()[running]
    for (timer, seconds), error, message in rows:
        output = refused("Snooze", str(timer), repr(seconds) if math.isfinite(seconds) else f"{seconds}")
        assert f"dev.tocsin.Timers1.Error.{error}" in output and message in output, (timer, seconds, output)
    after = timers()[running]
    assert after["state"] == before["state"] == "running" and after["duration"] == before["duration"]


@pytest.mark.parametrize("value", ["<-1.0>", "<0.0>", "<0.5>", "<86401.0>", "<'5m'>", "<true>"])
def test_add_refuses_a_bad_snooze(value):
    output = refused("Add", "'Tea'", "60.0", "{'snooze': " + value + "}")
    assert "dev.tocsin.Timers1.Error.InvalidArgument" in output and "snooze must be" in output, output
    assert timers() == {}


@pytest.mark.parametrize("arguments, message", [
    (["snooze", "Tea", "0s"], "snooze for 1 s to 24 h"),
    (["snooze", "Tea", "25h"], "snooze for 1 s to 24 h"),
    (["snooze", "Tea", "soon"], "snooze for 1 s to 24 h"),
    (["snooze", "Tea", "7:00"], "snooze for 1 s to 24 h"),
    (["5m", "Tea", "-b", "--snooze", "0.5s"], "--snooze takes a duration from 1s to a day"),
    (["5m", "Tea", "-b", "--snooze", "25h"], "--snooze takes a duration from 1s to a day"),
    (["5m", "Tea", "-b", "--snooze", "0s"], "--snooze takes a duration from 1s to a day"),
    (["5m", "Tea", "-b", "--snooze", "7:00"], "--snooze takes a duration from 1s to a day"),
    (["every", "07:00", "Wake", "--snooze", "5m"], "--snooze on a calendar alarm is the timer service's: add -b"),
    (["5m", "Tea", "-b", "--ring", "2h"], "--ring takes a duration of at most an hour"),
    (["every", "07:00", "Wake", "-b", "--ring", "-5s"], "--ring"),
])
def test_the_command_refuses_a_bad_snooze_before_calling(arguments, message):
    result = tocsin(*arguments)
    assert result.returncode == 2 and message in result.stderr, result
    assert service_pid() is None  # nothing was asked of the service


def test_the_command_hands_the_snooze_to_the_service(signals):
    result = tocsin("0.2s", "Tea", "-b", "--snooze", "90s", "--no-live", "--quiet")
    assert result.returncode == 0, result.stderr
    (timer,) = timers()
    assert timers()[timer]["snooze"] == 90
    signals.wait_for("FinishAnnounced", id=timer)
    assert tocsin("snooze", "Tea").returncode == 0
    assert 89 < timers()[timer]["remaining"] <= 90
    result = tocsin("snooze", "Tea")
    assert result.returncode == 1 and "Tea is running: only a timer that has rung can be snoozed" in result.stderr
    result = tocsin("every", "03:17", "Wake", "-b", "--snooze", "2m", "--quiet")
    assert result.returncode == 0, result.stderr
    assert [state["snooze"] for state in timers().values() if state["label"] == "Wake"] == [120]


def test_the_ring_is_a_minute_by_default_and_kept_across_a_restart(state_file):
    tea = add("Tea", 600, **QUIET)
    once = add("Soup", 600, ring=("d", 0), **QUIET)
    long = add("Stew", 600, ring=("d", 3600), **QUIET)
    assert [timers()[timer]["ring"] for timer in (tea, once, long)] == [60, 0, 3600]
    os.kill(service_pid(), signal.SIGKILL)
    wait_until(lambda: service_pid() is None)
    assert [timers()[timer]["ring"] for timer in (tea, once, long)] == [60, 0, 3600]


@pytest.mark.parametrize("value, message", [
    ("<-1.0>", "ring must be a number of seconds >= 0"),
    ("<3600.5>", "ring must be at most 3600 seconds"),
    ("<1e300>", "ring must be at most 3600 seconds"),
    ("<'1m'>", "ring must be a number of seconds >= 0"),
])
def test_add_refuses_a_bad_ring(value, message):
    output = refused("Add", "'Tea'", "60.0", "{'ring': " + value + "}")
    assert "dev.tocsin.Timers1.Error.InvalidArgument" in output and message in output, output
    assert timers() == {}


def test_the_command_hands_the_ring_to_the_service():
    assert tocsin("10m", "Tea", "-b", "--ring", "5s", "--quiet").returncode == 0
    assert tocsin("10m", "Rice", "-b", "--ring", "0", "--quiet").returncode == 0
    assert tocsin("every", "03:17", "Wake", "-b", "--ring", "2m", "--quiet").returncode == 0
    rings = {state["label"]: state["ring"] for state in timers().values()}
    assert rings == {"Tea": 5, "Rice": 0, "Wake": 120}


@pytest.mark.parametrize("option, message", [
    ("'sound_file': <''>", "sound_file must be an absolute path"),
    ("'sound_file': <'gong.wav'>", "sound_file must be an absolute path"),
    ("'sound_file': <'/nonexistent/gong.wav'>", "sound file '/nonexistent/gong.wav': No such file or directory"),
    ("'sound_file': <'/tmp'>", "sound file '/tmp': not a regular file"),
    ("'sound_file': <7.0>", "sound_file must be a string (s)"),
    ("'volume': <-61.0>", "volume must be -60 to +10 dB"),
    ("'volume': <10.5>", "volume must be -60 to +10 dB"),
    ("'volume': <'loud'>", "volume must be -60 to +10 dB"),
    ("'fade': <-1.0>", "fade must be a number of seconds >= 0"),
    ("'fade': <301.0>", "fade must be at most 300 seconds"),
])
def test_add_refuses_a_bad_sound_volume_or_fade(option, message):
    output = refused("Add", "'Tea'", "60.0", "{" + option + "}")
    assert "dev.tocsin.Timers1.Error.InvalidArgument" in output and message in output, output
    assert timers() == {}


def test_the_sound_volume_and_fade_are_kept_across_a_restart(tmp_path):
    gong = tmp_path / "gong.wav"
    gong.write_bytes(b"RIFF")
    timer = add("Tea", 600, sound_file=("s", gong), volume=("d", -12.5), fade=("d", 30), **QUIET)
    os.kill(service_pid(), signal.SIGKILL)
    wait_until(lambda: service_pid() is None)
    listed = timers()[timer]
    assert (listed["sound_file"], listed["volume"], listed["fade"]) == (str(gong), -12.5, 30)


@pytest.mark.parametrize("arguments, message", [
    (["5m", "Tea", "--sound", "/nonexistent/gong.wav"], "sound file '/nonexistent/gong.wav': No such file or directory"),
    (["5m", "Tea", "--sound", ""], "the sound file's name is empty"),
    (["5m", "Tea", "-b", "--sound", "/tmp"], "sound file '/tmp': not a regular file"),
    (["5m", "Tea", "--volume", "11"], "--volume takes -60 to 10 dB"),
    (["5m", "Tea", "-b", "--volume", "-61"], "--volume takes -60 to 10 dB"),
    (["5m", "Tea", "--volume", "nan"], "--volume takes -60 to 10 dB"),
    (["5m", "Tea", "--fade", "6m"], "--fade takes a duration of at most 5 minutes"),
    (["every", "07:00", "Wake", "--sound", "/nonexistent/gong.wav"], "No such file or directory"),
])
def test_the_command_refuses_a_bad_sound_volume_or_fade_before_anything_starts(arguments, message):
    result = tocsin(*arguments)
    assert result.returncode == 2 and message in result.stderr, result
    assert service_pid() is None


def test_the_command_hands_a_relative_sound_file_to_the_service_as_an_absolute_path(tmp_path):
    (tmp_path / "gong.wav").write_bytes(b"RIFF")
    result = subprocess.run([TOCSIN, "10m", "Tea", "-b", "--sound", "gong.wav", "--volume", "-6", "--fade", "20s", "--quiet"],
                            capture_output=True, text=True, timeout=DEADLINE, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (listed,) = timers().values()
    assert (listed["sound_file"], listed["volume"], listed["fade"]) == (str(tmp_path / "gong.wav"), -6, 20)
