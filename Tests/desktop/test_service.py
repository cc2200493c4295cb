"""The timer service on the session bus, driven with busctl and gdbus as a
third-party script would. The session's bus activates the service from the
prefix `make install-service` staged ($TOCSIN_SERVICE_DIR): every test
starts with no service running and its own state folder."""

import json
import os
import signal
import subprocess
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import audio_rms, boot_time

NAME, PATH, INTERFACE = "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1"
REPO = Path(__file__).resolve().parents[2]

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)


def busctl(*arguments, check=True):
    """busctl --user with JSON output; the reply's data, or the failure."""
    result = subprocess.run(["busctl", "--user", "--json=short", *arguments], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise AssertionError(f"busctl {' '.join(arguments)}: {result.stderr.strip()}")
    return json.loads(result.stdout)["data"] if result.returncode == 0 and result.stdout.strip() else result


def call(method, signature="", *arguments, check=True):
    return busctl("call", NAME, PATH, INTERFACE, method, *([signature] if signature else []),
                  *map(str, arguments), check=check)


def gdbus_call(method, *arguments):
    """gdbus call: (status, stdout + stderr), for error names."""
    result = subprocess.run(["gdbus", "call", "--session", "-d", NAME, "-o", PATH, "-m", f"{INTERFACE}.{method}",
                             "--", *arguments], capture_output=True, text=True, timeout=30)
    return result.returncode, result.stdout + result.stderr


def add(label, seconds, **options):
    """Add through busctl; options as name=(signature, value)."""
    flat = [str(len(options))]
    for name, (signature, value) in options.items():
        flat += [name, signature, str(value).lower() if isinstance(value, bool) else str(value)]
    return call("Add", "sda{sv}", label, seconds, *flat)[0]


def timers():
    """List, as {id: {property: value}}."""
    return {item["id"]["data"]: {name: value["data"] for name, value in item.items()} for item in call("List")[0]}


def service_pid():
    result = busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "GetConnectionUnixProcessID", "s", NAME, check=False)
    return result[0] if isinstance(result, list) else None


def wait_until(condition, timeout=10.0, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


def stop_service(sig=signal.SIGTERM):
    pid = service_pid()
    if pid:
        os.kill(pid, sig)
        assert wait_until(lambda: service_pid() is None, 5)
    return pid


def activation_environment(**variables):
    subprocess.run(["dbus-update-activation-environment", *(f"{name}={value}" for name, value in variables.items())],
                   check=True)


class Signals:
    """`gdbus monitor` on the service: its signals, with the boot time each arrived."""

    def __init__(self):
        self.process = subprocess.Popen(["gdbus", "monitor", "--session", "-d", NAME], stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines = []
        os.set_blocking(self.process.stdout.fileno(), False)
        time.sleep(0.3)  # subscribed before the test acts

    def read(self):
        while True:
            line = self.process.stdout.readline()
            if not line:
                return self.lines
            self.lines.append((boot_time(), line.strip()))

    def named(self, name):
        return [(at, line) for at, line in self.read() if f"{INTERFACE}.{name} " in line]

    def wait_for(self, name, count=1, timeout=15.0):
        found = wait_until(lambda: len(self.named(name)) >= count and self.named(name), timeout)
        assert found and len(found) >= count, f"no {count} x {name}: {self.lines}"
        return found

    def close(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture(autouse=True)
def fresh_service(tmp_path):
    """No service running; state in this test's folder; quiet alerts off."""
    stop_service()
    activation_environment(XDG_STATE_HOME=tmp_path / "state", TOCSIN_SERVICE_IDLE_EXIT=60, TOCSIN_SERVICE_GRACE=3600)
    yield tmp_path / "state" / "tocsin" / "timers.json"
    stop_service()


@pytest.fixture
def signals():
    monitor = Signals()
    yield monitor
    monitor.close()


def test_add_activates_the_service_and_list_shows_the_timer(fresh_service):
    assert service_pid() is None
    began = time.monotonic()
    timer = add("Tea", 60)
    assert time.monotonic() - began < 5
    assert service_pid() is not None  # started by D-Bus activation
    listed = timers()[timer]
    assert (listed["label"], listed["kind"], listed["state"], listed["duration"]) == ("Tea", "countdown", "running", 60)
    assert 59 < listed["remaining"] <= 60
    state = json.loads(fresh_service.read_text())
    assert [item["id"] for item in state["timers"]] == [timer]
    assert oct(fresh_service.stat().st_mode & 0o777) == "0o600"
    assert oct(fresh_service.parent.stat().st_mode & 0o777) == "0o700"


def test_pause_freezes_the_time_left_and_resume_continues(signals):
    timer = add("Soup", 30)
    call("Pause", "t", timer)
    first = timers()[timer]
    time.sleep(1)
    second = timers()[timer]
    assert first["state"] == second["state"] == "suspended"
    assert first["remaining"] == second["remaining"]
    call("Resume", "t", timer)
    time.sleep(0.3)
    assert timers()[timer]["remaining"] < second["remaining"]
    states = [line for _, line in signals.wait_for("Changed", 3)]
    assert any("'suspended'" in line for line in states) and any("'running'" in line for line in states)


def test_adjust_moves_the_finish_and_it_comes_on_time_with_the_alert_and_sound(signals):
    began = boot_time()
    timer = add("Rice", 1.5)
    call("Adjust", "td", timer, 1)
    (at, line), = signals.wait_for("Finished")
    assert f"uint64 {timer}" in line and "'Rice'" in line
    assert 2.5 <= at - began < 3.5  # never early, late by less than a second
    assert audio_rms(at, 1.5) > 0.01
    time.sleep(0.5)  # the alert is up
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    shown = {key: value["data"] for key, value in history["data"][0][0].items()}
    assert (shown["summary"], shown["body"]) == ("Rice", "Time is up")
    assert timers()[timer]["state"] == "finished"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_timer_outlives_the_service(sig, signals):
    began = boot_time()
    timer = add("Kettle", 4)
    time.sleep(1)
    stop_service(sig)
    time.sleep(1)
    listed = timers()[timer]  # the call activates it again
    assert listed["state"] == "running"
    assert 1.5 < listed["remaining"] < 2.2
    (at, _), = signals.wait_for("Finished")
    assert 4.0 <= at - began < 4.5


def test_a_finish_while_the_service_was_away_is_announced_once(signals):
    timer = add("Bread", 1)
    stop_service()
    time.sleep(2)
    listed = timers()[timer]
    assert listed["state"] == "finished"
    (_, line), = signals.wait_for("Finished")
    lateness = float(line.rsplit(",", 1)[1].strip(" )"))
    assert 0.8 < lateness < 2.5
    stop_service()
    assert timers()[timer]["state"] == "finished"
    time.sleep(1)
    assert len(signals.named("Finished")) == 1


def test_bad_calls_get_named_errors_and_the_service_keeps_serving():
    timer = add("Tea", 60)
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
    assert timers()[timer]["state"] == "running"


def test_a_sequence_runs_in_the_service(signals):
    first = add("Work", 1)
    second = add("Break", 1, after=("t", first))
    assert timers()[second]["state"] == "idle"
    finished = signals.wait_for("Finished", 2, timeout=10)
    assert [f"uint64 {first}" in finished[0][1], f"uint64 {second}" in finished[1][1]] == [True, True]
    assert finished[1][0] - finished[0][0] > 0.9  # (stamped when read: within ~20 ms)


def test_it_exits_when_idle_and_comes_back():
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    timer = add("Egg", 0.5)
    assert wait_until(lambda: service_pid() is None, 10)
    assert timers()[timer]["state"] == "finished"  # activated again


def test_no_wakeups_while_an_hour_waits():
    add("Roast", 3600)
    pid = service_pid()
    time.sleep(1)  # settled

    def switches():
        total = 0
        for status in Path(f"/proc/{pid}/task").glob("*/status"):
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
        return total

    before = switches()
    time.sleep(5)
    assert switches() - before == 0


def test_the_shipped_interface_is_the_one_the_service_has():
    add("Tea", 60)
    status, output = gdbus_call("Pause", "0")  # (any call: the service is up)
    xml = subprocess.run(["gdbus", "introspect", "--session", "-d", NAME, "-o", PATH, "--xml"],
                         capture_output=True, text=True, check=True).stdout

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
        result = subprocess.run(["bash", "-euo", "pipefail", "-c", block], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, (block, result.stdout, result.stderr)
    listed = timers()
    assert {"Tea", "Bus", "Work", "Break"} <= {timer["label"] for timer in listed.values()}
    tea = next(timer for timer in listed.values() if timer["label"] == "Tea")
    assert tea["duration"] == 360 and tea["state"] == "running"
    work = next(timer for timer in listed.values() if timer["label"] == "Work")
    assert work["state"] == "canceled"
