"""Commands the timer service runs: a background timer's own (`-b --exec`)
and the user's hook files (`$XDG_CONFIG_HOME/tocsin/hooks/EVENT`), on a
private bus with the real service: once each, again after a SIGKILL, late
after the service was away, within a time limit, and never for a sandbox."""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from conftest import TOCSIN
from sandbox import sandboxed
from servicebus import activation_environment, call, ended, service_pid, stop_service, timers, wait_until


def tocsin(*arguments, timeout=30):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=timeout)


def background(*arguments):
    result = tocsin(*arguments, "-b", "--no-live", "--quiet")
    assert result.returncode == 0, result.stderr
    return result


def no_runs_due(state_file):
    """After a clean stop the snapshot holds every timer: none has a run due."""
    snapshot = json.loads(state_file.read_text())
    return all("runs_due" not in timer for timer in snapshot["timers"])


def lines(path):
    return path.read_text().splitlines() if path.exists() else []


def hook(event, body):
    """Writes the hook file of `event` (mode 0755) in the test's home."""
    folder = Path(os.environ["HOME"]) / ".config" / "tocsin" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / event
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def ran(bus, count):
    """Waits until the service's log says `count` commands are over (each
    such line: "timer 1 (Tea): its finish command ran (0.00 s)")."""
    ends = re.compile(r"(command|hook) (ran|exited with status \d+|was killed by signal \d+) \(")
    return wait_until(lambda: len(ends.findall(bus.service_log())) >= count or None,
                      what=f"{count} commands to end: {bus.service_log()[-2000:]}")


def test_a_background_timers_command_runs_once_at_its_finish_with_the_event(tmp_path, bus, state_file):
    out, event = tmp_path / "out", tmp_path / "event.json"
    where = tmp_path / "where"
    command = (f'echo "$TOCSIN_LABEL $TOCSIN_EVENT $TOCSIN_AGAIN $TOCSIN_LATE" >> {out}; cat > {event}; '
               f'echo "$PWD $$ $(ps -o pgid= -p $$)" > {where}')
    handed = background("1s", "Tea", "--exec", command)
    # The command that handed it over has ended: the service runs it.
    listing = tocsin("ls").stdout
    assert "runs: echo" in listing, listing
    (tea,) = [json.loads(line) for line in tocsin("ls", "--json").stdout.splitlines()]
    assert tea["exec"] == command
    wait_until(lambda: lines(out), what="the command's line")
    ran(bus, 1)
    label, event_name, again, late = lines(out)[0].split()
    assert (label, event_name, again) == ("Tea", "finish", "0") and int(late) <= 2
    folder, pid, group = lines(where)[0].split()
    assert folder == os.environ["HOME"] and pid == group, "in the home folder, leading a process group of its own"
    got = json.loads(event.read_text())
    assert (got["version"], got["event"], got["source"], got["label"], got["id"], got["again"]) == (
        1, "finish", "exec", "Tea", tea["id"], False)
    assert 0 <= got["late"] < 3 and abs(got["due"] - time.time()) < 30
    # Once: over, it left the record, so a restart does not run it again.
    stop_service()
    assert no_runs_due(state_file)
    assert tocsin("ls").returncode == 0 and len(lines(out)) == 1, handed.stdout


def test_an_alarm_at_a_clock_time_is_a_finish_as_the_history_names_it(tmp_path, bus):
    out = tmp_path / "out"
    call("Add", "sda{sv}", "Wake", time.time() + 1, "4", "kind", "s", "alarm", "exec", "s", f'echo "$TOCSIN_EVENT $TOCSIN_KIND" >> {out}',
         "alert", "b", "false", "sound", "b", "false")
    wait_until(lambda: lines(out), what="the alarm's command")
    assert lines(out) == ["finish alarm"]
    history = Path(os.environ["XDG_STATE_HOME"]) / "tocsin" / "history.jsonl"
    log = wait_until(lambda: history.exists() and history.read_text(), what="its history line")
    assert json.loads(log.splitlines()[-1])["event"] == "finish"


def test_a_command_cut_off_by_a_sigkill_runs_again_at_the_next_start(tmp_path, bus, state_file):
    """Recorded before it runs, cleared once it is over: the command kills
    the service (its parent) before it ends, so the record stays, and the
    next start runs it again with TOCSIN_AGAIN=1 (at least once)."""
    out = tmp_path / "out"
    background("1s", "Tea", "--exec", f'echo "$TOCSIN_AGAIN" >> {out}; [ "$TOCSIN_AGAIN" = 1 ] || kill -9 $PPID')
    wait_until(lambda: lines(out), what="the first run")
    wait_until(lambda: service_pid() is None, what="the service to be gone")
    assert tocsin("ls").returncode == 0  # activates it again
    wait_until(lambda: len(lines(out)) >= 2, what="the run again")
    ran(bus, 1)
    assert lines(out) == ["0", "1"]
    stop_service()
    assert no_runs_due(state_file), "over once it ran to its end"


def test_a_command_recorded_but_not_started_when_the_service_is_killed_runs_at_the_next_start(tmp_path, bus, signals):
    """The strict case: eight start hooks hold every place to run, so Tea's
    command, due at its finish, is recorded and waits; the service is
    SIGKILLed before it starts. The next start runs it (TOCSIN_AGAIN=1:
    the service cannot know it never ran)."""
    out, groups = tmp_path / "out", tmp_path / "groups"
    hook("start", f'echo $$ >> {groups}; [ "$TOCSIN_AGAIN" = 1 ] || exec sleep 60')
    try:
        for number in range(8):
            background("1h", f"Hold{number}")
        wait_until(lambda: len(lines(groups)) == 8, what="eight start hooks running")
        background("1s", "Tea", "--exec", f'echo "$TOCSIN_AGAIN" >> {out}')
        # Finished is sent once the finish's record, and so its run's, is synced.
        signals.wait_for("Finished")
        assert not out.exists(), "it ran before its turn"
        stop_service(signal.SIGKILL)
        assert tocsin("ls").returncode == 0
        wait_until(lambda: lines(out), what="the run after the restart")
        assert lines(out) == ["1"]
    finally:
        for group in lines(groups):
            try:
                os.killpg(int(group), signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_finish_while_the_service_was_away_runs_its_command_late(tmp_path, bus):
    out = tmp_path / "out"
    background("4s", "Tea", "--exec", f'echo "$TOCSIN_LATE $TOCSIN_AGAIN" >> {out}')
    stop_service()
    time.sleep(5.5)
    assert tocsin("ls").returncode == 0
    wait_until(lambda: lines(out), what="the late run")
    late, again = lines(out)[0].split()
    assert int(late) >= 1 and again == "0"


def test_a_finish_hook_gets_the_event_and_hooks_run_for_each_event(tmp_path, bus):
    events = tmp_path / "events"
    hook("finish", f'cat > {tmp_path}/finish.json')
    for event in ("start", "pause", "resume", "cancel"):
        hook(event, f'echo "$TOCSIN_EVENT $TOCSIN_ID $TOCSIN_LABEL" >> {events}')
    background("1s", "Tea")
    wait_until(lambda: (tmp_path / "finish.json").exists() and (tmp_path / "finish.json").read_text(), what="the finish hook")
    got = json.loads((tmp_path / "finish.json").read_text())
    assert (got["event"], got["source"], got["label"], got["kind"], got["state"]) == ("finish", "hook", "Tea", "countdown", "finished")
    assert abs(got["elapsed"] - 1.0) < 0.2 and got["duration"] == 1.0
    background("1h", "Rice")
    for command in ("pause", "resume", "cancel"):
        assert tocsin(command, "Rice").returncode == 0
    ids = {timer["label"]: timer["id"] for timer in timers().values()}
    wait_until(lambda: len(lines(events)) == 5, what="five hook runs")
    assert sorted(lines(events)) == sorted([f"start {ids['Tea']} Tea", f"start {ids['Rice']} Rice", f"pause {ids['Rice']} Rice",
                                            f"resume {ids['Rice']} Rice", f"cancel {ids['Rice']} Rice"])


def test_a_hook_past_the_time_limit_is_killed_and_said(tmp_path, bus):
    """SIGTERM to its group at the limit, then SIGKILL 3 s later: also for
    what it started that ignores SIGTERM and outlives the hook itself."""
    activation_environment(TOCSIN_SERVICE_COMMAND_LIMIT=1)
    marks, child = tmp_path / "marks", tmp_path / "child"
    hook("finish", f'echo started >> {marks}; sh -c \'trap "" TERM; exec sleep 60\' & echo $! > {child}; wait; echo never >> {marks}')
    began = time.monotonic()
    background("1s", "Tea")
    wait_until(lambda: lines(marks) and lines(child), what="the hook and its child to start")
    assert tocsin("ls").returncode == 0  # the service answers while it runs
    log = wait_until(lambda: "was killed by signal 15" in bus.service_log() and bus.service_log(), what="the hook's end")
    assert "the finish hook ran past its limit of 1 s" in log
    pid = int(lines(child)[0])
    wait_until(lambda: ended(pid), what=f"the child {pid}, which ignores SIGTERM, to be SIGKILLed")
    assert time.monotonic() - began < 25
    assert lines(marks) == ["started"]


def test_hooks_that_may_not_run_or_flood_are_said_and_no_timer_is_lost(tmp_path, bus):
    unexecutable = hook("start", "echo nope")
    unexecutable.chmod(0o644)
    writable = hook("cancel", "echo nope")
    writable.chmod(0o777)
    hook("finish", "yes 'a line of output' | head -c 3000000")
    background("1s", "Tea", "--exec", "no-such-command-here")
    ran(bus, 2)
    log = bus.service_log()
    assert f"hook {unexecutable} is not executable (chmod u+x): not run" in log
    assert log.count("a line of output") < 1000 and "more bytes of its output not logged" in log
    assert "timer 1 (Tea): its finish command exited with status 127" in log
    assert "no-such-command-here: not found" in log
    background("1h", "Rice")
    assert tocsin("cancel", "Rice").returncode == 0
    wait_until(lambda: "may be written by others" in bus.service_log(), what="the writable hook said")
    assert {timer["label"]: timer["state"] for timer in timers().values()} == {"Tea": "finished", "Rice": "canceled"}
    assert bus.service_log().count(f"hook {unexecutable}") == 1, "said once"


def test_a_hook_that_cannot_start_is_said_once_and_not_run_again(bus, state_file):
    """No #! line: posix_spawn gives ENOEXEC. Said, over, and not run again
    at the next start (it was let go of)."""
    folder = hook("finish", "").parent
    (folder / "finish").write_text("echo no interpreter named\n")
    background("1s", "Tea")
    wait_until(lambda: "could not start: Exec format error (not tried again)" in bus.service_log(), what="the failure said")
    stop_service()
    assert no_runs_due(state_file)
    assert tocsin("ls").returncode == 0
    assert bus.service_log().count("could not start") == 1


def test_hooks_in_a_folder_others_may_write_are_not_run(tmp_path, bus):
    out = tmp_path / "out"
    folder = hook("finish", f"echo ran >> {out}").parent
    folder.chmod(0o777)
    background("1s", "Tea")
    wait_until(lambda: "may be written by others (chmod go-w): no hook in it is run" in bus.service_log(), what="the folder said")
    wait_until(lambda: timers()[1]["state"] == "finished")
    assert not out.exists()


def test_an_imported_command_needs_allow_exec_and_is_said(tmp_path):
    alarms = tmp_path / "alarms"
    alarms.write_text('every "Mon..Fri 09:25" "Stand-up" exec="notify-send Go"\n')
    refused = tocsin("import", str(alarms))
    assert refused.returncode != 0 and "add --allow-exec to import it; nothing was imported" in refused.stderr, refused.stderr
    assert timers() == {}
    taken = tocsin("import", "--allow-exec", str(alarms))
    assert taken.returncode == 0 and "Stand-up: runs notify-send Go" in taken.stderr, taken.stderr
    assert [timer["exec"] for timer in timers().values()] == ["notify-send Go"]
    assert 'exec="notify-send Go"' in tocsin("export").stdout


def test_a_command_does_not_get_the_services_wake_capability(tmp_path, monkeypatch):
    """systemd's wake.conf gives the service CAP_WAKE_ALARM as an ambient
    capability, which exec would pass on: the service clears its ambient
    set (bit 35 is CAP_WAKE_ALARM)."""
    from conftest import Bus
    folder = tmp_path / "ambient"
    folder.mkdir()
    ambient = Bus(folder, wrap=["setpriv", "--inh-caps=+wake_alarm", "--ambient-caps=+wake_alarm"])
    try:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", ambient.address)
        activation_environment(HOME=os.environ["HOME"], XDG_RUNTIME_DIR=os.environ["XDG_RUNTIME_DIR"],
                               XDG_STATE_HOME=folder / "state", TOCSIN_SERVICE_IDLE_EXIT=60)
        out = tmp_path / "caps"
        background("1s", "Tea", "--exec", f"grep -E '^Cap(Amb|Inh):' /proc/self/status > {out}; "
                                          f"grep -E '^CapAmb:' /proc/$PPID/status >> {out}")
        wait_until(lambda: len(lines(out)) == 3, what="the command's capabilities")
        command = dict(line.split(":\t") for line in lines(out)[:2])
        assert int(command["CapAmb"], 16) == 0, lines(out)
        stop_service()
    finally:
        ambient.close()


def test_a_command_is_refused_to_a_sandboxed_app_and_nothing_is_stored(tmp_path):
    assert tocsin("ls").returncode == 0  # the service is up
    result = sandboxed(tmp_path, TOCSIN, "1s", "Tea", "-b", "--exec", "touch /tmp/pwned")
    assert result.returncode != 0
    assert "sandboxed" in result.stderr and "exec" in result.stderr, result.stderr
    assert timers() == {}


def test_bad_commands_are_refused_clearly():
    result = tocsin("1s", "-b", "--exec", " ")
    assert result.returncode != 0 and "exec must be a shell command, not empty" in result.stderr, result.stderr
    refused = call("Add", "sda{sv}", "Watch", 0, "2", "kind", "s", "stopwatch", "exec", "s", "true", check=False)
    assert "a stopwatch never finishes" in refused.stderr, refused.stderr
    refused = call("Add", "sda{sv}", "Tea", 60, "1", "exec", "u", "7", check=False)
    assert "option exec has type u" in refused.stderr, refused.stderr
    assert timers() == {}
