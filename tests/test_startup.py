"""Start-up: what the command line imports before it runs a command, and Ctrl-C while it imports.

Nothing here is timed (the machines are noisy): the figures are in
bench/README.md, from bench/bench_startup.py. What is checked is what makes
start-up quick: which modules a command line imports.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
#: Heavy packages no start-up imports (polars, pyarrow: tables; altair: charts; openskill: ratings; pydantic:
#: typer's coercion, answered by drawlog.cli.group.QuickCoercion in the plain cases).
HEAVY = ("polars", "pyarrow", "altair", "openskill", "pydantic", "numpy", "pandas", "dask", "fsspec")


def _imported_by(code: str, *args: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter (``sys.argv[1:]`` = ``args``); what it imported, and its exit status."""
    probe = (
        "import json, sys\n"
        "status = 0\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in code.splitlines())
        + "except SystemExit as exit:\n"
        "    status = exit.code or 0\n"
        "sys.stdout.flush()\n"
        "sys.__stderr__.write('\\nMODULES ' + json.dumps({'modules': sorted(sys.modules), 'status': status}) + '\\n')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("_DRAWLOG_COMPLETE", None)
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    marker = done.stderr.rindex("MODULES ")
    return json.loads(done.stderr[marker + len("MODULES "):])


def _heavy(modules: list[str]) -> list[str]:
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY))


def test_importing_the_package_and_the_command_line_imports_nothing_heavy():
    found = _imported_by("import drawlog, drawlog.cli")
    assert _heavy(found["modules"]) == []
    assert not any(name.startswith(("drawlog.engine", "drawlog.check.validator", "drawlog.tables.", "rich"))
                   for name in found["modules"])


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["validate", "EMPTY"], ["rule", "M205"]])
def test_start_up_imports_nothing_heavy(args, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    args = [str(empty) if arg == "EMPTY" else arg for arg in args]
    found = _imported_by("from drawlog.__main__ import run\nsys.argv = ['drawlog', *sys.argv[1:]]\nrun()", *args)
    assert found["status"] == 0
    assert _heavy(found["modules"]) == []


#: The command line's frame, which every run imports: the application and its command group (no command).
_CLI_FRAME = {"drawlog.cli", "drawlog.cli.app", "drawlog.cli.group"}


def test_version_imports_no_command_and_not_the_engine():
    found = _imported_by("from drawlog.__main__ import run\nsys.argv = ['drawlog', '--version']\nrun()")
    modules = found["modules"]
    assert not [name for name in modules if name.startswith("drawlog.cli.") and name not in _CLI_FRAME]
    assert not [name for name in modules if name.startswith(("drawlog.engine.", "drawlog.check.", "msgspec"))
                if name != "drawlog.check.limits"]


def test_a_command_imports_its_own_module_only(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    found = _imported_by("from drawlog.__main__ import run\nsys.argv = ['drawlog', *sys.argv[1:]]\nrun()",
                         "validate", str(empty))
    commands = sorted(name for name in found["modules"] if name.startswith("drawlog.cli.") and name not in _CLI_FRAME)
    assert commands == ["drawlog.cli.validate"]
    assert "drawlog.views.ci_formats" not in found["modules"]  # text output needs no xml


def test_the_table_of_commands_names_the_module_of_each():
    from drawlog.cli import app
    from drawlog.cli.app import COMMAND_MODULES, COMMANDS

    registered = {info.name or info.callback.__name__.replace("_", "-"): info.callback.__module__
                  for info in app.registered_commands}
    assert {name: module.rsplit(".", 1)[1] for name, module in registered.items()} == COMMANDS
    assert set(COMMANDS.values()) == set(COMMAND_MODULES)


def test_light_copies_agree_with_the_library():
    from drawlog.analysis.defaults import DEFAULT_SAMPLES
    from drawlog.analysis.equity import DEFAULT_SAMPLES as used
    from drawlog.play.bot_names import BOT_NAMES
    from drawlog.play.bots import BOTS

    assert tuple(BOTS) == BOT_NAMES
    assert DEFAULT_SAMPLES == used


def test_version_tells_the_engine_as_the_package_does():
    import drawlog
    from drawlog.cli.app import _engine_compiled

    assert _engine_compiled() == drawlog.COMPILED


#: Each command line with the modules it imports before it runs (only validate imports rich that early).
STARTING = [(args, during) for args in (["--version"], ["--help"], ["validate", "-"])
            for during in ("typer", "drawlog.cli.app", *(("rich.console",) if args[0] == "validate" else ()))]


@pytest.mark.parametrize(("args", "during"), STARTING)
def test_ctrl_c_while_starting_up_is_one_line_and_exit_130(args, during):
    """A KeyboardInterrupt raised while a module is being imported, as Ctrl-C there would: no traceback."""
    probe = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {during!r}:\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from drawlog.__main__ import run\n"
        "sys.argv = ['drawlog', *sys.argv[1:]]\n"
        "run()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, check=False,
                          input="", timeout=120)
    assert (done.returncode, done.stderr) == (130, "drawlog: interrupted\n")


def test_python_m_drawlog_runs_the_same_entry_point():
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-m", "drawlog", "--version"], capture_output=True, text=True, env=env, check=False,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("drawlog ")
    from drawlog.__main__ import run

    assert callable(run)


def test_importing_one_command_module_first_keeps_the_order_of_help():
    code = ("import drawlog.cli.analyze, drawlog.cli.play\n"
            "from drawlog.cli import app\n"
            "print([info.callback.__name__ for info in app.registered_commands])\n")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    names = ast.literal_eval(done.stdout)
    assert names[:3] == ["validate", "rule", "schema"] and names[-2:] == ["analyze", "fix"], names
    assert len(names) == len(set(names)) == 17  # arena (cli/arena.py); h2h and seats (cli/views.py)
