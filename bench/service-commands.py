#!/usr/bin/env python3
"""The timer service's commands under a burst (docs/commands-and-hooks.md):
100 background countdowns ending in the same second, each with `--exec`,
and a `finish` hook, on a private bus with the real service. Prints how
soon after zero the commands ran (8 at a time), how late the hooks were
handed over (their JSON's `late`), and how long `tocsin ls` takes while they
run (the service's one thread never waits for a command).

    make stage-service
    python3 bench/service-commands.py out/debug/bin/tocsin out/debug/service-prefix/share/dbus-1/services
"""
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path
TOCSIN = sys.argv[1]
SERVICE_DIR = sys.argv[2]
root = Path(tempfile.mkdtemp(prefix="tocsin-burst-"))
home = root / "home"; home.mkdir(); (root / "run").mkdir(mode=0o700)
config = root / "bus.conf"
config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><include>/usr/share/dbus-1/session.conf</include><servicedir>{SERVICE_DIR}</servicedir></busconfig>""")
log = open(root / "bus.log", "ab")
bus = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, stderr=log, text=True)
address = bus.stdout.readline().strip()
env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, HOME=str(home), XDG_RUNTIME_DIR=str(root / "run"), XDG_STATE_HOME=str(root / "state"))
subprocess.run(["dbus-update-activation-environment", f"HOME={home}", f"XDG_RUNTIME_DIR={root/'run'}", f"XDG_STATE_HOME={root/'state'}"], env=env, check=True)
hooks = home / ".config/tocsin/hooks"; hooks.mkdir(parents=True)
(root / "events").mkdir()
(hooks / "finish").write_text(f"#!/bin/sh\ncat > {root}/events/$TOCSIN_ID.json\n"); (hooks / "finish").chmod(0o700)
words = [f"3s:T{n}" for n in range(100)]
subprocess.run([TOCSIN, "--parallel", *words, "-b", "--quiet", "--no-live", "--exec", f"date +%s.%N >> {root}/ran"], env=env, check=True, capture_output=True)
rounds = []
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    t = time.monotonic(); subprocess.run([TOCSIN, "ls"], env=env, capture_output=True); rounds.append(time.monotonic() - t)
    text = (root / "bus.log").read_text(errors="replace")
    if len(re.findall(r"(command|hook) (ran|exited|was killed)", text)) >= 200: break
    time.sleep(0.05)
text = (root / "bus.log").read_text(errors="replace")
events = [json.loads(path.read_text()) for path in (root / "events").iterdir()]
lates = sorted(e["late"] for e in events)
ran = sorted(float(x) for x in (root / "ran").read_text().split())
due = min(e["due"] for e in events)
print(f"runs over: {len(re.findall(r'(command|hook) (ran|exited|was killed)', text))}; hooks' JSON seen: {len(events)}")
print(f"late at hand-over (s): median {statistics.median(lates):.4f}, max {lates[-1]:.4f}")
print(f"exec commands: first ran {ran[0]-due:.3f} s after zero, last {ran[-1]-due:.3f} s")
print(f"tocsin ls meanwhile: {len(rounds)} calls, median {statistics.median(rounds)*1000:.0f} ms, max {max(rounds)*1000:.0f} ms")
bus.terminate()  # (the service leaves with its bus)
bus.wait()
shutil.rmtree(root, ignore_errors=True)
