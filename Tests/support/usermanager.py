"""A stand-in for the session's user manager, for the service's and the
desktop's tests."""

import threading


class UserManager:
    """A stand-in for `systemd --user` (which cannot run in this container):
    it owns org.freedesktop.systemd1 and keeps an environment as the user
    manager does, read through the Manager's `Environment` property and
    changed by `SetEnvironment`, the call `systemctl --user set-environment`
    and `dbus-update-activation-environment --systemd` make; and its
    `Version`."""

    PATH = "/org/freedesktop/systemd1"
    MANAGER = "org.freedesktop.systemd1.Manager"

    def __init__(self, environment=(), version="252.38-1~deb12u1"):
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import open_dbus_connection

        self.environment = list(environment)
        self.version = version  # the Manager's `Version` property
        self.connection = open_dbus_connection(bus="SESSION")
        reply = self.connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.systemd1", 4))
        assert reply.body[0] == 1, reply.body
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        from jeepney import HeaderFields, MessageType, new_error, new_method_return

        while self.running:
            try:
                message = self.connection.receive(timeout=0.1)
            except TimeoutError:
                continue
            if message.header.message_type != MessageType.method_call:
                continue
            member = message.header.fields.get(HeaderFields.member)
            if member == "Get" and tuple(message.body) == (self.MANAGER, "Environment"):
                self.connection.send(new_method_return(message, "v", (("as", list(self.environment)),)))
            elif member == "Get" and tuple(message.body) == (self.MANAGER, "Version"):
                self.connection.send(new_method_return(message, "v", (("s", self.version),)))
            elif member == "SetEnvironment":
                names = {item.split("=", 1)[0] for item in message.body[0]}
                self.environment = [item for item in self.environment if item.split("=", 1)[0] not in names]
                self.environment += message.body[0]
                self.connection.send(new_method_return(message))
            else:
                self.connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (member,)))

    def close(self):
        self.running = False
        self.thread.join()
        self.connection.close()
