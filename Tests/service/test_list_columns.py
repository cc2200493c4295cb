"""ListColumns, as a third-party script reads it through busctl: every
property of List, column by column, by the rules docs/dbus.md gives; a
subset of columns; a clear error for a column that does not exist; and the
command still listing the timers of an older service that has only List."""

import subprocess
import time

from conftest import TOCSIN
from servicebus import add, call, gdbus_call, timers, wait_until

# docs/dbus.md, ListColumns: the names a code stands for.
CODES = {
    "kind": ["countdown", "stopwatch", "alarm", "calendar"],
    "state": ["idle", "running", "suspended", "finished", "canceled"],
    "clock": ["boot", "awake"],
}
FLAGS = {"live", "wake", "pause_media", "alert", "sound", "warn_sound"}
OPTIONAL = {"remaining", "duration", "alarm_time", "next", "rang_ago", "finished_ago", "snoozed_until", "skipped_until"}
LEFT_OUT_AT_ZERO = {"volume", "fade", "notice", "after"}
SPARSE = {"calendar", "sound_file", "media", "laps", "owner", "exec"}
# Values that move between two calls (running timers, ages).
MOVING = {"elapsed", "remaining", "rang_ago", "finished_ago"}


def list_columns(*names):
    (columns,) = call("ListColumns", "as", len(names), *names)
    return {name: value["data"] for name, value in columns.items()}


def rows(columns):
    """The timers of a ListColumns reply as List gives them, by the
    documented rules."""
    ids = columns["id"]
    listed = {timer: {} for timer in ids}
    for name, values in columns.items():
        if name in SPARSE:
            by_id = dict(values)  # (id, value) pairs
            for timer in ids:
                if timer in by_id:
                    listed[timer][name] = by_id[timer]
                elif name == "laps":
                    listed[timer][name] = []
            continue
        assert len(values) == len(ids), f"{name}: {len(values)} values for {len(ids)} timers"
        for timer, value in zip(ids, values):
            if name in CODES:
                value = CODES[name][value]
            elif name in FLAGS:
                value = bool(value)
            elif (name in OPTIONAL and value == -1) or (name in LEFT_OUT_AT_ZERO and value == 0):
                continue
            listed[timer][name] = value
    return listed


def test_list_columns_holds_what_list_holds_column_by_column(tmp_path):
    sound = tmp_path / "ring.ogg"
    sound.write_bytes(b"OggS")
    tea = add("Tea", 300, volume=("d", -6), fade=("d", 10), sound_file=("s", sound))
    run = add("Run", 0, kind=("s", "stopwatch"), clock=("s", "awake"))
    add("Wake", time.time() + 3600, kind=("s", "alarm"))
    standup = add("Standup", 0, calendar=("s", "Mon..Fri 09:00"), notice=("d", 600))
    call("Skip", "tu", standup, 2)
    add("Rest", 60, after=("t", tea), live=("b", False))
    egg = add("Egg", 0.2)
    sleep = add("Sleep", 1800, media=("s", "pause"), fade=("d", 60))
    call("Lap", "t", run)
    call("Lap", "t", run)
    call("Pause", "t", tea)
    wait_until(lambda: timers()[egg]["state"] == "finished")

    asked = time.monotonic()
    listed = timers()
    columns = list_columns()
    apart = time.monotonic() - asked  # the two readings are at most this far apart
    assert list(columns) == ["id", "label", "kind", "state", "clock", "elapsed", "remaining", "duration", "alarm_time",
                             "calendar", "next", "rang_ago", "finished_ago", "finishes", "after", "live", "warn",
                             "wake", "snooze", "ring", "pause_media", "sound_file", "volume", "fade", "snoozed_until",
                             "laps", "skipped_until", "notice", "alert", "sound", "owner", "warn_sound", "exec", "media"]
    assert columns["id"] == sorted(listed), "oldest first"
    assert columns["remaining"][1] == -1 and columns["calendar"] == [[4, "Mon..Fri *-*-* 09:00:00"]]
    rebuilt = rows(columns)
    for timer, properties in listed.items():
        assert set(rebuilt[timer]) == set(properties), f"timer {timer}"
        for name, value in properties.items():
            if name in MOVING:
                # Running times move with the clock, and only by the time between the calls.
                assert abs(rebuilt[timer][name] - value) <= apart + 1e-3, f"timer {timer}: {name} {apart=}"
            else:
                assert rebuilt[timer][name] == value, f"timer {timer}: {name}"
    assert len(rebuilt[run]["laps"]) == 2 and rebuilt[tea]["sound_file"] == str(sound)
    assert columns["media"] == [[sleep, "pause"]] and "media" not in listed[tea]  # only the sleep timer's


def test_only_the_columns_asked_for_and_a_clear_error_for_one_that_does_not_exist():
    add("Tea", 300)
    add("Run", 0, kind=("s", "stopwatch"))
    assert list_columns("state", "label", "state") == {"id": [1, 2], "state": [1, 1], "label": ["Tea", "Run"]}
    status, output = gdbus_call("ListColumns", "['label', 'left']")
    assert status != 0
    assert "dev.tocsin.Timers1.Error.InvalidArgument" in output
    assert "no column 'left'; the columns are id, label, kind, state" in output


OLD_SERVICE = r"""
#include <gio/gio.h>
#include <stdio.h>
/* A Timers1 service from before ListColumns: List only. */
static const char *xml = "<node><interface name='dev.tocsin.Timers1'><method name='List'>"
                         "<arg type='aa{sv}' direction='out'/></method></interface></node>";
static void on_call(GDBusConnection *c, const char *s, const char *o, const char *i, const char *m, GVariant *p,
                    GDBusMethodInvocation *invocation, gpointer u) {
    g_dbus_method_invocation_return_value(invocation, g_variant_new_parsed(
        "([{'id': <uint64 7>, 'label': <'Old'>, 'kind': <'countdown'>, 'state': <'running'>, 'elapsed': <10.0>,"
        " 'remaining': <90.0>, 'duration': <100.0>, 'clock': <'boot'>, 'laps': <@ad []>, 'finishes': <uint64 0>}],)"));
}
static void on_name(GDBusConnection *c, const char *name, gpointer u) { puts("ready"); fflush(stdout); }
int main(void) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    GDBusInterfaceVTable table = {on_call};
    g_dbus_connection_register_object(bus, "/dev/tocsin/Timers", g_dbus_node_info_new_for_xml(xml, NULL)->interfaces[0],
                                      &table, NULL, NULL, NULL);
    g_bus_own_name_on_connection(bus, "dev.tocsin.Timers", 0, on_name, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
}
"""


def test_the_command_lists_an_older_services_timers_through_list(tmp_path):
    source, program = tmp_path / "old_service.c", tmp_path / "old_service"
    source.write_text(OLD_SERVICE)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "gio-2.0"], capture_output=True, text=True, check=True)
    subprocess.run(["cc", str(source), "-o", str(program), *flags.stdout.split()], check=True)
    old = subprocess.Popen([str(program)], stdout=subprocess.PIPE, text=True)
    try:
        assert old.stdout.readline().strip() == "ready"
        status, output = gdbus_call("ListColumns", "[]")
        assert status != 0 and "UnknownMethod" in output
        listed = subprocess.run([TOCSIN, "ls"], capture_output=True, text=True, timeout=30)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.split() == ["7", "Old", "running", "01:30", "left"]
    finally:
        old.terminate()
        old.wait()
