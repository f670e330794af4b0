"""Build hook: compile the rules engine with mypyc when possible, else install it as pure Python.

The engine modules are plain typed Python; mypyc turns them into C extensions
that replay logs about 2x faster. Where there is no C compiler, or with
``DRAWLOG_PURE_PYTHON=1`` (advised for editable installs while developing),
drawlog installs and runs the same code uncompiled.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The modules compiled: the rules engine, the replay, the statistics recorder and the analysis's rollouts, where
#: runs spend their time.
COMPILED = ["errors", "engine/tiles", "engine/line", "engine/tableau", "engine/scoring", "engine/rounds",
            "engine/allfives", "engine/profiles", "engine/claims", "engine/match", "check/seen", "check/table",
            "check/observer", "check/bookkeeping", "check/replay", "tables/writers", "tables/sinks", "tables/move_sink",
            "tables/stats_rows", "tables/stats", "tables/shuffle",
            "analysis/actions", "analysis/sampler", "analysis/rollout", "analysis/equity"]


class OptionalBuildExt(build_ext):
    """Build the extensions, but fall back to pure Python instead of failing the install.

    mypyc's modules share one runtime library, so it is all or nothing: when any
    extension fails, the ones already built are removed.
    """

    def run(self) -> None:
        self._failed = False
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any compiler problem means: stay pure Python
            self._skip(error)
        if self._failed:
            for ext in self.extensions:
                path = self.get_ext_fullpath(ext.name)
                if os.path.exists(path):
                    os.remove(path)

    def build_extension(self, ext) -> None:  # noqa: ANN001
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            self._skip(error)

    def _skip(self, error: BaseException) -> None:
        self._failed = True
        _warn(error)


def _warn(error: BaseException) -> None:
    print(f"drawlog: the compiled engine was not built ({error}); using pure Python", file=sys.stderr)


#: The setup.py commands that build the extensions. pip also runs setup.py for the metadata (``egg_info``,
#: ``dist_info``): there mypycify's type check and code generation (about 20 s) would be wasted, twice per install.
_BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist", "bdist_egg"}


def _extensions() -> list:
    if os.environ.get("DRAWLOG_PURE_PYTHON") == "1" or not _BUILDING & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify

        return mypycify([f"src/drawlog/{name}.py" for name in COMPILED], opt_level="3")
    except BaseException as error:  # noqa: BLE001 - no mypyc, or it refused (it exits): stay pure Python
        _warn(error)
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
