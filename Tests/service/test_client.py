"""The command as the timer service's client (`-b`, `ls`, the controls,
`ls --follow`, `watch`), on a private bus that activates the staged service."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import TOCSIN
from usermanager import UserManager
from servicebus import DEADLINE, activation_environment, add, boot_time, properties, service_pid, stop_service, wait_until


def tocsin(*arguments, timeout=30):
    return subprocess.run([TOCSIN, *arguments], capture_output=True, text=True, timeout=timeout)


def listed_json():
    result = tocsin("ls", "--json")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_a_background_timer_is_listed_paused_adjusted_and_rings_on_time(signals):
    began = boot_time()
    handed = tocsin("4s", "Tea", "-b", "--no-live")
    handed_at = boot_time()
    assert handed.returncode == 0, handed.stderr
    assert re.fullmatch(r"Tea: id (\d+), ends (at \d\d:\d\d:\d\d|\S+ \d{4}-\d\d-\d\d \d\d:\d\d)\n", handed.stdout)
    assert re.search(r"^\s*\d+\s+Tea\s+running\s+00:0\d left$", tocsin("ls").stdout, re.M)
    (tea,) = listed_json()
    assert (tea["label"], tea["state"], tea["duration"]) == ("Tea", "running", 4.0)
    assert tocsin("pause", "Tea").returncode == 0
    first = listed_json()[0]["remaining"]
    time.sleep(1)  # nothing moves while paused
    assert listed_json()[0]["remaining"] == first and listed_json()[0]["state"] == "suspended"
    assert tocsin("resume", "Tea").returncode == 0
    assert tocsin("adjust", "Tea", "+1s").returncode == 0
    assert listed_json()[0]["duration"] == 5.0
    (finish,) = signals.wait_for("Finished")
    assert handed_at < finish.at  # -b handed it over and returned: it did not wait for the timer
    assert finish.at - began >= 6.0  # 4 s + 1 s paused + 1 s added: never early


def test_background_timers_are_live_unless_told_and_take_a_warning():
    assert tocsin("30s", "Tea", "-b", "--warn", "10s").returncode == 0
    assert tocsin("40s", "Rice", "-b", "--no-live").returncode == 0
    listed = {timer["label"]: (timer["live"], timer["warn"]) for timer in listed_json()}
    assert listed == {"Tea": (True, 10.0), "Rice": (False, 0.0)}


def test_parallel_and_a_repeated_sequence_in_the_background(signals):
    assert tocsin("--parallel", "30s:Eggs", "40s:Rice", "-b").returncode == 0
    assert {timer["label"]: timer["state"] for timer in listed_json()} == {"Eggs": "running", "Rice": "running"}
    for timer in listed_json():
        assert tocsin("rm", str(timer["id"])).returncode == 0
    began = boot_time()
    assert tocsin("1s:Work", "0.5s:Break", "--repeat", "2", "-b").returncode == 0
    labels = [timer["label"] for timer in listed_json()]
    assert labels == ["Work", "Break", "Work", "Break"]
    assert [timer["state"] for timer in listed_json()] == ["running", "idle", "idle", "idle"]
    finished = signals.wait_for("Finished", 4)
    times = [record.at - began for record in finished]
    assert [record.args[1] for record in finished] == labels
    assert times[0] >= 1.0 and times[1] >= 1.5 and times[2] >= 2.5 and times[3] >= 3.0
    assert tocsin("5s", "-b", "--repeat", "0").returncode == 2


def test_timers_are_named_by_id_label_or_unique_prefix():
    for label in ("Tea", "Toast", "Tofu"):
        assert tocsin("1h", label, "-b").returncode == 0
    ids = {timer["label"]: timer["id"] for timer in listed_json()}
    assert tocsin("pause", "Tea").returncode == 0  # exact, though a prefix of nothing else
    assert tocsin("pause", "Toa").returncode == 0  # unique prefix
    assert tocsin("lap", str(ids["Tofu"])).stdout.startswith("Tofu: lap ")  # id
    states = {timer["label"]: timer["state"] for timer in listed_json()}
    assert states == {"Tea": "suspended", "Toast": "suspended", "Tofu": "running"}
    ambiguous = tocsin("cancel", "To")
    assert ambiguous.returncode == 2 and "Toast" in ambiguous.stderr and "Tofu" in ambiguous.stderr
    assert len(ambiguous.stderr.strip().splitlines()) == 1
    unknown = tocsin("cancel", "Soup")
    assert unknown.returncode == 1 and len(unknown.stderr.strip().splitlines()) == 1
    assert tocsin("cancel", "Tofu").returncode == 0
    assert tocsin("restart", "Tofu").returncode == 0
    assert tocsin("adjust", "Tea", "-30m").returncode == 0
    assert [timer["duration"] for timer in listed_json() if timer["label"] == "Tea"] == [1800.0]


def test_ls_follow_prints_a_pause_made_from_another_shell_at_once(signals):
    assert tocsin("1h", "Roast", "-b").returncode == 0
    signals.wait_for("Changed")  # (its start)
    follow = subprocess.Popen([TOCSIN, "ls", "--follow", "--json"], stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(follow.stdout.readline())["label"] == "Roast"  # the timers as they are
        # Subscribed: `Watch` comes after the match rule; the service runs on while watched.
        assert tocsin("pause", "Roast").returncode == 0
        line = json.loads(follow.stdout.readline())
        arrived = boot_time()
        assert (line["event"], line["label"], line["state"]) == ("changed", "Roast", "suspended")
        # As soon as the signal went out (dbus-monitor saw it at the same moment).
        paused = wait_until(lambda: [record for record in signals.named("Changed")
                                     if properties(record)["state"] == "suspended"])
        sent = paused[0].at
        assert arrived - sent < 0.1
    finally:
        follow.terminate()
        follow.wait(5)


def test_watch_shows_a_service_timer_and_its_keys_act_on_the_service():
    import pexpect

    assert tocsin("1h", "Stock", "-b").returncode == 0
    child = pexpect.spawn(TOCSIN, ["watch", "Stock"], dimensions=(24, 80), encoding="utf-8", timeout=DEADLINE)
    child.expect("running")  # drawn: the terminal is in raw mode by now
    child.send(" ")
    wait_until(lambda: listed_json()[0]["state"] == "suspended")  # paused in the service
    child.send(" ")
    wait_until(lambda: listed_json()[0]["state"] == "running")
    child.send("+")
    wait_until(lambda: listed_json()[0]["duration"] == 3660.0)
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert listed_json()[0]["state"] == "running"  # detaching leaves it running
    child = pexpect.spawn(TOCSIN, ["watch"], dimensions=(24, 80), encoding="utf-8", timeout=DEADLINE)
    child.expect("running")
    child.send("c")
    child.expect(pexpect.EOF)  # nothing left running to watch
    child.close()
    assert child.exitstatus == 0
    assert listed_json()[0]["state"] == "canceled"


def test_the_python_example_controls_the_service():
    example = Path(__file__).resolve().parents[2] / "bindings/python/examples/service_timers.py"

    def run(*arguments):
        return subprocess.run([sys.executable, str(example), *arguments], capture_output=True, text=True, timeout=30)

    added = run("add", "Scones", "600")
    assert added.returncode == 0, added.stderr
    timer = int(added.stdout)
    assert re.fullmatch(rf"{timer}  Scones  running  (599|600)\.\d s left\n", run("list").stdout)
    stopwatch = add("Run", 0, kind=("s", "stopwatch"))
    assert re.search(rf"^{stopwatch}  Run  running  \d+\.\d s$", run("list").stdout, re.M)
    assert run("pause", str(timer)).returncode == 0
    assert run("adjust", str(timer), "-60").returncode == 0
    assert listed_json()[0]["state"] == "suspended" and listed_json()[0]["duration"] == 540.0
    missing = run("pause", "999")
    assert missing.returncode == 1 and "dev.tocsin.Timers1.Error.NoSuchTimer" in missing.stderr
    assert run("cancel", str(timer)).returncode == 0 and listed_json()[0]["state"] == "canceled"


def test_a_watching_client_keeps_the_service_up_and_its_leaving_lets_it_go():
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    follow = subprocess.Popen([TOCSIN, "ls", "--follow", "--json"], stdout=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: service_pid() is not None)
        time.sleep(2.5)  # idle for more than its 1 s, but watched: it stays
        assert service_pid() is not None
    finally:
        follow.terminate()
        follow.wait(DEADLINE)
    wait_until(lambda: service_pid() is None, what="the service to exit once nobody watches")


def test_cancelling_a_sequence_cancels_the_rest_and_lets_the_service_exit(signals):
    """`tocsin 25m:Work 5m:Break -b`, then `tocsin cancel Work`: Break,
    waiting for Work, is cancelled too (it never shows as running), and
    nothing is left to keep the service up."""
    activation_environment(TOCSIN_SERVICE_IDLE_EXIT=1)
    assert tocsin("25m:Work", "5m:Break", "-b").returncode == 0
    assert tocsin("cancel", "Work").returncode == 0
    assert {timer["label"]: timer["state"] for timer in listed_json()} == {"Work": "canceled", "Break": "canceled"}
    wait_until(lambda: service_pid() is None, what="the idle service to exit")
    rest = [properties(record)["state"] for record in signals.named("Changed") if properties(record)["label"] == "Break"]
    assert rest == ["idle", "canceled"] or rest == ["canceled"], rest  # (its Add, if announced), never running


def test_doctor_says_whether_the_service_can_be_started_and_where_its_state_is():
    result = tocsin("doctor")
    assert result.returncode == 0, result.stderr  # a session bus; no notification server is said, not fatal
    assert "timer service: not running; the session bus starts it at the first call" in result.stdout
    assert re.search(r"^timer state: \S+/state/tocsin \(made at the first change\): writable, \d+ MB free$",
                     result.stdout, re.M), result.stdout
    assert tocsin("1h", "Tea", "-b").returncode == 0
    assert re.search(r"^timer service: running \(pid \d+\)$", tocsin("doctor").stdout, re.M)


def test_doctor_warns_of_a_user_manager_that_would_not_start_the_service_with_the_wake_drop_in():
    """systemd 255 and 256 fail a user unit that asks for a capability
    (systemd #33167): doctor says so, and does not offer make install-wake."""
    for version, warned in [("255.4-1ubuntu8", True), ("256.5-2ubuntu3", True), ("257.9-1~deb13u1", False),
                            ("252.38-1~deb12u1", False)]:
        manager = UserManager(version=version)
        try:
            doctor = tocsin("doctor").stdout
        finally:
            manager.close()
        line = f"user manager: systemd {version}, which fails to start a user unit that asks for a capability"
        assert (line in doctor) == warned, (version, doctor)
    assert "user manager:" not in tocsin("doctor").stdout  # none on the bus: nothing said


def test_install_wake_is_refused_where_systemd_would_then_not_start_the_service(tmp_path):
    """make install-wake on systemd 255 or 256 (told by a stand-in systemctl,
    as this machine's is 252) installs nothing and says why; WAKE_FORCE=1
    installs it; other versions install it."""
    root = Path(__file__).resolve().parents[2]
    dropin = tmp_path / "prefix" / "share/systemd/user/tocsin.service.d/wake.conf"
    for version, installed, force in [("255", False, ""), ("256", False, ""), ("255", True, "1"), ("252", True, ""),
                                      ("257", True, "")]:
        systemctl = tmp_path / "systemctl"
        systemctl.write_text(f"#!/bin/sh\necho 'systemd {version} ({version}.1-1)'\necho '+PAM +AUDIT'\n")
        systemctl.chmod(0o755)
        dropin.unlink(missing_ok=True)
        result = subprocess.run(["make", "--no-print-directory", "-C", root, "install-wake", f"PREFIX={tmp_path}/prefix"],
                                capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, SYSTEMCTL=str(systemctl), WAKE_FORCE=force))
        assert dropin.exists() == installed and (result.returncode == 0) == installed, (version, force, result)
        if not installed:
            assert f"not installed: systemd {version} fails to start a user unit" in result.stderr, result.stderr


def test_installed_into_a_prefix_the_bus_does_not_search_the_message_says_what_to_do(tmp_path, monkeypatch):
    """`make install PREFIX=...` into a prefix the session bus does not
    search: `-b` fails with one line saying what to do, doctor says the
    same, and doing it as written makes the next `-b` work."""
    prefix = Path(os.environ["TOCSIN_SERVICE_DIR"]).parents[2]  # as make install lays it out
    command = str(prefix / "bin/tocsin")
    home = tmp_path / "elsewhere"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))  # (the bus takes the home folder from passwd)
    monkeypatch.delenv("XDG_DATA_DIRS", raising=False)
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", daemon.stdout.readline().strip())
        refused = subprocess.run([command, "30s", "Tea", "-b"], capture_output=True, text=True, timeout=DEADLINE)
        assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert "the session bus cannot start the timer service" in refused.stderr
        assert f"run {command} service --enable" in refused.stderr, refused.stderr
        doctor = subprocess.run([command, "doctor"], capture_output=True, text=True, timeout=DEADLINE).stdout
        assert f"timer service: cannot be started: this tocsin's service file is {prefix}" in doctor
        enabled = subprocess.run([command, "service", "--enable"], capture_output=True, text=True, timeout=DEADLINE)
        assert enabled.returncode == 0, enabled.stderr
        assert f"linked {home}/.local/share/dbus-1/services/dev.tocsin.Timers.service -> {prefix}" in enabled.stdout
        handed = subprocess.run([command, "30s", "Tea", "-b"], capture_output=True, text=True, timeout=DEADLINE)
        assert handed.returncode == 0 and handed.stdout.startswith("Tea: id 1,"), handed.stderr
        stop_service()
        disabled = subprocess.run([command, "service", "--disable"], capture_output=True, text=True, timeout=DEADLINE)
        assert disabled.returncode == 0, disabled.stderr
        assert f"removed {home}/.local/share/dbus-1/services/dev.tocsin.Timers.service\n" in disabled.stdout
        assert not (home / ".local/share/dbus-1/services/dev.tocsin.Timers.service").exists()
        again = subprocess.run([command, "ls"], capture_output=True, text=True, timeout=DEADLINE)
        assert again.returncode == 1 and "cannot start the timer service" in again.stderr, again.stderr
        nothing = subprocess.run([command, "service", "--disable"], capture_output=True, text=True, timeout=DEADLINE)
        assert nothing.stdout.startswith("nothing to disable"), nothing.stdout
    finally:
        if service_pid():
            stop_service()
        daemon.terminate()
        daemon.wait()


def test_refused_controls_name_the_timer_its_state_and_the_value():
    assert tocsin("5m", "Soup", "-b", "--no-live").returncode == 0
    assert tocsin("pause", "Soup").returncode == 0
    again = tocsin("pause", "Soup")
    assert (again.returncode, again.stderr) == (1, "tocsin: Soup is already paused\n")
    too_much = tocsin("adjust", "Soup", "-10m")  # paused with a little under 5 min left
    assert too_much.returncode == 1
    assert re.fullmatch(r"tocsin: Soup has (4:5\d|5:00) left; -10m would end it before now: use cancel, or -4m5\ds\n",
                        too_much.stderr), too_much.stderr
    assert tocsin("cancel", "Soup").returncode == 0
    assert tocsin("cancel", "Soup").stderr == "tocsin: Soup was cancelled: only a running or paused timer can be cancelled\n"


def test_a_control_on_several_timers_checks_every_name_first_and_says_what_it_did():
    for label in ("Tea", "Rice"):
        assert tocsin("1h", label, "-b", "--no-live").returncode == 0
    ids = {timer["label"]: timer["id"] for timer in listed_json()}
    wrong = tocsin("cancel", str(ids["Tea"]), "Rice", "99", "Soup")
    assert (wrong.returncode, wrong.stderr) == (1, "tocsin: no timer 99, Soup (tocsin ls lists them); nothing was changed\n")
    assert [timer["state"] for timer in listed_json()] == ["running", "running"]
    empty = tocsin("restart", "")  # the prefix of every label: names none
    assert (empty.returncode, empty.stderr) == (
        2, "tocsin: an empty name names no timer: give an id or a label (tocsin ls lists them); nothing was changed\n")
    assert tocsin("pause", "Rice").returncode == 0
    half = tocsin("pause", "Tea", "Rice", str(ids["Tea"]))
    assert (half.returncode, half.stderr) == (1, "tocsin: Rice is already paused (done: Tea; not tried: %d)\n" % ids["Tea"])
    assert {timer["label"]: timer["state"] for timer in listed_json()} == {"Tea": "suspended", "Rice": "suspended"}


def test_a_sequences_rounds_are_named_by_their_label():
    """`25m:Work 5m:Break --repeat 2 -b` makes four timers, two called Work:
    a name reaches the round that runs (or the next one to), and the rounds
    waiting their turn list as waiting."""
    assert tocsin("25m:Work", "5m:Break", "--repeat", "2", "-b", "--no-live").returncode == 0
    listed = listed_json()
    assert [(timer["label"], timer["state"]) for timer in listed] == [
        ("Work", "running"), ("Break", "idle"), ("Work", "idle"), ("Break", "idle")]
    states = [line.split()[2] for line in tocsin("ls").stdout.splitlines()]
    assert states == ["running", "waiting", "waiting", "waiting"], states
    paused = tocsin("pause", "Work")
    assert paused.returncode == 0, paused.stderr
    assert [timer["state"] for timer in listed_json()] == ["suspended", "idle", "idle", "idle"]
    later = tocsin("adjust", "Break", "+1m")  # the first Break, next in line
    assert later.returncode == 0, later.stderr
    assert [timer["duration"] for timer in listed_json()] == [1500.0, 360.0, 1500.0, 300.0]
    assert tocsin("resume", "Work").returncode == 0
    assert listed_json()[0]["state"] == "running"
    assert tocsin("25m", "Work", "-b", "--no-live").returncode == 0  # a Work of its own: two running now
    both = tocsin("pause", "Work")
    assert both.returncode == 2 and "could be any of" in both.stderr, both.stderr


def test_a_stopwatch_in_the_service():
    handed = tocsin("sw", "Run", "-b")
    assert handed.returncode == 0 and re.fullmatch(r"Run: id (\d+), stopwatch running \(tocsin lap \1, tocsin ls\)\n",
                                                   handed.stdout), handed
    (run,) = listed_json()
    assert (run["label"], run["kind"], run["state"]) == ("Run", "stopwatch", "running")
    assert tocsin("lap", "Run").stdout.startswith("Run: lap ")


def test_watch_with_several_timers_acts_on_the_selected_one():
    """The soonest is selected (▸) at first; space pauses it alone; ↓
    selects the next; + gives that one a minute."""
    import pexpect

    assert tocsin("1h", "Tea", "-b", "--no-live").returncode == 0
    assert tocsin("30m", "Rice", "-b", "--no-live").returncode == 0
    child = pexpect.spawn(TOCSIN, ["watch"], dimensions=(24, 80), encoding="utf-8", timeout=DEADLINE)
    child.expect("▸ 2  Rice")  # drawn, the soonest selected, with its id
    child.send(" ")
    wait_until(lambda: {t["label"]: t["state"] for t in listed_json()} == {"Tea": "running", "Rice": "suspended"})
    child.send("\x1b[B")  # down: Tea
    child.expect("▸ 1  Tea")
    child.send("+")
    wait_until(lambda: {t["label"]: t["duration"] for t in listed_json()} == {"Tea": 3660.0, "Rice": 1800.0})
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_rm_finished_clears_the_timers_that_are_over(signals):
    assert tocsin("0.2s", "Egg", "-b", "--no-live").returncode == 0
    assert tocsin("1h", "Roast", "-b", "--no-live").returncode == 0
    assert tocsin("1h", "Stock", "-b", "--no-live").returncode == 0
    assert tocsin("cancel", "Stock").returncode == 0
    signals.wait_for("Finished")
    result = tocsin("rm", "--finished")
    assert (result.returncode, result.stdout) == (0, "Removed 2: Egg, Stock\n"), result.stderr
    assert [timer["label"] for timer in listed_json()] == ["Roast"]
    assert tocsin("rm", "--finished").stdout == "No timer is over\n"
    assert tocsin("rm").returncode == 2  # nothing named
    assert re.search(r"^\s*\d+\s+Roast\s+paused\s+", (tocsin("pause", "Roast"), tocsin("ls"))[1].stdout, re.M)


def test_ls_fits_the_terminal_and_a_pipe_gets_whole_lines():
    """One long label cut to fit an 80-column terminal (issue 58: it padded
    every row past 200 columns, pushing the states and times off screen);
    a pipe, which a script reads, still gets it whole."""
    import pexpect

    long = "A very long label " * 12
    quiet = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}
    add(long.strip(), 600, **quiet)
    add("Tea", 300, **quiet)
    session = pexpect.spawn(TOCSIN, ["ls"], dimensions=(24, 80), encoding="utf-8", timeout=30)
    session.expect(pexpect.EOF)
    rows = [line for line in session.before.replace("\r", "").split("\n") if line.strip()]
    assert len(rows) == 2 and all(len(row) < 80 for row in rows), rows
    assert "…" in rows[0] and "running" in rows[0] and re.search(r"  Tea +running +0?[45]:\d\d left$", rows[1]), rows
    piped = subprocess.run([TOCSIN, "ls"], capture_output=True, text=True, timeout=30).stdout
    assert long.strip() in piped


def test_ls_follow_keeps_its_listings_columns():
    """A change's line keeps the columns of the listing before it (issue
    58: each line took its own widths, so they did not line up)."""
    quiet = {"live": ("b", False), "sound": ("b", False), "alert": ("b", False)}
    tea = add("Tea", 600, **quiet)
    add("A much longer label", 600, **quiet)
    follow = subprocess.Popen([TOCSIN, "ls", "--follow"], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "LANG": "C.UTF-8"})
    try:
        listed = [follow.stdout.readline().rstrip("\n") for _ in range(2)]
        assert tocsin("pause", "Tea").returncode == 0
        changed = ""
        while not (changed.startswith(f"{tea}  Tea ") and "paused" in changed):  # (a late change of the other may come first)
            changed = follow.stdout.readline().rstrip("\n")
            assert changed, "the follow ended"
    finally:
        follow.kill()
        follow.wait()
    assert changed.startswith(f"{tea}  Tea ") and "paused" in changed, changed
    assert changed.index("paused") == listed[0].index("running"), (listed, changed)


def test_a_background_timer_that_ends_another_day_says_its_date_and_days_are_days():
    """`until 17:00 Meet -b` at 18:44 said "ends at 17:00:00", which reads
    as the past: a timer that ends on another day says its date. And ls
    writes a time left past a day as a calendar alarm's is ("1d 12:14:59"),
    not "36:14:59" (issue 58)."""
    then = time.localtime(time.time() - 120)  # two minutes ago: tomorrow's
    clock = f"{then.tm_hour:02d}:{then.tm_min:02d}"
    handed = subprocess.run([TOCSIN, "until", clock, "Meet", "-b", "--quiet"], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
    ends = time.localtime(time.time() + 86400 - 180)
    if ends.tm_yday != time.localtime().tm_yday:
        assert re.fullmatch(rf"Meet: id \d+, ends \S+ {time.strftime('%Y-%m-%d', ends)} {clock}\n", handed.stdout), handed
    tocsin("36h", "Long", "-b", "--quiet")
    listed = subprocess.run([TOCSIN, "ls"], capture_output=True, text=True, timeout=30).stdout
    assert re.search(r"  Long +running +1d 1[12]:\d\d:\d\d left$", listed, re.M), listed
