"""The default mode: handlers on the engine's own thread, real clock, short
durations. Timeouts only catch hangs; nothing depends on the machine's speed."""

import gc
import threading
import time

import pytest

import tocsin
from tocsin import EventKind, State


def test_handlers_run_on_the_engine_thread_while_the_main_thread_is_busy(threaded):
    seen, done = [], threading.Event()
    main = threading.get_ident()
    timer = threaded.countdown(0.3, tick=0.1)
    timer.on_event(lambda e: seen.append((e.kind, threading.get_ident(), threaded.now)))
    timer.on_finish(lambda e: done.set())
    started = threaded.now
    timer.start()
    deadline = time.monotonic() + 0.6
    busy = 0
    while time.monotonic() < deadline:  # pure Python work, holding the GIL in turns
        busy += sum(range(1000))
    assert done.wait(30)
    kinds = [kind for kind, _, _ in seen]
    assert kinds[:5] == [EventKind.STATE, EventKind.TICK, EventKind.TICK, EventKind.FINISH, EventKind.STATE]
    assert all(thread != main for _, thread, _ in seen)
    assert seen[3][2] - started >= 0.3 - 1e-6  # never early


def test_raising_handlers_do_not_stop_the_engine_thread(threaded, unraisable):
    done = threading.Event()
    first = threaded.countdown(0.05)
    first.on_finish(lambda e: [][1])
    first.start()
    second = threaded.countdown(0.1)
    second.on_finish(lambda e: done.set())
    second.start()
    assert done.wait(30)
    assert [type(error) for error in unraisable] == [IndexError]


def test_inline_lambdas_after_gc(threaded):
    done = threading.Event()
    threaded.countdown(0.05).on_finish(lambda e: done.set())
    # on_finish returned the lambda, not the timer: nothing refers to the
    # timer, and it was never started, so it is gone. Start one for real:
    timer = threaded.countdown(0.05)
    timer.on_finish(lambda e: done.set())
    timer.start()
    del timer
    gc.collect()
    assert done.wait(30)


def test_closing_while_handlers_run_waits_for_them(threaded):
    entered, returned, after_close = threading.Event(), [], []
    closed = threading.Event()

    def slow(event):
        if closed.is_set():
            after_close.append(event)
        entered.set()
        time.sleep(0.2)
        returned.append(event)

    watches = [threaded.stopwatch(tick=0.005) for _ in range(5)]
    for watch in watches:
        watch.on_tick(slow)
        watch.start()
    assert entered.wait(30)
    threaded.close()
    closed.set()
    count = len(returned)
    time.sleep(0.1)
    assert len(returned) == count and after_close == []
    assert count >= 1


def test_closing_from_inside_a_handler(threaded):
    done = threading.Event()

    def close_now(event):
        threaded.close()
        done.set()

    timer = threaded.countdown(0.05)
    timer.on_finish(close_now)
    timer.start()
    assert done.wait(30)
    with pytest.raises(tocsin.EngineClosedError):
        threaded.countdown(1)


def test_ten_thousand_timers_from_four_threads_at_once(threaded):
    fired, errors = [], []
    lock = threading.Lock()

    def work():
        try:
            for i in range(2500):
                timer = threaded.countdown(0.001 if i % 10 == 0 else 60)
                if i % 10 == 0:
                    timer.on_finish(lambda e: fired.append(1))
                    timer.start()
                else:
                    timer.start()
                    timer.cancel()
                    timer.free()
        except Exception as error:  # pragma: no cover - reported below
            with lock:
                errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    deadline = time.monotonic() + 20
    while len(fired) < 1000 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(fired) == 1000


def test_polled_engine_delivers_on_the_dispatching_thread(polled):
    import select

    seen = []
    timer = polled.countdown(0.1)
    timer.on_event(lambda e: seen.append((e.kind, threading.get_ident())))
    timer.start()
    assert polled.dispatch() == 1
    readable, _, _ = select.select([polled.fileno()], [], [], 5)
    assert readable
    assert polled.dispatch() == 2
    assert [kind for kind, _ in seen] == [EventKind.STATE, EventKind.FINISH, EventKind.STATE]
    assert {thread for _, thread in seen} == {threading.get_ident()}
    assert timer.state is State.FINISHED


def test_after_timers_each_fire_once_on_the_engine_thread(threaded):
    done, fired = threading.Event(), []
    n = 2000

    def record(event):
        fired.append(event.timer)
        if len(fired) == n:
            done.set()

    timers = [threaded.after(0.0005 * (i % 20), record) if i % 20 else threaded.after(1e-9, record) for i in range(n)]
    assert done.wait(30)
    assert sorted(id(t) for t in fired) == sorted(id(t) for t in timers)  # each one once, none lost
    del timers, fired[:]
    # The engine lets each timer go once its handler has returned: the last
    # one's may still be returning when `done` is set.
    deadline = time.monotonic() + 30
    while gc.collect() >= 0 and threaded.timers() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threaded.timers() == []
