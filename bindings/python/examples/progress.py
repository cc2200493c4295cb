"""A countdown with a progress bar, redrawn ten times a second.

    python progress.py [SECONDS [LABEL]]        (default: 5 "Tea")
"""

import sys
import threading

import tocsin

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
label = sys.argv[2] if len(sys.argv) > 2 else "Tea"
width = 30
done = threading.Event()


def draw(event: tocsin.Event) -> None:
    left = event.remaining or 0.0
    filled = round(width * (1 - left / seconds))
    sys.stdout.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {left:5.1f}s ")
    sys.stdout.flush()


def finish(event: tocsin.Event) -> None:
    draw(event)
    print(f"\n{label} is ready ({event.lateness * 1000:.2f} ms late)")
    done.set()


with tocsin.Engine() as engine:
    timer = engine.countdown(seconds, label=label, tick=0.1)
    timer.on_tick(draw)
    timer.on_finish(finish)
    timer.start()
    done.wait()
