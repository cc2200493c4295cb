"""Timers of the service that wake the machine from suspend: Add's `wake`
option (on by default for alarms and calendar alarms), List's `wake`, the
CanWake property, and the service's ALARM-clock timerfds read back from
/proc/PID/fdinfo (no suspend runs here). Then a bus whose services run
without CAP_WAKE_ALARM: CanWake is false and an alarm rings on time."""

import subprocess
import time

from conftest import TOCSIN, Bus
from servicebus import NAME, PATH, INTERFACE, activation_environment, add, on_time, service_pid, stop_service, timers, wait_until

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}
LEAD = 120


def can_wake():
    result = subprocess.run(["busctl", "--user", "get-property", NAME, PATH, INTERFACE, "CanWake"],
                            capture_output=True, text=True, timeout=30, check=True)
    return result.stdout.strip() == "b true"


def wake_left(pid, clock):
    """The armed time left of the service's timerfd on `clock` (9
    BOOTTIME_ALARM, 8 REALTIME_ALARM), or None if it has none open."""
    import os
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            info = open(f"/proc/{pid}/fdinfo/{fd}").read()
        except OSError:
            continue
        if f"clockid: {clock}\n" in info:
            seconds, nanoseconds = info.split("it_value: (")[1].split(")")[0].split(", ")
            return int(seconds) + int(nanoseconds) / 1e9
    return None


def test_alarms_wake_the_machine_and_countdowns_only_when_asked():
    tea = add("Tea", 600, **QUIET)
    assert can_wake()
    pid = service_pid()
    assert timers()[tea]["wake"] is False and wake_left(pid, 9) is None  # a countdown: not by default
    bus = add("Bus", time.time() + 900, kind=("s", "alarm"), **QUIET)
    assert timers()[bus]["wake"] is True
    assert abs(wake_left(pid, 8) - (900 - LEAD)) < 3
    soup = add("Soup", 300, wake=("b", True), **QUIET)
    assert timers()[soup]["wake"] is True and abs(wake_left(pid, 9) - (300 - LEAD)) < 3
    wake_up = add("Wake", 0, calendar=("s", "*-*-* 00:00 UTC"), **QUIET)
    assert timers()[wake_up]["wake"] is True
    # It outlives the service: restored with the timer, the fds armed again.
    stop_service()
    timers()
    assert abs(wake_left(service_pid(), 9) - (300 - LEAD)) < 5


def test_bad_wake_options_are_named(tmp_path):
    for options, message in [
        ({"wake": ("s", "yes")}, "wake must be a boolean (b)"),
        ({"kind": ("s", "stopwatch"), "wake": ("b", True)}, "a stopwatch cannot wake the machine"),
        ({"clock": ("s", "awake"), "wake": ("b", True)}, "an awake timer cannot wake the machine"),
    ]:
        flat = [str(len(options))]
        for name, (signature, value) in options.items():
            flat += [name, signature, str(value).lower() if isinstance(value, bool) else str(value)]
        result = subprocess.run(["busctl", "--user", "call", NAME, PATH, INTERFACE, "Add", "sda{sv}", "Tea", "60", *flat],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode != 0 and message in result.stderr, result.stderr


def test_without_the_capability_can_wake_is_false_and_an_alarm_rings_on_time(tmp_path, monkeypatch):
    folder = tmp_path / "denied"
    folder.mkdir()
    denied = Bus(folder, wrap=["setpriv", "--inh-caps=-wake_alarm", "--bounding-set=-wake_alarm"])
    try:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", denied.address)
        activation_environment(HOME=tmp_path / "home", XDG_RUNTIME_DIR=tmp_path / "run", XDG_STATE_HOME=folder / "state",
                               TOCSIN_SERVICE_IDLE_EXIT=60)
        target = time.time() + 1.5
        alarm = add("Bus", target, kind=("s", "alarm"), **QUIET)
        assert timers()[alarm]["wake"] is True  # asked for; it cannot, and rings all the same
        assert not can_wake()
        assert wake_left(service_pid(), 8) is None
        wait_until(lambda: timers()[alarm]["state"] == "finished", what="the alarm to ring")
        listed, now = timers()[alarm], time.time()
        on_time(now - listed["finished_ago"] - target, "by its finish time")
        doctor = subprocess.run([TOCSIN, "doctor"], capture_output=True, text=True, timeout=30)
        advice = "timer service wakes the machine from suspend for alarms: no; to let it, give the service CAP_WAKE_ALARM"
        assert advice in doctor.stdout, doctor.stdout
        stop_service()
    finally:
        denied.close()


def test_make_install_wake_puts_the_drop_in_beside_the_unit(tmp_path):
    repo = __import__("pathlib").Path(__file__).resolve().parents[2]
    subprocess.run(["make", "--no-print-directory", "-C", str(repo), "install-wake", f"PREFIX={tmp_path}"],
                   check=True, capture_output=True, timeout=60)
    drop_in = tmp_path / "share/systemd/user/tocsin.service.d/wake.conf"
    lines = [line for line in drop_in.read_text().splitlines() if line and not line.startswith("#")]
    assert lines == ["[Service]", "AmbientCapabilities=CAP_WAKE_ALARM"]
