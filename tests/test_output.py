"""Where output goes and how it looks: literal values in tables, csv of nested columns, ``-o`` for tables,
and a failure to write (a full disk, a closed pipe) told in one line, never a traceback.

The stats folder here is made from a log whose player and match ids look like rich markup:
p1 is ``[bot] ann``, p2 is ``[/]`` and the first match is ``[bold]m1``.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.views.frames import nested_as_json

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "tournament-2p.jsonl"
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
MARKUP_NAMES = {b'"p1"': b'"[bot] ann"', b'"p2"': b'"[/]"', b'"t2-000001"': b'"[bold]m1"'}
DEV_FULL = Path("/dev/full")

runner = CliRunner()


def cli(*args: object, env: dict | None = None):  # noqa: ANN201
    result = runner.invoke(app, [str(arg) for arg in args], env={**ENV, **(env or {})})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def markup_log(folder: Path) -> Path:
    """The sample 2-player tournament with markup-like ids and, on line 4, a play turned into a pass by ``[/]``."""
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    event = json.loads(lines[3])
    assert (event["type"], event["player"]) == ("play", "p2")
    lines[3] = json.dumps({"type": "pass", "match": event["match"], "player": "p2"}).encode() + b"\n"
    text = b"".join(lines)
    for old, new in MARKUP_NAMES.items():
        text = text.replace(old, new)
    path = folder / "markup.jsonl"
    path.write_bytes(text)
    return path


@pytest.fixture(scope="module")
def markup_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("markup")
    out = folder / "stats"
    result = cli("stats", markup_log(folder), "--out", out, "-q")
    assert result.exit_code == 0, result.output
    return out


def body_rows(text: str) -> list[list[str]]:
    """The cells of each body row of the rich tables in ``text``."""
    return [[cell.strip() for cell in line.strip().strip("│").split("│")]
            for line in text.splitlines() if line.startswith("│")]


# -- values printed literally ----------------------------------------------------------------


def test_players_and_ratings_print_names_literally(markup_stats: Path) -> None:
    for command in ("players", "ratings"):
        result = cli(command, markup_stats)
        assert result.exit_code == 0
        assert [row[0] for row in body_rows(result.stdout)][:2] == ["[bot] ann", "[/]"], command


def test_query_prints_names_values_and_headers_literally(markup_stats: Path) -> None:
    result = cli("query", markup_stats, "SELECT match, ':smile: [red]' AS \"[bold]x\" FROM matches ORDER BY match "
                                        "LIMIT 1")
    assert result.exit_code == 0
    assert "[bold]x" in result.stdout.splitlines()[1]
    assert body_rows(result.stdout) == [["[bold]m1", ":smile: [red]"]]


def test_audit_prints_players_literally_and_counts_in_the_singular(tmp_path: Path) -> None:
    log = markup_log(tmp_path)
    lines = log.read_bytes().splitlines(keepends=True)
    one_match = lines[:next(i for i, line in enumerate(lines) if b'"match_end"' in line) + 1]
    log.write_bytes(b"".join(one_match))
    result = cli("audit", log, "--out", tmp_path / "stats")
    assert result.exit_code == 1  # errors found
    assert result.stdout.startswith("1 match read, 0 valid (0.0%), 1 complete\n")
    players_then_files = [row for row in body_rows(result.stdout) if len(row) == 2]
    assert [row[0] for row in players_then_files] == ["[/]", "[bot] ann", str(log)]


def test_stats_names_an_unreadable_input_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("stats", "[/]missing.jsonl", SAMPLE, "--out", "out", "-q")
    assert result.exit_code == 0
    assert "F007 [/]missing.jsonl: no such file or folder\n" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("wrote out: 1 file, 1 unreadable")


# -- csv of nested columns --------------------------------------------------------------------


def test_csv_writes_list_columns_as_json_text(markup_stats: Path, tmp_path: Path) -> None:
    sql = "SELECT match, player_names, scores, claimed_scores FROM matches ORDER BY match"
    listed = json.loads(cli("query", markup_stats, sql, "-f", "json").stdout)
    result = cli("query", markup_stats, sql, "-f", "csv", "-o", tmp_path / "matches.csv")
    assert result.exit_code == 0 and result.stdout == ""
    with open(tmp_path / "matches.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["player_names"] == '["[bot] ann","[/]"]'
    assert [{key: json.loads(value) if key != "match" else value for key, value in row.items()} for row in rows] \
        == listed


def test_csv_to_standard_output_has_nested_columns_too(markup_stats: Path) -> None:
    result = cli("query", markup_stats, "SELECT player_names FROM matches ORDER BY match LIMIT 1", "-f", "csv")
    assert result.exit_code == 0
    assert result.stdout == 'player_names\n"[""[bot] ann"",""[/]""]"\n'


def test_nested_as_json_covers_structs_nested_lists_and_nulls() -> None:
    frame = pl.DataFrame({
        "scores": [[3, 5], None, []],
        "pair": [{"a": 1, "b": "x\""}, None, {"a": None, "b": "é"}],
        "deep": [[[1], [2, 3]], [[]], None],
        "name": ["x", None, "[/]"],
    })
    assert nested_as_json(frame).rows() == [
        ("[3,5]", '{"a":1,"b":"x\\""}', "[[1],[2,3]]", "x"),
        (None, None, "[[]]", None),
        ("[]", '{"a":null,"b":"é"}', None, "[/]"),
    ]


# -- -o with the table format -------------------------------------------------------------------


@pytest.mark.parametrize("command", [["players"], ["ratings"], ["query", "SELECT * FROM players LIMIT 3"]],
                         ids=lambda command: command[0])
def test_table_output_goes_to_the_file_as_plain_text(markup_stats: Path, tmp_path: Path, command: list[str]) -> None:
    shown = cli(command[0], markup_stats, *command[1:])
    target = tmp_path / "table.txt"
    written = cli(command[0], markup_stats, *command[1:], "-o", target, env={"FORCE_COLOR": "1", "NO_COLOR": None})
    assert written.exit_code == 0
    assert written.stdout == ""
    assert target.read_text(encoding="utf-8") == shown.stdout
    assert "\x1b" not in target.read_text(encoding="utf-8")


# -- failures to write: one line, exit 2; a closed pipe: quiet, exit 141 ----------------------------


def drawlog_command(*args: object) -> list[str]:
    """The command line that runs ``drawlog ARGS`` through its entry point, ``drawlog.cli.main``."""
    return [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()",
            *map(str, args)]


def drawlog_env(unbuffered: bool = False) -> dict[str, str]:
    """The environment, wide and colourless, with standard output block-buffered unless ``unbuffered``."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONUNBUFFERED", "FORCE_COLOR")}
    env.update(COLUMNS="200", NO_COLOR="1")
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def run_drawlog(*args: object, unbuffered: bool = False, **options: object) -> subprocess.CompletedProcess:
    """Run ``drawlog ARGS`` to its end; ``options`` go to :func:`subprocess.run`."""
    return subprocess.run(drawlog_command(*args), env=drawlog_env(unbuffered), check=False,  # type: ignore[call-overload]
                          **options)


needs_dev_full = pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full")


@needs_dev_full
@pytest.mark.parametrize("args", [
    ["validate", SAMPLE.parent / "every-violation.jsonl"],
    ["validate", SAMPLE.parent / "every-violation.jsonl", "--format", "json"],
    ["validate", SAMPLE, "--statistics"],
    ["rule", "--all"],
    ["rule", "M205", "--format", "json"],
    ["schema"],
    ["--version"],
    ["simulate", "-n", "2", "-q"],
], ids=lambda args: " ".join(arg.name if isinstance(arg, Path) else str(arg) for arg in args))
def test_a_full_standard_output_is_one_line_and_exit_2(args: list[object]) -> None:
    with open(DEV_FULL, "w") as full:
        done = run_drawlog(*args, stdout=full, stderr=subprocess.PIPE, text=True)
    assert (done.returncode, done.stderr) == (2, "Error: cannot write standard output: No space left on device\n")


@needs_dev_full
@pytest.mark.parametrize("args", [["validate", SAMPLE.parent / "every-violation.jsonl"], ["schema"]],
                         ids=lambda args: args[0])
def test_a_full_unbuffered_standard_output_is_one_line_and_exit_2(args: list[object]) -> None:
    with open(DEV_FULL, "w") as full:
        done = run_drawlog(*args, unbuffered=True, stdout=full, stderr=subprocess.PIPE, text=True)
    assert (done.returncode, done.stderr) == (2, "Error: cannot write standard output: No space left on device\n")


@needs_dev_full
@pytest.mark.parametrize("options", [["-f", "table"], ["-f", "csv"], ["-f", "json"], ["-f", "parquet"]],
                         ids=lambda options: options[1])
@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "file"])
def test_query_output_that_cannot_be_written_is_one_line_and_exit_2(markup_stats: Path, options: list[str],
                                                                     to_file: bool) -> None:
    args = ["query", markup_stats, "SELECT match FROM matches LIMIT 2", *options]
    if to_file:
        done = run_drawlog(*args, "-o", DEV_FULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert done.stdout == ""
    else:
        with open(DEV_FULL, "w") as full:
            done = run_drawlog(*args, stdout=full, stderr=subprocess.PIPE, text=True)
    target = DEV_FULL if to_file else "standard output"
    assert (done.returncode, done.stderr) == (2, f"Error: cannot write {target}: No space left on device\n")


def test_an_output_file_where_no_folder_can_be_made_is_one_line_and_exit_2(markup_stats: Path,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    target = tmp_path / "taken" / "board.txt"
    result = cli("players", markup_stats, "-o", target)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: cannot write {target}: Not a directory\n"


@pytest.mark.parametrize("fmt", ["text", "jsonl"])
def test_a_closed_pipe_ends_the_run_quietly_with_141(tmp_path: Path, fmt: str) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"x\n" * 5_000)  # far more output than a pipe holds
    with subprocess.Popen(drawlog_command("validate", junk, "--format", fmt), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=drawlog_env()) as child:
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()
        errors = child.stderr.read()
        status = child.wait(timeout=60)
    assert first
    assert (status, errors) == (141, b"")
