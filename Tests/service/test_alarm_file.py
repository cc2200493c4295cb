"""Alarms as a file: `tocsin export` writes the service's alarms, `tocsin
import` adds a file's (all or none), `--replace` makes them the service's
alarms; export → import into an empty service → export gives the same text."""

import re
import subprocess
import time

from conftest import TOCSIN
from servicebus import add, call, stop_service, timers

QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}


def tocsin(*arguments, stdin=None):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=30, input=stdin)


def remove_all():
    for timer in timers():
        call("Remove", "t", timer)
    assert timers() == {}


def test_export_then_import_into_an_empty_service_gives_the_same_text(tmp_path):
    year = time.gmtime().tm_year + 1
    sound = tmp_path / "bell.wav"
    sound.write_bytes(b"RIFF")
    wake = add("Wake", 0, calendar=("s", "Mon..Fri 07:00"), notice=("d", 1800), snooze=("d", 600), volume=("d", -12.5),
               sound_file=("s", str(sound)), live=("b", False), pause_media=("b", False))
    call("Skip", "tu", wake, 2)
    add("Rent", 0, calendar=("s", "*-*-01 09:00 Europe/Berlin"), wake=("b", False), ring=("d", 0), fade=("d", 20))
    dentist = add('Dentist "Dr. Ö"', time.time() + 7 * 86400, kind=("s", "alarm"), ring=("d", 120), notice=("d", 3600))
    off = add("Holiday", 0, calendar=("s", f"{year}-07-01 08:00 UTC"), **QUIET)
    call("Cancel", "t", off)
    tea = add("Tea", 1500, warn=("d", 60))
    call("Adjust", "td", tea, -300)
    call("Pause", "t", tea)
    add("Run", 0, kind=("s", "stopwatch"))  # never in the file

    exported = tocsin("export", str(tmp_path / "alarms.txt"))
    assert exported.returncode == 0 and exported.stdout == "", exported.stderr
    text = (tmp_path / "alarms.txt").read_text()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == 4, text  # no countdown without --all, no stopwatch
    assert lines[0].startswith('every "Mon..Fri *-*-* 07:00:00" "Wake" live=no snooze=10m sound_file="') and \
        "volume=-12.5 pause_media=no notice=30m skip_until=" in lines[0], lines[0]
    assert lines[1] == 'every "*-*-01 09:00:00 Europe/Berlin" "Rent" ring=0 fade=20s wake=no', lines[1]
    assert lines[2].startswith('at "') and lines[2].endswith('" "Dentist \\"Dr. Ö\\"" ring=2m notice=1h'), lines[2]
    assert lines[3] == f'every "{year}-07-01 08:00:00 UTC" "Holiday" alert=no sound=no live=no state=off', lines[3]
    everything = tocsin("export", "--all").stdout
    assert everything.splitlines()[-1] == 'countdown 20m "Tea" warn=1m state=paused', everything  # its time left

    remove_all()
    imported = tocsin("import", str(tmp_path / "alarms.txt"))
    assert imported.returncode == 0 and imported.stdout == "Imported 4 alarms\n", imported
    assert tocsin("export").stdout == text
    listed = {timer["label"]: timer for timer in timers().values()}
    assert listed["Holiday"]["state"] == "idle" and listed["Wake"]["skipped_until"] == listed["Wake"]["next"]
    # Countdowns too, from standard input.
    remove_all()
    assert tocsin("import", "-", stdin=everything).returncode == 0
    assert tocsin("export", "--all").stdout == everything


def test_a_silent_warning_goes_from_the_command_through_the_service_to_the_file_and_back():
    """warn_sound (new after 0.8.0), added as one AlarmSettings.Field: the
    command's --no-warn-sound, the service's option and List property, the
    journal, the alarms file."""
    added = tocsin("25m", "Tea", "-b", "--warn", "1m", "--no-warn-sound", "--quiet")
    assert added.returncode == 0, added.stderr
    (tea,) = timers().values()
    assert tea["warn_sound"] is False and tea["warn"] == 60 and tea["sound"] is False
    line = tocsin("export", "--all").stdout.splitlines()[-1]
    assert re.fullmatch(r'countdown \S+ "Tea" alert=no sound=no warn=1m warn_sound=no', line), line
    remove_all()
    assert tocsin("import", "-", stdin=line + "\n").returncode == 0
    (tea,) = timers().values()
    assert tea["warn_sound"] is False
    stop_service()  # and from the journal
    (tea,) = timers().values()
    assert tea["warn_sound"] is False


def test_a_bad_line_is_named_and_nothing_is_imported(tmp_path):
    add("Kept", 0, calendar=("s", "07:00"), **QUIET)
    cases = [
        ('every "Mon..Fri 07:00" "Wake"\nevery "Mon..Fri 25:00" "Late"\n', "2:7: bad calendar spec 'Mon..Fri 25:00': column 10: hour 25"),
        ('every "07:00" "Wake" notise=30m\n', "1:22: unknown setting 'notise' (alert, sound, live, warn"),
        ('# a comment\n\nat "2020-01-01 07:00:00 +01:00" "Old"\n', "3:4: 2020-01-01 07:00:00 +01:00 has passed"),
        ('every "07:00" "Wake" snooze=25h\n', "1:29: snooze must be 1 to 86400 seconds (24 h)"),
        ('every "07:00" "Wake" volume=loud\n', "1:29: volume takes a number of dB (-10), not 'loud'"),
        ('countdown 5m "Tea" notice=1m\n', "1:20: notice is for alarms (every, at); a countdown's is warn"),
        ('alarm "07:00" "Wake"\n', "1:1: 'alarm' is no kind of alarm (every, at, countdown)"),
        ('every "07:00\n', "1:7: this quote is not closed"),
        ('every "07:00"\n', "1:15: a label (in quotes) is missing"),
        ('every "07:00" "Wake" state=paused\n', "1:28: an alarm is running or off"),
    ]
    for text, words in cases:
        path = tmp_path / "bad.txt"
        path.write_text(text)
        done = tocsin("import", str(path))
        assert done.returncode == 1 and done.stderr.startswith(f"tocsin: {path}:{words}"), (text, done.stderr)
        assert done.stderr.rstrip().endswith("; nothing was imported"), done.stderr
    assert [timer["label"] for timer in timers().values()] == ["Kept"]
    # The service refuses one (its spec has no ring left): those added before it are taken back.
    path = tmp_path / "late.txt"
    path.write_text('every "08:00" "First"\nevery "2020-01-01 07:00" "Gone"\n')
    done = tocsin("import", str(path))
    assert done.returncode == 1 and f"{path}:2: the calendar spec has no occurrence left" in done.stderr, done.stderr
    assert [timer["label"] for timer in timers().values()] == ["Kept"]
    assert "cannot read" in tocsin("import", str(tmp_path / "missing.txt")).stderr


def test_replace_makes_the_services_alarms_the_files(tmp_path):
    add("Old", 0, calendar=("s", "07:00"), **QUIET)
    add("Older", time.time() + 3600, kind=("s", "alarm"), **QUIET)
    add("Tea", 300, **QUIET)
    path = tmp_path / "alarms.txt"
    path.write_text('every "Sat,Sun 09:00" "Weekend"  # a comment after it\n')
    done = tocsin("import", "--replace", str(path))
    assert done.returncode == 0 and done.stdout == "Imported 1 alarm, removed 2\n", done
    assert sorted(timer["label"] for timer in timers().values()) == ["Tea", "Weekend"]
    done = tocsin("import", "--replace", "--all", str(path))
    assert done.stdout == "Imported 1 alarm, removed 2\n", done
    assert [timer["label"] for timer in timers().values()] == ["Weekend"]


def test_a_pipe_and_dev_null_are_read_and_windows_line_endings_import_as_their_twin(tmp_path):
    """`import <(…)` (a pipe), `/dev/null` (nothing to import) and a file
    from Windows (CRLF, a byte-order mark) import as they should (issue 58:
    'cannot read /dev/fd/63: Invalid argument', and 'Imported 0 alarms')."""
    lines = ["# from Windows", 'every "Mon..Fri 06:45" "Gym" ring=2m', 'every "Mon 07:00" "A"']
    windows = tmp_path / "windows.txt"
    windows.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode())
    done = tocsin("import", str(windows))
    assert done.returncode == 0 and "Imported 2 alarms" in done.stdout, done
    assert sorted(timer["label"] for timer in timers().values()) == ["A", "Gym"]
    remove_all()
    piped = subprocess.run(["bash", "-c", f"{TOCSIN} import <(printf '%s\\n' 'every \"Mon 07:00\" \"Piped\"')"],
                           capture_output=True, text=True, timeout=30)
    assert piped.returncode == 0 and "Imported 1 alarm" in piped.stdout, piped
    empty = tocsin("import", "/dev/null")
    assert empty.returncode == 0 and empty.stderr == "", empty
    assert [timer["label"] for timer in timers().values()] == ["Piped"]
