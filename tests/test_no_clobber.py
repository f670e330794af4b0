"""No command writes over what it reads (issue #26 item 1): ``-o``, ``--write-baseline``, ``--changes``.

An output that is an input log (named as it is, through a symlink or a hard link) or that lies inside
an input folder is refused before anything is written: exit 2, one line ``Error: …`` naming the output
and saying it is an input, and the log byte for byte as it was. A different output path works.
"""

from __future__ import annotations

import os
import shutil
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.log.clobber import clobbered_input

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
LOG = SAMPLES / "tournament-4p.jsonl"
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}

runner = CliRunner()


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    detail = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    assert result.exception is None or isinstance(result.exception, SystemExit), f"uncaught exception:\n{detail}"
    assert "Traceback" not in result.output
    return result


#: Each command and option that writes a file: the arguments, given the input (a log file or a
#: folder) and the output. ``file_only``: the command reads one log file, not folders.
Build = Callable[[Path, Path], list[object]]
COMMANDS: dict[str, tuple[Build, bool]] = {
    "validate -o": (lambda log, out: ["validate", log, "-o", out], False),
    "validate --write-baseline": (lambda log, out: ["validate", log, "--write-baseline", out], False),
    "filter --valid -o": (lambda log, out: ["filter", log, "--valid", "-o", out, "-q"], False),
    "filter --split-by -o": (lambda log, out: ["filter", log, "--split-by", "match", "-o", out, "-q"], False),
    "replay -o": (lambda log, out: ["replay", f"{log}:2", "-o", out], True),
    "replay --format json -o": (lambda log, out: ["replay", f"{log}:2", "--format", "json", "-o", out], True),
    "report -o": (lambda log, out: ["report", log, "-o", out, "-q", "--boards", "0"], False),
    "fix -o": (lambda log, out: ["fix", log, "-o", out, "-q"], True),
    "fix --changes": (lambda log, out: ["fix", log, "-o", log.parent.parent / "fixed.jsonl", "--changes", out, "-q"],
                      True),
}


def _log_in(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "games.jsonl"
    shutil.copyfile(LOG, log)
    return log


def _refused(result, output: Path) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert str(output) in lines[0]
    assert "input" in lines[0]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("how", ["itself", "symlink", "hard link"])
def test_output_naming_the_log_is_refused(tmp_path: Path, command: str, how: str) -> None:
    build, _ = COMMANDS[command]
    log = _log_in(tmp_path)
    before = log.read_bytes()
    if how == "itself":
        output = log
    elif how == "symlink":
        output = tmp_path / "link.jsonl"
        output.symlink_to(log)
    else:
        output = tmp_path / "hard.jsonl"
        os.link(log, output)
    listing = sorted(os.listdir(tmp_path))
    _refused(cli(*build(log, output)), output)
    assert log.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == listing  # nothing written beside it either
    assert sorted(os.listdir(log.parent)) == ["games.jsonl"]


@pytest.mark.parametrize("command", [name for name, (_, file_only) in COMMANDS.items() if not file_only])
@pytest.mark.parametrize("exists", [True, False])
def test_output_inside_an_input_folder_is_refused(tmp_path: Path, command: str, exists: bool) -> None:
    build, _ = COMMANDS[command]
    log = _log_in(tmp_path)
    before = log.read_bytes()
    output = log.parent / ("new" if not exists else "old.jsonl")
    if exists:
        output.write_bytes(b"keep me\n")
    _refused(cli(*build(log.parent, output)), output)
    assert log.read_bytes() == before
    if exists:
        assert output.read_bytes() == b"keep me\n"
    else:
        assert not output.exists()


@pytest.mark.parametrize("command", [name for name, (_, file_only) in COMMANDS.items() if not file_only])
def test_output_inside_an_input_folder_through_a_link_is_refused(tmp_path: Path, command: str) -> None:
    build, _ = COMMANDS[command]
    log = _log_in(tmp_path)
    before = log.read_bytes()
    (tmp_path / "alias").symlink_to(log.parent)
    output = tmp_path / "alias" / "out"
    _refused(cli(*build(log.parent, output)), output)
    assert log.read_bytes() == before
    assert not (log.parent / "out").exists()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_another_output_works(tmp_path: Path, command: str) -> None:
    build, file_only = COMMANDS[command]
    log = _log_in(tmp_path)
    before = log.read_bytes()
    output = tmp_path / "elsewhere" / "out.txt"
    output.parent.mkdir()
    result = cli(*build(log, output))
    assert result.exit_code in (0, 1), result.output
    assert output.exists()
    assert log.read_bytes() == before
    if not file_only:  # from the folder too, written beside it
        other = tmp_path / "elsewhere" / "from-folder"
        result = cli(*build(log.parent, other))
        assert result.exit_code in (0, 1), result.output
        assert other.exists()
        assert log.read_bytes() == before


def test_fix_changes_naming_the_fixed_copy_is_refused(tmp_path: Path) -> None:
    log = _log_in(tmp_path)
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_bytes(b"old\n")
    result = cli("fix", log, "-o", fixed, "--changes", fixed)
    assert result.exit_code == 2
    assert fixed.read_bytes() == b"old\n"


@pytest.fixture(scope="module")
def stats_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tables") / "stats"
    result = cli("stats", LOG, "--out", folder, "-q")
    assert result.exit_code in (0, 1), result.output
    return folder


@pytest.mark.parametrize("command", [["query", "SELECT count(*) AS n FROM matches"], ["players"], ["ratings"]])
def test_table_output_inside_the_tables_is_refused(stats_folder: Path, tmp_path: Path, command: list[str]) -> None:
    files = {path: path.read_bytes() for path in stats_folder.rglob("*") if path.is_file()}
    inside = stats_folder / "out.csv"
    _refused(cli(command[0], stats_folder, *command[1:], "-o", inside), inside)
    manifest = next(iter(files))
    _refused(cli(command[0], stats_folder, *command[1:], "-o", manifest, "-f", "csv"), manifest)
    assert not inside.exists()
    assert {path: path.read_bytes() for path in stats_folder.rglob("*") if path.is_file()} == files
    elsewhere = tmp_path / "out.csv"
    result = cli(command[0], stats_folder, *command[1:], "-o", elsewhere)
    assert result.exit_code == 0, result.output
    assert elsewhere.exists()


def test_stats_out_holding_an_input_is_refused(tmp_path: Path) -> None:
    log = _log_in(tmp_path)
    before = log.read_bytes()
    result = cli("stats", log, "--out", log.parent, "-q")
    assert result.exit_code == 2
    assert log.read_bytes() == before


def test_standard_input_and_urls_are_not_files(tmp_path: Path) -> None:
    log = _log_in(tmp_path)
    assert clobbered_input(str(log), ["-", f"file://{log}"]) is None
    assert clobbered_input("-", [str(log)]) is None
    assert clobbered_input(str(log), [str(log)]) == (str(log), "is")
    assert clobbered_input(str(log.parent / "x" / "y.jsonl"), [str(log.parent)]) == (str(log.parent), "inside")
    assert clobbered_input(str(tmp_path), [str(log)], into_folder=True) == (str(log), "holds")
    assert clobbered_input(str(tmp_path / "other.jsonl"), [str(log)]) is None
