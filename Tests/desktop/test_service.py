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

from conftest import NotifyMonitor, audio_rms, boot_time

NAME, PATH, INTERFACE = "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1"
REPO = Path(__file__).resolve().parents[2]

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)


def busctl(*arguments, check=True):
    """busctl --user with JSON output; the reply's data, or the failure."""
    result = subprocess.run(["busctl", "--user", "--json=short", "--", *arguments], capture_output=True, text=True,
                            timeout=30)
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
    """The service's signals as dbus-monitor sees them (it follows the name
    across restarts of the service, which `gdbus monitor` does not), each as
    (boot time it arrived, "Member arg | arg | ...", e.g.
    'Finished uint64 3 | string "Rice" | double 0.0012'; nested values
    flattened in)."""

    def __init__(self):
        import threading
        self.process = subprocess.Popen(
            ["dbus-monitor", "--session", f"type='signal',interface='{INTERFACE}'"], stdout=subprocess.PIPE, text=True)
        self.records = []  # [boot time, member, [argument lines]]
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        time.sleep(0.3)  # subscribed before the test acts

    def _read(self):
        for line in self.process.stdout:
            with self.lock:
                if line.startswith("signal ") and f"interface={INTERFACE};" in line:
                    self.records.append([boot_time(), line.rsplit("member=", 1)[1].strip(), []])
                elif line.startswith("   ") and self.records:
                    self.records[-1][2].append(line.strip())

    def read(self):
        with self.lock:
            return [(at, f"{member} " + " | ".join(args)) for at, member, args in self.records]

    def named(self, name):
        return [(at, text) for at, text in self.read() if text.startswith(f"{name} ")]

    def wait_for(self, name, count=1, timeout=15.0):
        found = wait_until(lambda: len(self.named(name)) >= count and self.named(name), timeout)
        assert found and len(found) >= count, f"no {count} x {name}: {self.read()}"
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
    journal = fresh_service.with_suffix(".journal")  # the snapshot comes later: the change is a journal line
    # The Add, then the id of its live notification once it is showing.
    assert wait_until(lambda: len(journal.read_text().splitlines()) == 2, 5)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [line["id"] for line in lines] == [timer, timer] and lines[1]["notification"] > 0
    assert oct(journal.stat().st_mode & 0o777) == "0o600"
    assert oct(journal.parent.stat().st_mode & 0o777) == "0o700"
    stop_service()
    state = json.loads(fresh_service.read_text())  # folded into the snapshot on the way out
    assert [item["id"] for item in state["timers"]] == [timer] and journal.read_text() == ""
    assert oct(fresh_service.stat().st_mode & 0o777) == "0o600"


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
    assert any('"suspended"' in line for line in states) and any('"running"' in line for line in states)


def test_adjust_moves_the_finish_and_it_comes_on_time_with_the_alert_and_sound(signals):
    began = boot_time()
    timer = add("Rice", 1.5)
    call("Adjust", "td", timer, 1)
    (at, line), = signals.wait_for("Finished")
    assert line.startswith(f"Finished uint64 {timer} | ") and '"Rice"' in line
    assert 2.5 <= at - began < 3.5  # never early, late by less than a second
    assert audio_rms(at, 1.5) > 0.01
    time.sleep(0.5)  # the alert is up
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    shown = {key: value["data"] for key, value in history["data"][0][0].items()}
    assert (shown["summary"], shown["body"]) == ("Rice", "Time is up")
    assert timers()[timer]["state"] == "finished"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL])
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
    lateness = float(line.rsplit("double ", 1)[1])
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
    assert [finished[0][1].split(" | ")[0], finished[1][1].split(" | ")[0]] == [f"Finished uint64 {first}", f"Finished uint64 {second}"]
    assert finished[1][0] - finished[0][0] > 0.9  # (stamped when read: within ~20 ms)


def test_it_exits_when_idle_and_comes_back():
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    timer = add("Egg", 0.5)
    assert wait_until(lambda: service_pid() is None, 10)
    assert timers()[timer]["state"] == "finished"  # activated again


def test_no_wakeups_while_an_hour_waits():
    """Without a live notification (that one is updated each second)."""
    add("Roast", 3600, live=("b", False))
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


def test_sigkill_at_random_moments_loses_no_answered_call(signals):
    """A client adds, pauses, resumes and adjusts timers while the service is
    killed with SIGKILL a hundred times at random moments. Every answered
    call must be in what the service lists after; no id twice; no finish
    announced twice (signals and desktop alerts)."""
    import random
    import threading

    random.seed(20)
    notifies = subprocess.Popen(["dbus-monitor", "--session", "interface='org.freedesktop.Notifications',member='Notify'"],
                                stdout=subprocess.PIPE, text=True)
    kills = []

    def killer():
        while len(kills) < 100:
            time.sleep(random.uniform(0.02, 0.25))
            pid = service_pid()
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer)
    thread.start()
    added = {}  # id -> {"short": bool, "adjusts": (answered, tried), "last": (op, answered)}
    tried_adds = 0
    while thread.is_alive():
        roll = random.random()
        if roll < 0.3 or not added:
            short = random.random() < 0.4
            tried_adds += 1
            # Without live notifications: this is about the journal, and some
            # 400 live timers would send dunst 400 updates a second.
            result = call("Add", "sda{sv}", "Short" if short else "Long", 1 if short else 3600, "1", "live", "b", "false",
                          check=False)
            if isinstance(result, list):
                added[result[0]] = {"short": short, "adjusts": [0, 0], "last": None}
            continue
        timer = random.choice([id for id, facts in added.items() if not facts["short"]] or list(added))
        facts = added[timer]
        if facts["short"]:
            continue
        op = random.choice(["Pause", "Resume", "Adjust"])
        result = call(op, "td" if op == "Adjust" else "t", timer, *([10] if op == "Adjust" else []), check=False)
        answered = isinstance(result, list)
        failed_by_rule = not answered and "dev.tocsin.Timers1.Error" in getattr(result, "stderr", "")
        if op == "Adjust":
            facts["adjusts"][1] += 1
            facts["adjusts"][0] += answered
        if not failed_by_rule:  # a WrongState answer changes nothing
            facts["last"] = (op, answered)
    thread.join()
    time.sleep(1.5)  # the last short timers finish
    listed = timers()
    assert len(kills) == 100
    assert set(added) <= set(listed), "an answered Add was lost"
    assert len(listed) <= tried_adds
    for timer, facts in added.items():
        state = listed[timer]
        if facts["short"]:
            continue
        answered, tried = facts["adjusts"]
        assert 3600 + 10 * answered <= state["duration"] <= 3600 + 10 * tried, (timer, facts, state)
        if facts["last"] and facts["last"][1]:
            expected = {"Pause": "suspended", "Resume": "running"}.get(facts["last"][0])
            if expected:
                assert state["state"] == expected, (timer, facts, state)
    finished = [line for _, line in signals.named("Finished")]
    finished_ids = [line.split(" | ")[0] for line in finished]
    assert len(finished_ids) == len(set(finished_ids)), "a finish announced twice"
    notifies.terminate()
    shown = [line for line in notifies.communicate()[0].splitlines() if line.strip() == 'string "Short"']
    short = sum(facts["short"] for facts in added.values())
    assert len(shown) <= short + (tried_adds - len(added)), "a finish alerted twice"
    assert len(finished_ids) >= short * 0.95  # the rest: killed between saving a finish and announcing it
    short_states = [listed[timer]["state"] for timer, facts in added.items() if facts["short"]]
    print(f"{len(kills)} kills, {len(added)} answered adds of {tried_adds}, "
          f"{len(finished_ids)} finishes announced of {sum(f['short'] for f in added.values())} short timers; "
          f"short states {sorted(set((s, short_states.count(s)) for s in short_states))}, notifies {len(shown)}")


def shown_alerts():
    """(summary, body) of the alerts shown so far, newest first."""
    subprocess.run(["dunstctl", "close-all"], check=True)
    history = json.loads(subprocess.run(["dunstctl", "history"], capture_output=True, text=True, check=True).stdout)
    return [(item["summary"]["data"], item["body"]["data"]) for item in history["data"][0]]


def test_a_finish_long_ago_gets_one_quiet_alert_and_a_recent_one_the_alarm(signals):
    activation_environment(TOCSIN_SERVICE_GRACE=2)
    add("Stew", 0.5)
    add("Toast", 3)
    stop_service()
    time.sleep(4)  # Stew ran out 3.5 s ago (past the grace), Toast 1 s ago
    began = boot_time()
    assert {timer["label"]: timer["state"] for timer in timers().values()} == {"Stew": "finished", "Toast": "finished"}
    signals.wait_for("Finished", 2)
    time.sleep(1.5)
    alerts = shown_alerts()
    assert ("Stew", "Stew ran out 3 s ago") in alerts
    assert ("Toast", "Finished 1 s ago") in alerts
    assert audio_rms(began, 1.5) > 0.01  # Toast's alarm (Stew's alert is silent)


def test_the_alert_buttons_act_on_the_service_timer(signals):
    """+1 min on the alert of a service timer gives the same timer another
    minute (Changed: running again); Stop dismisses the alert."""
    from test_desktop import press

    timer = add("Pasta", 0.5)
    signals.wait_for("Finished")
    time.sleep(0.5)  # the alert is drawn
    press("+1 min")
    assert wait_until(lambda: timers()[timer]["state"] == "running", 5)
    assert 55 < timers()[timer]["remaining"] <= 60
    assert len(timers()) == 1  # the same timer, not a new one


def test_lap_restart_cancel_and_remove_over_the_bus(signals):
    watch = add("Run", 0, kind=("s", "stopwatch"))
    time.sleep(0.3)
    (lap,) = call("Lap", "t", watch)
    assert 0.25 < lap < 1.5 and timers()[watch]["laps"] == [lap]
    assert timers()[watch]["kind"] == "stopwatch" and "remaining" not in timers()[watch]
    tea = add("Tea", 60)
    call("Adjust", "td", tea, -30)
    assert 29 < timers()[tea]["remaining"] <= 30
    call("Restart", "t", tea)
    assert timers()[tea]["duration"] == 60  # a restart runs the created duration
    call("Cancel", "t", tea)
    assert timers()[tea]["state"] == "canceled"
    call("Remove", "t", tea)
    assert tea not in timers()
    assert signals.wait_for("Removed")[0][1] == f"Removed uint64 {tea}"
    assert gdbus_call("Pause", str(tea))[1].count("NoSuchTimer") == 1  # ids are not reused


def test_an_alarm_in_the_service_rings_at_its_wall_time(signals):
    target = time.time() + 1.5
    alarm = add("Bus", target, kind=("s", "alarm"))
    listed = timers()[alarm]
    assert listed["kind"] == "alarm" and abs(listed["alarm_time"] - target) < 1e-3
    signals.wait_for("Finished")
    assert time.time() >= target


def test_the_installed_systemd_unit_is_valid():
    unit = Path(os.environ["TOCSIN_SERVICE_DIR"]).parents[1] / "systemd/user/tocsin.service"
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    text = unit.read_text()
    assert "Type=dbus" in text and "BusName=dev.tocsin.Timers" in text
    activation = (Path(os.environ["TOCSIN_SERVICE_DIR"]) / "dev.tocsin.Timers.service").read_text()
    assert "SystemdService=tocsin.service" in activation
    exec_line = next(line for line in activation.splitlines() if line.startswith("Exec="))
    assert os.access(exec_line.split("=", 1)[1].split()[0], os.X_OK)


def test_service_timers_are_live_and_their_buttons_go_through_the_service(signals, tmp_path):
    """A background timer shows a live notification by default; Pause and
    +1 min on it are the service's own calls (journaled: they survive
    SIGKILL); after the kill the restarted service replaces its notification
    in place instead of leaving the old one behind; Cancel withdraws it."""
    from test_desktop import press

    monitor = NotifyMonitor(tmp_path / "monitor.log")
    try:
        stew = add("Stew", 30, warn=("d", 5))
        listed = timers()[stew]
        assert listed["live"] is True and listed["warn"] == 5
        assert wait_until(lambda: [c for c in monitor.calls() if c["summary"] == "Stew"], 5)
        first = [c for c in monitor.calls() if c["summary"] == "Stew"][0]
        assert first["replaces"] == 0 and first["body"].endswith(" left") and "value" in first["hints"]
        press("Pause")
        assert wait_until(lambda: timers()[stew]["state"] == "suspended", 5)
        remaining = timers()[stew]["remaining"]
        press("+1 min")
        assert wait_until(lambda: timers()[stew]["remaining"] > remaining + 59, 5)
        changed = signals.wait_for("Changed", 2)  # the pause, and the adjust (no state change) too
        assert any("suspended" in text for _, text in changed)
        assert wait_until(lambda: monitor.calls()[-1]["body"].startswith("1:") and
                          monitor.calls()[-1]["body"].endswith(" left · paused"), 5), monitor.calls()[-1]
        notification = next(c["replaces"] for c in monitor.calls() if c["replaces"])
        stop_service(signal.SIGKILL)
        assert timers()[stew]["state"] == "suspended"  # reactivated: the button's change was kept
        assert 88 < timers()[stew]["remaining"] <= 90
        assert wait_until(lambda: len(monitor.calls()) and monitor.calls()[-1]["body"].endswith("paused") and
                          monitor.calls()[-1]["replaces"] == notification, 5), monitor.calls()[-1]
        displayed = subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True).stdout
        assert displayed.strip() == "1"  # one notification for the timer, not one per service run
        press("Cancel")
        assert wait_until(lambda: timers()[stew]["state"] == "canceled", 5)
        assert wait_until(lambda: subprocess.run(["dunstctl", "count", "displayed"], capture_output=True,
                                                 text=True).stdout.strip() == "0", 5)
    finally:
        monitor.close()
    assert [c["replaces"] for c in monitor.calls()].count(0) == 1
