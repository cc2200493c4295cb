"""A stand-in media player for test_media.py: it owns
org.mpris.MediaPlayer2.NAME on the session bus in DBUS_SESSION_BUS_ADDRESS
and serves /org/mpris/MediaPlayer2 with org.mpris.MediaPlayer2.Player's
PlaybackStatus, a writable Volume (0.0 to 1.0) and Play, Pause, PlayPause
and Stop (which change PlaybackStatus as a real player's do). It plays no
sound. Every method call and every Volume set is written as a JSON line
with its time on the boot clock (CLOCK_BOOTTIME, as the tests' boot_time()),
so that a test can see what the notifier asked and when.

    fake_mpris_player.py NAME LOG STATUS VOLUME   (prints READY)
"""

import json
import sys
import time

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"
STATUS_AFTER = {"Play": "Playing", "Pause": "Paused", "Stop": "Stopped"}


def main():
    name, log_path, status, volume = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName("org.mpris.MediaPlayer2." + name, 4))  # DO_NOT_QUEUE
    if reply.body[0] != 1:
        sys.exit(f"cannot own org.mpris.MediaPlayer2.{name}: {reply.body[0]}")
    print("READY", flush=True)
    with open(log_path, "a") as log:
        def write(**record):
            log.write(json.dumps({"at": time.clock_gettime(time.CLOCK_BOOTTIME), **record}) + "\n")
            log.flush()

        while True:
            message = connection.receive()
            if message.header.message_type != MessageType.method_call:
                continue
            member = message.header.fields.get(HeaderFields.member)
            interface = message.header.fields.get(HeaderFields.interface)
            if message.header.fields.get(HeaderFields.path) != PATH:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownObject", "s", ("no such object",)))
            elif interface == PROPERTIES and member in ("Get", "GetAll"):
                values = {"PlaybackStatus": ("s", status), "Volume": ("d", volume), "CanControl": ("b", True),
                          "CanPause": ("b", True), "CanPlay": ("b", True)}
                if member == "GetAll":
                    connection.send(new_method_return(message, "a{sv}", (values if message.body[0] == PLAYER else {},)))
                elif message.body[0] == PLAYER and message.body[1] in values:
                    connection.send(new_method_return(message, "v", (values[message.body[1]],)))
                else:
                    connection.send(new_error(message, "org.freedesktop.DBus.Error.InvalidArgs", "s", ("no such property",)))
            elif interface == PROPERTIES and member == "Set":
                _, prop, (signature, value) = message.body
                if prop == "Volume" and signature == "d":
                    volume = max(0.0, float(value))
                    write(call="SetVolume", volume=volume)
                    connection.send(new_method_return(message))
                else:
                    connection.send(new_error(message, "org.freedesktop.DBus.Error.PropertyReadOnly", "s", (prop,)))
            elif interface in (PLAYER, None) and member in ("Play", "Pause", "PlayPause", "Stop"):
                write(call=member, status=status)
                if member == "PlayPause":
                    status = "Paused" if status == "Playing" else "Playing"
                else:
                    status = STATUS_AFTER[member]
                connection.send(new_method_return(message))
            else:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (f"no {member}",)))


if __name__ == "__main__":
    main()
