"""The timer service without a desktop (make test-service, part of make
check): each test gets a private D-Bus session bus of its own that
activates the service from the prefix `make stage-service` staged
($TOCSIN_SERVICE_DIR), with its own home and state folder, and no
notification or sound server. Tests are independent and run side by side."""

import os
import subprocess
from pathlib import Path

import pytest

from servicebus import Signals, activation_environment, service_pid, stop_service

SERVICE_DIR = os.environ.get("TOCSIN_SERVICE_DIR", "")
TOCSIN = os.environ.get("TOCSIN_BIN", "")

if not SERVICE_DIR or not TOCSIN:
    pytest.skip("run through `make test-service` (stages the service)", allow_module_level=True)


class Bus:
    """A private session bus: its address is in this process's environment
    (so busctl, gdbus and the command use it) for as long as the test runs.
    `log` collects what the activated service writes to stderr."""

    def __init__(self, folder: Path, wrap=()):
        """`wrap`: a command the daemon runs under (and so the services it
        starts), e.g. setpriv dropping a capability."""
        self.folder = folder
        self.log = folder / "bus.log"
        config = folder / "bus.conf"
        config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <servicedir>{SERVICE_DIR}</servicedir>
</busconfig>
""")
        # In the foreground: a forked dbus-daemon sends what the services it
        # starts write to /dev/null.
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([*wrap, "dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                                            stdout=subprocess.PIPE, stderr=log, text=True)
        self.address = self.process.stdout.readline().strip()
        assert self.address, f"dbus-daemon did not start: {self.service_log()}"

    def service_log(self) -> str:
        return self.log.read_text(errors="replace")

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


@pytest.fixture(autouse=True)
def bus(tmp_path, monkeypatch):
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    session = Bus(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "PULSE_SERVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", session.address)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("G_DEBUG", "fatal-criticals")  # a GLib critical in the command or the service is a crash
    activation_environment(HOME=home, XDG_RUNTIME_DIR=runtime, XDG_STATE_HOME=tmp_path / "state",
                           TOCSIN_SERVICE_IDLE_EXIT=60, TOCSIN_SERVICE_GRACE=3600, G_DEBUG="fatal-criticals")
    yield session
    if service_pid():
        stop_service()
    session.close()


@pytest.fixture
def state_file(tmp_path):
    """The service's snapshot; the journal is beside it (.journal)."""
    return tmp_path / "state" / "tocsin" / "timers.json"


@pytest.fixture
def signals(bus):
    monitor = Signals()
    yield monitor
    monitor.close()
