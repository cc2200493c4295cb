"""The service's cost of live notifications (bench/live.sh runs this in a
headless session with dunst): for K live timers (an hour each), the
context switches per second of all the service's threads and of its
notifier's thread ("tocsin-notify"), and the Notify and CloseNotification
calls dunst receives, over SECONDS after they settle; then, over SECONDS
more under strace, how often the main loops of the service's main thread
and of its notifier's thread woke because a timeout was due (a poll that
returned 0). Prints one line of key=value per K."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "support"))
from servicebus import Monitor, activation_environment, call, service_pid, stop_service, wait_until  # noqa: E402


def switches(pid):
    """Context switches of each of the process's threads, by thread name."""
    by_name = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        count = sum(int(line.split(":")[1]) for line in (task / "status").read_text().splitlines()
                    if "ctxt_switches:" in line)
        by_name[name] = by_name.get(name, 0) + count
    return by_name


def timeouts(pid, seconds):
    """Polls that ended in a timeout over `seconds`, per second, by thread
    name (strace follows every thread of the process)."""
    trace = tempfile.NamedTemporaryFile(suffix=".strace", delete=False).name
    subprocess.run(["timeout", "-s", "INT", str(seconds), "strace", "-f", "-qq", "-e", "trace=poll,ppoll",
                    "-o", trace, "-p", str(pid)], check=False)
    names = {task.name: (task / "comm").read_text().strip() for task in Path(f"/proc/{pid}/task").iterdir()}
    woke = {}
    for line in open(trace):
        tid, _, rest = line.partition(" ")
        if rest.rstrip().endswith("= 0 (Timeout)"):
            name = "main" if tid == str(pid) else names.get(tid, tid)
            woke[name] = woke.get(name, 0) + 1
    os.unlink(trace)
    return {name: count / seconds for name, count in woke.items()}


def measure(count, seconds):
    stop_service()
    activation_environment(XDG_STATE_HOME=tempfile.mkdtemp(), TOCSIN_SERVICE_IDLE_EXIT=600)
    call("List")
    pid = service_pid()
    for i in range(count):
        call("Add", "sda{sv}", f"Timer {i}", 3600 + 7 * i, "0")  # live by default
    time.sleep(3)  # the adds' own notifications settle
    notify = Monitor("org.freedesktop.Notifications", kinds=("method_call",))
    time.sleep(0.5)
    before, start = switches(pid), time.clock_gettime(time.CLOCK_BOOTTIME)
    time.sleep(seconds)
    after, elapsed = switches(pid), time.clock_gettime(time.CLOCK_BOOTTIME) - start
    calls = len([m for m in notify.named("Notify") if m.at >= start - 0.01])
    closes = len([m for m in notify.named("CloseNotification") if m.at >= start - 0.01])
    notify.close()
    woke = timeouts(pid, seconds)
    stop_service()
    total = sum(after.values()) - sum(before.values())
    notifier = after.get("tocsin-notify", 0) - before.get("tocsin-notify", 0)
    return (total / elapsed, calls / elapsed, closes / elapsed, notifier / elapsed, woke.get("main", 0.0),
            woke.get("tocsin-notify", 0.0))


seconds = float(os.environ.get("SECONDS_MEASURED", "10"))
for count in [int(arg) for arg in sys.argv[1:]] or [1, 3, 10, 50]:
    rate, notifies, closes, notifier, main_woke, notifier_woke = measure(count, seconds)
    print(f"live={count} switches_per_s={rate:.2f} notify_per_s={notifies:.2f} close_per_s={closes:.2f} "
          f"notifier_switches_per_s={notifier:.2f} main_timeouts_per_s={main_woke:.2f} "
          f"notifier_timeouts_per_s={notifier_woke:.2f}", flush=True)
