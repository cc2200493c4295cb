"""Tests/support/flooder.py from a test: started (in a bubblewrap sandbox
if asked), and its answers read (Tests/service)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from sandbox import python_binds, sandboxed

FLOODER = Path(__file__).resolve().parent / "flooder.py"


def flooder(connections, calls, method, signature, body, sandbox=None, hold=False):
    """Tests/support/flooder.py, started; returns (process, its written time).
    `hold`: it keeps its connections until its standard input closes."""
    command = [sys.executable, str(FLOODER), str(connections), str(calls), method, signature, json.dumps(body)]
    if sandbox is None:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env={**os.environ, "FLOODER_HOLD": "1" if hold else ""})
    else:
        process = sandboxed(sandbox, *command, started=True,
                            binds=python_binds() + ["--ro-bind", str(FLOODER.parent), str(FLOODER.parent)])
    line = process.stdout.readline()
    assert line, process.stderr.read()
    return process, json.loads(line)["written"]


def finished(process):
    """The flooder's last line, once it is done. (Read through the same
    buffered stream as its first line: `communicate()` would miss what that
    readline already buffered, the whole answer when it came fast.)"""
    out = process.stdout.read()
    err = process.stderr.read()
    process.wait(timeout=300)
    assert process.returncode == 0 and out.strip(), err
    return json.loads(out.splitlines()[-1])


def answers(process):
    """The flooder's answer times and error counts, once it is done."""
    result = finished(process)
    return result["answers"], result["errors"]


def one_call(method, signature, body, sandbox=None):
    """One call made through jeepney (which sends any double, 5e-324 too:
    gdbus's and busctl's parsers refuse it); (error name or None, message)."""
    process, _ = flooder(1, 1, method, signature, body, sandbox=sandbox)
    result = finished(process)
    for name, message in result["messages"].items():
        return name, message
    return None, ""
