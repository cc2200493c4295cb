"""One service for one user's timers: a second `tocsin service` on the same
state files (another session bus of the same user, or one started by hand)
would rewrite them from its own timers and lose the first one's changes. It
waits a few seconds for a service that is exiting, then says which one keeps
them and exits 1, having changed nothing."""

import json
import os
import signal
import subprocess

from conftest import TOCSIN, Bus
from servicebus import add, call, service_pid, stop_service, timers, wait_until

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def on_other_bus(other, *arguments, **options):
    environment = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": other.address}
    return subprocess.run(arguments, env=environment, capture_output=True, text=True, timeout=60, **options)


def test_a_second_service_on_the_same_timers_exits_and_changes_nothing(tmp_path, state_file):
    tea = add("Tea", 600, **QUIET)
    call("Pause", "t", tea)  # a journal line
    first = service_pid()
    journal = state_file.with_suffix(".journal")
    files = {path: path.read_bytes() for path in (state_file, journal) if path.exists()}
    (tmp_path / "other").mkdir()
    other = Bus(tmp_path / "other")
    try:
        result = on_other_bus(other, TOCSIN, "service", "--quiet", "--idle-exit", "0", "--state", str(state_file))
        assert result.returncode == 1, result
        assert f"kept by another tocsin service (pid {first})" in result.stderr, result.stderr
        assert {path: path.read_bytes() for path in files} == files  # no snapshot rewritten, no journal folded
        call("Resume", "t", tea)  # the first one still keeps them
        stop_service()  # exits, and lets go
        started = subprocess.Popen([TOCSIN, "service", "--quiet", "--idle-exit", "0", "--state", str(state_file)],
                                   env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": other.address},
                                   stderr=subprocess.PIPE, text=True)
        try:
            # Not auto-started: the other bus could activate a service of
            # its own, which might take the lock before the one started here.
            listed = wait_until(lambda: on_other_bus(other, "busctl", "--user", "--auto-start=no", "--json=short", "call",
                                                     "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1",
                                                     "List").stdout,
                                what="the service on the other bus")
            (timer,) = json.loads(listed)["data"][0]
            assert timer["id"]["data"] == tea and timer["state"]["data"] == "running"
            assert service_pid() is None  # (nothing activated on the first bus meanwhile)
        finally:
            started.terminate()
            assert started.wait(30) == 0, started.stderr.read()
    finally:
        other.close()
    assert timers()[tea]["state"] == "running"  # activated again on the first bus: the files are free


def test_a_service_stopped_and_called_again_at_once_starts_every_time(state_file):
    """Stopped and called again as soon as it has left the bus, while it may
    still be closing down: the lock is let go before the name, so the next
    activation takes it, ten times over, and every change is kept."""
    tea = add("Tea", 600, **QUIET)
    for round in range(10):
        pid = service_pid()
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: service_pid() != pid, what="the service to leave the bus")  # not to end
        call("Pause" if round % 2 == 0 else "Resume", "t", tea)
    assert timers()[tea]["state"] == "running"
    stop_service(signal.SIGKILL)
    assert timers()[tea]["state"] == "running"
