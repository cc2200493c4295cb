import gc
import os
import stat
import time

import pytest

import tocsin
from tocsin import EventKind, State


def test_save_and_load_round_trip(tmp_path, manual):
    path = tmp_path / "timers.json"
    tea = manual.countdown(60, label="Tea", tick=1).start()
    watch = manual.stopwatch(label="Run").start()
    paused = manual.countdown(30).start()
    manual.advance(5)
    watch.lap()
    paused.suspend()
    manual.save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with tocsin.Engine(manual_clock=True) as other:
        restored = other.load(path)
        assert [timer.label for timer in restored] == ["Tea", "Run", ""]
        assert [timer.state for timer in restored] == [State.RUNNING, State.RUNNING, State.SUSPENDED]
        assert restored[2].remaining == 25
        assert restored[1].laps == [5.0]
        assert 5 <= restored[0].elapsed < 7
        assert other.timers() == restored


def test_a_countdown_that_ran_out_away_finishes_for_its_first_handler(tmp_path, manual):
    path = tmp_path / "timers.json"
    manual.countdown(0.001, label="Eggs").start()
    manual.save(path)
    time.sleep(0.01)  # the time away is real time: more than the 1 ms, surely
    with tocsin.Engine(manual_clock=True) as other:
        (eggs,) = other.load(path)
        assert eggs.state is State.FINISHED
        assert other.advance(0) == 0  # held: nobody listens yet
        seen = []
        eggs.on_finish(seen.append)
        other.advance(0)
        assert [event.kind for event in seen] == [EventKind.FINISH]
        assert seen[0].lateness >= 0


def test_restored_running_timers_stay_alive_without_references(tmp_path, manual):
    path = tmp_path / "timers.json"
    manual.countdown(10, label="Soup").start()
    manual.save(path)
    finishes = []
    with tocsin.Engine(manual_clock=True) as other:
        other.on_event(lambda event: finishes.append(event.timer.label) if event.kind is EventKind.FINISH else None)
        other.load(path)
        gc.collect()
        other.advance(11)
    assert finishes == ["Soup"]


def test_bad_files_raise_and_change_nothing(tmp_path, manual):
    kept = manual.countdown(1)
    missing = tmp_path / "missing.json"
    with pytest.raises(FileNotFoundError) as raised:  # an OSError a Python user knows, and a TocsinIOError
        manual.load(missing)
    assert isinstance(raised.value, tocsin.TocsinIOError) and raised.value.filename == str(missing)
    assert str(raised.value) == f"[Errno 2] No such file or directory: {str(missing)!r}"  # as Python's own say it
    with pytest.raises(IsADirectoryError):
        manual.load(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tocsin-timers", "version": 1, "saved_realtime_ns": 0, "timers": [{}]}')
    with pytest.raises(tocsin.CorruptError):
        manual.load(bad)
    assert manual.timers() == [kept]
    with pytest.raises(FileNotFoundError):
        manual.save(tmp_path / "no-such-dir" / "x.json")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to mount a small tmpfs")
def test_save_on_a_full_disk_raises_and_leaves_the_last_file_whole(tmp_path, manual):
    """tocsin_engine_save on a real full disk: TOCSIN_EIO, and the file
    keeps what the last save that worked wrote (atomic: temporary file,
    rename)."""
    import errno
    import subprocess

    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        path = disk / "timers.json"
        manual.countdown(60, label="Tea").start()
        manual.save(path)
        before = path.read_bytes()
        with open(disk / "filler", "ab", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 1024)
            except OSError as error:
                assert error.errno == errno.ENOSPC
        manual.countdown(30, label="Rice").start()
        with pytest.raises(tocsin.TocsinIOError) as raised:
            manual.save(path)
        assert raised.value.errno == errno.ENOSPC and "No space left on device" in str(raised.value)
        assert path.read_bytes() == before
        # The C call itself: TOCSIN_EIO, and errno says why (as the header promises).
        import ctypes
        raw = ctypes.CDLL(os.environ["TOCSIN_LIBRARY"], use_errno=True)
        engine = ctypes.c_void_p()
        assert raw.tocsin_engine_new(2, ctypes.byref(engine)) == 0  # TOCSIN_ENGINE_MANUAL_CLOCK
        raw.tocsin_engine_save.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        ctypes.set_errno(0)
        assert raw.tocsin_engine_save(engine, os.fsencode(path)) == -5  # TOCSIN_EIO
        assert ctypes.get_errno() == errno.ENOSPC
        raw.tocsin_engine_free.argtypes = [ctypes.c_void_p]
        raw.tocsin_engine_free(engine)
        assert path.read_bytes() == before
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "timers.json"]  # no temporary file left
        (disk / "filler").unlink()
        manual.save(path)  # room again
        assert b"Rice" in path.read_bytes()
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
