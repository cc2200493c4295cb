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
STATES = ["idle", "running", "suspended", "finished", "canceled"]  # ListColumns' state codes


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
            # Column by column, only what is shown: with many timers much
            # faster than List's dictionary per timer. A state is a code,
            # and remaining is -1 for a stopwatch (docs/dbus.md).
            (columns,) = call(connection, "ListColumns", "as", ["label", "state", "remaining", "elapsed"])
            table = {name: value for name, (_, value) in columns.items()}
            for timer, label, state, remaining, elapsed in zip(
                    table["id"], table["label"], table["state"], table["remaining"], table["elapsed"]):
                left = f"{remaining:.1f} s left" if remaining >= 0 else f"{elapsed:.1f} s"
                print(f"{timer}  {label}  {STATES[state]}  {left}")
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
