"""Skipped rings of calendar alarms in the service: the Skip and SkipUntil
methods, the `skipped_until` and `next` properties, the command's
`tocsin skip` and `ls`, a skip kept across a SIGKILL of the service, a
skipped ring that never sounds, and the `notice` option."""

import calendar
import json
import signal
import subprocess
import time

from conftest import TOCSIN
from servicebus import add, call, gdbus_call, stop_service, timers, wait_until

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}
DAY = 86400


def tocsin(*arguments):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=30)


def utc(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%d %H:%M"))


def test_skip_by_count_survives_a_kill_and_is_undone():
    alarm = add("Wake", 0, calendar=("s", "*-*-* 07:00 UTC"), **QUIET)
    first = timers()[alarm]["next"]
    assert "skipped_until" not in timers()[alarm]
    done = tocsin("skip", "Wake", "--count", "2")
    assert done.returncode == 0, done.stderr
    listed = timers()[alarm]
    assert listed["next"] == first + 2 * DAY and listed["skipped_until"] == first + 2 * DAY, (first, listed)
    assert listed["state"] == "running"
    assert done.stdout.startswith("Wake: next ring ") and "(rings skipped until " in done.stdout, done.stdout
    line = tocsin("ls").stdout
    assert ", next " in line and ", skipped until " in line, line
    # tocsin next names the alarm: its spec's rings, the skipped ones marked.
    shown = tocsin("next", "Wake", "--count", "3").stdout.splitlines()
    assert shown[0] == "*-*-* 07:00:00 UTC" and [l.endswith("  skipped") for l in shown[1:]] == [True, True, False], shown
    rings = [json.loads(l) for l in tocsin("next", "Wake", "--count", "3", "--json").stdout.splitlines()]
    assert [r["next"] for r in rings] == [first, first + DAY, first + 2 * DAY] and [r.get("skipped") for r in rings] == [True, True, None]
    assert tocsin("next", "Nothing").returncode == 2
    # Skips count from the coming ring: one more is the third day.
    call("Skip", "tu", alarm, 1)
    assert timers()[alarm]["next"] == first + 3 * DAY
    # Acknowledged, so kept: the service killed and activated again.
    stop_service(signal.SIGKILL)
    listed = timers()[alarm]
    assert (listed["next"], listed["skipped_until"]) == (first + 3 * DAY, first + 3 * DAY), listed
    done = tocsin("skip", "Wake", "--clear")
    assert done.returncode == 0, done.stderr
    listed = timers()[alarm]
    assert listed["next"] == first and "skipped_until" not in listed, listed


def test_a_skip_until_a_date_in_another_zone():
    alarm = add("Stand-up", 0, calendar=("s", "*-*-* 07:00 UTC"), **QUIET)
    year = time.gmtime().tm_year + 1
    done = tocsin("skip", "Stand-up", "--until", f"{year}-01-05 Asia/Tokyo")
    assert done.returncode == 0, done.stderr
    listed = timers()[alarm]
    # Midnight in Tokyo is 15:00 UTC the day before; the 07:00 UTC ring of the 4th is skipped.
    assert listed["skipped_until"] == utc(f"{year}-01-04 15:00"), listed
    assert listed["next"] == utc(f"{year}-01-05 07:00"), listed
    # Without a zone, the alarm's own (UTC here), with a time of day.
    assert tocsin("skip", "Stand-up", "--until", f"{year}-01-05 07:30").returncode == 0
    assert timers()[alarm]["next"] == utc(f"{year}-01-06 07:00")
    stop_service()
    assert timers()[alarm]["skipped_until"] == utc(f"{year}-01-05 07:30")


def test_a_skipped_ring_does_not_sound(signals):
    alarm = add("Tick", 0, calendar=("s", "*:*:0/2 UTC"), **QUIET)
    coming = timers()[alarm]["next"]
    if coming - time.time() < 0.5:  # too close to skip before it rings: take the one after
        signals.wait_for("Finished", id=alarm)
        coming = timers()[alarm]["next"]
    call("Skip", "tu", alarm, 1)
    assert timers()[alarm]["next"] == coming + 2
    due = lambda ring: ring.wall - ring.args[2]  # when it was due, on the wall clock
    # (A Finished of the ring before `coming` may still be on its way: only later ones count.)
    later = lambda: [due(r) for r in signals.named("Finished", id=alarm) if due(r) > coming - 0.5]
    rings = wait_until(later, what="the ring after the skipped one")
    assert abs(rings[0] - (coming + 2)) < 0.5, (coming, rings)
    # The skip has passed: none is reported.
    assert "skipped_until" not in timers()[alarm]


def test_skips_refused_with_reasons():
    tea = add("Tea", 300, **QUIET)
    status, output = gdbus_call("Skip", str(tea), "1")
    assert status != 0 and "InvalidArgument" in output and "Tea is not a calendar alarm" in output, output
    done = tocsin("skip", "Tea")
    assert done.returncode == 1 and "Tea is not a calendar alarm" in done.stderr, done.stderr
    alarm = add("Wake", 0, calendar=("s", "*-*-* 07:00 UTC"), **QUIET)
    status, output = gdbus_call("SkipUntil", str(alarm), "1.0")
    assert status != 0 and "after now" in output, output
    once = add("Once", 0, calendar=("s", f"{time.gmtime().tm_year + 1}-06-01 07:00 UTC"), **QUIET)
    status, output = gdbus_call("Skip", str(once), "1")
    assert status != 0 and "no ring left" in output, output
    assert "skipped_until" not in timers()[once]
    for arguments, words in [(["--count", "0"], "--count takes 1 to 100000 rings; got 0"),  # as next --count says it
                             (["--count", "2", "--clear"], "three different skips"),
                             (["--until", "tomorrow"], "'tomorrow' is not a date"),
                             (["--until", "2020-01-01"], "is not after now"),
                             (["--until", "2030-01-01 Mars/Olympus"], "unknown time zone")]:
        done = tocsin("skip", "Wake", *arguments)
        assert done.returncode == 2 and words in done.stderr, (arguments, done.stderr)
    assert "skipped_until" not in timers()[alarm]


def test_the_notice_option():
    alarm = add("Wake", 0, calendar=("s", "*-*-* 07:00 UTC"), notice=("d", 1800.0), **QUIET)
    assert timers()[alarm]["notice"] == 1800.0
    quiet = add("Quiet", 0, calendar=("s", "*-*-* 07:00 UTC"), **QUIET)
    assert "notice" not in timers()[quiet]  # left out at 0, its default
    status, output = gdbus_call("Add", "Tea", "60.0", "{'notice': <60.0>}")
    assert status != 0 and "notice is for alarms" in output, output
    status, output = gdbus_call("Add", "Wake", "0", "{'calendar': <'07:00'>, 'notice': <90000.0>}")
    assert status != 0 and "notice must be at most 86400 seconds" in output, output
    done = tocsin("every", "Mon..Fri 07:00", "Work", "-b", "--notice", "30m", "--no-wake")
    assert done.returncode == 0, done.stderr
    assert [t["notice"] for t in timers().values() if t["label"] == "Work"] == [1800.0]
    done = tocsin("25m", "Tea", "-b", "--notice", "5m")
    assert done.returncode == 2 and "--notice is for clock times" in done.stderr, done.stderr


def test_skip_by_name_picks_the_calendar_alarm_beside_a_sequences_rounds_of_that_name():
    """`tocsin skip Work`: a calendar alarm Work, and a sequence whose first
    Work is over and whose second waits. The name means the one running
    (the alarm), as for every command that takes a name; that needs the
    rounds' states, which skip once did not ask the service for."""
    wake = add("Work", 0, calendar=("s", "*-*-* 07:00 UTC"), **QUIET)
    assert tocsin("1s:Work", "60m:Break", "1m:Work", "-b", "--quiet").returncode == 0
    wait_until(lambda: [t["state"] for t in timers().values() if t["label"] == "Work"].count("finished") == 1,
               what="the sequence's first Work to finish")
    result = tocsin("skip", "Work")
    assert result.returncode == 0 and result.stdout.startswith("Work: next ring"), result
    assert timers()[wake]["skipped_until"] > 0
