"""A stand-in notification server offering only the capabilities it is given
(no actions, no persistence): it owns org.freedesktop.Notifications on the
session bus in DBUS_SESSION_BUS_ADDRESS and writes each call it gets as a
JSON line, for test_live.py.

    bare_notification_server.py LOG CAPABILITY,CAPABILITY... [SLOW_BODY SECONDS]   (prints READY)

With SLOW_BODY, the first Notify whose body is SLOW_BODY is logged at once
and answered SECONDS later (a server slow to show an alert; other calls are
answered meanwhile), so that a test can kill its caller while it is pending. It knows no stack tags: a
notification is replaced only by its id (as in GNOME Shell).
"""

import json
import sys
import time

from jeepney import HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusAddress

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def main():
    log_path, capabilities = sys.argv[1], [name for name in sys.argv[2].split(",") if name]
    slow_body, slow_seconds = (sys.argv[3], float(sys.argv[4])) if len(sys.argv) > 4 else (None, 0.0)
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName(NAME, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:
        sys.exit(f"cannot own {NAME}: {reply.body[0]}")
    emitter = DBusAddress(PATH, interface=NAME)
    print("READY", flush=True)
    next_id = 1
    with open(log_path, "a") as log:
        held = None  # (the slow Notify's reply, when to send it)
        while True:
            if held and time.monotonic() >= held[1]:
                connection.send(held[0])
                held = None
            try:
                message = connection.receive(timeout=max(0.0, held[1] - time.monotonic()) if held else None)
            except TimeoutError:
                continue
            if message.header.message_type != MessageType.method_call:
                continue
            member = message.header.fields.get(HeaderFields.member)
            if member == "GetCapabilities":
                connection.send(new_method_return(message, "as", (capabilities,)))
            elif member == "GetServerInformation":
                connection.send(new_method_return(message, "ssss", ("bare", "tocsin-tests", "1.0", "1.2")))
            elif member == "Notify":
                app, replaces, icon, summary, body, actions, hints, expire = message.body
                notification = replaces or next_id
                next_id += 0 if replaces else 1
                log.write(json.dumps({"member": member, "replaces": replaces, "summary": summary, "body": body,
                                      "actions": list(actions), "hints": {k: str(v[1]) for k, v in hints.items()},
                                      "expire": expire}) + "\n")
                log.flush()
                reply = new_method_return(message, "u", (notification,))
                if body == slow_body:
                    slow_body = None
                    held = (reply, time.monotonic() + slow_seconds)
                else:
                    connection.send(reply)
            elif member == "CloseNotification":
                log.write(json.dumps({"member": member, "id": message.body[0]}) + "\n")
                log.flush()
                connection.send(new_method_return(message))
                connection.send(new_signal(emitter, "NotificationClosed", "uu", (message.body[0], 3)))
            else:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (f"no {member}",)))


if __name__ == "__main__":
    main()
