"""Sandboxed callers for real: processes run by bubblewrap (what Flatpak runs
apps in) with a /.flatpak-info naming their app bound into a new root,
calling the service over the same bus (Tests/service)."""

import os
import re
import subprocess
import sys
from pathlib import Path

from servicebus import INTERFACE, NAME, PATH

BIN = os.environ.get("TOCSIN_BIN", "tocsin")
APP = "org.example.Pomodoro"
QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def sandboxed(tmp_path, *command, app=APP, started=False, address=None, binds=()):
    """`command` in a bubblewrap sandbox whose /.flatpak-info names `app`:
    a root of its own (the system's /usr and /etc read-only, nothing of
    this process's files but the tocsin command and the Swift runtime it
    needs, read-only), its own pids, and the session bus (an abstract
    socket, so the network namespace is shared, as Flatpak shares it).
    Run to its end; `started`: left running (a Popen, output in pipes).
    `address`: another bus address (a proxy's); `binds`: more bwrap binds."""
    info = tmp_path / f"{app}.flatpak-info"
    info.write_text(f"[Application]\nname={app}\nruntime=runtime/org.example.Platform/x86_64/1\n")
    # The bus's socket bound in where the address says it is (a path
    # socket; an abstract one is reached through the shared network).
    address = address or os.environ["DBUS_SESSION_BUS_ADDRESS"]
    socket = dict(part.split("=", 1) for part in address.split(":", 1)[1].split(",")).get("path")
    bus = ["--bind", socket, socket] if socket else []
    runtime = ["--ro-bind", str(Path(BIN).parent), str(Path(BIN).parent)]
    if Path("/opt/swift").is_dir():
        runtime += ["--ro-bind", "/opt/swift", "/opt/swift"]
    arguments = ["bwrap", "--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc",
                 "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                 *runtime, "--ro-bind", str(info), "/.flatpak-info", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--die-with-parent",
                 *bus, *binds, "--setenv", "DBUS_SESSION_BUS_ADDRESS", address, *command]
    if started:
        return subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(arguments, capture_output=True, text=True, timeout=60)


def gdbus(tmp_path, method, *arguments, app=APP, address=None):
    return sandboxed(tmp_path, "gdbus", "call", "--session", "-d", NAME, "-o", PATH, "-m", f"{INTERFACE}.{method}",
                     "--", *arguments, app=app, address=address)


def listening(tmp_path, address=None):
    """A sandboxed `gdbus monitor` of the service (a match rule, no
    Subscribe), returned once its match rule is in."""
    listener = sandboxed(tmp_path, "gdbus", "monitor", "--session", "-d", NAME, started=True, address=address)
    # It asks who owns the name after it adds its rule: the answer says both are in.
    while "is owned by" not in (line := listener.stdout.readline()):
        assert line, f"gdbus monitor ended: {listener.stderr.read()}"
    return listener


def added(result):
    """The id a sandboxed gdbus Add answered."""
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split("uint64 ")[1].split(",")[0].rstrip(")"))


def sandboxed_ids(tmp_path, app=APP):
    """The ids the sandboxed app's ListColumns gives."""
    result = gdbus(tmp_path, "ListColumns", "['label']", app=app)
    assert result.returncode == 0, result.stderr
    ids = result.stdout.split("'id': <")[1].split("]")[0]  # "@at [" or "[uint64 2, 3"
    return [int(word) for word in re.findall(r"\d+", ids.split("[", 1)[1].replace("uint64", ""))]



def python_binds():
    """The bwrap binds that let this Python (its installation and the test
    virtual environment, with jeepney) run in a sandbox, read-only."""
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parents[1]}
    binds = []
    for root in sorted(roots):
        binds += ["--ro-bind", str(root), str(root)]
    return binds
