"""Nothing acknowledged that was not saved: the service's state folder on a
small tmpfs that the test fills up, or remounts read-only. A change that
cannot be written is refused (dev.tocsin.Timers1.Error.Failed, with the
system's reason), the timers stay exactly as they were, the service keeps
answering, and once there is room again the next calls succeed and survive
SIGKILL. Needs root (mount); skipped without it."""

import json
import os
import signal
import subprocess

import pytest

from servicebus import (SmallDisk, Signals, activation_environment, add, call, gdbus_call, properties, stop_service, timers,
                        wait_until)

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}

pytestmark = pytest.mark.skipif(not SmallDisk.available(), reason="needs root to mount a tmpfs")


@pytest.fixture
def disk(tmp_path):
    small = SmallDisk(tmp_path / "state", size="256k")
    yield small
    stop_service()  # before the folder goes: the service holds its journal open
    small.close()


def refused(method, *arguments):
    """The call's failure text; fails the test if the call was answered."""
    status, output = gdbus_call(method, *arguments)
    assert status != 0, f"{method} {arguments} was answered: {output}"
    return output


def test_a_full_disk_refuses_changes_and_keeps_the_timers_as_they_were(disk, state_file):
    tea = add("Tea", 600, **QUIET)
    soup = add("Soup", 300, **QUIET)
    call("Pause", "t", soup)
    stop_service()  # the journal folded into the snapshot: an empty journal needs a new page for its next line
    disk.fill()
    before = timers()  # reads still work (the service came back: it could not rewrite its snapshot, and says so)
    monitor = Signals()
    try:
        for method, arguments in [("Pause", [str(tea)]), ("Resume", [str(soup)]), ("Adjust", [str(soup), "60.0"]),
                                  ("Lap", [str(tea)]), ("Cancel", [str(tea)]), ("Restart", [str(soup)]),
                                  ("Remove", [str(tea)]), ("Add", ["'Rice'", "60.0", "{}"])]:
            output = refused(method, *arguments)
            assert "dev.tocsin.Timers1.Error.Failed" in output and "No space left on device" in output, output
        after = timers()
        monitor.sync()
        changes = monitor.read()
    finally:
        monitor.close()
    assert set(after) == {tea, soup}  # no Rice; Tea not removed
    assert after[soup] == before[soup]  # paused: exactly as it was, to the nanosecond
    assert after[tea]["state"] == "running" and after[tea]["duration"] == 600 and after[tea]["laps"] == []
    assert after[tea]["remaining"] < before[tea]["remaining"]  # still counting down
    assert changes == [], changes  # nothing announced for what was not done
    disk.free()
    call("Pause", "t", tea)  # room again: the next calls succeed
    call("Adjust", "td", soup, 60)
    stop_service(signal.SIGKILL)
    again = timers()
    assert again[tea]["state"] == "suspended" and again[soup]["duration"] == 360
    assert not list(state_file.parent.glob("*.corrupt"))


def test_calls_are_answered_until_the_disk_is_full_and_every_answered_one_survives(disk, state_file):
    """The journal fills its last page line by line; the line that does not
    fit is cut short by the disk, and must leave nothing behind: after the
    refusal, the next lines go after whole ones only."""
    answered = [add("Base", 600, **QUIET)]
    disk.fill()
    refusal = None
    for _ in range(200):  # lines of ~400 bytes: a 4 KiB page holds ten
        status, output = gdbus_call("Add", "'Filler'", "600.0", "{'live': <false>, 'alert': <false>}")
        if status != 0:
            refusal = output
            break
        answered.append(int(output.strip("(),\n").split()[-1]))
    assert refusal and "No space left on device" in refusal, refusal
    assert sorted(timers()) == answered
    disk.free()
    answered.append(add("After", 60, **QUIET))
    stop_service(signal.SIGKILL)
    assert sorted(timers()) == answered  # the journal reads whole: every answered Add, nothing else
    assert not list(state_file.parent.glob("*.corrupt"))


def test_a_line_cut_short_by_a_crash_is_never_followed_by_another(disk, state_file):
    """A crash cut the journal's last line short, and the restarted service
    cannot write its new snapshot (the disk is full) while a line still fits
    in the journal's last page: the half line must be gone before the next
    change is appended, or the journal would not read at the next start
    (set aside as corrupt, its timers with it)."""
    tea = add("Tea", 600, **QUIET)
    stop_service(signal.SIGKILL)  # its Add is the journal's one line
    journal = state_file.with_suffix(".journal")
    whole = journal.read_bytes()
    with open(journal, "ab") as out:
        out.write(b'{"change":99,"id":7,"kind":"count')  # a line a crash cut short
    disk.fill()
    assert list(timers()) == [tea]  # activated: no room for its snapshot, the half line left out
    assert not state_file.exists()
    assert journal.read_bytes() == whole  # and cut off
    call("Pause", "t", tea)  # a line in the last page's room
    stop_service(signal.SIGKILL)
    disk.free()
    assert timers()[tea]["state"] == "suspended"
    assert not list(state_file.parent.glob("*.corrupt"))


def test_a_read_only_state_folder_refuses_changes_and_still_answers_reads(disk, bus, state_file):
    tea = add("Tea", 600, **QUIET)
    stop_service()
    disk.read_only()
    listed = timers()  # activated: it reads its timers, cannot rewrite its snapshot
    assert listed[tea]["state"] == "running"
    output = refused("Pause", str(tea))
    assert "dev.tocsin.Timers1.Error.Failed" in output and "Read-only file system" in output, output
    output = refused("Add", "'Rice'", "60.0", "{}")
    assert "Read-only file system" in output
    assert list(timers()) == [tea] and timers()[tea]["state"] == "running"
    assert "Read-only file system" in bus.service_log()  # its snapshot at start, said on stderr
    stop_service()
    disk.read_only(False)
    call("Pause", "t", tea)
    stop_service(signal.SIGKILL)
    assert timers()[tea]["state"] == "suspended"
    assert json.loads(state_file.read_text())["timers"][0]["id"] == tea


def test_a_cancel_that_cannot_be_saved_keeps_a_calendar_alarms_snooze(disk, signals):
    """The refused Cancel puts the alarm back as it was, snooze included: it
    still rings when the snooze is over."""
    wake = add("Wake", 0, calendar=("s", "*-*-* 03:17:00 UTC"), **QUIET)
    call("Snooze", "td", wake, 4)
    stop_service()  # the journal folded into the snapshot: an empty journal needs a new page for its next line
    disk.fill()
    assert "snoozed_until" in timers()[wake]  # back, with the snooze re-armed from the file
    output = refused("Cancel", str(wake))
    assert "No space left on device" in output, output
    listed = timers()[wake]
    assert listed["state"] == "running" and "snoozed_until" in listed
    signals.wait_for("FinishAnnounced", id=wake)  # the snooze rang (its record waits for room)


def test_a_state_folder_that_cannot_be_made_is_named_with_its_reason(bus, tmp_path):
    """The state folder cannot be made (sysfs takes no new folders: EPERM
    even for root): the refusal names that folder and the reason, not a
    journal that is missing; doctor says it is not writable."""
    folder = "/sys/kernel/tocsin-test-state"
    activation_environment(XDG_STATE_HOME=folder)
    output = refused("Add", "'Rice'", "60.0", "{}")
    assert f"cannot save the change: cannot make the folder {folder}: Operation not permitted" in output, output
    assert timers() == {}
    doctor = subprocess.run([os.environ["TOCSIN_BIN"], "doctor"], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "XDG_STATE_HOME": folder})
    assert (f"timer state: {folder}/tocsin (made at the first change): not writable (Operation not permitted): "
            "every change would be refused") in doctor.stdout, doctor.stdout
