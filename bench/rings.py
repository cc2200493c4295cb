"""1,000 calendar alarms ringing in the same second (bench/rings.sh): adds
N alarms `*-*-* HH:MM:SS UTC` for a second ~15 s ahead, subscribes, and
from a second before the ring times another connection's ListColumns every
50 ms until the last Finished has come. Prints one line:
  alarms=N finished=F last_finished_s=S list_calls=C list_p50_ms list_p99_ms list_max_ms
(last_finished_s: from the ring's second to the last Finished received).

    python3 bench/rings.py N        (on a session bus where the service runs; needs jeepney)"""

import statistics
import sys
import threading
import time

from jeepney import DBusAddress, MatchRule, MessageType, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

TARGET = DBusAddress("/dev/tocsin/Timers", bus_name="dev.tocsin.Timers", interface="dev.tocsin.Timers1")


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    bus = open_dbus_connection(bus="SESSION")
    rule = MatchRule(type="signal", interface="dev.tocsin.Timers1", member="Finished")
    bus.send_and_get_reply(message_bus.AddMatch(rule))
    bus.send_and_get_reply(new_method_call(TARGET, "Subscribe"))
    ring = int(time.time()) + 15
    spec = time.strftime("*-*-* %H:%M:%S UTC", time.gmtime(ring))
    quiet = {"alert": ("b", False), "live": ("b", False), "sound": ("b", False), "wake": ("b", False)}
    for index in range(count):
        reply = bus.send_and_get_reply(new_method_call(TARGET, "Add", "sda{sv}", (f"Ring {index}", 0.0,
                                                                                   {"calendar": ("s", spec), **quiet})))
        assert reply.header.message_type == MessageType.method_return, reply.body
    times, done = [], threading.Event()

    def lister():
        other = open_dbus_connection(bus="SESSION")
        while time.time() < ring - 1:
            time.sleep(0.01)
        while not done.is_set():
            began = time.monotonic()
            other.send_and_get_reply(new_method_call(TARGET, "ListColumns", "as", (["id"],)), timeout=60)
            times.append((time.monotonic() - began) * 1000)
            time.sleep(0.05)

    thread = threading.Thread(target=lister)
    thread.start()
    finished, last = 0, None
    while finished < count:
        message = bus.receive(timeout=120)
        if message.header.message_type == MessageType.signal and message.header.fields.get(3) == "Finished":
            finished += 1
            last = time.time()
    done.set()
    thread.join()
    times.sort()
    print(f"alarms={count} finished={finished} last_finished_s={last - ring:.3f} list_calls={len(times)} "
          f"list_p50_ms={statistics.median(times):.1f} list_p99_ms={times[min(len(times) - 1, int(len(times) * 0.99))]:.1f} "
          f"list_max_ms={times[-1]:.1f}", flush=True)


if __name__ == "__main__":
    main()
