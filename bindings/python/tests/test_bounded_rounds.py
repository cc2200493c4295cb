"""Bounded rounds (tocsin.h, BOUNDED ROUNDS) from Python: a 1 ns tick asks
for a billion ticks a second. Each round delivers ``tocsin.TICK_BURST`` one
by one and folds the rest into one TICK with ``missed``; numbers and
``elapsed`` stay exact, and the host's own loop keeps turning. Before rounds
were bounded, the first dispatch of a 1 ns ticker never returned."""

import asyncio
import re
from pathlib import Path

import tocsin
import tocsin.aio
from tocsin import EventKind, State

HEADER = Path(__file__).resolve().parents[3] / "include" / "tocsin.h"


class Tally:
    """Adds up a timer's ticks as they come."""

    def __init__(self):
        self.ticks = self.folded = self.last = self.accounted = self.out_of_order = self.drifted = 0
        self.canceled = False
        self.after_cancel = 0

    def __call__(self, event):
        if event.kind is EventKind.STATE:
            self.canceled |= event.state is State.CANCELED
            return
        if event.kind is not EventKind.TICK:
            return
        self.after_cancel += self.canceled
        self.out_of_order += event.tick <= self.last
        self.drifted += round(event.elapsed * 1e9) != event.tick  # a 1 ns interval
        self.ticks += 1
        self.last = event.tick
        self.accounted += 1 + event.missed
        self.folded += event.missed > 0

    def numbered_right(self):
        return self.out_of_order == 0 and self.drifted == 0 and self.accounted == self.last


def test_the_burst_is_the_headers():
    assert re.search(rf"#define TOCSIN_TICK_BURST {tocsin.TICK_BURST}\b", HEADER.read_text())


def test_a_manual_second_of_1ns_ticks_is_one_burst_and_one_fold():
    tally = Tally()
    with tocsin.Engine(manual_clock=True) as engine:
        timer = engine.countdown(30, tick=5e-324)  # the least double above 0: 1 ns
        timer.on_event(tally)
        timer.start()
        assert engine.advance(1) == 1 + tocsin.TICK_BURST + 1
        assert tally.last == 1_000_000_000 and tally.folded == 1 and tally.numbered_right()
        assert engine.advance(1e-6) == 1000  # under the burst: one by one
        assert tally.last == 1_000_001_000 and tally.numbered_right()


def test_the_asyncio_loop_keeps_turning_beside_a_1ns_ticker():
    async def main():
        tally = Tally()
        async with tocsin.aio.Engine() as engine:
            watch = engine.stopwatch(tick=1e-9)
            watch.on_event(tally)
            watch.start()
            turns = 0
            for _ in range(5):  # another task of the loop gets its turns
                await asyncio.sleep(0.01)
                turns += 1
            watch.cancel()
            for _ in range(3):
                await asyncio.sleep(0.01)
        assert turns == 5
        assert tally.folded > 0 and tally.numbered_right()
        assert tally.canceled and tally.after_cancel == 0

    asyncio.run(asyncio.wait_for(main(), 60))
