"""Every finish announced at least once and shown once: a finish is written
as due to be announced before anything is announced, and as announced once
its alert is up. These tests kill the service at chosen points with a stand-in
notification server on the test's bus (Tests/desktop/bare_notification_server.py:
it replaces a notification only by its id, as GNOME Shell does, and can hold
its answer to the alarm's Notify so that the kill falls while it is pending).
The 200 kills at random moments around finishes are in Tests/desktop."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from servicebus import DEADLINE, add, call, service_pid, timers, wait_until

TOCSIN = os.environ.get("TOCSIN_BIN", "")

REPO = Path(__file__).resolve().parents[2]
BARE_SERVER = REPO / "Tests/desktop/bare_notification_server.py"


class BareServer:
    """The stand-in server: its Notify calls, as it logged them."""

    def __init__(self, folder, slow_body=None, seconds=0.0):
        self.log = folder / "notifications.jsonl"
        extra = [slow_body, str(seconds)] if slow_body else []
        self.process = subprocess.Popen([sys.executable, str(BARE_SERVER), str(self.log), "body,actions", *extra],
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "READY"

    def notifies(self, body=None):
        if not self.log.exists():
            return []
        calls = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [call for call in calls if call["member"] == "Notify" and (body is None or call["body"] == body)]

    def close(self):
        self.process.terminate()
        self.process.wait()


@pytest.fixture
def server(tmp_path):
    servers = []

    def start(slow_body=None, seconds=0.0):
        servers.append(BareServer(tmp_path, slow_body, seconds))
        return servers[-1]

    yield start
    for started in servers:
        started.close()


def records(state_file, timer):
    """Timer `timer`'s records in the journal, oldest first."""
    journal = state_file.with_suffix(".journal")
    lines = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
    return [line for line in lines if line.get("id") == timer]


def test_each_finish_is_numbered_and_announced_once(signals, server):
    server()
    timer = add("Tea", 0.3, live=("b", False))
    signals.wait_for("FinishAnnounced", id=timer)
    call("Restart", "t", timer)
    announced = signals.wait_for("FinishAnnounced", count=2, id=timer)
    assert [record.args[1:2] + record.args[3:] for record in announced] == [("Tea", 1, False), ("Tea", 2, False)]
    signals.sync()
    # Each right after its Finished, with the same lateness.
    sent = [record for record in signals.read() if record.member in ("Finished", "FinishAnnounced")]
    assert [record.member for record in sent] == ["Finished", "FinishAnnounced"] * 2
    assert sent[0].args[:3] == sent[1].args[:3] and sent[2].args[:3] == sent[3].args[:3]
    assert timers()[timer]["finishes"] == 2


def test_an_alert_killed_before_it_is_up_is_announced_again_and_replaces_the_live_notification(signals, server, state_file):
    """Killed while the server holds the alarm's Notify: the finish is
    recorded as not announced; the service back announces it again
    (`again` true) and its alarm replaces the live notification whose id it
    had recorded: one notification for the timer, never two."""
    bare = server("Time is up", 4)
    timer = add("Tea", 1.5)  # live: its notification's id is recorded while it runs
    wait_until(lambda: any(record.get("notification") for record in records(state_file, timer)),
               what="the live notification's id in the journal")
    live_id = [record["notification"] for record in records(state_file, timer) if record.get("notification")][-1]
    (first,) = signals.wait_for("FinishAnnounced", id=timer)
    assert first.args[3:] == (1, False)
    wait_until(lambda: bare.notifies("Time is up"), what="the alarm's Notify at the server")
    assert records(state_file, timer)[-1].get("announced") is False  # due, not announced
    pid = service_pid()
    signal_pid(pid)
    wait_until(lambda: service_pid() is None, what="the killed service to leave the bus")
    assert timers()[timer]["state"] == "finished"  # activates it again
    (_, again) = signals.wait_for("FinishAnnounced", count=2, id=timer)
    assert again.args[3:] == (1, True)
    assert len(signals.named("Finished", id=timer)) == 2
    alarms = wait_until(lambda: len(bare.notifies("Time is up")) == 2 and bare.notifies("Time is up"),
                        what="the alarm shown again")
    assert [notify["replaces"] for notify in alarms] == [live_id, live_id]
    assert [notify["replaces"] for notify in bare.notifies()].count(0) == 1  # the first live frame only
    # (The journal is empty for a moment after the restart folds it into the snapshot.)
    wait_until(lambda: (found := records(state_file, timer)) and "announced" not in found[-1],
               what="the finish recorded as announced")
    assert records(state_file, timer)[-1]["notification"] == live_id
    assert timers()[timer]["finishes"] == 1


def test_an_alert_with_no_recorded_id_carries_the_timers_tag_both_times(signals, server, state_file):
    """No live notification, killed while the alarm's Notify is pending: no
    id was recorded to replace, so the repeated alarm is a new notification
    for a server like this one; both carry the timer's stack tag, by which
    dunst, mako and swaync replace it (Tests/desktop shows dunst doing so)."""
    bare = server("Time is up", 4)
    timer = add("Eggs", 0.5, live=("b", False))
    wait_until(lambda: bare.notifies("Time is up"), what="the alarm's Notify at the server")
    signal_pid(service_pid())
    wait_until(lambda: service_pid() is None, what="the killed service to leave the bus")
    timers()
    signals.wait_for("FinishAnnounced", count=2, id=timer)
    alarms = wait_until(lambda: len(bare.notifies("Time is up")) == 2 and bare.notifies("Time is up"),
                        what="the alarm shown again")
    tag = f"dev.tocsin.timer.{timer}"
    for notify in alarms:
        assert notify["hints"]["x-dunst-stack-tag"] == tag
        assert notify["hints"]["x-canonical-private-synchronous"] == tag


def test_a_finish_due_in_the_file_is_announced_when_the_service_starts(signals, state_file):
    """The state file says a finish was recorded and not announced (the
    service was killed between the two): the next start sends Finished and
    FinishAnnounced with `again`; the next restart sends nothing more."""
    timer = add("Rice", 0.2, live=("b", False), alert=("b", False), sound=("b", False))
    signals.wait_for("FinishAnnounced", id=timer)
    wait_until(lambda: (found := records(state_file, timer)) and "announced" not in found[-1])
    signal_pid(service_pid())
    wait_until(lambda: service_pid() is None)
    journal = state_file.with_suffix(".journal")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    change = max(line["change"] for line in lines) + 1
    lines.append({**records(state_file, timer)[-1], "change": change, "announced": False})
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    # `tocsin ls --follow` (subscribed before its list starts the service) says so too.
    follow = subprocess.Popen([TOCSIN, "ls", "--follow", "--json"], stdout=subprocess.PIPE, text=True)
    try:
        events = [json.loads(follow.stdout.readline()) for _ in range(2)]
    finally:
        follow.terminate()
        follow.wait(DEADLINE)
    finish = next(event for event in events if event.get("event") == "finished")
    assert (finish["id"], finish["label"], finish["finish"], finish["again"]) == (timer, "Rice", 1, True)
    assert timers()[timer]["state"] == "finished"
    (_, again) = signals.wait_for("FinishAnnounced", count=2, id=timer)
    assert again.args[:2] == (timer, "Rice") and again.args[3:] == (1, True) and again.args[2] > 0
    wait_until(lambda: (found := records(state_file, timer)) and "announced" not in found[-1],
               what="the repeat recorded as announced")
    signal_pid(service_pid())
    wait_until(lambda: service_pid() is None)
    timers()
    signals.sync()
    assert len(signals.named("FinishAnnounced", id=timer)) == 2 and len(signals.named("Finished", id=timer)) == 2


def signal_pid(pid):
    assert pid
    os.kill(pid, signal.SIGKILL)
