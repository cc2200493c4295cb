"""`tocsin ls --format`: the service's timers as one status line in each
bar's protocol (waybar, i3bar, i3status-rust, polybar, a template), once or
followed. The formats are checked against their protocols here; a real
i3bar drawing one and clicked: Tests/desktop/test_status_bar.py."""

import json
import os
import select
import subprocess
import time

import pytest

from servicebus import DEADLINE, INTERFACE, Monitor, add, call, stop_service, timers, wait_until

TOCSIN = os.environ.get("TOCSIN_BIN", "")
QUIET = {"live": ("b", False), "alert": ("b", False), "sound": ("b", False)}


def line(*arguments):
    result = subprocess.run([TOCSIN, "ls", *arguments], capture_output=True, text=True, timeout=DEADLINE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1, result.stdout
    return result.stdout[:-1]


def test_each_format_shows_the_soonest_timer():
    add("Soup", 3600, **QUIET)
    tea = add("Tea", 600, **QUIET)
    assert line("--format", "plain") in ("Tea 10:00 +1", "Tea 9:59 +1")
    waybar = json.loads(line("--format", "waybar"))
    assert set(waybar) == {"text", "alt", "tooltip", "class", "percentage"}
    assert waybar["alt"] == waybar["class"] == "running" and waybar["text"].startswith("Tea ")
    assert waybar["tooltip"].splitlines()[0].startswith("Tea  ") and waybar["tooltip"].splitlines()[1].startswith("Soup  ")
    assert 0 <= waybar["percentage"] <= 1
    rust = json.loads(line("--format", "i3status-rs"))
    assert set(rust) == {"icon", "state", "text", "short_text"} and rust["state"] == "Info"
    assert rust["short_text"] in ("10:00", "9:59")
    polybar = line("--format", "polybar")
    assert polybar.startswith(f"%{{A1:tocsin pause {tea}:}}Tea ") and polybar.endswith("%{A}"), polybar
    assert line("--template", "{label}|{remaining}|{state}|{count}|{id}") in (f"Tea|10:00|running|2|{tea}",
                                                                            f"Tea|9:59|running|2|{tea}")
    call("Pause", "t", tea)
    assert line("--format", "plain") in ("Soup 1:00:00 +1", "Soup 59:59 +1")  # running before paused
    call("Cancel", "t", tea)
    paused = add("Rice", 300, start=("b", True), **QUIET)
    call("Pause", "t", paused)
    call("Cancel", "t", timers_by_label()["Soup"])
    assert line("--format", "plain") == "Rice 5:00 (paused)"
    assert json.loads(line("--format", "waybar"))["alt"] == "paused"
    assert line("--format", "polybar").startswith(f"%{{A1:tocsin resume {paused}:}}")


def timers_by_label():
    return {state["label"]: id for id, state in timers().items()}


def test_idle_is_an_empty_line_and_a_rung_timer_rings_for_its_ring(signals):
    assert line("--format", "plain") == ""
    assert json.loads(line("--format", "waybar")) == {"text": "", "alt": "idle", "tooltip": "", "class": "idle", "percentage": 0}
    assert json.loads(line("--format", "i3status-rs"))["state"] == "Idle"
    eggs = add("Eggs", 0.2, ring=("d", 30), **QUIET)
    signals.wait_for("Finished", id=eggs)
    assert line("--format", "plain") == "Eggs done"
    assert json.loads(line("--format", "i3status-rs"))["state"] == "Critical"
    assert line("--format", "polybar") == f"%{{A1:tocsin snooze {eggs}:}}Eggs done%{{A}}"


def test_following_writes_every_whole_second_while_running_and_nothing_while_paused():
    tea = add("Tea", 600, **QUIET)
    bar = subprocess.Popen([TOCSIN, "ls", "--follow", "--format", "waybar"], stdout=subprocess.PIPE, text=True)
    try:
        arrivals = []
        for _ in range(4):
            json.loads(bar.stdout.readline())
            arrivals.append(time.time())
        # After the first line, each comes just after a whole second of the wall clock.
        assert all(arrival % 1 < 0.3 for arrival in arrivals[1:]), arrivals
        call("Pause", "t", tea)
        assert json.loads(bar.stdout.readline())["alt"] == "paused"
        ready, _, _ = select.select([bar.stdout], [], [], 2.5)
        assert not ready, "a line while nothing changed"
    finally:
        bar.terminate()
        bar.wait(DEADLINE)


@pytest.mark.parametrize("arguments", [[], ["--format", "waybar"], ["--json"]])
def test_a_follower_ends_with_its_reader(arguments):
    """`tocsin ls --follow | head -1`: once head has its line and exits, the
    follower ends too (status 0), though it has nothing more to write (a
    paused timer: silent). A bar restarted or reloaded leaves none behind."""
    tea = add("Tea", 600, **QUIET)
    call("Pause", "t", tea)
    command = " ".join([TOCSIN, "ls", "--follow", *arguments])
    began = time.monotonic()
    result = subprocess.run(["bash", "-c", command + ' | head -1; echo "status ${PIPESTATUS[0]}"'],
                            capture_output=True, text=True, timeout=DEADLINE)
    lines = result.stdout.splitlines()
    assert "Tea" in lines[0] and lines[1] == "status 0", result
    assert time.monotonic() - began < 5


def test_i3bar_streams_its_protocol_and_a_click_pauses_the_timer_shown():
    tea = add("Tea", 600, **QUIET)
    bar = subprocess.Popen([TOCSIN, "ls", "--follow", "--format", "i3bar"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    try:
        assert json.loads(bar.stdout.readline()) == {"version": 1, "click_events": True}
        assert bar.stdout.readline() == "[\n"
        first = json.loads(bar.stdout.readline())
        assert first[0]["name"] == "tocsin" and first[0]["full_text"].startswith("Tea ")
        following = bar.stdout.readline()
        assert following.startswith(",[") and json.loads(following[1:])[0]["name"] == "tocsin"
        bar.stdin.write('[\n{"name":"tocsin","instance":"","button":1,"x":10,"y":5}\n')
        bar.stdin.flush()
        wait_until(lambda: timers()[tea]["state"] == "suspended", what="the click to pause Tea")
        while True:
            shown = json.loads(bar.stdout.readline()[1:])[0]["full_text"]
            if shown.endswith("(paused)"):
                break
    finally:
        bar.terminate()
        bar.wait(DEADLINE)


@pytest.mark.parametrize("arguments, message", [
    (["--format", "i3bar"], "--format i3bar is a stream: add --follow"),
    (["--format", "waybar", "--json"], "--json and --format are two different outputs"),
    (["--format", "lemonbar"], "The value 'lemonbar' is invalid for '--format <format>'"),
])
def test_bad_formats_are_usage_errors(arguments, message):
    result = subprocess.run([TOCSIN, "ls", *arguments], capture_output=True, text=True, timeout=DEADLINE)
    assert result.returncode == 2 and message in result.stderr, result


def test_a_bar_that_stops_reading_blocks_nothing_and_then_gets_the_line_of_now():
    """A stalled bar (its pipe full) does not block `ls --follow` in a write:
    it keeps serving the bus, keeps only the newest line, and when the bar
    reads again the line of now arrives, not one per second missed."""
    import fcntl

    add("Tea", 600, **QUIET)
    padding = "x" * 1500  # a line a second fills a one-page pipe in three
    follower = subprocess.Popen([TOCSIN, "ls", "--follow", "--template", padding + " {remaining}"],
                                stdout=subprocess.PIPE)
    try:
        fcntl.fcntl(follower.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)
        first = b""
        while not first.endswith(b"\n"):  # os.read, not readline: nothing buffered behind our back
            first += os.read(follower.stdout.fileno(), 1)
        # Not read for 6 s: the pipe fills; the command must not sit in write().
        wait_until(lambda: open(f"/proc/{follower.pid}/wchan").read() not in ("", "0"), what="the command to wait")
        time.sleep(6)
        wchan = open(f"/proc/{follower.pid}/wchan").read()
        assert "pipe_write" not in wchan, f"blocked in a write to the stalled bar ({wchan})"
        assert follower.poll() is None
        remaining_now = timers()[timers_by_label()["Tea"]]["remaining"]

        def seconds(text):
            minutes, secs = map(int, text.decode().split()[-1].split(":"))
            return minutes * 60 + secs

        # Read (whole lines, never blocking on half of one) until the line of now.
        lines, buffered = [], b""
        deadline = time.monotonic() + DEADLINE
        while not (lines and abs(seconds(lines[-1]) - remaining_now) <= 2):
            assert time.monotonic() < deadline, lines
            if select.select([follower.stdout], [], [], 0.2)[0]:
                buffered += os.read(follower.stdout.fileno(), 65536)
                *complete, buffered = buffered.split(b"\n")
                lines += [text + b"\n" for text in complete]
        assert all(text.startswith(padding.encode()) for text in lines), "a half line"
        # Before it only what the pipe held and the line begun when it filled
        # (at most 3 of these lines in a page): not one for each second missed,
        # nor the line a blocked write would have held back.
        assert len(lines) - 1 <= 3, [text.decode().split()[-1] for text in lines]
    finally:
        follower.kill()
        follower.wait()


def test_a_burst_of_rings_is_followed_from_the_signals_with_one_list(signals):
    """100 alarms ringing at once: the follower updates each row from its
    Changed and Finished signals and lists the timers once, when it starts
    (it once listed them all again at every Finished, 100 lists here)."""
    calls = Monitor(INTERFACE, kinds=("method_call",))
    bar = subprocess.Popen([TOCSIN, "ls", "--follow", "--format", "waybar"], stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(bar.stdout.readline())["alt"] == "idle"
        ring = int(time.time()) + 15  # after the 100 Adds (about 2 s here; more on a loaded machine)
        alarms = [add(f"Bus {number}", ring, kind=("s", "alarm"), **QUIET) for number in range(100)]
        signals.wait_for("Finished", count=100)
        while True:  # until the bar has all 100 ringing
            shown = json.loads(bar.stdout.readline())
            if shown["alt"] == "ringing" and shown["text"].endswith(" +99"):
                break
        for _ in range(2):  # two more beats: whatever the signals made it do is done
            bar.stdout.readline()
        signals.sync()
        calls.sync()
        lists = [record.member for record in calls.read() if record.member in ("List", "ListColumns")]
        assert lists == ["ListColumns"], f"{len(lists)} lists for {len(alarms)} rings"
    finally:
        bar.terminate()
        bar.wait(DEADLINE)
        calls.close()


def test_a_follower_lists_again_when_the_service_is_back():
    """The service stopped and started again: the follower cannot know what
    changed meanwhile, so it lists the timers once more (and only then)."""
    calls = Monitor(INTERFACE, kinds=("method_call",))
    add("Tea", 600, **QUIET)
    bar = subprocess.Popen([TOCSIN, "ls", "--follow", "--format", "plain"], stdout=subprocess.PIPE, text=True)
    try:
        assert bar.stdout.readline().startswith("Tea ")
        stop_service()
        add("Soup", 300, **QUIET)  # starts it again
        while not bar.stdout.readline().startswith("Soup "):
            pass
        wait_until(lambda: [record.member for record in calls.read()].count("ListColumns") == 2,
                   what="the follower to list again")
    finally:
        bar.terminate()
        bar.wait(DEADLINE)
        calls.close()
