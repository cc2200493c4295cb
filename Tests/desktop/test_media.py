"""Sleep timers (`tocsin 30m Sleep -b --media pause --fade 60s`, the
service's `media` option): the players that play are paused (or stopped) at
zero after their volume fell over the fade, no sound plays, and each
player's volume is put back. The players are stand-ins on the test bus
(fake_mpris_player.py) that record every call with its boot-clock time; the
recording of the session's sound card says whether anything played."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import audio_rms
from servicebus import activation_environment, add, boot_time, call, stop_service, timers, wait_until

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)


@pytest.fixture(autouse=True)
def fresh_service(tmp_path):
    stop_service()
    activation_environment(XDG_STATE_HOME=tmp_path / "state", TOCSIN_SERVICE_IDLE_EXIT=60, TOCSIN_SERVICE_GRACE=3600,
                           G_DEBUG="fatal-criticals")
    yield
    stop_service()


class Player:
    """A fake MPRIS player's process and what it recorded."""

    def __init__(self, process, log: Path):
        self.process, self.log = process, log

    def calls(self, *names):
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [record for record in map(json.loads, lines) if not names or record["call"] in names]


@pytest.fixture
def players(tmp_path):
    """`players(name, status="Playing", volume=0.8)` starts a fake player."""
    started = []

    def start(name, status="Playing", volume=0.8):
        log = tmp_path / f"{name}.jsonl"
        process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fake_mpris_player.py")), name, str(log),
                                    status, str(volume)], stdout=subprocess.PIPE, text=True)
        assert process.stdout.readline().strip() == "READY"
        started.append(process)
        return Player(process, log)

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_a_sleep_timer_fades_the_music_then_pauses_it_once_at_zero_with_no_sound(signals, players, notifications):
    music, idle = players("music"), players("idle", status="Paused")
    sleep = add("Sleep", 4, media=("s", "pause"), fade=("d", 3), live=("b", False))
    assert timers()[sleep]["media"] == "pause"
    (finish,) = signals.wait_for("Finished", id=sleep)
    (pause,) = wait_until(lambda: music.calls("Pause"), timeout=5, what="the Pause at zero")
    restored = wait_until(lambda: [c for c in music.calls("SetVolume") if c["at"] > pause["at"]], timeout=5,
                          what="the volume put back after the pause")
    fallen = [c for c in music.calls("SetVolume") if c["at"] < pause["at"]]
    print(f"pause {pause['at'] - finish.at:+.3f} s from zero; {len(fallen)} steps:",
          " ".join(f"{c['volume']:.2f}@{c['at'] - finish.at:+.1f}" for c in fallen))
    assert -0.05 < pause["at"] - finish.at < 1.0  # at zero (the service records the finish first), never before
    # The fall: over the last 3 s, step by step, each lower, down to about nothing.
    assert len(fallen) >= 4 and fallen[0]["at"] - finish.at > -3.6
    assert all(a["volume"] > b["volume"] for a, b in zip(fallen, fallen[1:]))
    assert fallen[0]["volume"] > 0.6 and fallen[-1]["volume"] < 0.2
    assert restored[0]["volume"] == pytest.approx(0.8)
    assert audio_rms(finish.at - 0.5, 2.5) < 0.003  # no alarm sound
    alert = wait_until(lambda: [c for c in notifications.calls() if c["summary"] == "Sleep"], what="the quiet notification")
    assert alert[-1]["body"] == "Paused 1 player" and alert[-1]["actions"] == [] and alert[-1]["hints"]["urgency"] == "1"
    boot = boot_time()
    wait_until(lambda: boot_time() > boot + 1.0)
    assert len(music.calls("Pause", "Stop", "Play")) == 1  # exactly once
    assert idle.calls() == []  # not playing: nothing asked of it, not even its volume


def test_media_stop_sends_stop_and_without_a_fade_leaves_the_volume_alone(signals, players, notifications):
    """Live, as -b makes it: the live notification becomes the quiet one,
    which then stays as it is (no overtime line, not closed)."""
    music = players("music")
    sleep = add("Sleep", 1.5, media=("s", "stop"))
    (finish,) = signals.wait_for("Finished", id=sleep)
    (stop,) = wait_until(lambda: music.calls("Stop"), timeout=5, what="the Stop at zero")
    assert stop["at"] - finish.at < 1.0
    said = wait_until(lambda: [c for c in notifications.calls() if c["body"] == "Stopped 1 player"], what="its notification")
    assert said[0]["replaces"] > 0 and said[0]["actions"] == []  # in place of the live one
    wait_until(lambda: boot_time() > said[0]["boot"] + 2.0)
    assert [c for c in notifications.calls() if c["boot"] > said[0]["boot"]] == []
    assert notifications.calls("CloseNotification") == []
    assert music.calls("Pause", "SetVolume") == []
    assert audio_rms(finish.at, 1.5) < 0.003


def test_a_sleep_timer_cancelled_during_its_fade_gives_the_volume_back_and_pauses_nothing(signals, players):
    music = players("music")
    sleep = add("Sleep", 4, media=("s", "pause"), fade=("d", 3.5), live=("b", False))
    wait_until(lambda: [c for c in music.calls("SetVolume") if c["volume"] < 0.6], timeout=6, what="the fade under way")
    cancelled = boot_time()  # (before the call: the volume may be back before busctl has returned)
    call("Cancel", "t", sleep)
    wait_until(lambda: [c for c in music.calls("SetVolume") if c["at"] > cancelled and c["volume"] == 0.8], timeout=3,
               what="the volume back at the cancel")
    wait_until(lambda: boot_time() > cancelled + 2.0)
    assert music.calls("Pause", "Stop") == []


def test_a_bad_media_value_is_refused_naming_it():
    refused = call("Add", "sda{sv}", "Sleep", 60, 1, "media", "s", "mute", check=False)
    assert "media must be" in refused.stderr and "mute" in refused.stderr and '"pause", "stop"' in refused.stderr
    refused = call("Add", "sda{sv}", "Laps", 0, 2, "kind", "s", "stopwatch", "media", "s", "pause", check=False)
    assert "a stopwatch never does" in refused.stderr
    assert timers() == {}


def test_a_python_sleep_timer_fades_and_pauses_through_the_c_notifier(players):
    """media= from Python (tocsin_alert.media) on an engine of its own: the
    same fade and Pause as the service's, no sound."""
    import tocsin
    import tocsin.notify

    music = players("music")
    with tocsin.notify.Notifier(quiet=True) as notifier, tocsin.Engine() as engine:
        timer = engine.countdown(3, label="Sleep")
        notifier.attach(timer, media="pause", fade=2)
        timer.start()
        started = boot_time()
        (pause,) = wait_until(lambda: music.calls("Pause"), timeout=10, what="the Pause at zero")
        wait_until(lambda: [c for c in music.calls("SetVolume") if c["at"] > pause["at"]], timeout=5,
                   what="the volume put back")
    fallen = [c for c in music.calls("SetVolume") if c["at"] < pause["at"]]
    assert 3.0 <= pause["at"] - started < 4.0  # never early
    assert len(fallen) >= 3 and fallen[-1]["volume"] < 0.2 and fallen[0]["at"] - started > 0.9
    assert audio_rms(started + 2.5, 1.5) < 0.003
    assert len(music.calls("Pause", "Stop", "Play")) == 1


def test_the_command_in_the_foreground_is_a_sleep_timer_too(players):
    music = players("music")
    started = boot_time()
    result = subprocess.run([os.environ["TOCSIN_BIN"], "2.5s", "Sleep", "--media", "stop", "--fade", "2s"],
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    (stop,) = music.calls("Stop")
    fallen = [c for c in music.calls("SetVolume") if c["at"] < stop["at"]]
    assert 2.5 <= stop["at"] - started < 4.0
    assert len(fallen) >= 2 and fallen[-1]["volume"] < 0.3
    assert [c["volume"] for c in music.calls("SetVolume") if c["at"] > stop["at"]] == [0.8]
    assert audio_rms(started + 2.0, 1.5) < 0.003

