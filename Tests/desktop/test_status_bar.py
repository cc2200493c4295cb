"""A real status bar showing a service timer: i3 with i3bar on the session's
Xvfb, its status_command `tocsin ls --follow --format i3bar`. The bar draws
the timer (a screenshot in out/artifacts/i3bar.png, its corner read for
text), what it was sent is read back, and a click on the block pauses the
timer. (The formats against their protocols: Tests/service/test_status_bar.py.)"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ARTIFACTS
from servicebus import activation_environment, add, stop_service, timers, wait_until

if not os.environ.get("TOCSIN_SERVICE_DIR"):
    pytest.skip("run through `make test-desktop` (stages the service)", allow_module_level=True)


@pytest.fixture
def bar(tmp_path):
    stop_service()
    activation_environment(XDG_STATE_HOME=tmp_path / "state", TOCSIN_SERVICE_IDLE_EXIT=60)
    sent = tmp_path / "bar.out"
    config = tmp_path / "i3.conf"
    bin_dir = Path(os.environ["TOCSIN_BIN"]).parent
    config.write_text(f"""# i3 config file (v4)
font pango:monospace 10
bar {{
    position bottom
    status_command sh -c 'PATH={bin_dir}:$PATH tocsin ls --follow --format i3bar | tee -a {sent}'
}}
""")
    i3 = subprocess.Popen(["i3", "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: subprocess.run(["xdotool", "search", "--class", "i3bar"], capture_output=True).returncode == 0,
               what="i3bar's window")
    yield sent
    i3.terminate()
    i3.wait()
    stop_service()


def lines(sent):
    """The status updates i3bar was sent, as their blocks' text."""
    if not sent.exists():
        return []
    texts = []
    for line in sent.read_text().splitlines():
        if line.startswith("[{") or line.startswith(",[{"):
            texts.append(json.loads(line.lstrip(","))[0]["full_text"])
    return texts


def bright_share(png, geometry):
    """Share of light pixels (text) in a region of a screenshot."""
    result = subprocess.run(["convert", str(png), "-crop", geometry, "+repage", "-colorspace", "gray",
                             "-fx", "u>0.5 ? 1 : 0", "-format", "%[fx:mean]", "info:"],
                            capture_output=True, text=True, check=True)
    return float(result.stdout)


def test_i3bar_shows_the_timer_and_a_click_on_it_pauses_it(bar):
    tea = add("Tea", 600, live=("b", False), alert=("b", False), sound=("b", False))
    wait_until(lambda: [text for text in lines(bar) if text.startswith("Tea 9:")], what="the bar to be sent Tea's time")
    wait_until(lambda: len(lines(bar)) >= 3, what="the seconds to turn")  # drawn for a second at least
    shot = ARTIFACTS / "i3bar.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["import", "-window", "root", str(shot)], check=True)
    status, empty = bright_share(shot, "160x18+1120+782"), bright_share(shot, "160x18+600+782")
    print(f"i3bar: {status:.3f} of the status corner is text, {empty:.3f} of the middle; last sent {lines(bar)[-1]!r}")
    assert status > 0.03 and empty < 0.005  # the text is drawn where i3bar puts the status
    subprocess.run(["xdotool", "mousemove", "1250", "791", "click", "1"], check=True)
    wait_until(lambda: timers()[tea]["state"] == "suspended", what="the click to pause Tea")
    wait_until(lambda: lines(bar)[-1].endswith("(paused)"), what="the bar to show it paused")
