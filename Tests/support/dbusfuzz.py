"""A D-Bus fuzzer in dfuzzer's manner, for the timer service: it reads the
object's interface by introspection and calls every method, and gets and
sets every property, with values generated from each argument's signature
(the edges dfuzzer uses: empty and very long strings, format directives,
control characters and odd UTF-8, NaN, infinities, 0, the largest numbers,
and random ones; for `a{sv}` option names the service knows, with values of
every type), then checks that the service is still the same process and
still answers. dfuzzer itself (github.com/dbus-fuzzer/dfuzzer) is not in
Debian or PyPI, so it cannot be installed here; this does its job for this
one service.

    python3 dbusfuzz.py ITERATIONS [SECONDS] [SEED] [LOG]
    python3 dbusfuzz.py reduce LOG RESTART

ITERATIONS calls per member (each method; Get, GetAll and Set of each
property), one round, or with SECONDS above 0 round after round for that
long. Exits 0 when the service survived, 1 naming the call that broke it
and the seed that repeats the run; with LOG, the calls made are written
there (JSON lines) when it fails. `reduce` replays parts of such a log, each
on a fresh service that the shell command RESTART starts, down to the
fewest calls that still break it (the failing call alone first), and
prints them (scripts/fuzz-dbus.sh does this after a failure).
Timers it adds are removed at the end; ids below the first one it made are
never named (the timers made before it stay as they were)."""

import json
import math
import random
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

NAME, PATH, INTERFACE = "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1"
OPTIONS = ["after", "alert", "calendar", "clock", "fade", "kind", "live", "pause_media", "ring", "snooze", "sound",
           "sound_file", "start", "tick", "volume", "wake", "warn"]
COLUMNS = ["id", "label", "state", "remaining", "owner", "kind", "next", "calendar", "nope", ""]
STRINGS = ["", " ", "a" * 5000, "%s%n%x%d" * 20, "\u00e9\u0301\U0001f514", "\x01\x1b[31m\x7f", "../../etc/passwd",
           "Mon..Fri 07:00", "*-*-* *:*:00", "2026-02-30 25:61", "daily", "-1", "1e309", "nan", "/dev/null",
           "x" * 1025, "\n" * 100, "Europe/Berlin", "monotonic", "awake", "countdown", "calendar", "alarm"]
DOUBLES = [0.0, -0.0, 1e-9, 0.5, 1.0, 59.9, 3600.0, 86400.0 * 366 * 101, -1.0, 1e308, -1e308, math.inf, -math.inf,
           math.nan, 5e-324]


class Fuzzer:
    def __init__(self, seed):
        self.random = random.Random(seed)
        self.bus = open_dbus_connection(bus="SESSION")
        self.target = DBusAddress(PATH, bus_name=NAME, interface=INTERFACE)
        self.calls = 0
        self.made = []         # ids this run added
        self.log = []          # [method, signature, body, id it added or None] of the calls on the interface
        # The first id it makes: the timers below it were made before the run.
        floor = self.call(self.target, "Add", "sda{sv}", ("dbusfuzz", 3600.0, {"alert": ("b", False)}))
        if floor.header.message_type != MessageType.method_return:
            raise SystemExit(f"dbusfuzz: the service refused a plain Add: {floor.body}")
        self.floor = floor.body[0]
        self.made.append(self.floor)
        self.on_low_ids = {0: 0, 1: 0}  # calls sent with timer id 0 (nobody's) and 1
    def call(self, address, method, signature="", body=(), timeout=30):
        self.calls += 1
        reply = self.bus.send_and_get_reply(new_method_call(address, method, signature, body), timeout=timeout)
        return reply

    def pid(self):
        bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
        reply = self.call(bus, "GetConnectionUnixProcessID", "s", (NAME,))
        return reply.body[0] if reply.header.message_type == MessageType.method_return else None

    def introspect(self):
        address = DBusAddress(PATH, bus_name=NAME, interface="org.freedesktop.DBus.Introspectable")
        node = ElementTree.fromstring(self.call(address, "Introspect").body[0])
        interface = node.find(f"interface[@name='{INTERFACE}']")
        methods = {m.get("name"): "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
                   for m in interface.findall("method")}
        properties = {p.get("name"): (p.get("type"), p.get("access")) for p in interface.findall("property")}
        return methods, properties

    # Values by signature.

    def value(self, signature):
        pick = self.random
        if signature == "s":
            return pick.choice(STRINGS) if pick.random() < 0.7 else "".join(
                chr(pick.randrange(1, 0x3000)) for _ in range(pick.randrange(0, 64)))
        if signature == "d":
            return pick.choice(DOUBLES) if pick.random() < 0.6 else pick.uniform(-1e6, 1e6)
        if signature == "t":
            choices = [0, 1, 2**63, 2**64 - 1, pick.randrange(2**64)] + self.made[-5:]
            return pick.choice(choices)
        if signature == "b":
            return pick.random() < 0.5
        if signature == "u":
            return pick.choice([0, 1, 2**32 - 1, pick.randrange(2**32)])
        if signature == "i":
            return pick.choice([0, -1, 2**31 - 1, -2**31, pick.randrange(-2**31, 2**31)])
        if signature == "as":
            return [pick.choice(COLUMNS + STRINGS) for _ in range(pick.randrange(0, 12))]
        if signature == "a{sv}":
            count = pick.choice([0, 1, 2, 3, 5, 17, 65])
            return {pick.choice(OPTIONS) if pick.random() < 0.85 else self.value("s"): self.variant()
                    for _ in range(count)}
        raise ValueError(f"no generator for {signature}")

    def variant(self):
        signature = self.random.choice(["s", "d", "t", "b", "u", "i", "as"])
        return (signature, self.value(signature))

    def arguments(self, signature):
        parts, rest = [], signature
        while rest:
            for candidate in ("a{sv}", "as", "s", "d", "t", "b", "u", "i"):
                if rest.startswith(candidate):
                    parts.append(candidate)
                    rest = rest[len(candidate):]
                    break
            else:
                raise ValueError(f"cannot split {signature}")
        return tuple(self.value(part) for part in parts)

    # The run.

    def member(self, method, signature):
        body = self.arguments(signature)
        if signature.startswith("t") and 0 < body[0] < self.floor:
            return None  # a timer made before the run: it must stay as it was (0 is no timer's id: sent)
        if signature.startswith("t") and body[0] in self.on_low_ids:
            self.on_low_ids[body[0]] += 1
        self.log.append([method, signature, body, None])
        if len(self.log) > 20000:
            del self.log[:10000]
        reply = self.call(self.target, method, signature, body, timeout=CALL_TIMEOUT)
        if method == "Add" and reply.header.message_type == MessageType.method_return:
            self.made.append(reply.body[0])
            self.log[-1][3] = reply.body[0]
        return reply

    def property(self, name):
        address = DBusAddress(PATH, bus_name=NAME, interface="org.freedesktop.DBus.Properties")
        kind = self.random.randrange(3)
        if kind == 0:
            self.call(address, "Get", "ss", (self.random.choice([INTERFACE, "", "x.y"]), name))
        elif kind == 1:
            self.call(address, "GetAll", "s", (self.random.choice([INTERFACE, "", "x.y"]),))
        else:
            self.call(address, "Set", "ssv", (INTERFACE, name, self.variant()))

    def clean_up(self):
        for id in self.made:
            self.call(self.target, "Remove", "t", (id,))


# How long one call may take before the service is taken as stuck: while
# fuzzing (the service may be busy with a large ListColumns), and replaying.
CALL_TIMEOUT = 10
REPLAY_TIMEOUT = 3


def shortened(value):
    """Long strings cut, for a line a person reads."""
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:20]!r}…({len(value)} characters)"
    if isinstance(value, (list, tuple)):
        return type(value)(shortened(item) for item in value) if isinstance(value, list) else \
            "(" + ", ".join(str(shortened(item)) for item in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{shortened(k)}: {shortened(v)}" for k, v in value.items()) + "}"
    return repr(value)


def described(call):
    """A call as a person reads it: Add('x', 59.9, {'tick': ('d', 5e-324)})."""
    method, _, body = call[:3]
    return f"{method}{shortened(tuple(body))}"


def write_log(path, calls):
    with open(path, "w") as out:
        for method, signature, body, added in calls:
            out.write(json.dumps([method, signature, list(body), added]) + "\n")


def read_log(path):
    calls = []
    for line in open(path):
        method, signature, body, added = json.loads(line)
        # a{sv} values were (signature, value) pairs: JSON made them lists
        body = [{k: tuple(v) for k, v in item.items()} if isinstance(item, dict) else item for item in body]
        calls.append((method, signature, tuple(body), added))
    return calls


def renumbered(signature, body, ids):
    """A call's timer ids (its first argument, an `after` option) as the
    fresh service numbered those timers."""
    body = list(body)
    if signature.startswith("t"):
        body[0] = ids.get(body[0], body[0])
    for index, item in enumerate(body):
        if isinstance(item, dict) and isinstance(item.get("after"), tuple) and item["after"][0] == "t":
            body[index] = {**item, "after": ("t", ids.get(item["after"][1], item["after"][1]))}
    return tuple(body)


def breaks(calls, restart):
    """True if `calls`, made on a fresh service (`restart`), leave it stuck
    or gone: a call or a ListColumns after them not answered in time."""
    subprocess.run(restart, shell=True, check=True, timeout=60)
    bus = open_dbus_connection(bus="SESSION")
    target = DBusAddress(PATH, bus_name=NAME, interface=INTERFACE)
    ids = {}  # the run's ids of timers added: the fresh service's
    try:
        for method, signature, body, added in calls:  # (a fresh service answers in milliseconds)
            body = renumbered(signature, body, ids)
            reply = bus.send_and_get_reply(new_method_call(target, method, signature, body), timeout=REPLAY_TIMEOUT)
            if added is not None and reply.header.message_type == MessageType.method_return:
                ids[added] = reply.body[0]
        bus.send_and_get_reply(new_method_call(target, "ListColumns", "as", (["id"],)), timeout=REPLAY_TIMEOUT)
        return False
    except Exception:  # a timeout, a closed connection
        return True
    finally:
        bus.close()


def reduce(log_path, restart):
    """The fewest calls of the log that still break the service: the
    shortest end of the log that does (1, 2, 4, ... calls: what broke it is
    usually just before the call that was not answered), then ddmin over
    that, 200 tries at most."""
    calls = read_log(log_path)
    if not calls:
        print("dbusfuzz: the log is empty", file=sys.stderr)
        return 1
    size = 1
    while size < len(calls) and not breaks(calls[-size:], restart):
        size *= 2
    calls = calls[-size:]
    if len(calls) > 1:
        chunks, tries = 2, 0
        while len(calls) > 1 and tries < 200:
            size = max(1, len(calls) // chunks)
            for start in range(0, len(calls), size):
                candidate = calls[:start] + calls[start + size:]
                tries += 1
                if candidate and breaks(candidate, restart):
                    calls, chunks = candidate, max(chunks - 1, 2)
                    break
            else:
                if size == 1:
                    break
                chunks = min(len(calls), chunks * 2)
    print(f"dbusfuzz: reduced to {len(calls)} call(s):")
    for call in calls:
        print("  " + described(call))
    return 0


def main():
    if sys.argv[1] == "reduce":
        return reduce(sys.argv[2], sys.argv[3])
    iterations = int(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
    log_path = sys.argv[4] if len(sys.argv) > 4 else None
    fuzzer = Fuzzer(seed)
    pid = fuzzer.pid()
    if pid is None:
        print("dbusfuzz: the service is not running", file=sys.stderr)
        return 1
    methods, properties = fuzzer.introspect()
    print(f"dbusfuzz: seed {seed}, pid {pid}, {len(methods)} methods, {len(properties)} properties", flush=True)
    deadline = time.monotonic() + seconds if seconds else None
    rounds = 0
    while True:
        for method, signature in sorted(methods.items()):
            for _ in range(iterations):
                try:
                    fuzzer.member(method, signature)
                except Exception as error:  # a timeout, a closed connection
                    last = described(fuzzer.log[-1]) if fuzzer.log else method
                    print(f"dbusfuzz: {last}: {error!r} (seed {seed})", file=sys.stderr)
                    if log_path:
                        write_log(log_path, fuzzer.log)
                    return 1
        for name in sorted(properties):
            for _ in range(iterations):
                fuzzer.property(name)
        rounds += 1
        if fuzzer.pid() != pid:
            print(f"dbusfuzz: the service (pid {pid}) is gone after round {rounds} (seed {seed})", file=sys.stderr)
            return 1
        if deadline is None or time.monotonic() > deadline:
            break
        if len(fuzzer.made) > 5000:  # stay clear of the timer limit on long runs
            fuzzer.clean_up()
            fuzzer.made = []
    fuzzer.clean_up()
    print(f"dbusfuzz: {fuzzer.calls} calls in {rounds} rounds, the service (pid {pid}) answered them all; "
          f"first id {fuzzer.floor}, calls on id 0: {fuzzer.on_low_ids[0]}, on id 1: {fuzzer.on_low_ids[1]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
