"""`tocsin next` and `tocsin every` in the foreground, with systemd-analyze
as the oracle for the occurrences they list. $TOCSIN_BIN is the built
command."""

import json
import os
import re
import signal
import subprocess
import time

import pexpect
import pytest

TOCSIN = os.environ.get("TOCSIN_BIN", "")
if not TOCSIN:
    pytest.skip("run through `make test-cli`", allow_module_level=True)


def run(*arguments, env=None, timeout=30):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def systemd_next(spec, count, zone):
    """The next `count` occurrences (Unix seconds) systemd-analyze lists."""
    result = subprocess.run(["systemd-analyze", "calendar", f"--iterations={count}", spec], capture_output=True,
                            text=True, env={**os.environ, "TZ": zone, "SYSTEMD_COLORS": "0"}, timeout=30)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "(in UTC):" in line]
    if not lines:  # in UTC, systemd prints each time once
        lines = [line for line in result.stdout.splitlines() if "Next elapse:" in line or "Iter. #" in line]
    stamps = [re.search(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC", line).group(1) for line in lines]
    normalized = re.search(r"Normalized form: (.*)", result.stdout).group(1).strip()
    return normalized, [int(subprocess.check_output(["date", "-u", "-d", f"{stamp} UTC", "+%s"], text=True)) for stamp in stamps]


@pytest.mark.parametrize("spec,zone", [
    ("Mon..Fri 07:00", "Europe/Berlin"), ("*:0/15", "America/New_York"), ("*-*~01 18:00", "Australia/Sydney"),
    ("Sat,Sun 10:30", "Australia/Lord_Howe"), ("quarterly", "Asia/Tehran"), ("*-12-25 08:00", "UTC"),
])
def test_next_lists_what_systemd_analyze_lists(spec, zone):
    result = run("next", spec, "--count", "8", "--json", env={"TZ": zone})
    assert result.returncode == 0, result.stderr
    ours = [json.loads(line)["next"] for line in result.stdout.splitlines()]
    normalized, theirs = systemd_next(spec, 8, zone)
    # Both from now: a second may tick between the two runs.
    assert ours == theirs or ours[1:] == theirs[:-1] or ours[:-1] == theirs[1:], (ours, theirs)
    text = run("next", spec, "--count", "2", env={"TZ": zone})
    assert text.stdout.splitlines()[0] == normalized
    assert re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d  in .+",
                        text.stdout.splitlines()[1]), text.stdout


@pytest.mark.parametrize("arguments,message", [
    (["next", "Mun 07:00"], "bad calendar spec 'Mun 07:00': column 1: 'Mun' is not a weekday"),
    (["next", "07:00", "Mars/Olympus"], "bad calendar spec '07:00 Mars/Olympus': column 7: unknown time zone 'Mars/Olympus'"),
    (["next", "daily", "--count", "0"], "--count takes 1 to 1000; got 0"),
    (["every", "*-13-01 07:00", "Never"], "bad calendar spec '*-13-01 07:00': column 3: month 13 is out of range"),
    (["every", "Mon..Fri 07:00", "Wake", "--json", "-b"], "--json is for an alarm in the foreground; drop it or -b"),
])
def test_bad_specs_are_one_line_and_status_2(arguments, message):
    result = run(*arguments)
    assert result.returncode == 2 and result.stderr.startswith("tocsin: " + message), result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_a_spec_with_no_occurrence_left_fails_with_status_1():
    result = run("next", "2020-01-01")
    assert (result.returncode, result.stderr) == (1, "tocsin: '2020-01-01' has no occurrence after now\n")
    result = run("every", "*-02-30 07:00", "Never", "--quiet")  # parses (as systemd's), never happens
    assert (result.returncode, result.stderr) == (1, "tocsin: *-02-30 07:00:00 has no occurrence left\n")


def test_every_rings_each_occurrence_as_a_json_event_until_sigterm():
    began = time.time()
    child = subprocess.Popen([TOCSIN, "every", "*:*:* UTC", "Beat", "--json", "--quiet"], stdout=subprocess.PIPE,
                             text=True)
    rings = []
    while len(rings) < 3:
        rings.append(json.loads(child.stdout.readline()))
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=10) == 143
    assert [ring["event"] for ring in rings] == ["ring"] * 3
    assert all(ring["label"] == "Beat" and ring["calendar"] == "*-*-* *:*:* UTC" and ring["missed"] == 0 for ring in rings)
    assert all(ring["next"] == int(ring["next"]) > began for ring in rings)
    assert [ring["next"] - rings[0]["next"] for ring in rings] == [0, 1, 2]  # each names the one after it
    assert time.time() - began >= 2  # three rings, a second apart, none early


def test_every_on_a_terminal_shows_the_next_ring_and_q_stops_it():
    child = pexpect.spawn("/bin/sh", ["-c", f"TZ=UTC {TOCSIN} every 'Mon..Fri 07:00' Wake --quiet; echo EXIT=$?"],
                          dimensions=(24, 100), encoding="utf-8", timeout=30)
    child.expect(r"Wake  next (Mon|Tue|Wed|Thu|Fri) \d{4}-\d\d-\d\d 07:00:00 \+00:00  in ")
    child.send("q")
    child.expect(r"Wake: stopped after 0 rings \(Mon\.\.Fri \*-\*-\* 07:00:00\)")
    child.expect(r"EXIT=(\d+)")
    assert child.match.group(1) == "0"
