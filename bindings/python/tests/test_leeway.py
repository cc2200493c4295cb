"""Leeway through the Python binding: timers share wake-ups, never early."""

import math
import random

import pytest

import tocsin
from tocsin import EventKind


def test_ticks_fire_on_the_leeway_grid_with_lateness_from_their_deadline(manual):
    manual.advance(0.3)
    ticks = []
    watch = manual.stopwatch(tick=1, leeway=1)
    watch.on_tick(ticks.append)
    watch.start()  # ticks due at 1.3, 2.3, 3.3 s fire at 2, 3, 4 s
    manual.advance(1.699)
    assert ticks == []
    manual.advance(0.301)
    manual.advance(2)
    assert [t.tick for t in ticks] == [1, 2, 3]
    assert [t.elapsed for t in ticks] == [1, 2, 3]
    assert all(t.lateness == pytest.approx(0.7) for t in ticks)
    assert watch.leeway == 1.0


def test_a_hundred_stopwatches_share_one_instant_a_second(manual):
    instants, watches = set(), []
    phases = sorted(random.Random(3).sample(range(1, 1000), 100))
    for phase in phases:
        manual.advance(phase / 1000 - manual.now)
        watch = manual.stopwatch(tick=1, leeway=1)
        watch.on_tick(lambda event: instants.add(round(manual.now, 6)))
        watches.append(watch.start())
    manual.advance(2 - manual.now)
    instants.clear()
    manual.advance(5)
    assert sorted(instants) == [3.0, 4.0, 5.0, 6.0, 7.0]


def test_set_leeway_returns_the_timer_and_none_clears_it(manual):
    timer = manual.countdown(1.2)
    assert timer.set_leeway(0.5) is timer and timer.leeway == 0.5
    finishes = []
    timer.on_finish(finishes.append)
    timer.start()
    manual.advance(1.2)
    assert finishes == []
    manual.advance(0.3)
    assert [f.kind for f in finishes] == [EventKind.FINISH] and finishes[0].lateness == pytest.approx(0.3)
    timer.set_leeway(None)
    assert timer.leeway == 0.0


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1, 86400.001, "1", True])
def test_bad_leeways_change_nothing(manual, seconds):
    timer = manual.countdown(5, leeway=2)
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.set_leeway(seconds)
    assert timer.leeway == 2.0


def test_the_leeway_is_saved(manual, tmp_path):
    timer = manual.countdown(60, leeway=0.25)  # noqa: F841 (kept: an unreferenced timer is freed)
    manual.save(tmp_path / "timers.json")
    with tocsin.Engine(manual_clock=True) as other:
        (restored,) = other.load(tmp_path / "timers.json")
        assert restored.leeway == 0.25
