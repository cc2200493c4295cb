"""Calendar alarms in the service: Add's `calendar` option, the rings as
Finished signals while the alarm runs on, List's `calendar` and `next`, a
ring missed while the service was down announced once when it comes back,
and the command's `every -b`."""

import json
import math
import os
import re
import subprocess
import time

from conftest import TOCSIN
from servicebus import add, boot_time, call, gdbus_call, on_time, stop_service, timers, wait_until

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def tocsin(*arguments):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=30)


def test_a_calendar_alarm_rings_every_second_and_runs_on(signals):
    before = time.time()
    alarm = add("Tick", 0, calendar=("s", "*:*:* UTC"), **QUIET)
    listed = timers()[alarm]
    after = time.time()
    assert (listed["kind"], listed["state"], listed["calendar"]) == ("calendar", "running", "*-*-* *:*:* UTC")
    assert listed["next"] == listed["alarm_time"] and listed["next"] == int(listed["next"])
    # The whole second after the service read the clock, between before and after.
    assert math.floor(before) < listed["next"] <= math.floor(after) + 1, (before, listed["next"], after)
    rings = signals.wait_for("Finished", 3, id=alarm)
    assert [ring.args[1] for ring in rings] == ["Tick"] * 3
    # The whole second each rang for: arrival less its own lateness is that
    # second plus the way to the bus (ms), never less.
    due = [math.floor(ring.wall - ring.args[2] + 1e-3) for ring in rings]
    for ring, second in zip(rings, due):
        on_time(ring.args[2], "by its own count")
        on_time(ring.wall - second, "on the bus")
    assert [second - due[0] for second in due] == [0, 1, 2], due  # a second apart
    before = time.time()
    listed = timers()[alarm]
    assert listed["state"] == "running" and listed["next"] > before and "rang_ago" in listed
    call("Cancel", "t", alarm)
    assert timers()[alarm]["state"] == "canceled"
    count = len(signals.named("Finished", id=alarm))
    time.sleep(1.5)
    assert len(signals.named("Finished", id=alarm)) == count  # cancelled: no more rings


def test_a_ring_is_said_as_a_ring_and_followed_by_the_alarms_next(tmp_path):
    """ls --follow across the rings of a recurring alarm: each ring, then
    the alarm's row with its next ring (a Changed after the Finished);
    the text view says it rang, not that it finished (issue 58: it showed
    "finished" and nothing more)."""
    alarm = add("Often", 0, calendar=("s", "*:*:* UTC"), **QUIET)
    first = timers()[alarm]["next"]
    follow = subprocess.Popen([TOCSIN, "ls", "--follow", "--json"], stdout=subprocess.PIPE, text=True)
    text = subprocess.Popen([TOCSIN, "ls", "--follow"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "LANG": "C.UTF-8"})
    deadline = time.monotonic() + 30
    try:
        lines, rang = [], []
        while len(rang) < 2:
            line = follow.stdout.readline()
            assert line and time.monotonic() < deadline, ("the JSON follow ended or waited 30 s", lines)
            lines.append(json.loads(line))
            if lines[-1].get("event") == "finished" and lines[-1]["id"] == alarm:
                rang.append(len(lines) - 1)
        after = [line for line in lines[rang[0] + 1:rang[1]] if line.get("id") == alarm]
        assert after and after[0]["event"] == "changed" and after[0]["state"] == "running", lines
        assert after[0]["next"] > first and after[0]["finishes"] >= 1, (first, after)
        seen = []
        while not any(re.fullmatch(rf"{alarm}  Often +rang", line) for line in seen):
            line = text.stdout.readline()
            assert line and time.monotonic() < deadline and len(seen) < 40, ("no 'rang' line", seen)
            seen.append(line.rstrip("\n"))
        assert not any(line.endswith("  finished") for line in seen), seen
    finally:
        for process in (follow, text):
            process.kill()
            process.wait()


def test_bad_calendar_specs_get_named_errors():
    status, output = gdbus_call("Add", "Wake", "0", "{'calendar': <'Mun..Fri 07:00'>}")
    assert status != 0 and "InvalidArgument" in output
    assert "bad calendar spec 'Mun..Fri 07:00': column 1: 'Mun..Fri' is not a weekday, a date" in output, output
    status, output = gdbus_call("Add", "Wake", "0", "{'calendar': <'07:00 Mars/Olympus'>}")
    assert "column 7: unknown time zone 'Mars/Olympus'" in output, output
    status, output = gdbus_call("Add", "Wake", "0", "{'kind': <'calendar'>}")
    assert "needs the option calendar" in output, output
    status, output = gdbus_call("Add", "Old", "0", "{'calendar': <'2020-01-01'>}")
    assert status != 0 and "no occurrence left" in output, output
    alarm = add("Wake", 0, calendar=("s", "Mon..Fri 07:00"), **QUIET)
    status, output = gdbus_call("Adjust", str(alarm), "60.0")
    assert status != 0 and "Wake is a calendar alarm" in output, output


def test_a_ring_missed_while_the_service_was_down_is_announced_once_and_it_rings_on(signals):
    # The service must go down before the alarm's first ring. On a busy
    # machine adding, listing and stopping can take longer than the up to
    # 3 s to that ring: then that alarm is removed and the test begins
    # again with a new one (its id, and so its signals, are its own).
    tries = []  # (seconds to the ring once listed, seconds the stop took)
    for attempt in range(10):
        alarm = add("Stand-up", 0, calendar=("s", "*:*:0/3 UTC"), **QUIET)
        coming = timers()[alarm]["next"]
        ahead = coming - time.time()
        if ahead > 1.0:
            stop_service()
            tries.append((round(ahead, 2), round(time.time() - (coming - ahead), 2)))
            if time.time() < coming:
                break
        else:
            tries.append((round(ahead, 2), None))
            signals.wait_for("Finished", id=alarm)  # rung: the next try gets a whole period
        call("Remove", "t", alarm)
    else:
        raise AssertionError(f"the service could not be stopped before a ring in 10 tries: {tries}")
    time.sleep(max(0.0, coming - time.time()) + 1.2)  # the ring passes while no service runs
    assert timers()[alarm]["state"] == "running"  # activated again: the held ring comes at once
    (late,) = signals.wait_for("Finished", id=alarm)
    assert late.args[2] >= 1.0  # announced late, by how late
    later = signals.wait_for("Finished", 2, id=alarm, timeout=10)[1]
    assert 0 <= later.args[2] < 0.5  # then on time again
    stop_service()
    timers()  # back once more: nothing is announced twice
    signals.wait_for("Finished", 3, id=alarm, timeout=10)  # the next ring after that comes, once
    signals.sync()
    # Each ring's occurrence (when it was announced less how late): all
    # different, every 3 s; a repeat would be a second one within a moment.
    occurrences = sorted(ring.at - ring.args[2] for ring in signals.named("Finished", id=alarm))
    assert all(b - a > 2 for a, b in zip(occurrences, occurrences[1:])), occurrences


def test_every_in_the_background_is_listed_and_removed(signals):
    handed = tocsin("every", "Mon..Fri 07:00 UTC", "Wake", "-b")
    assert handed.returncode == 0, handed.stderr
    assert re.fullmatch(r"Wake: id (\d+), Mon\.\.Fri \*-\*-\* 07:00:00 UTC, next (Mon|Tue|Wed|Thu|Fri) "
                        r"\d{4}-\d\d-\d\d 07:00:00 \+00:00\n", handed.stdout), handed.stdout
    listed = tocsin("ls")
    assert re.search(r"^\s*\d+\s+Wake\s+running\s+Mon\.\.Fri \*-\*-\* 07:00:00 UTC, (\d+d \d\d:|\d{1,2}:)?\d\d:\d\d left$",
                     listed.stdout, re.M), listed.stdout
    (item,) = [json.loads(line) for line in tocsin("ls", "--json").stdout.splitlines()]
    assert item["kind"] == "calendar" and item["calendar"] == "Mon..Fri *-*-* 07:00:00 UTC"
    assert tocsin("rm", "Wake").returncode == 0
    assert timers() == {}
    bad = tocsin("every", "Mon..Fri 7:61", "Wake", "-b")
    assert bad.returncode == 2 and bad.stderr.startswith("tocsin: bad calendar spec 'Mon..Fri 7:61': column 12: minute 61 is out of range"), bad.stderr
