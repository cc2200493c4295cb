"""Timers in an asyncio program: handlers run on the event loop's thread.

    python async_timers.py [SECONDS]       (default 3)
"""

import asyncio
import sys

import tocsin
import tocsin.aio

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0


async def watch(timer: tocsin.Timer) -> None:
    async for event in timer.events():
        if event.kind is tocsin.EventKind.TICK:
            print(f"{timer.label}: {event.remaining:.1f} s left")
        elif event.kind is tocsin.EventKind.STATE:
            print(f"{timer.label}: {event.state.name.lower()}")


async def main() -> None:
    async with tocsin.aio.Engine() as engine:
        tea = engine.countdown(seconds, label="Tea", tick=seconds / 4)
        pasta = engine.countdown(seconds / 2, label="Pasta")
        watcher = asyncio.create_task(watch(tea))
        tea.start()
        pasta.start()
        event = await pasta.finished()
        print(f"Pasta is done ({event.lateness * 1000:.2f} ms late); tea still has {tea.remaining:.1f} s")
        await tea.finished()
        await watcher
        print("all done")


asyncio.run(main())
