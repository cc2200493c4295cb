"""Clocks per timer, alarms and the simulated machine through the binding."""

import time
from datetime import datetime, timezone

import pytest

import tocsin
from tocsin import Clock, EventKind, State


def test_an_awake_countdown_stands_still_through_a_suspend(manual):
    boot = manual.countdown(10)
    awake = manual.countdown(10, clock="awake")
    assert (boot.clock, awake.clock) == (Clock.BOOT, Clock.AWAKE)
    finishes = []
    boot.on_finish(finishes.append)
    boot.start()
    awake.start()
    manual.advance(4)
    assert manual.simulate_suspend(60) >= 1
    assert boot.state is State.FINISHED and finishes[0].lateness == 54
    assert awake.remaining == 6 and awake.state is State.RUNNING
    with pytest.raises(tocsin.WrongStateError):
        awake.set_clock("boot")  # idle only
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(1, clock="wall")


def test_an_alarm_follows_the_wall_clock(manual):
    assert manual.wall_clock == 0
    manual.set_wall_clock(datetime(2026, 11, 24, 8, 0, tzinfo=timezone.utc))
    alarm = manual.alarm(datetime(2026, 11, 24, 8, 30, tzinfo=timezone.utc), label="Bus")
    assert alarm.alarm_time == manual.wall_clock + 1800 and alarm.remaining == 1800
    assert manual.countdown(1).alarm_time is None
    events = []
    alarm.on_event(events.append)
    alarm.start()
    manual.advance(600)
    manual.set_wall_clock(manual.wall_clock - 3600)  # back an hour: later
    assert alarm.remaining == 1200 + 3600 and alarm.elapsed == 600
    manual.set_wall_clock(manual.wall_clock + 7200)  # forward past it: at once
    finish = next(event for event in events if event.kind is EventKind.FINISH)
    assert finish.lateness == 7200 - 3600 - 1200
    assert alarm.state is State.FINISHED
    alarm.adjust(300)  # snooze
    assert alarm.state is State.RUNNING and alarm.remaining == 300


def test_coalesced_ticks_after_a_simulated_suspend(manual):
    ticks = []
    watch = manual.stopwatch(tick=1, tick_policy="coalesce")
    watch.on_tick(ticks.append)
    watch.start()
    manual.simulate_suspend(30.5)
    assert [(event.tick, event.missed) for event in ticks] == [(30, 29)]


def test_real_clocks_an_alarm_a_moment_ahead_is_never_early():
    with tocsin.Engine() as engine:
        assert abs(engine.wall_clock - time.time()) < 0.5
        target = time.time() + 0.3
        alarm = engine.alarm(target)
        rang = []
        alarm.on_finish(lambda event: rang.append(time.time()))
        alarm.start()
        awake = engine.countdown(0.2, clock=Clock.AWAKE).start()
        deadline = time.monotonic() + 5
        while (not rang or awake.state is not State.FINISHED) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert rang and rang[0] >= target
        assert awake.state is State.FINISHED


def _wake_left(clock):
    """The armed time left of this process's timerfd on `clock` (9
    BOOTTIME_ALARM, 8 REALTIME_ALARM), or None: the engine keeps one open
    only while a wake timer runs."""
    import os
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = open(f"/proc/self/fdinfo/{fd}").read()
        except OSError:
            continue
        if f"clockid: {clock}\n" in info:
            seconds, nanoseconds = info.split("it_value: (")[1].split(")")[0].split(", ")
            return int(seconds) + int(nanoseconds) / 1e9
    return None


def test_a_wake_timer_arms_the_alarm_clock_ahead_of_its_deadline():
    with tocsin.Engine(polled=True) as engine:
        if not engine.can_wake():  # not root here: the reason instead
            assert engine.wake_reason.startswith("no CAP_WAKE_ALARM") or "wake-capable" in engine.wake_reason
            pytest.skip(engine.wake_reason)
        assert engine.wake_reason == ""
        tea = engine.countdown(600).set_wake(True)
        assert tea.wakes and _wake_left(9) is None  # idle: nothing armed
        tea.start()
        assert abs(_wake_left(9) - (600 - tocsin.WAKE_LEAD_SECONDS)) < 2
        bus = engine.alarm(time.time() + 900).set_wake()
        bus.start()
        assert abs(_wake_left(8) - (900 - tocsin.WAKE_LEAD_SECONDS)) < 2
        tea.cancel()
        bus.set_wake(False)
        assert _wake_left(9) is None and _wake_left(8) is None


def test_wake_bad_input(manual):
    assert not manual.can_wake() and "manual clock" in manual.wake_reason
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.stopwatch().set_wake(True)
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(5, clock="awake").set_wake(True)
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(5).set_wake(1)  # type: ignore[arg-type]
    assert manual.countdown(5).set_wake(True).wakes
