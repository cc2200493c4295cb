"""List and control the timer service's timers (`tocsin service`, see
docs/dbus.md) from Python, with jeepney, a pure-Python D-Bus library
(`pip install jeepney`). The first call starts the service.

    python service_timers.py add LABEL SECONDS   a countdown; prints its id
    python service_timers.py list                id, label, state, time left
    python service_timers.py pause|resume|cancel|remove ID
    python service_timers.py adjust ID SECONDS   (negative: less time)
"""

import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse, unwrap_msg

SERVICE = DBusAddress("/dev/tocsin/Timers", bus_name="dev.tocsin.Timers", interface="dev.tocsin.Timers1")


def call(connection, method, signature="", *arguments):
    """The reply's values; a failure raises DBusErrorResponse (its name says
    which: dev.tocsin.Timers1.Error.NoSuchTimer, ...)."""
    return unwrap_msg(connection.send_and_get_reply(new_method_call(SERVICE, method, signature, arguments)))


def main(argv):
    with open_dbus_connection(bus="SESSION") as connection:
        command = argv[0] if argv else "list"
        if command == "add":
            (timer,) = call(connection, "Add", "sda{sv}", argv[1], float(argv[2]), {"sound": ("b", False)})
            print(timer)
        elif command == "list":
            (timers,) = call(connection, "List")
            for timer in timers:
                values = {name: value for name, (_, value) in timer.items()}
                left = f"{values['remaining']:.1f} s left" if "remaining" in values else f"{values['elapsed']:.1f} s"
                print(f"{values['id']}  {values['label']}  {values['state']}  {left}")
        elif command in ("pause", "resume", "cancel", "remove"):
            call(connection, command.capitalize(), "t", int(argv[1]))
        elif command == "adjust":
            call(connection, "Adjust", "td", int(argv[1]), float(argv[2]))
        else:
            sys.exit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except DBusErrorResponse as error:
        sys.exit(f"service_timers: {error.name}: {error.data[0] if error.data else ''}")
