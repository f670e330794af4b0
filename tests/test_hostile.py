"""Hostile inputs (issue 14): a log must not forge terminal output, hang the run, lose data or crash it.

Every input is generated here, small, and then made hostile.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.views.writers import shown

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
#: A match id that would retitle the window and clear the screen if printed raw.
EVIL_MATCH = "m\x1b]0;log is clean\x07\x1b[2J"
#: A player name with a newline, a carriage return, a tab and a right-to-left override.
EVIL_PLAYER = "p\nq\rr\ts\u202e"

runner = CliRunner()


def cli(*args: object, input: bytes | None = None):  # noqa: A002, ANN201
    result = runner.invoke(app, [str(arg) for arg in args], input=input, env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def run_drawlog(args: list[str], stdin: bytes = b"", timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """The real ``drawlog`` command in a child process."""
    command = [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()"]
    return subprocess.run(command + args, input=stdin, capture_output=True, timeout=timeout, check=False)


def match_lines(match_id: str = "m1", seed: int = 1) -> list[bytes]:
    """A clean simulated 2-player match as JSON lines (bytes, newline included)."""
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))  # type: ignore[arg-type]


def evil_log(path: Path) -> Path:
    """A match whose id and first player's name hold control characters, with a W401 and an F004 about them."""
    text = b"".join(match_lines()).replace(b'"m1"', json.dumps(EVIL_MATCH).encode())
    events = [json.loads(line) for line in text.replace(b'"p1"', json.dumps(EVIL_PLAYER).encode()).splitlines()]
    events[1]["colour\x1b[8m"] = "red"  # W401 naming a field that would hide what follows
    events.append({"type": "pass", "match": EVIL_MATCH, "player": EVIL_PLAYER})  # F004: after the match
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


def assert_no_controls(text: str) -> None:
    """No control character a terminal would act on (line ends of the output itself aside)."""
    assert shown(text.replace("\n", "")) == text.replace("\n", ""), repr(text)


# -- 1. terminal injection ------------------------------------------------------------------------


def test_shown_escapes_control_characters_and_keeps_the_rest() -> None:
    assert shown("plain é ✓ [bold]") == "plain é ✓ [bold]"
    assert shown(EVIL_MATCH) == "m\\x1b]0;log is clean\\x07\\x1b[2J"
    assert shown(EVIL_PLAYER) == "p\\nq\\rr\\ts\\u202e"
    assert shown("\x00\x7f\x9b") == "\\x00\\x7f\\x9b"
    assert shown(shown(EVIL_MATCH)) == shown(EVIL_MATCH)


def test_validate_text_escapes_ids_names_fields_and_paths(tmp_path: Path) -> None:
    path = evil_log(tmp_path / "log\x1b[31m.jsonl")
    result = cli("validate", path)
    assert result.exit_code == 1
    assert_no_controls(result.stdout)
    assert shown(EVIL_MATCH) in result.stdout
    assert shown(str(path)) in result.stdout
    for code in ("W401", "F004"):
        assert code in result.stdout


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_validate_json_keeps_the_exact_strings(tmp_path: Path, fmt: str) -> None:
    path = evil_log(tmp_path / "log\x1b[31m.jsonl")
    result = cli("validate", path, "--format", fmt)
    lines = result.stdout.splitlines()
    violations = json.loads(result.stdout)["violations"] if fmt == "json" else [json.loads(line) for line in lines]
    assert {v["match"] for v in violations} >= {EVIL_MATCH}
    assert EVIL_PLAYER in {v["player"] for v in violations}
    assert {v["file"] for v in violations} == {str(path)}


def test_github_annotations_escape_control_characters(tmp_path: Path) -> None:
    result = cli("validate", evil_log(tmp_path / "log.jsonl"), "--format", "github")
    assert len(result.stdout.splitlines()) == 2
    assert_no_controls(result.stdout)


@pytest.fixture(scope="module")
def evil_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("evil")
    out = folder / "stats"
    result = cli("stats", evil_log(folder / "evil.jsonl"), "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert_no_controls(result.output)
    return out


@pytest.mark.parametrize("command", [
    ["query", "SELECT match, file FROM matches"],
    ["query", 'SELECT player AS "who\x1b[2J" FROM players'],
    ["players"],
    ["ratings"],
])
def test_tables_on_screen_and_in_files_escape_values_and_headers(evil_stats: Path, tmp_path: Path,
                                                                 command: list[str]) -> None:
    result = cli(command[0], evil_stats, *command[1:])
    assert result.exit_code == 0, result.output
    assert_no_controls(result.stdout)
    assert "\\x1b" in result.stdout or "\\n" in result.stdout
    target = tmp_path / "table.txt"
    assert cli(command[0], evil_stats, *command[1:], "-o", target).exit_code == 0
    assert_no_controls(target.read_text(encoding="utf-8"))


def test_query_json_keeps_the_exact_strings(evil_stats: Path) -> None:
    result = cli("query", evil_stats, "SELECT match FROM matches", "--format", "json")
    assert json.loads(result.stdout) == [{"match": EVIL_MATCH}]


def test_audit_and_errors_escape_paths(evil_stats: Path, tmp_path: Path) -> None:
    audit = cli("audit", evil_log(tmp_path / "evil.jsonl"), "--out", tmp_path / "out\x1b[2J", "-q")
    assert audit.exit_code == 0, audit.output
    assert_no_controls(audit.output)
    not_a_folder = tmp_path / "file\x1b[2J"
    not_a_folder.write_text("x")
    missing = tmp_path / "missing\x1b[2J.jsonl"
    for args in (["stats", evil_stats / "..", "--out", not_a_folder], ["query", not_a_folder, "SELECT 1"],
                 ["validate", missing], ["stats", missing, "--out", tmp_path / "o"]):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        assert_no_controls(result.output)
        assert "\\x1b" in result.output


def test_simulate_results_escape_the_faults_file_name(tmp_path: Path) -> None:
    result = cli("simulate", "-n", "3", "--faults", "1", "-o", tmp_path / "log.jsonl",
                 "--faults-file", tmp_path / "faults\x1b[2J.jsonl")
    assert result.exit_code == 0, result.output
    assert_no_controls(result.output)
    assert "faults\\x1b[2J" in result.output


# -- 8. exit status ---------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [[], ["--fail-fast"], ["--exit-zero"], ["--fail-fast", "--exit-zero"],
                                     ["--strict", "--fail-fast"], ["--format", "json", "--fail-fast"]])
@pytest.mark.parametrize("what", ["missing", "empty folder", "both"])
def test_nothing_read_is_exit_2_in_every_mode(tmp_path: Path, options: list[str], what: str) -> None:
    missing, folder = tmp_path / "nonexistent.jsonl", tmp_path / "empty"
    folder.mkdir()
    paths = {"missing": [missing], "empty folder": [folder], "both": [missing, folder]}[what]
    result = cli("validate", *paths, *options)
    assert result.exit_code == 2, result.output


def test_fail_fast_after_something_was_read_is_exit_1(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"".join(match_lines()) + b'{"type":"pass","match":"m1","player":"p1"}\n')
    assert cli("validate", log, tmp_path / "nonexistent.jsonl", "--fail-fast").exit_code == 1
    assert cli("validate", log, tmp_path / "nonexistent.jsonl", "--fail-fast", "--exit-zero").exit_code == 0


# -- 5. hangs and double reads ------------------------------------------------------------------------


def write_log(path: Path, match_id: str = "m1") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(match_lines(match_id)))
    return path


def summary_of(result) -> dict:  # noqa: ANN001
    return json.loads(result.stdout)["summary"]


def test_a_fifo_found_in_a_folder_is_skipped_with_f007_not_opened(tmp_path: Path) -> None:
    write_log(tmp_path / "logs" / "a.jsonl")
    os.mkfifo(tmp_path / "logs" / "b.jsonl")  # no writer: opening it would block for ever
    proc = run_drawlog(["validate", str(tmp_path / "logs"), "--format", "json"], timeout=30)
    document = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert document["summary"]["files"] == 1 and document["summary"]["unreadable"] == 1
    [violation] = document["violations"]
    assert (violation["code"], violation["file"]) == ("F007", str(tmp_path / "logs" / "b.jsonl"))
    assert "FIFO" in violation["message"]
    for jobs in ("1", "2"):
        proc = run_drawlog(["stats", str(tmp_path / "logs"), "--out", str(tmp_path / f"out{jobs}"), "-j", jobs],
                           timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert b"F007" in proc.stderr and b"Traceback" not in proc.stderr


def _feed_fifo(fifo: Path, data: bytes) -> threading.Thread:
    def feed() -> None:
        with open(fifo, "wb") as stream:
            stream.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("compression", ["", "gzip", "zstd"])
def test_a_fifo_named_on_the_command_line_is_read(tmp_path: Path, compression: str) -> None:
    data = b"".join(match_lines())
    data = {"": data, "gzip": gzip.compress(data), "zstd": zstandard.ZstdCompressor().compress(data)}[compression]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeder = _feed_fifo(fifo, data)
    proc = run_drawlog(["validate", str(fifo), "--format", "json"], timeout=30)
    feeder.join(5)
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["summary"]["matches"] == 1


def test_process_substitution_is_read(tmp_path: Path) -> None:
    log = write_log(tmp_path / "a.jsonl")
    command = f"{sys.executable} -c 'from drawlog.cli import main; main()' validate <(cat {log}) --format json"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["matches"] == 1


@pytest.mark.parametrize("layout", ["link in folder", "link named", "file named twice", "folder and its file",
                                    "hard link"])
def test_a_file_reached_twice_is_read_once(tmp_path: Path, layout: str) -> None:
    folder = tmp_path / "logs"
    target = write_log(folder / "a.jsonl")
    link = folder / "b.jsonl"
    if layout == "hard link":
        os.link(target, link)
    else:
        link.symlink_to(target)
    paths = {"link in folder": [folder], "link named": [target, link], "file named twice": [target, target],
             "folder and its file": [folder, target], "hard link": [folder]}[layout]
    result = cli("validate", *paths, "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert summary_of(result)["files"] == 1


def test_two_different_files_with_one_name_pattern_are_both_read(tmp_path: Path) -> None:
    write_log(tmp_path / "x" / "a.jsonl", "m1")
    write_log(tmp_path / "y" / "a.jsonl", "m2")
    result = cli("validate", tmp_path / "x", tmp_path / "y", "--format", "json")
    assert summary_of(result)["files"] == 2 and result.exit_code == 0
