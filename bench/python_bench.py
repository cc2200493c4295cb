"""The one-shot workload in Python: asyncio's loop.call_later against Tocsin's
Python binding in its asyncio mode (tocsin.aio.Engine), on the same seeded
deadlines. Prints the key=value line of bench/oneshot.c.

    python3 bench/python_bench.py asyncio|tocsin-py|tocsin-py-timer N SEED

tocsin-py arms with engine.after(seconds, handler), the binding's call_later
(one C call, FINISH only); tocsin-py-timer with the general
countdown() + on_finish() + start() (every event kind delivered).
"""

import asyncio
import gc
import resource
import sys
import time

import tocsin.aio


def rss_kb() -> int:
    """Resident KB from smaps_rollup (exact; VmRSS is kept in per-CPU
    counters and can be off by hundreds of KB)."""
    with open("/proc/self/smaps_rollup") as status:
        for line in status:
            if line.startswith("Rss:"):
                return int(line.split()[1])
    return 0


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def offsets(n: int, seed: int) -> list[float]:
    mask = (1 << 64) - 1
    rng = (seed * 2654435761 + 1) & mask
    values = []
    for _ in range(n):
        rng ^= (rng << 13) & mask
        rng ^= rng >> 7
        rng ^= (rng << 17) & mask
        values.append(0.5 + 2.0 * ((rng >> 11) / float(1 << 53)))
    return values


async def run(engine_name: str, n: int, seed: int) -> None:
    loop = asyncio.get_running_loop()
    spread = offsets(n, seed)
    deadline = [0] * n
    lateness = [0] * n
    fired = 0
    done = loop.create_future()

    def record(i: int) -> None:
        nonlocal fired
        lateness[i] = time.monotonic_ns() - deadline[i]
        fired += 1
        if fired == n:
            done.set_result(None)

    def on_finish(event: object, i: int) -> None:
        record(i)

    rss0, cpu0 = rss_kb(), cpu_seconds()
    if engine_name == "asyncio":
        gc.collect()
        start = time.perf_counter_ns()
        for i in range(n):
            deadline[i] = time.monotonic_ns() + int(spread[i] * 1e9)
            loop.call_later(spread[i], record, i)
        schedule_ns = (time.perf_counter_ns() - start) // n
        armed_kb = rss_kb()
        await done
        handles = [loop.call_later(60, record, i) for i in range(n)]
        start = time.perf_counter_ns()
        for handle in handles:
            handle.cancel()
        cancel_ns = (time.perf_counter_ns() - start) // n
    else:
        engine = tocsin.aio.Engine()
        gc.collect()
        start = time.perf_counter_ns()
        if engine_name == "tocsin-py":
            for i in range(n):
                deadline[i] = time.monotonic_ns() + int(spread[i] * 1e9)
                engine.after(spread[i], on_finish, i)  # as call_later(delay, record, i)
        else:
            for i in range(n):
                timer = engine.countdown(spread[i])
                timer.on_finish(lambda event, i=i: record(i))
                deadline[i] = time.monotonic_ns() + int(spread[i] * 1e9)
                timer.start()
        schedule_ns = (time.perf_counter_ns() - start) // n
        armed_kb = rss_kb()
        await done
        timers = [engine.countdown(60).start() for _ in range(n)]
        start = time.perf_counter_ns()
        for timer in timers:
            timer.cancel()
        cancel_ns = (time.perf_counter_ns() - start) // n
        engine.close()
    ordered = sorted(lateness)
    early = sum(1 for late in lateness if late < 0)
    print(
        f"engine={engine_name} n={n} schedule_ns={schedule_ns} cancel_ns={cancel_ns} "
        f"late_p50_us={ordered[n // 2] / 1e3:.1f} late_p99_us={ordered[int(n * 0.99)] / 1e3:.1f} "
        f"late_max_us={ordered[-1] / 1e3:.1f} early={early} bytes={(armed_kb - rss0) * 1024 / n:.0f} "
        f"cpu_s={cpu_seconds() - cpu0:.2f}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("asyncio", "tocsin-py", "tocsin-py-timer"):
        sys.exit(__doc__)
    asyncio.run(run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
