"""The timer service as a third-party script sees it, for the tests that run
it on a private session bus (Tests/service, make check) and in the headless
desktop (Tests/desktop): calls through busctl and gdbus, its signals as whole
D-Bus messages, and waits that wait for the thing itself, with a deadline
and an error saying what was seen instead."""

import json
import os
import signal
import struct
import subprocess
import threading
import time
from dataclasses import dataclass

NAME, PATH, INTERFACE = "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1"

# How long a wait may take before it fails: generous, for a loaded 2-core CI
# machine. Timing rules take their times from the events, not from these.
DEADLINE = 30.0

# How late a ring may reach the bus and still be on time. Seen here: 0.3 to
# 3.3 ms (by the service's count and on the bus); the bound leaves room for a
# loaded 2-core CI machine, whose journal sync (an fdatasync behind other
# writers) comes before the signal. The engine's own C test allows 0.2 s on
# its thread; the old tests allowed anything up to their 30 s wait.
ON_TIME = 3.0


def on_time(late, what=""):
    """Asserts a lateness in seconds is never early and not late; prints it."""
    print(f"late by {late * 1000:.1f} ms {what}")
    assert 0 <= late < ON_TIME, f"{what} late by {late:.3f} s (on time: under {ON_TIME} s)"


def boot_time() -> float:
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def wait_until(condition, timeout=DEADLINE, step=0.02, what=None):
    """Calls `condition` until it returns something true and returns that;
    after `timeout` seconds fails, saying what it waited for (`what`, or the
    condition's source) and what it got last."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what or _describe(condition)}; last: {value!r}")
        time.sleep(step)


def _describe(condition):
    import inspect
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return repr(condition)


def busctl(*arguments, check=True):
    """busctl --user with JSON output; the reply's data, or the failure."""
    result = subprocess.run(["busctl", "--user", "--json=short", "--", *arguments], capture_output=True, text=True,
                            timeout=DEADLINE)
    if check and result.returncode != 0:
        raise AssertionError(f"busctl {' '.join(arguments)}: {result.stderr.strip()}")
    return json.loads(result.stdout)["data"] if result.returncode == 0 and result.stdout.strip() else result


def call(method, signature="", *arguments, check=True):
    return busctl("call", NAME, PATH, INTERFACE, method, *([signature] if signature else []),
                  *map(str, arguments), check=check)


def gdbus_call(method, *arguments):
    """gdbus call: (status, stdout + stderr), for error names and messages."""
    result = subprocess.run(["gdbus", "call", "--session", "-d", NAME, "-o", PATH, "-m", f"{INTERFACE}.{method}",
                             "--", *arguments], capture_output=True, text=True, timeout=DEADLINE)
    return result.returncode, result.stdout + result.stderr


def add(label, seconds, **options):
    """Add through busctl; options as name=(signature, value)."""
    flat = [str(len(options))]
    for name, (signature, value) in options.items():
        flat += [name, signature, str(value).lower() if isinstance(value, bool) else str(value)]
    return call("Add", "sda{sv}", label, seconds, *flat)[0]


def timers():
    """List, as {id: {property: value}}."""
    return {item["id"]["data"]: {name: value["data"] for name, value in item.items()} for item in call("List")[0]}


def service_pid():
    result = busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "GetConnectionUnixProcessID", "s", NAME, check=False)
    return result[0] if isinstance(result, list) else None


def ended(pid):
    """The process is gone, or a zombie: it holds no file open any more."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def stop_service(sig=signal.SIGTERM):
    """Signals the running service (if any) and waits until it has left the
    bus and ended (it writes its snapshot and closes its files after it has
    given up its name)."""
    pid = service_pid()
    if pid:
        os.kill(pid, sig)
        wait_until(lambda: service_pid() is None, what=f"the service (pid {pid}) to leave the bus after {sig!r}")
        wait_until(lambda: ended(pid), what=f"the service (pid {pid}) to end")
    return pid


def activation_environment(**variables):
    subprocess.run(["dbus-update-activation-environment", *(f"{name}={value}" for name, value in variables.items())],
                   check=True)


@dataclass
class Message:
    at: float       # boot time dbus-monitor received it
    wall: float     # the same moment on the wall clock
    kind: str       # "signal" or "method_call"
    member: str     # "Changed", "Finished", "Notify", ...
    args: tuple     # the arguments, decoded: (3, "Rice", 0.0012); a{sv} as {name: (signature, value)}


class Monitor:
    """The messages of one interface on the session bus, each a whole one:
    dbus-monitor writes every message it sees as one pcap record, with the
    time it got it, and jeepney decodes the record. dbus-monitor follows the
    interface across restarts of the service, which `gdbus monitor` does
    not. Ready when the constructor returns (a marker has come through)."""

    def __init__(self, interface, kinds=("signal",)):
        from jeepney.low_level import HeaderFields, MessageType, Parser
        self.interface = interface
        self._fields, self._types, self._parser = HeaderFields, MessageType, Parser
        rules = [f"type='{kind}',interface='{interface}'" for kind in kinds]
        if "signal" not in kinds:
            rules.append(f"type='signal',interface='{interface}',member='TestMarker'")
        self.process = subprocess.Popen(["dbus-monitor", "--session", "--pcap", *rules], stdout=subprocess.PIPE,
                                        bufsize=0)
        self._offset = boot_time() - time.time()  # the records carry wall-clock times
        self.records = []
        self.lock = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        # Subscribed once a marker comes through (one sent before dbus-monitor
        # became a monitor is lost: send again until one arrives).
        deadline = time.monotonic() + DEADLINE
        while not self._marker(timeout=0.25):
            assert time.monotonic() < deadline, "dbus-monitor did not start"

    def _read(self):
        stream = self.process.stdout

        def exactly(count):
            data = b""
            while len(data) < count:
                chunk = stream.read(count - len(data))
                if not chunk:
                    return None
                data += chunk
            return data

        if exactly(24) is None:  # the pcap file header
            return
        while (header := exactly(16)) is not None:
            seconds, microseconds, length, _ = struct.unpack("<IIII", header)
            data = exactly(length)
            if data is None:
                return
            parser = self._parser()
            parser.add_data(data)
            message = parser.get_next_message()
            fields = message.header.fields
            if fields.get(self._fields.interface) != self.interface:
                continue
            if not self._wanted(message):
                continue
            wall = seconds + microseconds / 1e6
            kind = "signal" if message.header.message_type == self._types.signal else "method_call"
            record = Message(wall + self._offset, wall, kind, fields[self._fields.member], message.body)
            with self.lock:
                self.records.append(record)
                self.lock.notify_all()

    def _wanted(self, message):
        """Whether to keep a message of the interface (all, here)."""
        return True

    def read(self):
        """The messages so far (but the markers of `sync`)."""
        with self.lock:
            return [record for record in self.records if record.member != "TestMarker"]

    def named(self, member, id=None):
        """The `member` messages so far (whose first argument is `id`, if given)."""
        with self.lock:
            return [record for record in self.records if record.member == member and (id is None or record.args[0] == id)]

    def wait_for(self, member, count=1, timeout=DEADLINE, id=None):
        """The first `count` whole `member` messages (of timer `id`, if given)."""
        with self.lock:
            done = self.lock.wait_for(lambda: len(self.named(member, id)) >= count, timeout)
        assert done, f"no {count} x {member} (id {id}) within {timeout} s; got {self.read()}"
        return self.named(member, id)[:count]

    _markers = 0

    def sync(self):
        """Returns once every message sent on the interface before this call
        has been read: a marker signal sent now reaches dbus-monitor after
        them (the bus routes each connection's messages in order, and a
        reply to any earlier call came after the signals sent before it)."""
        assert self._marker(), "a marker signal did not come through"

    def _marker(self, timeout=DEADLINE):
        Monitor._markers += 1
        token = Monitor._markers
        subprocess.run(["dbus-send", "--session", "--type=signal", "/dev/tocsin/TestMarker",
                        f"{self.interface}.TestMarker", f"uint64:{token}"], check=True, timeout=DEADLINE)
        with self.lock:
            return self.lock.wait_for(lambda: self.named("TestMarker", token), timeout)

    def close(self):
        self.process.kill()
        self.process.wait()


class Signals(Monitor):
    """The timer service's signals, as one subscriber gets them: the service
    sends each signal to each client that called `Subscribe` (never as a
    broadcast), so this opens a connection that subscribes and keeps only
    the copies addressed to it (a `tocsin ls --follow` the test runs gets
    its own). Subscribing starts the service; one that was not running
    before is stopped again, so a test begins as it would without this,
    and the service takes the subscriber back when it next starts."""

    def __init__(self):
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        self.name = None  # (until connected: nothing but markers is kept)
        super().__init__(INTERFACE)
        self.connection = open_dbus_connection(bus="SESSION")
        self.name = self.connection.unique_name
        running = service_pid()
        call = new_method_call(DBusAddress(PATH, bus_name=NAME, interface=INTERFACE), "Subscribe")
        reply = self.connection.send_and_get_reply(call, timeout=DEADLINE)
        assert reply.header.message_type.name == "method_return", f"Subscribe: {reply.body}"
        # (Not before: the connection is not for two threads at once.)
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()
        if not running:
            stop_service()

    def _drain(self):
        """Reads what comes to the subscriber (else it piles up in the bus)."""
        try:
            while True:
                self.connection.receive()
        except Exception:  # closed
            pass

    def _wanted(self, message):
        fields = message.header.fields
        return fields.get(self._fields.member) == "TestMarker" or fields.get(self._fields.destination) == self.name

    def close(self):
        super().close()
        self.connection.close()


def properties(record):
    """A Changed signal's properties as {name: value}."""
    return {name: value for name, (_, value) in record.args[1].items()}


class SmallDisk:
    """A tmpfs of `size` mounted on `folder` (root only: tests that need one
    skip without it), to be filled up and made read-only for real."""

    def __init__(self, folder, size="1m"):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)], check=True)
        self.filler = None

    @staticmethod
    def available():
        return os.geteuid() == 0 and subprocess.run(["which", "mount"], capture_output=True).returncode == 0

    def fill(self):
        """Writes a file until the disk is full (ENOSPC)."""
        import errno
        self.filler = self.folder / "filler"
        with open(self.filler, "ab", buffering=0) as out:
            chunk = b"\0" * 4096
            try:
                while True:
                    out.write(chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
            try:
                while True:  # the last bytes of a page
                    out.write(b"\0")
            except OSError as error:
                assert error.errno == errno.ENOSPC, error

    def free(self):
        if self.filler and self.filler.exists():
            self.filler.unlink()

    def read_only(self, yes=True):
        subprocess.run(["mount", "-o", f"remount,{'ro' if yes else 'rw'}", str(self.folder)], check=True)

    def close(self):
        subprocess.run(["umount", "-l", str(self.folder)], check=False)
