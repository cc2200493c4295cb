"""Build step: bundles libtocsin.so and libtocsin-notify.so into the package
(tocsin/_lib/), and with the notifier its translations (tocsin/share/locale/).

Where the libraries come from, first match wins:
  $TOCSIN_BUNDLE_LIBRARY       a built libtocsin.so to copy as it is (its
                               libtocsin-notify.so.0 beside it, if there,
                               unless $TOCSIN_BUNDLE_NOTIFIER is 0: `make
                               wheel` leaves the notifier to the system, as it
                               needs the desktop's libraries);
  the Tocsin checkout around   `make lib CONFIG=release` there (needs Swift);
  neither                      no bundled copy: the package then loads
                               $TOCSIN_LIBRARY or the system's library.
The package has no compiled Python extension; the wheel is tagged for the
platform only because it carries the shared library.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent


def built_library():
    explicit = os.environ.get("TOCSIN_BUNDLE_LIBRARY")
    if explicit:
        return Path(explicit)
    if (CHECKOUT / "Package.swift").is_file() and shutil.which("swift"):
        subprocess.run(["make", "--no-print-directory", "-C", str(CHECKOUT), "lib", "CONFIG=release"], check=True)
        return CHECKOUT / "out" / "release" / "lib" / "libtocsin.so.0"
    print("tocsin: no Swift toolchain or checkout: building without a bundled libtocsin.so", file=sys.stderr)
    return None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library = built_library()
        if library is not None:
            target = Path(self.build_lib) / "tocsin" / "_lib"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(library.resolve(), target / "libtocsin.so.0")
            notifier = library.parent / "libtocsin-notify.so.0"
            if notifier.exists() and os.environ.get("TOCSIN_BUNDLE_NOTIFIER") != "0":
                shutil.copyfile(notifier.resolve(), target / "libtocsin-notify.so.0")
                # Its translations, where it looks for them: _lib/../share/locale.
                locale = library.resolve().parent.parent / "share" / "locale"
                if locale.is_dir():
                    shutil.copytree(locale, target.parent / "share" / "locale", dirs_exist_ok=True)


class LibraryDistribution(Distribution):
    """Carries a shared library: installed as platform code (platlib), so
    the wheel is a platform wheel that auditwheel can check."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])  # any Python 3: ctypes, no extension


setup(distclass=LibraryDistribution, cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
