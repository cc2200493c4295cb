"""The bad-input table through the Python binding: every row gets a
documented exception or a defined behaviour, never a crash, and nothing
else changes."""

import math

import pydoc

import pytest

import tocsin
from tocsin import State

BAD_SECONDS = [math.nan, math.inf, -math.inf, -1, 0, -0.0, 1e300, "5", None, True]


@pytest.mark.parametrize("seconds", BAD_SECONDS)
def test_bad_countdown_seconds(manual, seconds):
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(seconds)
    assert manual.timers() == []


@pytest.mark.parametrize("interval", [math.nan, math.inf, -1, 1e300])
def test_bad_tick_intervals_change_nothing(manual, interval):
    timer = manual.countdown(5, tick=1).start()
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.set_tick(interval)
    events = []
    timer.on_tick(events.append)
    manual.advance(2)
    assert [event.tick for event in events] == [1, 2]  # still ticking every second


def test_tick_zero_and_tick_longer_than_the_countdown_mean_no_ticks(manual):
    for interval in (0, None, 10):
        events = []
        timer = manual.countdown(3, tick=1)
        timer.set_tick(interval)
        timer.on_tick(events.append)
        timer.start()
        manual.advance(5)
        assert events == [] and timer.state is State.FINISHED


@pytest.mark.parametrize("delta", [math.nan, math.inf, -math.inf, 0, -0.0, 1e300, -1e300, "5", None, True])
def test_bad_adjustments_change_nothing(manual, delta):
    timer = manual.countdown(5).start()
    manual.advance(1)
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.adjust(delta)
    assert timer.remaining == 4 and timer.duration == 5


def test_adjustments_the_state_forbids(manual):
    watch = manual.stopwatch()
    with pytest.raises(tocsin.InvalidArgumentError):
        watch.adjust(1)
    timer = manual.countdown(5).start()
    timer.cancel()
    with pytest.raises(tocsin.WrongStateError):
        timer.adjust(1)
    idle = manual.countdown(5)
    with pytest.raises(tocsin.InvalidArgumentError):
        idle.adjust(-5)  # not above the elapsed 0
    timer.free()
    with pytest.raises(tocsin.NoSuchTimerError):
        timer.adjust(1)


@pytest.mark.parametrize("label, expected", [(None, ""), ("", ""), ("x" * 4096, "x" * 4096), ("é" * 2048, "é" * 2048)])
def test_labels_at_the_edges(manual, label, expected):
    timer = manual.countdown(1, label="before")
    timer.label = label
    assert timer.label == expected


@pytest.mark.parametrize("label", ["x" * (1 << 20), "x" * 4097, "bad \udcff", "nul\0inside", 42, b"bytes"])
def test_bad_labels_change_nothing(manual, label):
    timer = manual.countdown(1, label="kept")
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.label = label
    assert timer.label == "kept"


# Every operation from every state: allowed ones move on, others raise
# WrongStateError and change nothing.
ALLOWED = {
    ("start", State.IDLE), ("start", State.FINISHED), ("start", State.CANCELED),
    ("suspend", State.RUNNING), ("resume", State.SUSPENDED),
    ("cancel", State.RUNNING), ("cancel", State.SUSPENDED),
    ("lap", State.RUNNING), ("lap", State.SUSPENDED),
}


def timer_in(engine, state):
    timer = engine.countdown(10)
    if state is not State.IDLE:
        timer.start()
    if state is State.SUSPENDED:
        timer.suspend()
    if state is State.CANCELED:
        timer.cancel()
    if state is State.FINISHED:
        engine.advance(10)
    assert timer.state is state
    return timer


@pytest.mark.parametrize("operation", ["start", "suspend", "resume", "cancel", "lap"])
@pytest.mark.parametrize("state", list(State))
def test_state_table(manual, operation, state):
    timer = timer_in(manual, state)
    elapsed = timer.elapsed
    if (operation, state) in ALLOWED:
        getattr(timer, operation)()
    else:
        with pytest.raises(tocsin.WrongStateError) as caught:
            getattr(timer, operation)()
        assert caught.value.code == -3
        assert timer.state is state and timer.elapsed == elapsed


def test_freed_and_closed(manual):
    timer = manual.countdown(1)
    timer.free()
    timer.free()  # a second free is a no-op
    for call in (timer.start, timer.cancel, timer.lap, lambda: timer.label, lambda: timer.state):
        with pytest.raises(tocsin.NoSuchTimerError):
            call()
    live = manual.countdown(1)
    manual.close()
    manual.close()  # closing twice is a no-op
    for call in (live.start, live.cancel, lambda: manual.countdown(1), lambda: manual.advance(1), manual.timers):
        with pytest.raises(tocsin.EngineClosedError):
            call()


@pytest.mark.parametrize("step", [math.nan, math.inf, -1, 1e300])
def test_bad_advance_steps(manual, step):
    timer = manual.countdown(1).start()
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.advance(step)
    assert timer.state is State.RUNNING and manual.now == 0


@pytest.mark.parametrize("when", [math.nan, math.inf, -math.inf, -1, 1e300, "5", None, True])
def test_bad_alarm_times_and_wall_clocks_change_nothing(manual, when):
    before = len(manual.timers())
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.alarm(when)
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.set_wall_clock(when)
    assert len(manual.timers()) == before and manual.wall_clock == 0


@pytest.mark.parametrize("step", [math.nan, math.inf, -1, 1e300, "5", None])
def test_bad_simulated_suspends_change_nothing(manual, step):
    timer = manual.countdown(1).start()
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.simulate_suspend(step)
    assert timer.state is State.RUNNING and manual.now == 0


@pytest.mark.parametrize("clock", [2, -1, "wall", None, 1.5])
def test_bad_clocks_change_nothing(manual, clock):
    timer = manual.countdown(1)
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.set_clock(clock)
    assert timer.clock is tocsin.Clock.BOOT
    alarm = manual.alarm(10)
    with pytest.raises(tocsin.InvalidArgumentError):
        alarm.set_clock("awake")
    started = manual.countdown(1).start()
    with pytest.raises(tocsin.WrongStateError):
        started.set_clock("awake")


def test_mode_specific_calls_in_the_wrong_mode(manual, polled):
    with pytest.raises(tocsin.WrongStateError):
        manual.dispatch()
    with pytest.raises(tocsin.WrongStateError):
        manual.fileno()
    with pytest.raises(tocsin.WrongStateError):
        polled.advance(1)
    with pytest.raises(tocsin.WrongStateError):
        polled.simulate_suspend(1)
    with pytest.raises(tocsin.WrongStateError):
        polled.set_wall_clock(1)
    with pytest.raises(tocsin.InvalidArgumentError):
        tocsin.Engine(manual_clock=True, polled=True)


def test_errors_speak_python():
    """What failed is named as the Python call, and why in its terms."""
    with tocsin.Engine(manual_clock=True) as engine:
        timer = engine.countdown(1, label="kept")
        with pytest.raises(tocsin.InvalidArgumentError, match=r"^label is 5,000 bytes of UTF-8; at most 4,096 "):
            timer.label = "x" * 5000
        with pytest.raises(tocsin.InvalidArgumentError, match=r"^Timer\.set_tick\(\): "):
            timer.set_tick(-1)
    with pytest.raises(TypeError, match="made by its engine: engine.countdown"):
        tocsin.Timer()  # type: ignore[call-arg]


def test_the_timer_class_documents_its_use_not_its_insides():
    text = pydoc.render_doc(tocsin.Timer, renderer=pydoc.plaintext)
    assert "engine.countdown()" in text
    for private in ("self._", "(self, engine", "deferred", "once_args", "Timer's way in"):
        assert private not in text, private


def test_errors_speak_python_and_name_the_timer():
    """Issue 58: 'Timer.start(): not allowed in the current state or engine
    mode', 'Timer.set_tick(): invalid argument', 'tocsin_calendar_skip:
    invalid argument' said nothing a Python program could act on."""
    with tocsin.Engine(manual_clock=True) as engine:
        tea = engine.countdown(60, label="Tea").start()
        with pytest.raises(tocsin.WrongStateError) as caught:
            tea.start()
        assert str(caught.value) == "start(): Tea is running: only an idle, finished or cancelled timer can be started (cancel it first)"
        with pytest.raises(tocsin.InvalidArgumentError) as caught:
            tea.set_tick(-1)
        assert str(caught.value).startswith("Timer.set_tick(): the interval is None or 0 (no ticks), or a finite number")
        assert str(caught.value).endswith("got -1")
        with pytest.raises(tocsin.InvalidArgumentError) as caught:
            tea.skip()
        assert str(caught.value) == "Timer.skip(): a calendar alarm's rings only: this timer has none; got 1"
        alarm = engine.calendar("daily")
        with pytest.raises(tocsin.InvalidArgumentError) as caught:
            alarm.skip(100_001)
        assert str(caught.value) == "Timer.skip(): at most 100,000 rings; got 100001"
