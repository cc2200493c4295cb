"""The drift test's command part: every alarm setting in Tests/alarm-fields.tsv
has its options in `tocsin --help` (the countdown) and `tocsin every --help`,
or a reason in the table why not. (AlarmFieldHomesTests checks the rest.)"""

import os
import re
import subprocess
from pathlib import Path

import pytest

TOCSIN = os.environ.get("TOCSIN_BIN", "")
if not TOCSIN:
    pytest.skip("run through `make test-cli`", allow_module_level=True)

TABLE = Path(__file__).resolve().parents[1] / "alarm-fields.tsv"


def rows():
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            field, _, _, _, _, countdown, every, why = line.split("\t")
            yield field, countdown, every, why


def options(*command):
    text = subprocess.run([TOCSIN, *command, "--help"], capture_output=True, text=True, timeout=30, check=True).stdout
    return set(re.findall(r"--[a-z][a-z-]*", text))


def test_every_alarm_setting_has_its_options_in_both_commands():
    countdown, every = options("countdown"), options("every")
    for field, countdown_options, every_options, why in rows():
        for names, offered in ((countdown_options, countdown), (every_options, every)):
            if names == "-":
                assert why, f"{field}: no option and no reason"
                continue
            missing = set(names.split()) - offered
            assert not missing, f"{field}: {missing} not in the command's options"
