"""`tocsin service --live-limit`: bad counts are usage errors (the live
notifications it limits are tested in the desktop session)."""

import os
import subprocess

import pytest

BIN = os.environ.get("TOCSIN_BIN", "tocsin")


@pytest.mark.parametrize("value", ["-1", "1001", "three", "2.5"])
def test_bad_live_limits_are_usage_errors(value):
    result = subprocess.run([BIN, "service", "--live-limit", value], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result  # a usage error, as every other
    assert "--live-limit" in result.stderr or "live-limit" in result.stderr, result.stderr
