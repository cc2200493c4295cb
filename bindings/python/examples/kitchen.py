"""Several labelled timers at once; each says when it is done.

    python kitchen.py [SCALE]      (default 1.0: tea 3 s, toast 4.5 s, eggs 6 s)
"""

import sys
import threading

import tocsin

scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
recipes = {"Eggs": 6.0, "Tea": 3.0, "Toast": 4.5}
ready: list[str] = []
all_done = threading.Event()


def finished(event: tocsin.Event) -> None:
    # Handlers run on the engine's thread: do little, never block it.
    print(f"{event.timer.label} is ready after {event.elapsed:.2f} s", flush=True)
    ready.append(event.timer.label)
    if len(ready) == len(recipes):
        all_done.set()


with tocsin.Engine() as engine:
    for label, seconds in recipes.items():
        timer = engine.countdown(seconds * scale, label=label)
        timer.on_finish(finished)
        timer.start()
    # Fire and forget: the engine keeps a started timer alive by itself.
    reminder = engine.countdown(1.0 * scale, label="Stir")
    reminder.on_finish(lambda event: print("Stir the eggs", flush=True))
    reminder.start()
    del timer, reminder
    all_done.wait()
