"""The service's calls, signals and named errors over a private bus, as a
third-party script drives it (busctl, gdbus, dbus-send); its restarts by
SIGTERM, SIGHUP, SIGINT and SIGKILL and D-Bus activation. No desktop:
timers are added without live notifications, and nothing here needs an
alert. Times come from the events themselves (the Finished signal's
lateness, dbus-monitor's stamps) or from clock readings around a call."""

import json
import os
import signal
import subprocess
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from servicebus import (INTERFACE, NAME, PATH, activation_environment, add, boot_time, call, ended, gdbus_call, on_time,
                        properties, service_pid, stop_service, timers, wait_until)

REPO = Path(__file__).resolve().parents[2]
TOCSIN = os.environ.get("TOCSIN_BIN", "tocsin")
QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def test_add_activates_the_service_and_the_change_is_a_journal_line(state_file):
    assert service_pid() is None
    timer = add("Tea", 60, **QUIET)
    assert service_pid() is not None  # started by D-Bus activation
    listed = timers()[timer]
    assert (listed["label"], listed["kind"], listed["state"], listed["duration"]) == ("Tea", "countdown", "running", 60)
    assert 59 < listed["remaining"] <= 60
    journal = state_file.with_suffix(".journal")  # the snapshot comes later: the change is a journal line
    lines = [json.loads(line) for line in journal.read_text().splitlines()]  # written before Add was answered
    assert [line["id"] for line in lines] == [timer]
    assert oct(journal.stat().st_mode & 0o777) == "0o600"
    assert oct(journal.parent.stat().st_mode & 0o777) == "0o700"
    stop_service()
    state = json.loads(state_file.read_text())  # folded into the snapshot on the way out
    assert [item["id"] for item in state["timers"]] == [timer] and journal.read_text() == ""
    assert oct(state_file.stat().st_mode & 0o777) == "0o600"


def test_pause_freezes_the_time_left_and_resume_continues(signals):
    timer = add("Soup", 30, **QUIET)
    call("Pause", "t", timer)
    first = timers()[timer]
    time.sleep(1)  # nothing moves within a second
    second = timers()[timer]
    assert first["state"] == second["state"] == "suspended"
    assert first["remaining"] == second["remaining"]
    call("Resume", "t", timer)
    wait_until(lambda: timers()[timer]["remaining"] < second["remaining"])
    changed = signals.wait_for("Changed", 3, id=timer)
    assert [properties(record)["state"] for record in changed] == ["running", "suspended", "running"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL])
def test_a_timer_outlives_the_service(sig, signals):
    began = boot_time()
    timer = add("Kettle", 4, **QUIET)
    added = boot_time()
    time.sleep(1)  # it runs a while with the service,
    stop_service(sig)
    time.sleep(1)  # and a while without
    asked = boot_time()
    listed = timers()[timer]  # the call activates it again
    answered = boot_time()
    assert listed["state"] == "running"
    # It counted the time away: 4 s less the time since it started (between
    # `began` and `added`), read between `asked` and `answered`.
    assert 4 - (answered - began) - 1e-3 <= listed["remaining"] <= 4 - (asked - added) + 1e-3, listed
    (finish,) = signals.wait_for("Finished", id=timer)
    assert finish.at - began >= 4.0  # never early
    # Its own lateness agrees with what was seen: due after `began` + 4 s, heard at `finish.at`.
    assert 0 <= finish.args[2] <= finish.at - began - 4 + 1e-3, (finish.args[2], finish.at - began)


def test_a_finish_while_the_service_was_away_is_announced_once(signals):
    began = boot_time()
    timer = add("Bread", 1, **QUIET)
    added = boot_time()
    stop_service()
    stopped = boot_time()
    time.sleep(2)  # it runs out while no service runs
    assert timers()[timer]["state"] == "finished"  # activated again: restored finished
    (finish,) = signals.wait_for("Finished", id=timer)
    lateness = finish.args[2]
    # It ran out 1 s after it started (between `began` and `added`); the
    # service came back 2 s after `stopped` and announced it at `finish.at`.
    assert (stopped + 2) - (added + 1) - 1e-3 <= lateness <= finish.at - (began + 1) + 1e-3
    stop_service()
    assert timers()[timer]["state"] == "finished"
    time.sleep(1)  # nothing more comes
    assert len(signals.named("Finished")) == 1


def test_bad_calls_get_named_errors_and_the_service_keeps_serving():
    timer = add("Tea", 60, **QUIET)
    for method, arguments, name in [
        ("Pause", ["999"], "NoSuchTimer"),
        ("Resume", [str(timer)], "WrongState"),
        ("Add", ["'Tea'", "-1.0", "{}"], "InvalidArgument"),
        ("Add", ["'Tea'", "5.0", "{'kind': <'sundial'>}"], "InvalidArgument"),
        ("Add", ["'Tea'", "5.0", "{'colour': <'red'>}"], "InvalidArgument"),
        ("Add", ["'Tea'", "5.0", "{'after': <uint64 999>}"], "NoSuchTimer"),
    ]:
        status, output = gdbus_call(method, *arguments)
        assert status != 0, (method, arguments, output)
        assert f"dev.tocsin.Timers1.Error.{name}" in output, (method, arguments, output)
    # dbus-send does not look at the interface: the service's own checks.
    for method, arguments, name in [
        ("Adjust", [f"uint64:{timer}", "double:nan"], "dev.tocsin.Timers1.Error.InvalidArgument"),
        ("Adjust", [f"uint64:{timer}", "double:inf"], "dev.tocsin.Timers1.Error.InvalidArgument"),
        ("Pause", ["string:seven"], "org.freedesktop.DBus.Error.InvalidArgs"),
        ("Add", ["string:Tea"], "org.freedesktop.DBus.Error.InvalidArgs"),
    ]:
        result = subprocess.run(["dbus-send", "--session", "--print-reply", f"--dest={NAME}", PATH,
                                 f"{INTERFACE}.{method}", *arguments], capture_output=True, text=True, timeout=30)
        assert result.returncode != 0 and name in result.stderr, (method, arguments, result.stderr)
    assert list(timers()) == [timer] and timers()[timer]["state"] == "running"


def test_a_sequence_runs_in_the_service(signals):
    first = add("Work", 1, **QUIET)
    second = add("Break", 1, after=("t", first), **QUIET)
    assert timers()[second]["state"] == "idle"
    finished = signals.wait_for("Finished", 2)
    assert [record.args[:2] for record in finished] == [(first, "Work"), (second, "Break")]
    started = [record for record in signals.named("Changed", second) if properties(record)["state"] == "running"]
    assert started and finished[0].at <= started[0].at <= finished[1].at  # started when Work finished
    assert finished[1].at - finished[0].at > 0.9  # and ran its second (dbus-monitor's stamps)


def test_it_exits_when_idle_and_comes_back():
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    timer = add("Egg", 0.5, **QUIET)
    wait_until(lambda: service_pid() is None, what="the idle service to exit")
    assert timers()[timer]["state"] == "finished"  # activated again


def test_no_wakeups_while_an_hour_waits():
    """Without a live notification (that one is updated each second)."""
    add("Roast", 3600, **QUIET)
    pid = service_pid()

    def switches():
        total = 0
        for status in Path(f"/proc/{pid}/task").glob("*/status"):
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
        return total

    # Settled: its threads have done what starting and the Add asked of them.
    readings = [switches()]

    def settled():
        time.sleep(0.5)
        readings.append(switches())
        return readings[-1] == readings[-2]

    wait_until(settled, what="the service to settle")
    before = switches()
    time.sleep(5)  # nothing is due for an hour: nothing wakes it
    assert switches() - before == 0


def test_the_shipped_interface_is_the_one_the_service_has():
    add("Tea", 60, **QUIET)
    xml = subprocess.run(["gdbus", "introspect", "--session", "-d", NAME, "-o", PATH, "--xml"],
                         capture_output=True, text=True, check=True, timeout=30).stdout

    def shape(text):
        root = ElementTree.fromstring(text)
        interface = next(node for node in root.iter("interface") if node.get("name") == INTERFACE)
        return [(member.tag, member.get("name"), [(arg.get("type"), arg.get("direction")) for arg in member.iter("arg")])
                for member in interface]

    shipped = (REPO / "share/dbus-1/interfaces/dev.tocsin.Timers1.xml").read_text()
    assert shape(xml) == shape(shipped)


def test_the_docs_examples_run_as_written():
    text = (REPO / "docs/dbus.md").read_text()
    blocks = [block.split("```", 1)[0] for block in text.split("```sh\n")[1:]]
    assert len(blocks) >= 3
    for block in blocks:
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PATH": f"{Path(TOCSIN).parent}:{os.environ['PATH']}"})
        assert result.returncode == 0, (block, result.stdout, result.stderr)
    listed = timers()
    assert {"Tea", "Bus", "Work", "Break"} <= {timer["label"] for timer in listed.values()}
    tea = next(timer for timer in listed.values() if timer["label"] == "Tea")
    assert tea["duration"] == 360 and tea["state"] == "running"
    work = next(timer for timer in listed.values() if timer["label"] == "Work")
    rest = next(timer for timer in listed.values() if timer["label"] == "Break")
    assert work["state"] == "canceled" and rest["state"] == "canceled" and "after" not in rest


def test_lap_restart_cancel_and_remove_over_the_bus(signals):
    began = boot_time()
    watch = add("Run", 0, kind=("s", "stopwatch"), **QUIET)
    time.sleep(0.3)  # it runs a while
    (lap,) = call("Lap", "t", watch)
    lapped = boot_time()
    assert 0.3 <= lap <= lapped - began and timers()[watch]["laps"] == [lap]
    assert timers()[watch]["kind"] == "stopwatch" and "remaining" not in timers()[watch]
    tea = add("Tea", 60, **QUIET)
    call("Adjust", "td", tea, -30)
    assert 29 < timers()[tea]["remaining"] <= 30
    call("Restart", "t", tea)
    assert timers()[tea]["duration"] == 60  # a restart runs the created duration
    call("Cancel", "t", tea)
    assert timers()[tea]["state"] == "canceled"
    call("Remove", "t", tea)
    assert tea not in timers()
    assert signals.wait_for("Removed")[0].args == (tea,)
    assert gdbus_call("Pause", str(tea))[1].count("NoSuchTimer") == 1  # ids are not reused


def test_an_alarm_in_the_service_rings_at_its_wall_time(signals):
    target = time.time() + 1.5
    alarm = add("Bus", target, kind=("s", "alarm"), **QUIET)
    listed = timers()[alarm]
    assert listed["kind"] == "alarm" and abs(listed["alarm_time"] - target) < 1e-3
    (finish,) = signals.wait_for("Finished", id=alarm)
    on_time(finish.args[2], "by its own count")
    on_time(finish.wall - target, "on the bus")


def test_the_installed_systemd_unit_is_valid():
    unit = Path(os.environ["TOCSIN_SERVICE_DIR"]).parents[1] / "systemd/user/tocsin.service"
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    text = unit.read_text()
    assert "Type=notify" in text and "BusName=dev.tocsin.Timers" in text and "WatchdogSec=" in text
    activation = (Path(os.environ["TOCSIN_SERVICE_DIR"]) / "dev.tocsin.Timers.service").read_text()
    assert "SystemdService=tocsin.service" in activation
    exec_line = next(line for line in activation.splitlines() if line.startswith("Exec="))
    assert os.access(exec_line.split("=", 1)[1].split()[0], os.X_OK)


def test_no_glib_criticals_when_the_name_is_taken_or_the_bus_goes(bus, tmp_path):
    """A second `tocsin service` on the same bus, then the end of the session
    (the bus goes away): each service ends cleanly, and GLib has nothing to
    complain of (criticals are fatal here: G_DEBUG=fatal-criticals)."""
    add("Tea", 60, **QUIET)
    pid = service_pid()
    second = subprocess.run([os.environ["TOCSIN_BIN"], "service"], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "second")})
    assert second.returncode == 1 and "dev.tocsin.Timers is owned by another process" in second.stderr, second.stderr
    assert "CRITICAL" not in second.stderr and "WARNING" not in second.stderr, second.stderr
    bus.close()  # logout
    wait_until(lambda: ended(pid), what="the service to end with its bus")
    log = bus.service_log()
    assert "the session bus went away" in log
    assert "CRITICAL" not in log and "WARNING" not in log, log
