"""countdown() leaves its C timer to be made when first needed (one C call
with the start): nothing of that may show. Creation order, errors at
countdown() itself, freeing one never made, and every FINISH delivered."""

import math

import pytest

import tocsin


def test_creation_order_is_the_order_of_countdown_calls(manual):
    first = manual.countdown(5)
    second = manual.countdown(6).start()  # made (and started) before the first was needed
    third = manual.stopwatch()
    assert manual.timers() == [first, second, third]
    assert first.state is tocsin.State.IDLE and first.remaining == 5.0


@pytest.mark.parametrize("seconds", [0, -1, math.nan, math.inf, 3155760000.5, 1e300])
def test_bad_seconds_fail_at_countdown(manual, seconds):
    with pytest.raises(tocsin.InvalidArgumentError, match="seconds must be"):
        manual.countdown(seconds)


def test_a_closed_engine_refuses_at_countdown_and_later():
    engine = tocsin.Engine(manual_clock=True)
    idle = engine.countdown(5)
    engine.close()
    with pytest.raises(tocsin.EngineClosedError):
        engine.countdown(5)
    with pytest.raises(tocsin.EngineClosedError):
        idle.start()


def test_one_never_made_frees_quietly(manual):
    timer = manual.countdown(5)
    timer.free()
    timer.free()
    with pytest.raises(tocsin.NoSuchTimerError):
        timer.start()
    assert manual.timers() == []


def test_ten_thousand_countdowns_each_finish_once(manual):
    finished = []
    manual.on_event(lambda event: finished.append(event.timer) if event.kind is tocsin.EventKind.FINISH else None)
    timers = [manual.countdown(1 + i % 7).start() for i in range(10_000)]
    manual.advance(8)
    assert len(finished) == 10_000 and set(map(id, finished)) == set(map(id, timers))
    assert all(timer.state is tocsin.State.FINISHED for timer in timers)
