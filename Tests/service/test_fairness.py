"""Fairness (docs/dbus.md, Fairness), over a real bus: while one client
pipelines thousands of Adds, another client's ListColumns is answered
before the flood is through, and every Add answered is on disk (the
journal is synced once per round, before its answers).

The check is on order, not time: a ListColumns sent once every Add of the
flood is written to the bus must be answered while some of them still
wait (a service that answered calls in arrival order answers it after all
of them). bench/flood.c prints the times too; they go to the log, not to
an assertion (bench/flood.sh measures them)."""

import signal
import subprocess
from pathlib import Path

from servicebus import service_pid, stop_service, timers

FLOOD = Path(__file__).resolve().parents[2] / "bench" / "flood.c"
ADDS = 4000


def flood_tool(folder: Path) -> Path:
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "gio-2.0"], capture_output=True, text=True,
                           check=True).stdout.split()
    tool = folder / "flood"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", str(FLOOD), *flags, "-o", str(tool)], check=True)
    return tool


def test_a_list_is_answered_while_a_flood_of_adds_waits(tmp_path):
    tool = flood_tool(tmp_path)
    assert timers() == {}  # (starts the service)
    pid = service_pid()
    result = subprocess.run([str(tool), str(ADDS)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result
    print(result.stdout)
    line = dict(field.split("=") for field in result.stdout.split())
    assert int(line["answered"]) == ADDS and int(line["refused"]) == 0, line
    assert int(line["list_calls"]) >= 2, line
    seen = int(line["seen_after_written"])
    assert 0 <= seen < ADDS, f"a ListColumns sent after the flood waited behind all of it: {line}"
    assert service_pid() == pid
    # Every Add answered is on disk: killed at once, the service comes back with all.
    stop_service(signal.SIGKILL)
    assert len(timers()) == ADDS
