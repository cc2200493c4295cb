import asyncio
import threading

import pytest

import tocsin
import tocsin.aio
from tocsin import EventKind, State


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 30))


def test_loop_engine_handlers_run_on_the_loop_thread():
    async def main():
        loop_thread = threading.get_ident()
        threads = []
        async with tocsin.aio.Engine() as engine:
            timer = engine.countdown(0.1, tick=0.05)
            timer.on_event(lambda e: threads.append(threading.get_ident()))
            timer.start()
            event = await timer.finished()
            assert event.kind is EventKind.FINISH and event.elapsed == pytest.approx(0.1)
        assert threads and set(threads) == {loop_thread}

    run(main())


def test_async_for_events_until_the_run_ends():
    async def main():
        async with tocsin.aio.Engine() as engine:
            timer = engine.countdown(0.2, tick=0.05)
            timer.start()
            kinds = [event.kind.name + (str(event.tick) if event.tick else "") async for event in timer.events()]
        assert kinds == ["STATE", "TICK1", "TICK2", "TICK3", "FINISH", "STATE"]

    run(main())


def test_finished_raises_when_cancelled_and_returns_at_once_when_done():
    async def main():
        async with tocsin.aio.Engine() as engine:
            timer = engine.countdown(5).start()
            waiter = asyncio.ensure_future(timer.finished())
            await asyncio.sleep(0.05)
            timer.cancel()
            with pytest.raises(tocsin.TimerCancelledError):
                await waiter
            quick = engine.countdown(0.01).start()
            await quick.finished()
            again = await quick.finished()  # already finished
            assert again.state is State.FINISHED

    run(main())


def test_await_works_with_a_threaded_engine_too():
    async def main():
        with tocsin.Engine() as engine:
            event = await engine.countdown(0.05).start().finished()
            assert event.kind is EventKind.FINISH

    run(main())


def test_manual_clock_with_asyncio():
    async def main():
        with tocsin.Engine(manual_clock=True) as engine:
            timer = engine.countdown(3).start()
            waiter = asyncio.ensure_future(timer.finished())
            await asyncio.sleep(0)
            engine.advance(3)
            assert (await waiter).elapsed == 3

    run(main())
