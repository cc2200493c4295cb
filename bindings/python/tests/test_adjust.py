"""timer.adjust() through the binding, on a manual clock."""

import tocsin
from tocsin import EventKind, State


def test_adjust_moves_the_end_and_tells_the_handlers(manual):
    events = []
    timer = manual.countdown(10)
    timer.on_event(events.append)
    timer.start()
    manual.advance(4)
    assert timer.adjust(5) is timer
    assert timer.remaining == 11 and timer.duration == 15
    manual.advance(0)
    assert (events[-1].kind, events[-1].state, events[-1].remaining) == (EventKind.STATE, State.RUNNING, 11)
    manual.advance(10.999)
    assert timer.state is State.RUNNING
    manual.advance(0.001)
    assert timer.state is State.FINISHED


def test_one_more_minute_after_the_alarm_and_restart_from_the_original(manual):
    finishes = []
    timer = manual.countdown(3)
    timer.on_finish(finishes.append)
    timer.start()
    manual.advance(3)
    timer.adjust(60)
    assert timer.state is State.RUNNING and timer.elapsed == 3 and timer.remaining == 60
    manual.advance(60)
    assert [event.elapsed for event in finishes] == [3, 63]
    timer.start()
    assert timer.remaining == 3


def test_shortening_below_the_elapsed_time_finishes_now(manual):
    finishes = []
    timer = manual.countdown(10)
    timer.on_finish(finishes.append)
    timer.start()
    manual.advance(6)
    timer.adjust(-8)
    assert finishes == []  # never inside the call
    manual.advance(0)
    assert [event.elapsed for event in finishes] == [2] and timer.state is State.FINISHED


def test_an_after_timer_can_be_adjusted(manual):
    fired = []
    timer = manual.after(2, lambda event: fired.append(event.elapsed))
    timer.adjust(1)
    manual.advance(2)
    assert fired == []
    manual.advance(1)
    assert fired == [3]


def test_coalesced_ticks_after_a_long_advance(manual):
    ticks = []
    timer = manual.countdown(3600, tick=0.1, tick_policy="coalesce")
    timer.on_tick(ticks.append)
    timer.start()
    manual.advance(1000)
    assert [(event.tick, event.missed, event.elapsed) for event in ticks] == [(10000, 9999, 1000.0)]
    timer.set_tick_policy(tocsin.TickPolicy.EVERY)
    manual.advance(0.3)
    assert [event.missed for event in ticks[1:]] == [0, 0, 0]


def test_bad_tick_policies(manual):
    timer = manual.countdown(5)
    for policy in ("sometimes", 7, None):
        try:
            timer.set_tick_policy(policy)
        except tocsin.InvalidArgumentError:
            continue
        raise AssertionError(f"{policy!r} was accepted")
