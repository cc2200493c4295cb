"""A stand-in for `systemd --user` on a session bus, for benchmarks: it owns
org.freedesktop.systemd1 and answers the Manager's `Environment` (what the
timer service reads for the session's locale) after DELAY ms, as a busy user
manager might. Runs until killed.

    python3 bench/user_manager.py [DELAY_MS]     (needs jeepney)"""

import sys
import threading
import time

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

MANAGER = "org.freedesktop.systemd1.Manager"


def main():
    delay = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.0
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.systemd1", 4))
    if reply.body[0] != 1:
        raise SystemExit(f"user_manager: cannot own org.freedesktop.systemd1: {reply.body}")
    lock = threading.Lock()
    print("user_manager: ready", flush=True)

    def answer(message, member):
        time.sleep(delay)
        with lock:
            if member == "Get" and tuple(message.body) == (MANAGER, "Environment"):
                connection.send(new_method_return(message, "v", (("as", ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"]),)))
            else:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (member,)))

    while True:
        message = connection.receive()
        if message.header.message_type != MessageType.method_call:
            continue
        member = message.header.fields.get(HeaderFields.member)
        threading.Thread(target=answer, args=(message, member), daemon=True).start()


if __name__ == "__main__":
    main()
