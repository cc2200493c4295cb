"""A stand-in notification server offering only the capabilities it is given
(no actions, no persistence): it owns org.freedesktop.Notifications on the
session bus in DBUS_SESSION_BUS_ADDRESS and writes each call it gets as a
JSON line, for test_live.py.

    bare_notification_server.py LOG CAPABILITY,CAPABILITY...   (prints READY)
"""

import json
import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusAddress

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def main():
    log_path, capabilities = sys.argv[1], [name for name in sys.argv[2].split(",") if name]
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName(NAME, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:
        sys.exit(f"cannot own {NAME}: {reply.body[0]}")
    emitter = DBusAddress(PATH, interface=NAME)
    print("READY", flush=True)
    next_id = 1
    with open(log_path, "a") as log:
        while True:
            message = connection.receive()
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
                connection.send(new_method_return(message, "u", (notification,)))
            elif member == "CloseNotification":
                log.write(json.dumps({"member": member, "id": message.body[0]}) + "\n")
                log.flush()
                connection.send(new_method_return(message))
                connection.send(new_signal(emitter, "NotificationClosed", "uu", (message.body[0], 3)))
            else:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (f"no {member}",)))


if __name__ == "__main__":
    main()
