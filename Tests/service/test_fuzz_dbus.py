"""The service under a D-Bus fuzzer (Tests/support/dbusfuzz.py, in
dfuzzer's manner): a few hundred calls of every method and property with
generated values. It must keep its process, keep answering, and leave the
timers made before it as they were. The long run: scripts/fuzz-dbus.sh."""

import os
import subprocess
import sys
from pathlib import Path

from servicebus import add, call, service_pid, timers

FUZZER = Path(__file__).resolve().parents[1] / "support" / "dbusfuzz.py"
QUIET = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}
KEPT = ("label", "kind", "state", "duration", "calendar", "owner")


def test_the_service_survives_a_fuzzer_and_keeps_the_timers_made_before():
    tea = add("Tea", 600, **QUIET)
    wake = add("Wake", 0, calendar=("s", "Mon..Fri 07:00"), **QUIET)
    paused = add("Bread", 900, **QUIET)
    call("Pause", "t", paused)
    before = {id: {k: v for k, v in t.items() if k in KEPT} for id, t in timers().items()}
    pid = service_pid()
    seed = os.environ.get("TOCSIN_FUZZ_SEED", str(os.getpid()))
    result = subprocess.run([sys.executable, str(FUZZER), "300", "0", seed], capture_output=True, text=True, timeout=600)
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert service_pid() == pid
    after = {id: {k: v for k, v in t.items() if k in KEPT} for id, t in timers().items() if id in before}
    assert after == before and set(before) == {tea, wake, paused}
