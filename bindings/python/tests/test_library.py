import ctypes.util
import os
import subprocess
import sys

import pytest

import tocsin
from tocsin import _library


def test_explicit_path_is_used(tmp_path):
    path = os.environ["TOCSIN_LIBRARY"]
    with tocsin.Engine(manual_clock=True, library=path) as engine:
        assert engine.countdown(1).duration == 1


def test_explicit_path_is_authoritative():
    with pytest.raises(tocsin.LibraryNotFoundError) as caught:
        tocsin.Engine(library="/nonexistent/libtocsin.so")
    assert caught.value.tried == ["library argument: /nonexistent/libtocsin.so (no such file)"]


def test_error_lists_every_place_tried_and_how_to_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("TOCSIN_LIBRARY", str(tmp_path / "missing.so"))
    monkeypatch.setattr(_library, "_BUNDLED_DIR", tmp_path / "none")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: str(tmp_path / "system.so"))
    monkeypatch.setattr(_library, "_found", {})  # looked up once per process
    with pytest.raises(tocsin.LibraryNotFoundError) as caught:
        _library.load()
    message = str(caught.value)
    assert "$TOCSIN_LIBRARY" in message and "bundled with the package" in message and "system" in message
    assert "Fix:" in message
    assert "not on PyPI" in message and "make wheel" in message  # no `pip install tocsin`: no such name there
    assert isinstance(caught.value, OSError) and isinstance(caught.value, tocsin.TocsinError)


def test_library_missing_functions_is_reported_as_too_old(tmp_path):
    source = tmp_path / "old.c"
    source.write_text('const char *tocsin_version(void) { return "0.0.1"; }\n')
    library = tmp_path / "libold.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    with pytest.raises(tocsin.TocsinError, match="too old or too new"):
        tocsin.Engine(library=str(library))


def test_versions():
    assert tocsin.library_version().count(".") == 2
    assert tocsin.__version__ == tocsin.library_version() == "0.8.0"


def test_a_state_prints_as_the_word_the_command_uses():
    assert str(tocsin.State.RUNNING) == "running" and f"{tocsin.State.CANCELED}" == "canceled"
    assert tocsin.State.RUNNING == 1  # still the C value


def test_a_missing_notifier_says_in_its_first_line_what_to_install(monkeypatch, tmp_path):
    # The wheel bundles libtocsin.so but not the notifier (it needs the desktop's libraries).
    from tocsin import notify
    monkeypatch.setenv("TOCSIN_NOTIFY_LIBRARY", str(tmp_path / "missing.so"))
    monkeypatch.setattr(_library, "_BUNDLED_DIR", tmp_path / "none")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_library, "_found", {})
    monkeypatch.setattr(_library, "_loaded", {})
    with pytest.raises(tocsin.LibraryNotFoundError) as caught:
        notify.Notifier()
    first = str(caught.value).splitlines()[0]
    assert first.startswith("could not load libtocsin-notify.so: the desktop notifier is not in the wheel: "
                            "apt install libtocsin-notify0")
    with tocsin.Engine(manual_clock=True) as engine:  # the engine needs none of it
        assert engine.countdown(1).duration == 1


def test_submodules_load_on_first_use_after_a_plain_import():
    """``import tocsin`` then ``tocsin.aio.Engine()``, as the README writes
    it (a fresh interpreter: this one has imported tocsin.aio already)."""
    script = (
        "import asyncio, sys, tocsin\n"
        "assert 'tocsin.aio' not in sys.modules and 'tocsin.notify' not in sys.modules\n"
        "async def main():\n"
        "    async with tocsin.aio.Engine() as engine:\n"
        "        await engine.countdown(0.05).start().finished()\n"
        "asyncio.run(main())\n"
        "assert tocsin.notify.Notifier is not None\n"
        "try:\n"
        "    tocsin.nothing\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "module 'tocsin' has no attribute 'nothing'\n"
