"""The service's limits (docs/dbus.md, Limits), over a real bus: Adds
beyond the timer limit are refused with a named error and nothing is kept
of them; long strings and oversized option sets are refused before they
cost anything; the service keeps serving."""

import os
import subprocess

import pytest

from servicebus import activation_environment, add, call, gdbus_call, service_pid, stop_service, timers

BIN = os.environ.get("TOCSIN_BIN", "tocsin")
QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def test_adds_beyond_max_timers_are_refused_until_one_is_removed(state_file):
    activation_environment(TOCSIN_SERVICE_MAX_TIMERS=3)
    first = add("Tea", 0.01, **QUIET)
    for label in ("Egg", "Rice"):
        add(label, 600, **QUIET)
    pid = service_pid()
    status, output = gdbus_call("Add", "'Bread'", "600.0", "{}")
    assert status != 0 and "dev.tocsin.Timers1.Error.LimitReached" in output, output
    assert "at most 3 timers" in output and "tocsin rm --finished" in output, output
    # The command says the service's reason, and adds nothing.
    result = subprocess.run([BIN, "-b", "10m", "Bread"], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "at most 3 timers" in result.stderr, result
    assert [t["label"] for t in timers().values()] == ["Tea", "Egg", "Rice"]
    # A finished timer counts until it is removed; then there is room.
    result = subprocess.run([BIN, "rm", "--finished"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and "Tea" in result.stdout, result
    assert first not in timers()
    add("Bread", 600, **QUIET)
    assert service_pid() == pid  # nothing of it made the service restart
    # The limit survives a restart: it is the service's setting, not its state.
    stop_service()
    status, output = gdbus_call("Add", "'Cake'", "600.0", "{}")
    assert "LimitReached" in output, output


def test_long_strings_and_many_options_are_refused_up_front():
    for arguments, text in [
        (["'Wake'", "0.0", "{'calendar': <'Mon..Fri 07:00%s'>}" % (" " * 1100)], "calendar must be at most 1024 bytes"),
        (["'Tea'", "60.0", "{'sound_file': <'/%s'>}" % ("a" * 5000)], "sound_file must be at most 4096 bytes"),
        (["'Tea'", "60.0", "{%s}" % ", ".join(f"'o{i}': <true>" for i in range(65))], "at most 64 options"),
        (["'%s'" % ("x" * 5000), "60.0", "{}"], "longer than 4096 bytes"),
    ]:
        status, output = gdbus_call("Add", *arguments)
        assert status != 0 and "dev.tocsin.Timers1.Error.InvalidArgument" in output and text in output, output[:300]
    assert timers() == {}
    assert call("ListColumns", "as", 0)  # still serving


@pytest.mark.parametrize("value", ["0", "-3", "1000001", "many"])
def test_bad_max_timers_are_usage_errors(value):
    result = subprocess.run([BIN, "service", "--max-timers", value], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "max-timers" in result.stderr, result
