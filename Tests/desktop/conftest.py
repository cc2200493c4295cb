"""Desktop tests run inside scripts/desktop-session.sh (make test-desktop):
$TOCSIN_SESSION is the session's folder, $TOCSIN_DRIVER the C alert driver."""

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from servicebus import Monitor, Signals, boot_time  # noqa: F401 (boot_time: for the tests)

SESSION = Path(os.environ.get("TOCSIN_SESSION", "/nonexistent"))
DRIVER = os.environ.get("TOCSIN_DRIVER", "")
ARTIFACTS = Path(os.environ.get("TOCSIN_ARTIFACTS", "/tmp"))

if not SESSION.is_dir() or not DRIVER:
    pytest.skip("run through `make test-desktop` (needs a headless session)", allow_module_level=True)

# A GLib critical in the notifier (in this process, through the Python
# binding, or in the programs the tests start) is a crash, not a line.
os.environ["G_DEBUG"] = "fatal-criticals"


@dataclass
class Driver:
    """alert_driver running in the background; its lines are collected."""

    process: subprocess.Popen
    lines: list = field(default_factory=list)

    def wait_for(self, prefix: str, timeout: float = 30.0, count: int = 1) -> list:
        """Reads lines until `count` of them start with `prefix`; returns them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines if line.startswith(prefix)]
            if len(found) >= count:
                return found
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
        raise AssertionError(f"no {count} x {prefix!r} within {timeout} s; got {self.lines}")

    def finish(self, timeout: float = 60.0) -> list:
        # Read through the same buffered file as wait_for: communicate() would
        # read the raw pipe and skip lines readline() had already buffered.
        self.process.wait(timeout=timeout)
        self.lines += self.process.stdout.read().splitlines()
        self.stderr = self.process.stderr.read()
        return self.lines


@pytest.fixture
def run_driver():
    started = []

    def start(seconds=1.0, label="Tea", body="Tea is ready", repeat=0.0, hold=1.5, env=None,
              live=False, warn=0.0, actions=True):
        extra = [] if not live and not warn and actions else ["1" if live else "0", str(warn), "0" if actions else "1"]
        process = subprocess.Popen(
            [DRIVER, str(seconds), label, body, str(repeat), str(hold), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        started.append(process)
        return Driver(process)

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture(autouse=True)
def clear_notifications():
    subprocess.run(["dunstctl", "close-all"], check=False)
    yield
    subprocess.run(["dunstctl", "close-all"], check=False)


def audio_rms(start: float, seconds: float) -> float:
    """RMS amplitude of the session's recording from boot time `start`."""
    return audio_stat(start, seconds, "RMS     amplitude")


def audio_frequency(start: float, seconds: float) -> float:
    """sox's rough frequency (Hz) of the recording from boot time `start`:
    enough to tell a 440 Hz tone (a few hundred) from alarm-clock-elapsed
    (about 5,500)."""
    return audio_stat(start, seconds, "Rough   frequency")


def audio_stat(start: float, seconds: float, name: str) -> float:
    """One line of `sox stat` on the recording from boot time `start`."""
    recorded = float((SESSION / "audio.start").read_text())
    # A silence heard over part of its window proves nothing: the whole
    # window must be recorded.
    assert start >= recorded, f"the window starts {recorded - start:.3f} s before the recording"
    offset = start - recorded
    # parec writes with some lag: wait until the file covers the window.
    needed = int((offset + seconds) * 44100) * 4
    deadline = time.monotonic() + 30
    while (SESSION / "audio.raw").stat().st_size < needed and time.monotonic() < deadline:
        time.sleep(0.05)
    have = (SESSION / "audio.raw").stat().st_size
    assert have >= needed, f"the recording covers {max(0, have / 4 / 44100 - offset):.3f} s of a {seconds:.3f} s window"
    result = subprocess.run(
        ["sox", "-t", "raw", "-r", "44100", "-e", "signed", "-b", "16", "-c", "2", str(SESSION / "audio.raw"),
         "-n", "trim", f"{offset:.3f}", f"{seconds:.3f}", "stat"],
        capture_output=True, text=True,
    )
    stats = dict(line.split(":", 1) for line in result.stderr.splitlines() if ":" in line)
    length = float(stats.get("Length (seconds)", "0"))
    assert abs(length - seconds) < 0.01, f"sox measured {length} s of a {seconds:.3f} s window: {result.stderr}"
    if name in stats:
        return float(stats[name])
    raise AssertionError(f"sox gave no {name}: {result.stderr}")


def red_pixels(png: Path) -> float:
    """Share of strongly red pixels in the top-right corner, where dunst draws
    critical alerts (dark red box, bright red frame)."""
    result = subprocess.run(
        ["convert", str(png), "-crop", "400x200+880+0", "+repage", "-fx", "(r>0.45 && g<0.15 && b<0.15) ? 1 : 0",
         "-format", "%[fx:mean]", "info:"],
        capture_output=True, text=True, check=True,
    )
    return float(result.stdout)


def screenshot(name: str, until_red: bool = False) -> Path:
    """A PNG of the whole X screen, kept in $TOCSIN_ARTIFACTS. until_red:
    retakes it for up to 10 s until the alert has been drawn."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    deadline = time.monotonic() + 10
    while True:
        subprocess.run(["import", "-window", "root", str(path)], check=True)
        if not until_red or red_pixels(path) > 0.05 or time.monotonic() > deadline:
            return path
        time.sleep(0.1)


class NotifyMonitor(Monitor):
    """What reaches the notification server, as whole D-Bus messages: each
    Notify call as a dict (time on the wall clock and boot clock,
    replaces_id, summary, body, actions, hints as text, expire_timeout) and
    each CloseNotification (its id)."""

    def __init__(self):
        super().__init__("org.freedesktop.Notifications", kinds=("method_call",))

    def calls(self, member="Notify"):
        found = []
        for record in self.named(member):
            if member != "Notify":
                found.append({"time": record.wall, "boot": record.at, "id": record.args[0]})
                continue
            _, replaces, _, summary, body, actions, hints, expire = record.args
            found.append({
                "time": record.wall, "boot": record.at, "replaces": replaces, "summary": summary, "body": body,
                "actions": list(actions), "expire": expire,
                "hints": {key: str(value).lower() if isinstance(value, bool) else str(value)
                          for key, (_, value) in hints.items()},
            })
        return found


# The service's signals, and the notification server's calls, heard from the
# test's start (the suites of the service, the sleep timer and the language).
@pytest.fixture
def signals():
    monitor = Signals()
    yield monitor
    monitor.close()


@pytest.fixture
def notifications():
    monitor = NotifyMonitor()
    yield monitor
    monitor.close()
