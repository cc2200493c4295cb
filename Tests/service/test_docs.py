"""Every code block of the README and the docs, run as written: the Python
ones print what the text says they print, the C ones compile against the
staged header and library and run, the shell ones run on this test's
private bus (each command line of a list of examples in turn, a countdown
or stopwatch left running for a second and then ended, as a person would
try it). The few that cannot run here are listed with the step of
`make test` that runs them as written; a block in none of these fails."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OUT = Path(os.environ.get("TOCSIN_OUT", REPO / "out/debug"))
FILES = ["README.md", "bindings/python/README.md", "docs/dbus.md", "docs/timer-file.md"]

# Blocks run by another step of `make test`, as written (file, first line).
ELSEWHERE = {
    ("README.md", "scripts/demo.sh    # main job: builds the tocsin command and counts down 5 s: \"Tea is ready\""):
        "the README's two commands: CI runs scripts/test.sh; scripts/demo.sh is make demo",
    ("README.md", "make install PREFIX=/usr/local"): "test-examples installs into a throw-away prefix the same way",
    ("README.md", "pip install ./bindings/python    # from this checkout: builds libtocsin.so and bundles it"):
        "test-python-install",
    ("bindings/python/README.md", "pip install ./bindings/python        # from a Tocsin checkout: builds and bundles libtocsin.so"):
        "test-python-install",
    ("docs/dbus.md", None): "its sh blocks: test_calls.py::test_the_docs_examples_run_as_written",
    ("README.md", "make wheel deb                        # on a machine with Swift: dist/*.whl and dist/*.deb"):
        "test-debian: make wheel and make deb, then apt install of the .deb files and pip install of the wheel on a fresh Debian",
    ("README.md", "cd bindings/node && npm pack          # tocsin-0.8.0.tgz"):
        "test-node: bindings/node/test/install.test.js packs it and installs it offline the same way",
}
# Languages whose blocks another step runs as written (file, language).
ELSEWHERE_LANGUAGES = {
    ("README.md", "js"): "test-node: bindings/node/test/readme.test.js runs each, and compares the text block after it",
}
# "Using it from Rust": test-rust builds a program by path as the toml and sh
# blocks say, and runs the rust blocks as the crate's doc tests (its README
# holds the same blocks; scripts/test-rust.sh checks that they agree).
RUST = "test-rust (scripts/test-rust.sh): the crate's doc tests, and a program built by path as written"
ELSEWHERE.update({("README.md", first): RUST for first in [
    "[dependencies]",
    "export PKG_CONFIG_PATH=$TOCSIN/out/debug/lib/pkgconfig  # where cargo finds libtocsin.so (or TOCSIN_LIB_DIR=$TOCSIN/out/debug/lib)",
    "use std::sync::mpsc;", "use tocsin::{Engine, EventKind};", "use tocsin::{Clock, Engine, State};"]})
# Not code: what a terminal shows, a file's contents, the Swift API (built by the Swift tests).
SHOWN = {"", "json", "swift", "text"}


def blocks():
    """(file, language, first line, text) of every fenced block."""
    found = []
    for name in FILES:
        text = (REPO / name).read_text()
        for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
            body = match.group(2)
            found.append((name, match.group(1), body.split("\n", 1)[0], body))
    return found


def run(command, **options):
    environment = {**os.environ, "PKG_CONFIG_PATH": str(OUT / "lib/pkgconfig"), "LD_LIBRARY_PATH": str(OUT / "lib"),
                   "PATH": f"{OUT / 'bin'}:{os.environ['PATH']}"}
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, **options)


def test_every_block_is_run_here_or_by_a_named_step():
    for name, language, first, _ in blocks():
        if language in SHOWN or (name, first) in ELSEWHERE or (name, None) in ELSEWHERE or (name, language) in ELSEWHERE_LANGUAGES:
            continue
        assert (name, language) in {("README.md", "sh"), ("README.md", "c"), ("README.md", "python"),
                                    ("bindings/python/README.md", "python")}, (name, language, first)


@pytest.mark.parametrize("name", ["README.md", "bindings/python/README.md"])
def test_the_python_blocks_print_what_they_say(name):
    (code,) = [body for file, language, _, body in blocks() if file == name and language == "python"]
    result = run([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "running 3.0 Tea\n2 s left\negg\n1 s left\nTea is ready\n"


def test_the_c_blocks_compile_and_run(tmp_path):
    program, fragment = [body for file, language, _, body in blocks() if file == "README.md" and language == "c"]
    (tmp_path / "tea.c").write_text(program)
    (shell,) = [body for file, language, first, body in blocks() if file == "README.md" and first.startswith("cc tea.c")]
    result = run(["bash", "-euo", "pipefail", "-c", shell], cwd=tmp_path)  # as the README says to build and run it
    assert (result.returncode, result.stdout) == (0, "1 s left\nFINISH\n"), result.stderr
    # The notifier's fragment, inside a program that gives it an engine and a timer.
    (tmp_path / "alert.c").write_text(
        "#include <tocsin.h>\n#include <tocsin_notify.h>\nint main(void) {\n"
        "    tocsin_engine *engine;\n    tocsin_timer timer;\n"
        "    if (tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine) || tocsin_countdown_new(engine, 1, &timer)) return 1;\n"
        + fragment + "    tocsin_notify_free(notifier);\n    tocsin_engine_free(engine);\n    return 0;\n}\n")
    built = run(["bash", "-c", "cc -Wall -Werror alert.c $(pkg-config --cflags --libs tocsin-notify) -o alert && ./alert"],
                cwd=tmp_path)
    assert built.returncode == 0, built.stderr


def test_the_shell_blocks_run_as_written(tmp_path):
    """The busctl lines, and each line of the command's examples: a timer
    that would run on is ended after a second (it started: the line is
    good); anything else must succeed."""
    for name, language, first, body in blocks():
        if language != "sh" or name != "README.md" or (name, first) in ELSEWHERE or first.startswith("cc tea.c"):
            continue
        for line in body.splitlines():
            command = line.split("  #")[0].strip()
            if not command:
                continue
            result = run(["timeout", "-s", "TERM", "1", "bash", "-c", command], cwd=tmp_path, stdin=subprocess.DEVNULL)
            # 124: still running after a second (a countdown, a stopwatch, watch): as it should be.
            assert result.returncode in (0, 124), (command, result.returncode, result.stderr)
            assert "tocsin: " not in result.stderr, (command, result.stderr)
