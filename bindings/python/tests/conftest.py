import gc
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tocsin  # noqa: E402


def pytest_report_header(config):
    return f"libtocsin: {os.environ.get('TOCSIN_LIBRARY', '(bundled or system)')}, version {tocsin.library_version()}"


@pytest.fixture
def manual():
    engine = tocsin.Engine(manual_clock=True)
    yield engine
    engine.close()


@pytest.fixture
def threaded():
    engine = tocsin.Engine()
    yield engine
    engine.close()


@pytest.fixture
def polled():
    engine = tocsin.Engine(polled=True)
    yield engine
    engine.close()


@pytest.fixture
def unraisable(monkeypatch):
    """Collects what reaches sys.unraisablehook."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: seen.append(args.exc_value))
    yield seen
    gc.collect()
