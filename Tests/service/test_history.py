"""The service's history (docs/history.md) and `tocsin log`: a line per
finish, ring, snooze, cancel and stopwatch stop in
$XDG_STATE_HOME/tocsin/history.jsonl, kept over restarts and `rm
--finished`; a path that is not the service's own file is never written,
and a line that cannot be written is said once in the service's log,
never a timer lost."""

import csv
import io
import json
import os
import signal
import subprocess

import pytest

from conftest import TOCSIN
from servicebus import SmallDisk, stop_service, wait_until


def tocsin(*arguments, timeout=30):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def history_file(tmp_path):
    return tmp_path / "state" / "tocsin" / "history.jsonl"


def lines(path):
    """The history's whole lines, parsed."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines(keepends=True) if line.endswith("\n")]


def listed():
    result = tocsin("ls", "--json")
    assert result.returncode == 0, result.stderr
    return {timer["label"]: timer for timer in map(json.loads, result.stdout.splitlines())}


def test_a_work_break_sequence_is_four_rows_with_their_durations_and_totals(history_file):
    assert tocsin("1s:Work", "1s:Break", "--repeat", "2", "-b", "--no-live").returncode == 0
    wait_until(lambda: len(lines(history_file)) == 4, what="four history lines")
    assert oct(history_file.stat().st_mode & 0o777) == "0o600"
    result = tocsin("log", "--csv")
    assert result.returncode == 0 and result.stderr == "", result
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["label"] for row in rows] == ["Work", "Break", "Work", "Break"]
    assert {row["event"] for row in rows} == {"finish"} and {row["kind"] for row in rows} == {"countdown"}
    for row in rows:
        assert abs(float(row["duration"]) - 1.0) <= 0.2, row
        assert abs(float(row["at"]) - float(row["started"]) - float(row["duration"])) <= 0.2, row
    assert len({row["id"] for row in rows}) == 4
    totals = tocsin("log", "--since", "today", "--sum-by", "label", "--csv")
    assert totals.returncode == 0, totals
    sums = {row["label"]: row for row in csv.DictReader(io.StringIO(totals.stdout))}
    assert set(sums) == {"Work", "Break"} and sums["Work"]["count"] == "2"
    assert abs(float(sums["Work"]["seconds"]) - 2.0) <= 0.4, sums
    table = tocsin("log", "--since", "today", "--sum-by", "label").stdout.splitlines()
    assert table[0].split() == ["LABEL", "TOTAL", "TIMES"] and table[1].split()[0::2] == ["Work", "2"], table
    by_day = [json.loads(line) for line in tocsin("log", "--sum-by", "day", "--json").stdout.splitlines()]
    assert len(by_day) == 1 and by_day[0]["count"] == 4
    assert [line["label"] for line in map(json.loads, tocsin("log", "--label", "Work", "--json").stdout.splitlines())] == ["Work"] * 2
    shown = tocsin("log").stdout.splitlines()
    assert shown[0].split() == ["TIME", "EVENT", "LABEL", "DURATION"] and len(shown) == 5 and "finish  Work" in shown[1]


def test_lines_survive_a_restart_and_rm_finished(history_file):
    assert tocsin("0.2s", "Egg", "-b", "--no-live").returncode == 0
    wait_until(lambda: len(lines(history_file)) == 1)
    stop_service(signal.SIGKILL)
    assert tocsin("rm", "--finished").stdout == "Removed 1: Egg\n"  # (the call starts the service again)
    assert tocsin("0.2s", "Toast", "-b", "--no-live").returncode == 0
    wait_until(lambda: len(lines(history_file)) == 2)
    stop_service()
    assert [line["label"] for line in map(json.loads, tocsin("log", "--json").stdout.splitlines())] == ["Egg", "Toast"]


def test_cancel_stop_and_snooze_are_lines(history_file):
    assert tocsin("1h", "Tea", "-b", "--no-live").returncode == 0
    assert tocsin("sw", "Run", "-b").returncode == 0
    assert tocsin("0.2s", "Egg", "-b", "--no-live").returncode == 0
    wait_until(lambda: len(lines(history_file)) == 1, what="Egg's finish")
    assert tocsin("snooze", "Egg", "10m").returncode == 0
    for name in ("Tea", "Run", "Egg"):
        assert tocsin("cancel", name).returncode == 0
    got = [(line["event"], line["label"]) for line in lines(history_file)]
    assert got == [("finish", "Egg"), ("snooze", "Egg"), ("cancel", "Tea"), ("stop", "Run"), ("cancel", "Egg")], got
    snooze, tea, run, egg = lines(history_file)[1:]
    assert snooze["snooze"] == 600.0 and "duration" not in snooze
    assert 0 <= tea["duration"] < 10 and tea["started"] <= tea["at"] and run["kind"] == "stopwatch"
    assert 0 <= egg["duration"] < 10  # the time since its snooze, not counted twice
    assert all(line["v"] == 1 for line in lines(history_file))


def test_removing_a_running_timer_ends_its_run(history_file):
    assert tocsin("1h", "Roast", "-b", "--no-live").returncode == 0
    assert tocsin("rm", "Roast").returncode == 0
    assert [(line["event"], line["label"]) for line in lines(history_file)] == [("cancel", "Roast")]


@pytest.mark.parametrize("kind", ["symlink", "fifo", "other owner"])
def test_a_history_path_not_ours_is_refused_and_timers_still_work(kind, bus, history_file, tmp_path):
    history_file.parent.mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("")
    if kind == "symlink":
        history_file.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(history_file)
    else:
        if os.geteuid() != 0:
            pytest.skip("needs root to give a file to another user")
        history_file.write_text("")
        os.chown(history_file, 65534, 65534)
    for label in ("Egg", "Toast"):
        assert tocsin("0.2s", label, "-b", "--no-live").returncode == 0
        wait_until(lambda: listed()[label]["state"] == "finished", what=f"{label} to finish")
    assert target.read_text() == ""
    said = [line for line in bus.service_log().splitlines() if line.startswith("tocsin service: history:")]
    expected = {"symlink": "is a symbolic link", "fifo": "is not a regular file", "other owner": "belongs to another user"}[kind]
    assert len(said) == 1 and expected in said[0], said  # once, not per line
    if kind != "fifo":
        assert os.path.islink(history_file) == (kind == "symlink")


@pytest.mark.skipif(not SmallDisk.available(), reason="needs root to mount a tmpfs")
def test_a_full_disk_loses_the_line_says_so_once_and_keeps_the_timers(bus, tmp_path, history_file):
    disk = SmallDisk(tmp_path / "state", size="256k")
    try:
        assert tocsin("2s", "Egg", "-b", "--no-live").returncode == 0
        assert tocsin("2.5s", "Toast", "-b", "--no-live").returncode == 0
        disk.fill()  # (no history yet: its first line needs a page the disk has not got)
        wait_until(lambda: {timer["state"] for timer in listed().values()} == {"finished"}, what="both to finish")
        said = [line for line in bus.service_log().splitlines() if line.startswith("tocsin service: history:")]
        assert len(said) == 1 and "No space left on device" in said[0], said
        disk.free()
        assert tocsin("0.2s", "Tea", "-b", "--no-live").returncode == 0
        wait_until(lambda: [line["label"] for line in lines(history_file)] == ["Tea"], what="Tea's line")
        assert "written again" in bus.service_log()
        assert set(listed()) == {"Egg", "Toast", "Tea"}
    finally:
        stop_service()
        disk.close()


def test_a_full_file_is_rotated_and_both_are_read(history_file):
    history_file.parent.mkdir(parents=True, mode=0o700)
    old = json.dumps({"v": 1, "at": 1.0e9, "event": "finish", "id": 1, "label": "Old", "kind": "countdown", "duration": 60.0})
    history_file.write_text((old + "\n") * (2**20 // (len(old) + 1)))
    history_file.chmod(0o600)
    assert tocsin("0.2s", "New", "-b", "--no-live").returncode == 0
    wait_until(lambda: history_file.stat().st_size < 1000 and lines(history_file), what="the rotation")
    assert [line["label"] for line in lines(history_file)] == ["New"]
    read = [json.loads(line)["label"] for line in tocsin("log", "--json").stdout.splitlines()]
    assert read[-1] == "New" and len(read) == 1 + 2**20 // (len(old) + 1) and set(read[:-1]) == {"Old"}


def test_lines_it_cannot_read_are_skipped_and_counted(history_file):
    history_file.parent.mkdir(parents=True, mode=0o700)
    good = {"v": 1, "at": 1.0e9, "event": "finish", "id": 1, "label": "Tea, \"strong\"", "kind": "countdown", "duration": 60.0}
    newer = dict(good, v=2)
    history_file.write_text(json.dumps(good) + "\nnot json\n" + json.dumps(newer) + "\n" + json.dumps(good)[:20])
    result = tocsin("log", "--csv")
    assert result.returncode == 0 and "3 lines of" in result.stderr and "skipped" in result.stderr, result
    (row,) = list(csv.DictReader(io.StringIO(result.stdout)))
    assert row["label"] == 'Tea, "strong"' and row["duration"] == "60.0"
    assert '"Tea, ""strong"""' in result.stdout


@pytest.mark.parametrize("arguments", [["--since", "last tuesday"], ["--since", "2026-02-30"], ["--since", "2026-11-29 25:00"],
                                       ["--sum-by", "week"], ["--json", "--csv"]])
def test_bad_arguments_are_usage_errors(arguments):
    result = tocsin("log", *arguments)
    assert result.returncode == 2 and result.stdout == "" and result.stderr.startswith("tocsin: "), result
    if arguments[0] == "--since":
        assert "--since takes today, yesterday" in result.stderr
