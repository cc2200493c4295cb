"""Pipelines calls to the timer service on several connections at once, and
says when each answer came (Tests/service/test_fairness.py).

    python3 flooder.py CONNECTIONS CALLS METHOD SIGNATURE BODY_JSON

Opens CONNECTIONS connections to the session bus; each writes CALLS calls of
METHOD (its arguments: BODY_JSON, a list, in D-Bus SIGNATURE) before reading
any answer. Prints a JSON line {"written": T} once every call is written,
then, once every answer is in, {"answers": [T, ...], "errors": {NAME: N},
"messages": {NAME: the first one's message}}
(T: time.monotonic(), which a process in a sandbox shares); with
FLOODER_HOLD set, keeps its connections until standard input closes. Runs in a
bubblewrap sandbox too (its Python bound in: sandbox.python_binds)."""

import json
import os
import sys
import threading
import time

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

TARGET = DBusAddress("/dev/tocsin/Timers", bus_name="dev.tocsin.Timers", interface="dev.tocsin.Timers1")


def main():
    connections, calls, method, signature = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    # a{sv} values are (signature, value) pairs, written as JSON lists
    body = tuple({k: tuple(v) for k, v in item.items()} if isinstance(item, dict) else item
                 for item in json.loads(sys.argv[5]))
    buses = [open_dbus_connection(bus="SESSION") for _ in range(connections)]
    answers, errors, messages, lock = [], {}, {}, threading.Lock()

    def read(bus, serials):
        while serials:
            message = bus.receive(timeout=600)
            serial = message.header.fields.get(5)  # reply_serial
            if serial not in serials:
                continue  # (a signal, or the bus's own)
            serials.discard(serial)
            with lock:
                answers.append(time.monotonic())
                if message.header.message_type == MessageType.error:
                    name = message.header.fields.get(4, "?")  # error_name
                    errors[name] = errors.get(name, 0) + 1
                    messages.setdefault(name, message.body[0] if message.body else "")

    pending = []
    for bus in buses:
        serials = set()
        for _ in range(calls):
            serial = next(bus.outgoing_serial)
            bus.send(new_method_call(TARGET, method, signature, body), serial=serial)
            serials.add(serial)
        pending.append((bus, serials))
    print(json.dumps({"written": time.monotonic()}), flush=True)
    readers = [threading.Thread(target=read, args=item) for item in pending]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    print(json.dumps({"answers": sorted(answers), "errors": errors, "messages": messages}), flush=True)
    if os.environ.get("FLOODER_HOLD"):
        sys.stdin.read()  # the connections stay until standard input closes


if __name__ == "__main__":
    main()
