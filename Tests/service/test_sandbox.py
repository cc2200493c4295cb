"""Sandboxed callers for real: a process run by bubblewrap (what Flatpak
runs apps in) with a /.flatpak-info naming its app bound into its new root,
calling the service over the same bus. It sees and controls only the timers
it made; the user (the command, any unsandboxed program) sees and controls
all, each app's timers with their owner, and `tocsin rm --owner` clears
them."""

import json
import os
import queue
import shutil
import subprocess
import threading

import pytest

from sandbox import APP, BIN, QUIET, added, gdbus, listening, sandboxed, sandboxed_ids
from servicebus import INTERFACE, NAME, PATH, add, call, service_pid, stop_service, timers, wait_until

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


class Lines:
    """A process's output lines, read by a thread: `next()` waits at most
    `timeout` s for the next one ("" at the end), so a line that never comes
    fails the test instead of hanging it (a blocking readline once hung a
    loaded run for minutes)."""

    def __init__(self, process):
        self.process, self.lines = process, queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def next(self, timeout=20):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from {self.process.args} in {timeout} s") from None

    def next_json(self, timeout=20):
        line = self.next(timeout)
        assert line, f"{self.process.args} ended"
        return json.loads(line)


def test_a_sandboxed_app_sees_and_controls_only_its_own_timers(tmp_path):
    tea = add("Tea", 600, **QUIET)
    assert sandboxed_ids(tmp_path) == []  # the user's timer is not the app's to see
    result = gdbus(tmp_path, "Add", "'Work'", "1500.0", "{'live': <false>, 'sound': <false>, 'alert': <false>}")
    assert result.returncode == 0, result.stderr
    work = int(result.stdout.split("uint64 ")[1].split(",")[0].rstrip(")"))
    assert sandboxed_ids(tmp_path) == [work]
    # Another's timer: refused, and it says so.
    for method, arguments in [("Cancel", [str(tea)]), ("Pause", [str(tea)]), ("Adjust", [str(tea), "60.0"]),
                              ("Remove", [str(tea)])]:
        result = gdbus(tmp_path, method, *arguments)
        assert result.returncode != 0 and "dev.tocsin.Timers1.Error.NotPermitted" in result.stderr, (method, result)
        assert f"timer {tea} is not {APP}'s" in result.stderr, result.stderr
    # Its own: as any caller's.
    assert gdbus(tmp_path, "Pause", str(work)).returncode == 0
    # Another app sees neither.
    assert sandboxed_ids(tmp_path, app="org.example.Other") == []
    # The user sees both, the app's with its owner; List and ls --json too.
    listed = timers()
    assert listed[tea]["state"] == "running" and "owner" not in listed[tea]
    assert listed[work]["owner"] == APP and listed[work]["state"] == "suspended"
    ls = subprocess.run([BIN, "ls"], capture_output=True, text=True, timeout=30)
    assert ls.returncode == 0 and f"({APP})" in ls.stdout and ls.stdout.count(APP) == 1, ls
    # The owner outlives the service (the journal).
    stop_service()
    assert timers()[work]["owner"] == APP
    assert sandboxed_ids(tmp_path) == [work]
    removed = subprocess.run([BIN, "rm", "--owner", APP], capture_output=True, text=True, timeout=30)
    assert removed.returncode == 0 and "Removed 1 of org.example.Pomodoro: Work" in removed.stdout, removed
    assert list(timers()) == [tea]


def test_a_later_process_does_not_inherit_a_sandboxed_identity(tmp_path):
    """Identity is per connection: once the sandboxed caller is gone, a
    process after it (a new connection, whatever pid it gets) is asked
    afresh, and an unsandboxed one is the user; the app stays the app."""
    result = gdbus(tmp_path, "Add", "'Work'", "1500.0", "{'live': <false>, 'sound': <false>, 'alert': <false>}")
    assert result.returncode == 0, result.stderr
    work = int(result.stdout.split("uint64 ")[1].split(",")[0].rstrip(")"))
    mine = add("Tea", 600, **QUIET)
    for _ in range(5):  # each busctl call: a new process and connection
        call("Pause", "t", work)  # (raises if refused)
        call("Resume", "t", work)
    assert sorted(timers()) == [work, mine]
    assert sandboxed_ids(tmp_path) == [work]
    assert gdbus(tmp_path, "Pause", str(mine)).returncode != 0


def test_a_sandboxed_app_may_subscribe_but_not_keep_the_service_up(tmp_path):
    """Watch reaches beyond the app's timers (the service's lifetime): a
    method of service-wide access, refused to a sandboxed app, which may
    Subscribe instead."""
    result = gdbus(tmp_path, "Watch")
    assert result.returncode != 0 and "dev.tocsin.Timers1.Error.NotPermitted" in result.stderr, result
    assert f"Watch reaches beyond {APP}'s timers: a sandboxed app may not call it" in result.stderr, result.stderr
    assert gdbus(tmp_path, "Subscribe").returncode == 0


def test_a_sandbox_without_an_app_id_is_refused(tmp_path):
    result = sandboxed(tmp_path, "gdbus", "call", "--session", "-d", NAME, "-o", PATH, "-m", f"{INTERFACE}.ListColumns",
                       "--", "['label']", app="")
    assert result.returncode != 0 and "NotPermitted" in result.stderr and "without an app id" in result.stderr, result


def test_a_sandboxed_app_hears_only_its_own_timers(tmp_path):
    """Signals go to subscribers, each only of the timers it may see: the
    app's `tocsin ls --follow` (a real client in the sandbox) hears its own
    timer's changes and nothing of the user's, also from a service started
    again, and a match rule alone in the sandbox (gdbus monitor: what a
    proxy passing broadcasts would let an app do) hears nothing; the user's
    follow hears both."""
    tea = add("Tea", 600, **QUIET)
    listener = listening(tmp_path)
    app_follow = sandboxed(tmp_path, BIN, "ls", "--follow", "--json", started=True)
    user_follow = subprocess.Popen([BIN, "ls", "--follow", "--json"], stdout=subprocess.PIPE, text=True)
    app_lines, user_lines = Lines(app_follow), Lines(user_follow)
    try:
        assert user_lines.next_json()["id"] == tea  # listed: subscribed before it
        work = added(gdbus(tmp_path, "Add", "'Work'", "1500.0", "{'live': <false>, 'sound': <false>, 'alert': <false>}"))
        call("Pause", "t", tea)
        call("Pause", "t", work)  # the user may
        # The user hears both pauses (and Work's start), in order.
        seen = []
        while not any(line.get("id") == work and line.get("state") == "suspended" for line in seen):
            seen.append(user_lines.next_json())
        assert any(line.get("id") == tea and line.get("state") == "suspended" for line in seen), seen
        # The app hears its own timer start and pause; it listed nothing.
        heard = []
        while not any(line.get("state") == "suspended" for line in heard):
            line = app_lines.next()
            assert line, f"the app's follow ended: {app_follow.stderr.read()}"
            heard.append(json.loads(line))
        assert {line["id"] for line in heard} == {work}, heard
        assert all(line.get("owner") == APP for line in heard), heard
        # A service started again takes both followers back, the app as the app.
        stop_service()
        call("Remove", "t", tea)
        call("Cancel", "t", work)  # after Tea's removal: when the app hears this, it would have heard that
        seen = [user_lines.next_json() for _ in range(2)]
        assert [line.get("event") for line in seen] == ["removed", "changed"] and seen[0]["id"] == tea, seen
        while heard[-1].get("state") != "canceled":
            heard.append(app_lines.next_json())
        assert {line["id"] for line in heard} == {work}, heard
    finally:
        for process in (listener, app_follow, user_follow):
            process.terminate()
            process.wait(30)
    monitored = listener.stdout.read()
    assert "Changed" not in monitored and "Removed" not in monitored, monitored


@pytest.mark.skipif(shutil.which("xdg-dbus-proxy") is None, reason="xdg-dbus-proxy is not installed")
def test_an_app_behind_flatpaks_bus_proxy_is_the_app_and_hears_only_its_own(tmp_path):
    """As Flatpak runs an app given --talk-name=dev.tocsin.Timers: the app
    reaches the bus only through xdg-dbus-proxy (filtering: it may talk to
    the service and nothing else), and the proxy itself runs in a sandbox
    with the app's /.flatpak-info, so the bus vouches for the proxy's
    connection and the service names the app from that root."""
    tea = add("Tea", 600, **QUIET)
    folder = tmp_path / "proxy"
    folder.mkdir()
    socket = folder / "bus"
    proxy = sandboxed(tmp_path, "xdg-dbus-proxy", os.environ["DBUS_SESSION_BUS_ADDRESS"], str(socket), "--filter",
                      f"--talk={NAME}", started=True, binds=["--bind", str(folder), str(folder)])
    through = f"unix:path={socket}"
    processes = [proxy]
    try:
        wait_until(socket.exists, what="the proxy's socket")
        listener = listening(tmp_path, address=through)
        processes.append(listener)
        follow = sandboxed(tmp_path, BIN, "ls", "--follow", "--json", started=True, address=through)
        processes.append(follow)
        work = added(gdbus(tmp_path, "Add", "'Work'", "1500.0", "{'live': <false>, 'sound': <false>, 'alert': <false>}",
                           address=through))
        listed = timers()
        assert sorted(listed) == [tea, work] and listed[work]["owner"] == APP and "owner" not in listed[tea]
        refused = gdbus(tmp_path, "Cancel", str(tea), address=through)
        assert "NotPermitted" in refused.stderr and f"timer {tea} is not {APP}'s" in refused.stderr, refused
        call("Pause", "t", tea)
        call("Pause", "t", work)
        heard, lines = [], Lines(follow)
        while not any(line.get("state") == "suspended" for line in heard):
            line = lines.next()
            assert line, f"the app's follow ended: {follow.stderr.read()}"
            heard.append(json.loads(line))
        assert {line["id"] for line in heard} == {work} and all(line["owner"] == APP for line in heard), heard
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(30)
    monitored = listener.stdout.read()
    assert "Changed" not in monitored, monitored
