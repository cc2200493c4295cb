"""The installed package (not the source tree) on a real-clock engine:
10,000 countdowns made and started, each with a FINISH handler, and every
FINISH must come, every timer then FINISHED. Run from outside the
checkout by make test-python-install on each interpreter it installs on."""

import sys
import threading
import time

import tocsin
import tocsin._library as library

COUNT = 10_000
version = "python %d.%d" % sys.version_info[:2]
finished = set()
lock = threading.Lock()
all_came = threading.Event()


def on_finish(event: tocsin.Event) -> None:
    with lock:
        finished.add(event.timer.handle)
        if len(finished) == COUNT:
            all_came.set()


with tocsin.Engine() as engine:
    began = time.perf_counter()
    timers = []
    for i in range(COUNT):
        timer = engine.countdown(0.05 + (i % 50) / 1000)  # 50 to 99 ms
        timer.on_finish(on_finish)
        timers.append(timer.start())
    made = time.perf_counter() - began
    all_came.wait(60)
    states = sorted({timer.state.name for timer in timers})
loaded = next(iter(library._loaded))
assert "/site-packages/tocsin/_lib/" in loaded, loaded
print(f"{version}: {len(finished)} of {COUNT} FINISH events, made and started in {made:.2f} s, "
      f"states {states}, library {loaded}")
ok = len(finished) == COUNT and states == ["FINISHED"]
print(f"{version}: {int(ok)} passed, {int(not ok)} failed")
sys.exit(0 if ok else 1)
