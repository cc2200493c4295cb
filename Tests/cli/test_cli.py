"""The `tocsin` command run as a person (under a pseudo-terminal) and as a
script (pipes) would run it. $TOCSIN_BIN is the built command."""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from servicebus import SmallDisk, wait_until

TOCSIN = os.environ.get("TOCSIN_BIN", "")
if not TOCSIN:
    pytest.skip("run through `make test-cli`", allow_module_level=True)

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen_lines(text):
    """The lines a person saw last, escape codes removed."""
    return [ANSI.sub("", line) for line in text.replace("\r\n", "\n").split("\r")]


def spawn(arguments, columns=70):
    """The command under a pty, followed by `stty -a`, to see what it left."""
    return pexpect.spawn("/bin/sh", ["-c", f"{TOCSIN} {arguments}; echo EXIT=$?; stty -a"],
                         dimensions=(24, columns), encoding="utf-8", timeout=30)


def drain(child, seconds):
    """Everything the command writes within `seconds`."""
    text, deadline = "", time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            text += child.read_nonblocking(100000, timeout=max(0.01, deadline - time.monotonic()))
        except pexpect.TIMEOUT:
            break
    return text


def terminal_restored(child):
    """After the command: echo and line editing are on again, cursor shown."""
    child.expect(pexpect.EOF)
    tail = child.before
    settings = tail[tail.index("EXIT="):]
    return " icanon" in settings and " echo " in settings and "\x1b[?25h" in tail


def exit_status(child_text):
    return int(re.search(r"EXIT=(\d+)", child_text).group(1))


def test_countdown_pause_freezes_the_display_then_finishes():
    child = spawn("3s Tea --quiet")
    child.expect(r"Tea  00:0[23]  \[█+░+\]  running")  # drawn: the terminal is in raw mode by now
    child.send(" ")
    child.expect("paused")
    assert screen_lines(child.before + child.after)[-1].rstrip().endswith("paused")
    frozen = drain(child, 1.5)
    assert "Tea" not in frozen  # nothing is redrawn while paused: the display froze
    child.send(" ")
    child.expect("✔ Tea  00:03  finished", timeout=10)
    child.expect(pexpect.EOF)
    assert exit_status(child.before) == 0
    assert " icanon" in child.before and " echo " in child.before and "\x1b[?25h" in child.before


def test_q_cancels_with_status_130_and_restores_the_terminal():
    child = spawn("1m Soup --quiet")
    child.expect("running")
    child.send("q")
    assert terminal_restored(child)
    assert exit_status(child.before) == 130
    assert re.search(r"Soup: cancelled with \d\d:\d\d left", child.before)


def test_ctrl_c_cancels_too():
    child = spawn("1m Soup --quiet")
    child.expect("running")
    child.sendcontrol("c")
    assert terminal_restored(child)
    assert exit_status(child.before) == 130


def test_r_restarts_from_the_full_time():
    child = spawn("4s Bread --quiet")
    child.expect("Bread  00:02")  # 2 s have gone
    child.send("r")
    child.expect("Bread  00:04")  # all 4 s again
    child.send("q")
    assert terminal_restored(child)


def test_display_fits_the_terminal_width():
    child = spawn("1m 'A very long label that would never fit in a narrow terminal' --quiet", columns=40)
    child.expect(r"\d\d:\d\d")  # a frame drawn
    text = child.before + child.after + drain(child, 0.3)
    child.send("q")
    child.expect(pexpect.EOF)
    assert all(len(line) <= 39 for line in screen_lines(text) if line.strip())


def test_stopwatch_laps_and_stop():
    child = spawn("sw Run")
    child.expect(r"Run  00:00\.[5-9]")  # half a second in
    child.send("l")
    child.expect(r"Lap 1  00:00\.[5-9]")
    child.send("\r")
    child.expect(r"Lap 2  (\d\d:\d\d\.\d)  \((\d\d:\d\d\.\d)\)")
    lap, total = child.match.group(1), child.match.group(2)
    child.send("q")
    assert terminal_restored(child)
    assert exit_status(child.before) == 0
    assert lap < total  # the second lap alone, then the time so far
    assert re.search(r"Run: 00:0\d\.\d \(2 laps\)", child.before)


def run(*arguments, timeout=30, **kwargs):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=timeout, **kwargs)


def test_without_a_terminal_only_the_final_line():
    result = run("1.2s", "Tea", "is", "ready", "--quiet")
    assert (result.returncode, result.stdout, result.stderr) == (0, "Tea is ready: finished after 00:01.2\n", "")


def test_json_events_line_by_line():
    result = run("2s", "Tea", "--json", "--quiet")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(e["event"], e["state"]) for e in events] == [
        ("state", "running"), ("tick", "running"), ("finish", "finished"), ("state", "finished")]
    assert events[1]["tick"] == 1 and events[1]["elapsed"] == 1.0 and events[1]["remaining"] == 1.0
    assert events[2]["elapsed"] == 2.0 and events[2]["remaining"] == 0.0 and events[2]["lateness"] >= 0
    assert all(e["label"] == "Tea" for e in events)


def test_exec_runs_with_label_and_elapsed(tmp_path):
    out = tmp_path / "done.txt"
    result = run("0.5s", "Egg timer", "--quiet", "--exec", f'echo "$TOCSIN_LABEL|$TOCSIN_ELAPSED" > {out}')
    assert result.returncode == 0
    assert out.read_text() == "Egg timer|0.5\n"


def test_sequence_repeat_and_parallel():
    sequence = run("0.3s:A", "0.2s:B", "--quiet", "--repeat", "2", "--json")
    finishes = [json.loads(line)["label"] for line in sequence.stdout.splitlines() if '"finish"' in line]
    assert finishes == ["A", "B", "A", "B"]
    parallel = run("0.4s:Eggs", "0.2s:Toast", "--quiet", "--parallel", "--json")
    order = [(e["event"], e["label"]) for e in map(json.loads, parallel.stdout.splitlines()) if e["event"] != "tick"]
    assert order[:2] == [("state", "Eggs"), ("state", "Toast")]  # both running before either finishes
    assert [label for event, label in order if event == "finish"] == ["Toast", "Eggs"]
    assert run("0.3s:A", "0.2s:B", "--quiet").stdout == "A, B: finished after 00:00.5\n"
    assert run("--parallel", "0.3s:A", "0.2s:B", "--quiet").stdout == "A, B: finished after 00:00.3\n"


def test_until_a_clock_time_counts_to_its_next_occurrence():
    target = time.localtime(time.time() + 3 * 3600)
    spec = f"{target.tm_hour:02d}:{target.tm_min:02d}"
    process = subprocess.Popen([TOCSIN, "until", spec, "Meeting", "--json", "--quiet"], stdout=subprocess.PIPE, text=True)
    first = json.loads(process.stdout.readline())
    catching(process, signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 128 + signal.SIGTERM
    assert first["label"] == "Meeting"
    assert 3 * 3600 - 120 <= first["remaining"] <= 3 * 3600 + 60


def test_until_a_clock_time_is_a_wall_clock_alarm_never_early(tmp_path):
    target = int(time.time()) + 3  # a whole second: the command takes seconds
    spec = time.strftime("%H:%M:%S", time.gmtime(target))
    state = tmp_path / "state.json"
    result = run("until", spec, "Bus", "--json", "--quiet", "--state", str(state), env={**os.environ, "TZ": "UTC"})
    ended = time.time()
    assert result.returncode == 0
    finish = next(json.loads(line) for line in result.stdout.splitlines() if '"finish"' in line)
    assert finish["label"] == "Bus" and ended >= target
    assert ended - target < 1.5
    saved = json.loads(state.read_text())["timers"][0]
    assert saved["kind"] == "alarm" and saved["alarm_unix_ns"] == target * 10**9


def test_awake_counts_time_awake():
    result = run("0.5s", "Nap", "--awake", "--quiet")
    assert (result.returncode, result.stdout) == (0, "Nap: finished after 00:00.5\n")
    refused = run("until", "14:30", "--awake")
    assert refused.returncode == 2 and "--awake" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def catching(process, *signals):
    """Waits until `process` takes `signals` itself (blocked for its signalfd,
    or caught): sent earlier, they would end it the default way."""
    mask = sum(1 << (sig - 1) for sig in signals)

    def ready():
        fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{process.pid}/status").read_text().splitlines())
        return (int(fields["SigBlk"], 16) | int(fields["SigCgt"], 16)) & mask == mask

    wait_until(ready, what=f"pid {process.pid} to take signals {signals}")


def saved(state, check=lambda timers: True):
    """Waits until the state file holds timers that pass `check`; returns them."""
    def read():
        try:
            timers = json.loads(state.read_text())["timers"]
        except (OSError, ValueError, KeyError):
            return None
        return timers if timers and check(timers) else None  # (written empty before the timers start)

    return wait_until(read, what=f"{state} to hold the timers wanted")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_without_a_state_file_cancel_with_128_plus_the_signal(sig):
    """As a shell reports a process a signal ended (143, 129), not the 130 of Ctrl-C."""
    for arguments in (["1m", "--quiet"], ["sw"]):
        process = subprocess.Popen([TOCSIN, *arguments], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        catching(process, sig)
        process.send_signal(sig)
        assert process.wait(30) == 128 + sig
        assert re.match(r"(Timer: cancelled with \d\d:\d\d left|Stopwatch: \d\d:\d\d\.\d)\n$", process.stdout.read())


@pytest.mark.parametrize("arguments", [["25x"], ["Tea"], [], ["until", "noon"], ["5m", "--repeat", "-1"], ["--bogus", "5s"],
                                       ["5m", "--ring", "2h"], ["5m", "--warn", "0s"], ["5m", "--warn", "2d"],
                                       ["5m", "--warn", "soon"]])
def test_bad_usage_is_one_line_and_status_2(arguments):
    began = time.monotonic()
    result = run(*arguments)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("tocsin: ")
    assert time.monotonic() - began < 5  # nothing started


def test_help_has_examples_and_exit_codes():
    result = run("--help")
    assert result.returncode == 0
    for text in ("tocsin 25m \"Tea is ready\"", "until 14:30", "25m:Work 5m:Break", "--json", "130  cancelled",
                 "143, 129  ended by SIGTERM, SIGHUP"):
        assert text in result.stdout
    assert run("--version").stdout.startswith("tocsin 0.")


def test_state_file_survives_a_kill_list_shows_it_and_resume_carries_on(tmp_path):
    state = tmp_path / "tea.json"
    process = subprocess.Popen([TOCSIN, "3s", "Tea", "--state", str(state), "--quiet"])
    saved(state)
    time.sleep(2)  # it runs 2 of its 3 s
    process.kill()  # SIGKILL: no chance to clean up
    process.wait()
    listed = run("list", "--state", str(state))
    assert listed.returncode == 0
    label, status, left, word = listed.stdout.split()
    assert (label, status, word) == ("Tea", "running", "left")
    assert left in ("00:00", "00:01")  # less time left than at the start
    resumed = run("resume", "--state", str(state), "--quiet", "--json")
    assert resumed.returncode == 0
    events = [json.loads(line) for line in resumed.stdout.splitlines()]
    finish = [event for event in events if event["event"] == "finish"]
    assert finish and finish[0]["label"] == "Tea" and finish[0]["elapsed"] == 3.0
    # It carried on its last second: started over, it would tick at 1.0 s.
    assert all(event["elapsed"] >= 2.0 for event in events), events
    assert '"state": "finished"' in state.read_text()  # kept current while it ran


def test_resume_announces_a_countdown_that_ran_out_while_away(tmp_path):
    state = tmp_path / "eggs.json"
    process = subprocess.Popen([TOCSIN, "1s", "Eggs", "--state", str(state), "--quiet"])
    saved(state, lambda timers: timers[0]["state"] == "running")
    process.kill()
    process.wait()
    assert json.loads(state.read_text())["timers"][0]["state"] == "running"  # killed before it ran out
    time.sleep(1.5)  # away: it runs out meanwhile
    assert re.search(r"Eggs\s+finished\s+ran out 00:0\d(\.\d)? ago", run("list", "--state", str(state)).stdout)
    resumed = run("resume", "--state", str(state), "--quiet")
    assert resumed.returncode == 0
    assert re.search(r"^Eggs: finished 00:0\d(\.\d)? ago$", resumed.stdout, re.M)


def test_resume_carries_on_a_stopwatch_with_its_laps(tmp_path):
    state = tmp_path / "run.json"
    process = subprocess.Popen([TOCSIN, "sw", "Run", "--state", str(state)], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL)
    saved(state)
    time.sleep(0.5)  # it runs a while
    process.stdin.write(b"\n")  # a lap
    process.stdin.flush()
    timers = saved(state, lambda timers: len(timers[0]["laps_ns"]) == 1)
    time.sleep(0.5)  # and a while longer
    process.kill()
    process.wait()
    assert len(timers) == 1 and timers[0]["state"] == "running"
    time.sleep(0.5)  # away: a running stopwatch counts it
    child = spawn(f"resume --state {state}")
    child.expect("Run  ")  # drawn
    child.send("q")
    assert terminal_restored(child)
    assert exit_status(child.before) == 0
    final = re.search(r"Run: 00:(\d\d\.\d) \(1 lap\)", child.before)
    assert final and float(final.group(1)) >= 1.5  # carried on, not started over
    assert '"state": "canceled"' in state.read_text()


def test_the_state_file_follows_every_change(tmp_path):
    state = tmp_path / "bread.json"
    child = spawn(f"1m Bread --quiet --state {state}")
    child.expect("running")
    saved(state, lambda timers: timers[0]["state"] == "running")
    child.send(" ")
    saved(state, lambda timers: timers[0]["state"] == "suspended")
    child.send("q")
    assert terminal_restored(child)
    assert '"state": "canceled"' in state.read_text()


def test_list_and_resume_of_a_bad_file_fail_cleanly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    for command in (["list", "--state", str(bad)], ["resume", "--state", str(bad), "--quiet"],
                    ["list", "--state", str(tmp_path / "missing.json")]):
        result = run(*command)
        assert result.returncode == 1 and result.stderr.startswith("tocsin: cannot")


def test_a_stopped_json_countdown_prints_one_coalesced_tick_line():
    # SIGSTOP for 3 s: the ticks missed meanwhile come as one line with "missed".
    process = subprocess.Popen([TOCSIN, "8s", "Tea", "--json", "--quiet"], stdout=subprocess.PIPE, text=True)
    try:
        first = json.loads(process.stdout.readline())
        assert first["event"] == "state"
        time.sleep(1.5)
        process.send_signal(signal.SIGSTOP)
        time.sleep(3)
        process.send_signal(signal.SIGCONT)
        assert process.wait(20) == 0
    finally:
        process.kill()
    events = [json.loads(line) for line in [json.dumps(first)] + process.stdout.read().splitlines()]
    ticks = [event for event in events if event["event"] == "tick"]
    assert [tick["tick"] for tick in ticks] == sorted({tick["tick"] for tick in ticks})  # no tick twice
    coalesced = [tick for tick in ticks if tick["missed"] > 0]
    assert len(coalesced) == 1 and coalesced[0]["missed"] >= 2, ticks
    assert coalesced[0]["elapsed"] == coalesced[0]["tick"] * 1.0
    assert len(ticks) < 7  # one line per tick would be 7
    assert [event["event"] for event in events][-2:] == ["finish", "state"]


def test_plus_gives_one_more_minute_and_minus_takes_it_back():
    child = spawn("5s Tea --quiet")
    child.expect("running")
    child.send("+")
    child.expect("Tea  01:0")  # about 1:04 left
    child.send("-")
    child.expect("Tea  00:0")
    child.send("q")
    assert terminal_restored(child)
    assert re.search(r"Tea: cancelled with 00:0\d left", child.before)


@pytest.mark.parametrize("paused", [False, True])
def test_minus_with_a_minute_or_less_left_finishes_at_once(paused):
    """README and --help: `-` "with a minute or less left it finishes at
    once", with the usual finished line, not 30 s later."""
    child = spawn("30s Tea --quiet")
    child.expect("running")
    if paused:
        child.send(" ")
        child.expect("paused")
    child.send("-")
    child.expect(r"✔ Tea  00:0\d(\.\d)?  finished", timeout=5)  # the time it ran
    child.expect(pexpect.EOF)
    assert exit_status(child.before) == 0


def test_the_service_needs_a_session_bus_and_refuses_the_system_bus(tmp_path):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR")}
    environment["XDG_STATE_HOME"] = str(tmp_path)
    began = time.monotonic()
    none = run("service", env=environment, timeout=10)
    assert none.returncode == 1 and "session bus" in none.stderr and time.monotonic() - began < 5
    system = run("service", env={**environment, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/dbus/system_bus_socket"})
    assert system.returncode == 1 and "system bus" in system.stderr
    assert not any(tmp_path.iterdir())  # it wrote nothing


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_with_a_state_file_leave_the_timer_running(tmp_path, sig):
    """Logout, shutdown and a closed terminal end the process, not the timer."""
    state = tmp_path / "tea.json"
    process = subprocess.Popen([TOCSIN, "3s", "Tea", "--state", str(state), "--quiet"], stdout=subprocess.PIPE, text=True)
    saved(state)
    catching(process, sig)
    time.sleep(2)  # it runs 2 of its 3 s
    process.send_signal(sig)
    assert process.wait(30) == 128 + sig
    assert re.match(rf"Tea: still running, 00:0[01] left; tocsin resume --state {re.escape(str(state))} carries it on\n$",
                    process.stdout.read())
    assert json.loads(state.read_text())["timers"][0]["state"] == "running"
    resumed = run("resume", "--state", str(state), "--quiet", "--json")
    assert resumed.returncode == 0
    events = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert any(event["event"] == "finish" for event in events)
    # Carried on its last second or less: started over (3 s), it would tick at 1.0 s.
    assert all(event["elapsed"] >= 2.0 for event in events), events


def test_ctrl_c_with_a_state_file_still_cancels(tmp_path):
    state = tmp_path / "tea.json"
    process = subprocess.Popen([TOCSIN, "3s", "Tea", "--state", str(state), "--quiet"], stdout=subprocess.PIPE, text=True)
    saved(state)
    catching(process, signal.SIGINT)
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 130
    assert json.loads(state.read_text())["timers"][0]["state"] == "canceled"


def test_a_stopwatch_ended_by_sigterm_runs_on_in_its_file(tmp_path):
    state = tmp_path / "run.json"
    process = subprocess.Popen([TOCSIN, "sw", "Run", "--state", str(state)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    saved(state)
    catching(process, signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 128 + signal.SIGTERM
    assert "still running" in process.stdout.read()
    assert json.loads(state.read_text())["timers"][0]["state"] == "running"


def test_background_timers_without_a_session_bus_fail_at_once(tmp_path):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR")}
    for arguments in (["5s", "-b"], ["ls"], ["pause", "Tea"]):
        began = time.monotonic()
        result = run(*arguments, env=environment, timeout=10)
        assert result.returncode == 1 and time.monotonic() - began < 5  # at once: no D-Bus time-out (25 s)
        assert len(result.stderr.strip().splitlines()) == 1 and "session" in result.stderr
    assert "foreground" in run("5s", "-b", env=environment).stderr
    # ls and the controls have nothing to run in the foreground: no talk of -b (issue 58).
    for arguments in (["ls"], ["pause", "Tea"]):
        said = run(*arguments, env=environment).stderr
        assert "-b" not in said and "the timer service and its timers are on the session's bus" in said, said


def test_bash_completion_completes_subcommands(tmp_path):
    script = tmp_path / "tocsin.bash"
    script.write_text(run("--generate-completion-script", "bash").stdout)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    probe = f"""
source {script}
function=$(complete -p tocsin | sed -E 's/.*-F ([^ ]+).*/\\1/')
COMP_WORDS=(tocsin pa); COMP_CWORD=1; COMP_LINE="tocsin pa"; COMP_POINT=${{#COMP_LINE}}
"$function" tocsin pa tocsin
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    completed = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env={**os.environ, "PATH": f"{Path(TOCSIN).parent}:{os.environ['PATH']}"})
    assert completed.stdout.split() == ["pause"], completed.stderr


def test_the_manual_page_renders():
    page = os.environ.get("TOCSIN_MAN", "")
    assert page and Path(page).is_file()
    rendered = subprocess.run(["man", "-l", page], capture_output=True, text=True, env={**os.environ, "MANWIDTH": "100"})
    assert rendered.returncode == 0 and rendered.stderr == "", rendered.stderr  # no mdoc warnings
    text = re.sub(r".\x08", "", rendered.stdout)  # bold and underline overstrikes
    exit_status = text[text.rindex("EXIT STATUS"):]
    for status in ("0", "1", "2", "130", "143, 129"):
        assert re.search(rf"^ +{status} ", exit_status, re.M), (status, exit_status)
    assert ">0 if an error occurs" not in text
    assert "TOCSIN(1)" in text and "tocsin 25m Tea -b" in text
    for subcommand in ("stopwatch", "ls", "pause", "adjust", "watch", "service"):
        assert re.search(rf"\b{subcommand}\b", text), subcommand


@pytest.mark.skipif(not SmallDisk.available(), reason="needs root to mount a small tmpfs")
def test_a_full_disk_is_said_once_and_the_state_file_keeps_its_last_whole_state(tmp_path):
    """`--state` on a disk that fills up while a sequence runs: every later
    save fails; one line says so with the reason, the timers run to the
    end, and the file keeps the last state it held."""
    disk = SmallDisk(tmp_path / "disk", size="64k")
    try:
        state = disk.folder / "plan.json"
        process = subprocess.Popen([TOCSIN, "1s:A", "1s:B", "1s:C", "--state", str(state), "--quiet"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        def holds_a():
            # The file is written empty before anything starts (a disk that
            # refuses it refuses the run), then with A once A runs: fill
            # the disk only after that.
            try:
                return [timer["label"] for timer in json.loads(state.read_bytes())["timers"]] == ["A"]
            except (OSError, ValueError, KeyError):
                return False

        wait_until(holds_a, what="the state file to hold A")
        disk.fill()
        written = state.read_bytes()
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err  # the timers ran on
        assert out == "A, B, C: finished after 00:03\n"
        failures = [line for line in err.splitlines() if "cannot write" in line]
        assert len(failures) == 1 and "No space left on device" in failures[0], err
        assert state.read_bytes() == written  # untouched since the disk filled
        assert json.loads(written)["timers"][0]["label"] == "A"  # and whole
    finally:
        disk.close()


def test_doctor_without_a_session_bus_says_so_once_and_fails():
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "XDG_RUNTIME_DIR")}
    result = run("doctor", env=environment)
    assert result.returncode == 1  # nothing a timer needs from the desktop works
    assert result.stdout.count("no session bus") == 1, result.stdout
    assert "notification server: not reachable without a session bus" in result.stdout
    assert "timer service: needs the session bus" in result.stdout
    assert re.search(r"^timer state: \S+: writable, \d+ MB free$|^timer state: .*made at the first change", result.stdout, re.M)


def test_a_failing_exec_command_is_said(tmp_path):
    result = run("0.1s", "Tea", "--quiet", "--exec", "exit 3")
    assert result.returncode == 0  # the timer finished; the command's status is its own
    assert result.stderr == "tocsin: --exec 'exit 3' exited with status 3\n"


def test_list_says_paused_and_cancelled_as_the_display_does(tmp_path):
    state = tmp_path / "tea.json"
    child = spawn(f"1m Tea --quiet --state {state}")
    child.expect("running")
    child.send(" ")
    saved(state, lambda timers: timers[0]["state"] == "suspended")
    assert re.fullmatch(r"Tea +paused +01:00 left\n", run("list", "--state", str(state)).stdout)
    child.send("q")
    assert terminal_restored(child)
    assert re.fullmatch(r"Tea +cancelled +01:00 left\n", run("list", "--state", str(state)).stdout)


def test_file_errors_name_the_file_and_the_reason(tmp_path):
    missing = tmp_path / "missing.json"
    for command in (["list", "--state", str(missing)], ["resume", "--state", str(missing)]):
        result = run(*command)
        assert result.returncode == 1 and result.stderr.strip().endswith(f"{missing}: No such file or directory")
        assert len(result.stderr.strip().splitlines()) == 1
    assert run("list", "--state", str(tmp_path)).stderr.strip().endswith("Is a directory")
    # A --state file that cannot be written is refused before anything starts: the user believes it is kept.
    for command in (["2s", "X", "--quiet"], ["sw"]):
        result = run(*command, "--state", str(tmp_path / "no-such-folder" / "x.json"), stdin=subprocess.DEVNULL)
        assert (result.returncode, result.stdout) == (1, ""), result
        assert result.stderr == f"tocsin: cannot write {tmp_path}/no-such-folder/x.json: No such file or directory; nothing started\n"


@pytest.mark.parametrize("arguments, message", [
    (["-5s"], "tocsin: -5s: a time cannot be negative: a countdown runs down from a time above 0 (5s, 25m)"),
    (["-5s", "X"], "tocsin: -5s: a time cannot be negative: a countdown runs down from a time above 0 (5s, 25m)"),
    (["5s", "-5s"], "tocsin: -5s: a time cannot be negative: a countdown runs down from a time above 0 (5s, 25m)"),
    (["5m", "--repeat", "-1"], "tocsin: --repeat takes a whole number, 0 (forever) or more; got -1"),
    (["--bogus"], "tocsin: unknown option --bogus (tocsin --help lists them)"),
    (["5s", "--bogus"], "tocsin: unknown option --bogus (tocsin --help lists them)"),
    (["0"], "tocsin: 0: a countdown must be longer than 0"),
    (["sw", "Run", "-b", "--json"], "tocsin: --json is for a stopwatch in the foreground; drop it or -b"),
    (["adjust", "Tea", "5m"], "tocsin: '5m' needs + or -: +5m gives that much more time, -5m takes it off"),
    (["adjust", "Tea", "+abc"], "tocsin: 'abc' is not a time: give e.g. +90s, +5m, +1h30m"),
    (["adjust", "Tea", "-0s"], "tocsin: -0s: a change must be more than 0 and at most 100 years"),
    (["5m", "--warn", "-1m"], "tocsin: --warn takes a duration of at most a day (30s, 1m); got -1m"),
    (["5m", "--ring", "-1"], "tocsin: --ring takes a duration of at most an hour (60s, 2m), or 0 to play the sound once; got -1"),
    (["5m", "--fade", "-1"], "tocsin: --fade takes a duration of at most 5 minutes (30s, 1m); got -1"),
    (["5m", "-b", "--snooze", "0"], "tocsin: --snooze takes a duration from 1s to a day (5m, 10m)"),
    (["30m", "Sleep", "--media", "mute"], "tocsin: The value 'mute' is invalid for '--media <pause|stop>'. "
                                          "Please provide one of 'pause' and 'stop'."),
    (["30m", "Sleep", "--media", "pause", "--ring", "5m"],
     "tocsin: --ring is for the alarm's sound, and a timer with --media plays none; drop one of them"),
    (["sw", "--media", "pause"], "tocsin: --media is for timers that reach zero; a stopwatch never does"),
    (["every", "daily", "Up", "--snooze", "0"], "tocsin: --snooze takes a duration from 1s to a day (5m, 10m)"),
    (["next", "daily", "--count", "-1"], "tocsin: --count takes 1 to 1000; got -1"),
    # Each command's own range, also for a negative value (once judged by next's).
    (["skip", "Wake", "--count", "-2"], "tocsin: --count takes 1 to 100000 rings; got -2"),
    (["skip", "Wake", "--count", "500000"], "tocsin: --count takes 1 to 100000 rings; got 500000"),
    (["5m", "--warn", "900000h"], "tocsin: --warn takes a duration of at most a day (30s, 1m)"),
    (["5:00", "Eggs"], "tocsin: '5:00' could be 5 min or the clock time 05:00: write 5m (or 0:05:00) for the length, "
                       "until 5:00 for the time of day"),
    (["25m:Work", "12:30:Lunch"], "tocsin: '12:30' could be 12 min 30 s or the clock time 12:30: write 12m30s (or 0:12:30) "
                                  "for the length, until 12:30 for the time of day"),
    # A typo in M:SS names its field (it ran 5 s labelled 60: issue 58).
    (["5:60"], "tocsin: 5:60: 60 is not a number of minutes or seconds (0 to 59)"),
    (["0:99", "Tea"], "tocsin: 0:99: 99 is not a number of minutes or seconds (0 to 59)"),
    (["1:30:99"], "tocsin: 1:30:99: 99 is not a number of seconds (0 to 59)"),
    (["0:5"], "tocsin: 0:5: after a colon come two digits (5 is 05): write 0:05"),
])
def test_odd_input_gets_one_line_naming_the_actual_problem(arguments, message):
    result = run(*arguments)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", message + "\n")


def test_skip_takes_a_count_next_would_refuse():
    """5000 is past next's --count (1 to 1000) but within skip's (1 to
    100,000): skip goes on to the service (here: no bus to find it on)."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    result = run("skip", "Wake", "--count", "5000", env=environment)
    assert result.returncode == 1 and "no D-Bus session bus" in result.stderr, result
    assert run("next", "daily", "--count", "5000").stderr == "tocsin: --count takes 1 to 1000; got 5000\n"


def test_adjust_has_help_and_parallel_words_label_the_time_before_them():
    helped = run("adjust", "--help")
    assert helped.returncode == 0 and "USAGE: tocsin adjust" in helped.stdout
    both = run("0.3s", "Par1", "0.2s", "Par2", "--parallel", "--quiet", "--json")
    finished = [json.loads(line)["label"] for line in both.stdout.splitlines() if '"finish"' in line]
    assert finished == ["Par2", "Par1"]  # two timers side by side, not one of 0.5 s


def test_json_carries_the_notifiers_reports(tmp_path):
    """Without a desktop the alert and the sound fail: with --json the
    reasons come as events after the finish (and nothing on stderr). The
    runtime folder and home are empty ones: a sound server the machine runs
    for its own session (or left behind) is not this test's; and it has no
    controlling terminal, whose bell would stand in for the sound when the
    suite runs from one."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DBUS_SESSION_BUS_ADDRESS", "PULSE_SERVER", "PULSE_RUNTIME_PATH", "DISPLAY")}
    (tmp_path / "runtime").mkdir(mode=0o700)
    environment.update(XDG_RUNTIME_DIR=str(tmp_path / "runtime"), HOME=str(tmp_path))
    result = run("0.5s", "Tea", "--json", env=environment, start_new_session=True, stdin=subprocess.DEVNULL)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    reports = {event["report"]: event for event in events if event["event"] == "notifier"}
    assert reports["alert_failed"] == {"event": "notifier", "report": "alert_failed", "label": "Tea",
                                       "detail": "no session bus: DBUS_SESSION_BUS_ADDRESS is not set"}
    assert reports["sound_failed"]["label"] == "Tea" and "no sound server" in reports["sound_failed"]["detail"]
    assert [event["event"] for event in events if event["event"] != "notifier"] == ["state", "finish", "state"]
    assert result.returncode == 0 and result.stderr == ""


def first_event(*words):
    """The first JSON event of a countdown (then it is stopped)."""
    process = subprocess.Popen([TOCSIN, *words, "--json", "--quiet"], stdout=subprocess.PIPE, text=True)
    try:
        return json.loads(process.stdout.readline())
    finally:
        process.kill()
        process.wait()


def test_colon_times_are_lengths_and_clock_times_by_one_rule():
    """H:MM:SS and M:SS that is no time of day count down that long; after
    `until` a colon word is a clock time (the two are 12 h apart)."""
    began = time.monotonic()
    short = run("0:00:01", "Tea", "--json", "--quiet")
    took = time.monotonic() - began
    events = [json.loads(line) for line in short.stdout.splitlines()]
    assert short.returncode == 0 and events[0]["remaining"] == 1.0 and events[-2]["event"] == "finish", short
    assert 1.0 <= took < 20
    for word, seconds in (("00:00:30", 30), ("0:45", 45), ("1:30:00", 5400), ("25:00", 1500), ("1:2:3", 3723)):
        event = first_event(word, "X")
        assert (event["label"], event["remaining"]) == ("X", seconds), (word, event)
    morning, evening = first_event("until", "5:00", "Up")["remaining"], first_event("until", "17:00", "Up")["remaining"]
    assert abs((evening - morning) % 86400 - 43200) < 5, (morning, evening)


def test_the_notifiers_complaint_is_a_line_of_its_own_above_the_live_line():
    """Without a session bus the notifier says so once (here at the warning,
    while the countdown runs): on a line of its own above the live line
    (issue 58: it landed at the live line's end, "...]  runningtocsin-notify:
    no session bus...", written by the notifier's own thread)."""
    child = pexpect.spawn("/bin/sh", ["-c", f"unset DBUS_SESSION_BUS_ADDRESS; {TOCSIN} 3s Tea --warn 2s; echo EXIT=$?"],
                          dimensions=(24, 80), encoding="utf-8", timeout=30)
    child.expect("EXIT=0")
    text = ANSI.sub("", child.before).replace("\x07", "")
    assert text.count("tocsin-notify: no session bus") == 1, text
    assert not re.search(r"(running|paused|finished)tocsin-notify", text), text
    # (On the screen: the live line erased, "\r", then the complaint and a new line.)
    assert any(line.startswith("tocsin-notify: no session bus") for line in re.split(r"[\r\n]", text)), text
