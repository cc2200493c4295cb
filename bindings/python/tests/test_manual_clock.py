"""Exact semantics on the manual clock: instant and deterministic."""

import gc
import weakref
from datetime import timedelta

import pytest

import tocsin
from tocsin import EventKind, State


def summary(events):
    words = {EventKind.TICK: "tick", EventKind.FINISH: "finish", EventKind.STATE: "state"}
    return [f"{words[e.kind]} {e.tick if e.kind is EventKind.TICK else e.state.name.lower()}" for e in events]


def test_countdown_ticks_finish_and_properties(manual):
    events = []
    tea = manual.countdown(3, label="Tea", tick=1.0)
    tea.on_event(events.append)
    assert (tea.state, tea.remaining, tea.elapsed, tea.label, tea.duration) == (State.IDLE, 3.0, 0.0, "Tea", 3.0)
    assert tea.start() is tea
    assert events == []  # never inside the call that caused it
    assert manual.advance(10) == 5
    assert summary(events) == ["state running", "tick 1", "tick 2", "finish finished", "state finished"]
    assert [e.elapsed for e in events] == [0, 1, 2, 3, 3]
    assert [e.remaining for e in events] == [3, 2, 1, 0, 0]
    assert all(e.lateness == 0 and e.timer is tea for e in events)
    assert tea.state is State.FINISHED and tea.remaining == 0


def test_handlers_by_kind(manual):
    ticks, finishes, states = [], [], []
    timer = manual.countdown(2, tick=0.5)
    record_tick = ticks.append
    assert timer.on_tick(record_tick) is record_tick
    timer.on_finish(finishes.append)
    timer.on_state(states.append)
    timer.start()
    manual.advance(2)
    assert [e.tick for e in ticks] == [1, 2, 3]
    assert len(finishes) == 1
    assert [e.state for e in states] == [State.RUNNING, State.FINISHED]
    timer.remove_handler(ticks.append)
    timer.start()
    manual.advance(2)
    assert len(ticks) == 3 and len(finishes) == 2


def test_suspend_resume_is_exact(manual):
    timer = manual.countdown(10).start()
    manual.advance(3.25)
    timer.suspend()
    manual.advance(1000)
    assert timer.remaining == 6.75
    timer.resume()
    manual.advance(6.75)
    assert timer.state is State.FINISHED


def test_stopwatch_and_laps(manual):
    watch = manual.stopwatch(label="Run").start()
    assert watch.is_stopwatch and watch.remaining is None and watch.duration is None
    manual.advance(2)
    assert watch.lap() == 2
    manual.advance(timedelta(milliseconds=500))
    assert watch.lap() == 0.5
    assert watch.laps == [2, 0.5]
    watch.cancel()
    with pytest.raises(tocsin.WrongStateError):
        watch.lap()


def test_errors_are_exceptions_with_code_and_message(manual):
    for bad in (0, -1, float("nan"), float("inf"), 1e300):
        with pytest.raises(tocsin.InvalidArgumentError) as caught:
            manual.countdown(bad)
        # The value given, and what it must be (not the status code).
        assert caught.value.code == -1 and str(caught.value) == (
            f"countdown: seconds must be a finite number above 0, at most 100 years; got {bad!r}")
        assert isinstance(caught.value, ValueError)
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown("5")
    timer = manual.countdown(5, label="Tea")
    with pytest.raises(tocsin.WrongStateError) as caught:
        timer.resume()
    assert caught.value.code == -3
    assert str(caught.value) == "resume(): Tea has not started: only a paused timer can be resumed"
    timer.start().suspend()
    with pytest.raises(tocsin.WrongStateError, match=r"^suspend\(\): Tea is already paused$"):
        timer.suspend()
    with pytest.raises(tocsin.InvalidArgumentError, match=r"^adjust\(\): Tea has 5\.000 s left; -10 s would end it"):
        timer.adjust(-10)
    with pytest.raises(tocsin.InvalidArgumentError, match=r"^after: seconds must be .*; got -1$"):
        manual.after(-1, print)
    with pytest.raises(tocsin.InvalidArgumentError):
        timer.set_tick(-1)
    with pytest.raises(tocsin.WrongStateError, match=r"^Engine\.advance\(\): this engine follows the real clocks; "
                                                     r"only one made with tocsin\.Engine\(manual_clock=True\)"):
        tocsin.Engine(polled=True).advance(1)
    with pytest.raises(tocsin.WrongStateError):
        manual.dispatch()


def test_labels(manual):
    timer = manual.countdown(1, label="Thé 🍵")
    assert timer.label == "Thé 🍵"
    timer.label = None
    assert timer.label == ""
    for bad in ("a\0b", "x" * 4097, "\udcff", 42):
        with pytest.raises(tocsin.InvalidArgumentError):
            timer.label = bad
    assert timer.label == ""
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.countdown(1, label="x" * 5000)


def test_a_freed_timer_raises_instead_of_touching_freed_memory(manual):
    timer = manual.countdown(1)
    timer.free()
    timer.free()  # twice: nothing
    with pytest.raises(tocsin.NoSuchTimerError, match="freed"):
        timer.start()
    with pytest.raises(tocsin.NoSuchTimerError):
        timer.state
    assert "freed" in repr(timer)


def test_a_closed_engine_raises(manual):
    timer = manual.countdown(1)
    manual.close()
    manual.close()
    with pytest.raises(tocsin.EngineClosedError):
        timer.start()
    with pytest.raises(tocsin.EngineClosedError):
        manual.countdown(1)
    del timer
    gc.collect()  # a timer finalized after close must not crash


def test_started_timers_stay_alive_without_references(manual):
    finishes = []
    manual.on_event(lambda e: finishes.append(e.timer.label) if e.kind is EventKind.FINISH else None)
    manual.countdown(5, label="Tea").start()
    gc.collect()
    manual.advance(5)
    assert finishes == ["Tea"]


def test_idle_finished_and_cancelled_timers_are_freed_when_unreferenced(manual):
    handles = []
    for make in (lambda: manual.countdown(1), lambda: manual.countdown(1).start(), lambda: manual.countdown(9).start()):
        timer = make()
        handles.append(timer.handle)
        if timer.state is State.RUNNING and timer.duration == 9:
            timer.cancel()
        watcher = weakref.ref(timer)
        del timer
        manual.advance(2)  # the 1 s run finishes; the cancel is delivered
        gc.collect()
        assert watcher() is None
    for handle in handles:
        with pytest.raises(tocsin.NoSuchTimerError):
            manual._call("tocsin_timer_state", handle)


def test_inline_lambdas_survive_gc(manual):
    seen = []
    timer = manual.countdown(1)
    timer.on_finish(lambda e: seen.append(e.elapsed))
    timer.start()
    del timer
    gc.collect()
    manual.advance(1)
    assert seen == [1]


def test_handler_exceptions_are_reported_and_delivery_goes_on(manual, unraisable):
    seen = []
    timer = manual.countdown(2, tick=1)
    timer.on_tick(lambda e: 1 / 0)
    timer.on_event(seen.append)
    timer.start()
    manual.advance(2)
    assert len(seen) == 4  # state, tick 1, finish, state: nothing lost
    assert [type(error) for error in unraisable] == [ZeroDivisionError]


def test_on_error_hook(manual):
    reported = []
    engine = tocsin.Engine(manual_clock=True, on_error=lambda error, event: reported.append((type(error), event.kind)))
    timer = engine.countdown(1)
    timer.on_finish(lambda e: {}["missing"])
    timer.start()
    engine.advance(1)
    assert reported == [(KeyError, EventKind.FINISH)]
    engine.close()


def test_callbacks_may_cancel_free_and_create(manual):
    log = []
    first, second = manual.countdown(1, label="first"), manual.countdown(1, label="second")
    second.on_event(lambda e: log.append(f"second {e.kind.name}"))

    def on_finish(event):
        second.cancel()
        child = manual.countdown(2, label="child")
        child.on_finish(lambda e: log.append(f"child at {manual.now}"))
        child.start()
        event.timer.free()

    first.on_finish(on_finish)
    first.start()
    second.start()
    manual.advance(5)
    assert log == ["second STATE", "second STATE", "child at 3.0"]


def test_after_is_a_started_countdown_that_reports_only_its_finish(manual):
    fired = []
    timer = manual.after(2, fired.append, label="egg")
    assert (timer.state, timer.label, timer.remaining) == (State.RUNNING, "egg", 2.0)
    assert manual.advance(0) == 0  # its STATE(RUNNING) was never queued
    assert manual.advance(2) == 1
    assert summary(fired) == ["finish finished"]
    assert fired[0].timer is timer and fired[0].lateness == 0
    states = []
    timer.on_state(states.append)  # asking for more, from then on
    timer.start()
    manual.advance(2)
    assert summary(states) == ["state running", "state finished"]
    assert summary(fired) == ["finish finished"] * 2


def test_after_keeps_its_timer_alive_until_it_finishes_or_is_cancelled(manual):
    fired = []
    ref = weakref.ref(manual.after(1, fired.append))
    gc.collect()
    assert ref() is not None  # running: kept
    manual.advance(1)
    assert len(fired) == 1
    del fired[:]
    gc.collect()
    assert ref() is None  # finished and unreferenced: freed
    assert manual.timers() == []
    cancelled = weakref.ref(manual.after(1, fired.append).cancel())
    gc.collect()
    assert cancelled() is None and manual.timers() == []
    manual.advance(5)
    assert fired == []


def test_after_passes_extra_arguments_and_stays_the_same_object(manual):
    calls = []
    timer = manual.after(1, lambda event, *args: calls.append((event.kind.name, args)), "tea", 3)
    assert manual.timers() == [timer]  # running: found through the engine
    manual.advance(1)
    assert calls == [("FINISH", ("tea", 3))]
    assert manual.timers() == [timer] and manual.timers()[0] is timer  # finished, still referenced: the same object
    timer.on_finish(lambda event: calls.append(("on_finish", ())))
    timer.start()
    manual.advance(1)
    assert calls[1:] == [("FINISH", ("tea", 3)), ("on_finish", ())]  # after()'s handler first


def test_remove_handler_removes_the_after_handler(manual):
    fired = []
    timer = manual.after(1, fired.append)
    timer.remove_handler(fired.append)
    manual.advance(1)
    assert fired == [] and timer.state is State.FINISHED


def test_after_rejects_bad_input_and_leaves_nothing(manual):
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.after(0, print)
    for seconds in (float("nan"), float("inf"), -1.0, 0.0, 1e300):  # floats go straight to C
        with pytest.raises(tocsin.InvalidArgumentError):
            manual.after(seconds, print)
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.after(1, "not callable")
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.after(1, print, label="x" * 5000)  # longer than TOCSIN_LABEL_MAX
    with pytest.raises(tocsin.InvalidArgumentError):
        manual.after(1, print, label="a\0b")
    assert manual.timers() == []
    manual.close()
    with pytest.raises(tocsin.EngineClosedError):
        manual.after(1, print)


def test_an_engine_wide_handler_sees_every_event_of_after_timers(manual):
    seen = []
    early = manual.after(1, lambda e: None)
    manual.on_event(seen.append)
    late = manual.after(2, lambda e: None)
    manual.advance(3)
    assert [(e.timer is early, e.kind.name) for e in seen] == [
        (False, "STATE"), (True, "FINISH"), (True, "STATE"), (False, "FINISH"), (False, "STATE")]
    assert late.state is State.FINISHED
