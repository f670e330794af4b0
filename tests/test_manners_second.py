"""Issue 25, a linter's manners, second pass: what a new user still trips over."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.tables.dataset import write_tables

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
runner = CliRunner()


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("second") / "stats"
    write_tables([str(SAMPLES)], out)
    return out


# -- text tables to a pipe or a file: keys never cut ------------------------------------------------

WIDE = ("SELECT match, path, concat(path, '#', match) AS key, file, tournament, table_name FROM matches "
        "ORDER BY match")


def _ids(stats: Path) -> list[str]:
    import polars as pl

    return pl.read_parquet(stats / "matches" / "part-00000.parquet").sort("match")["match"].to_list()


def test_query_through_a_pipe_cuts_no_key(stats: Path):
    result = runner.invoke(app, ["query", str(stats), WIDE])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for match in _ids(stats):
        assert f"#{match} " in result.output


@pytest.mark.parametrize("name", ["x.txt", "x.TXT"])
def test_query_to_a_text_file_cuts_no_key(stats: Path, tmp_path: Path, name: str):
    target = tmp_path / name
    result = runner.invoke(app, ["query", str(stats), WIDE, "-o", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    assert "…" not in text
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1, "one table, each line as wide"
    for match in _ids(stats):
        assert f"#{match} " in text


def test_audit_through_a_pipe_cuts_no_file_name(tmp_path: Path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "every-violation.jsonl"
    deep.parent.mkdir()
    deep.write_bytes((SAMPLES / "every-violation.jsonl").read_bytes())
    result = runner.invoke(app, ["audit", str(deep), "--out", str(tmp_path / "stats"), "--exit-zero"])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and str(deep) in result.output


# -- -o with an extension no format has --------------------------------------------------------------

@pytest.mark.parametrize("command", [["query", "SELECT * FROM rounds"], ["players"], ["ratings"]])
@pytest.mark.parametrize("name", ["board.xlsx", "board"])
def test_an_unknown_output_extension_is_an_error_listing_the_known_ones(stats: Path, tmp_path: Path,
                                                                      command: list[str], name: str):
    target = tmp_path / name
    result = runner.invoke(app, [command[0], str(stats), *command[1:], "-o", str(target)])
    assert result.exit_code == 2
    assert result.output == (f"Error: cannot tell the format of {target} from its extension: use one of .csv, "
                             f".json, .jsonl, .parquet, .txt (or name the format with --format)\n")
    assert not target.exists()


def test_an_unknown_extension_with_format_named_is_written(stats: Path, tmp_path: Path):
    target = tmp_path / "board.xlsx"
    assert runner.invoke(app, ["players", str(stats), "-f", "csv", "-o", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("player,")


# -- [tool.drawlog] in any configuration file; a bad key named with its file and line ----------------

def _readme_toml() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("```toml\n", 1)[1].split("```", 1)[0]


def test_the_readmes_config_block_works_in_any_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert _readme_toml().startswith("[tool.drawlog]\n")
    Path("ci.toml").write_text(_readme_toml(), encoding="utf-8")
    result = runner.invoke(app, ["validate", str(SAMPLES / "every-violation.jsonl"), "--config", "ci.toml"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{SAMPLES / 'every-violation.jsonl'}:")  # format = "concise"
    codes = {line.split(": ")[1].split()[0] for line in lines[:-1]}
    assert codes and all(code[0] in "MR" or code == "W401" for code in codes)
    assert "M204" not in codes and "R306" not in codes


@pytest.mark.parametrize(("name", "edit", "message"), [
    ("ci.toml", ("ignore =", "ignroe ="),
     "ci.toml:3: [tool.drawlog] ignroe: unknown key (did you mean 'ignore'?)"),
    ("drawlog.toml", ("jobs = 4", "jobs = 0"),
     "drawlog.toml:9: [tool.drawlog] jobs: must be a whole number of 1 or more, not the number 0"),
    ("pyproject.toml", ('["W"]', '["Q"]'),
     "pyproject.toml:11: [tool.drawlog] per-file-ignores 'archive/2023-*.jsonl': 'Q' matches no rule code "
     "(see `drawlog rule --all`)"),
])
def test_a_bad_key_is_named_with_its_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                                   edit: tuple[str, str], message: str):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(_readme_toml().replace(*edit), encoding="utf-8")
    for command in (["validate", str(SAMPLES)], ["audit", str(SAMPLES), "--out", "stats"]):
        result = runner.invoke(app, [*command, "--config", name])
        assert result.exit_code == 2
        assert result.stderr == f"Error: {message}\n"


def test_a_top_level_drawlog_toml_names_the_line_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    Path("drawlog.toml").write_text('select = ["M"]\n\nselct = ["R"]\n', encoding="utf-8")
    result = runner.invoke(app, ["validate", str(SAMPLES)])
    found = Path.cwd() / "drawlog.toml"  # found upwards: named in full
    assert (result.exit_code, result.stderr) == (2, f"Error: {found}:3: selct: unknown key (did you mean "
                                                    "'select'?)\n")
    Path("drawlog.toml").write_text('select = ["M"]\n[tool.drawlog]\nignore = ["M2"]\n', encoding="utf-8")
    result = runner.invoke(app, ["validate", str(SAMPLES)])
    assert (result.exit_code, result.stderr) == (2, f"Error: {found}:1: select: set outside [tool.drawlog], "
                                                    "which this file has: put every setting in [tool.drawlog]\n")


# -- replay FILE:LINE says what is at that line; an unknown --match lists the ids ----------------------

EVERY = SAMPLES / "every-violation.jsonl"
EVERY_LINES = EVERY.read_text(encoding="utf-8").splitlines()
#: The ids of the matches the file starts, once each, in order: what replay lists (five, then the count).
EVERY_IDS = list(dict.fromkeys(json.loads(text)["match"] for text in EVERY_LINES if '"match_start"' in text))
IDS = f"matches in it: {', '.join(EVERY_IDS[:5])}, … ({len(EVERY_IDS)} in all)"
FIRST_BLANK = next(number for number, text in enumerate(EVERY_LINES, 1) if not text.strip())


def _error(result) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    return result.output.strip().splitlines()[-1]


@pytest.mark.parametrize(("line", "there"), [
    (FIRST_BLANK, "is blank"),
    (99_999, f"is past the end: the file has {len(EVERY_LINES):,} lines"),
])
def test_replay_of_a_line_of_no_match_says_what_is_there(line: int, there: str):
    assert _error(runner.invoke(app, ["replay", f"{EVERY}:{line}"])) == (
        f"Error: Invalid value for LOG: line {line:,} of {EVERY} {there}, so it shows no match: give the line of "
        f"one of its events, or --match ID; {IDS}")


def test_replay_of_odd_lines(tmp_path: Path):
    log = tmp_path / "odd.jsonl"
    log.write_text('{"type":"x"}\n[1]\n{bad\n', encoding="utf-8")
    said = [_error(runner.invoke(app, ["replay", f"{log}:{line}"])).split(" so it shows")[0] for line in (1, 2, 3)]
    assert said == [f"Error: Invalid value for LOG: line 1 of {log} is an event of type 'x' that names no match,",
                    f"Error: Invalid value for LOG: line 2 of {log} is not a JSON object,",
                    f"Error: Invalid value for LOG: line 3 of {log} is not valid JSON,"]


def test_replay_of_an_unknown_match_lists_the_ids_there():
    assert _error(runner.invoke(app, ["replay", str(EVERY), "--match", "nope"])) == (
        f"Error: Invalid value for --match: no match 'nope' in {EVERY}; {IDS}")
    assert _error(runner.invoke(app, ["replay", str(EVERY)])) == (
        f"Error: Invalid value for --match: {EVERY} holds {len(EVERY_IDS)} matches: say which with --match ID (or give "
        f"FILE:LINE); {IDS}")


# -- --help and the package description name both games ----------------------------------------------

def test_help_and_the_package_description_name_both_games():
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Validate, score and analyse move logs of the domino games Draw and All Fives." in result.output
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["description"] == "Validate, score and analyse move logs of the domino games Draw and All Fives"


# -- validate and filter count the same matches ------------------------------------------------------

def test_filter_counts_matches_as_validate_does(tmp_path: Path):
    """Every match_start starts a match: F005-m1, started twice in every-violation.jsonl, is two matches (the first
    valid, the second not) in validate, stats and filter alike."""

    summary = json.loads(runner.invoke(app, ["validate", str(SAMPLES), "-f", "json"]).stdout)["summary"]
    starts = sum('"match_start"' in line for path in sorted(SAMPLES.glob("*.jsonl"))
                 for line in path.read_text(encoding="utf-8").splitlines())
    archive = gzip.decompress((SAMPLES / "archive.jsonl.gz").read_bytes())
    starts += sum(b'"match_start"' in line for line in archive.splitlines())
    matches, valid = summary["matches"], summary["valid_matches"]
    assert matches == starts and 0 < valid < matches
    wrote = {}
    for which in ("", "--valid", "--invalid"):
        result = runner.invoke(app, ["filter", str(SAMPLES), *([which] if which else []),
                                     "-o", str(tmp_path / f"out{which}.jsonl")])
        assert result.exit_code == 0, result.output
        wrote[which] = result.stderr.split(" (")[0]
    assert wrote == {"": f"wrote {matches} matches of {matches}", "--valid": f"wrote {valid} matches of {matches}",
                     "--invalid": f"wrote {matches - valid} matches of {matches}"}
    again = json.loads(runner.invoke(app, ["validate", str(tmp_path / "out--valid.jsonl"), "-f", "json"]).stdout)
    assert (again["summary"]["matches"], again["summary"]["valid_matches"], again["summary"]["errors"]) == \
        (valid, valid, 0)
    restarted = runner.invoke(app, ["filter", str(EVERY), "--match", "F005-m1", "-q"]).stdout.splitlines()
    starts = [number for number, line in enumerate(restarted) if '"match_start"' in line]
    assert len(starts) == 2 and '"match_end"' in restarted[starts[1] - 1], "two matches, one after the other"


# -- -o in a folder not made yet ----------------------------------------------------------------------

@pytest.mark.parametrize("command", [["simulate", "-n", "2", "--faults", "1"], ["filter", str(EVERY)],
                                     ["validate", str(EVERY)]])
def test_an_output_in_a_missing_folder_makes_the_folder(tmp_path: Path, command: list[str]):
    target = tmp_path / "new" / "deeper" / "x.jsonl"
    result = runner.invoke(app, [*command, "-q", "-o", str(target)])
    assert result.exit_code in (0, 1), result.output
    assert target.is_file() and target.stat().st_size > 0
    if command[0] == "simulate":
        assert (tmp_path / "new" / "deeper" / "x.jsonl.faults.json").is_file()


def test_a_file_in_the_way_of_the_folder_is_one_line(tmp_path: Path):
    (tmp_path / "taken").write_text("a file")
    target = tmp_path / "taken" / "x.jsonl"
    result = runner.invoke(app, ["simulate", "-n", "2", "-o", str(target)])
    assert (result.exit_code, result.stderr) == (2, f"Error: cannot write {target}: Not a directory\n")


# -- audit's progress: a percentage where the total is known ------------------------------------------

def _progress_of(args: list[str], stdin: bytes | None = None) -> bytes:
    import os
    import pty
    import subprocess
    import time

    from test_validate_manners import child_env, drawlog, read_available

    master, slave = pty.openpty()
    with subprocess.Popen(drawlog(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave,
                          env=child_env()) as child:
        os.close(slave)
        child.communicate(stdin, timeout=120)
        shown = read_available(master, time.monotonic() + 2)
    os.close(master)
    assert child.returncode == 0
    return shown


@pytest.mark.parametrize("command", ["audit", "stats"])
def test_audit_progress_shows_a_percentage_of_a_known_total(tmp_path: Path, command: str):
    import re

    total = sum(path.stat().st_size for path in SAMPLES.glob("*.jsonl"))
    total += int.from_bytes((SAMPLES / "archive.jsonl.gz").read_bytes()[-4:], "little")  # its size unpacked
    shown = _progress_of([command, SAMPLES, "--out", tmp_path / "stats", *(["--exit-zero"] if command == "audit"
                                                                          else [])])
    assert re.search(rb"\d+%", shown), shown
    assert f"/{total / 1e6:,.1f} MB".encode() in shown


def test_audit_progress_of_standard_input_has_no_percentage(tmp_path: Path):
    import re

    shown = _progress_of(["audit", "-", "--out", tmp_path / "stats"],
                         (SAMPLES / "tournament-2p.jsonl").read_bytes())
    assert b"MB" in shown and b"matches" in shown and not re.search(rb"\d+%", shown)


# -- --write-baseline: one line, no report -------------------------------------------------------------

def test_write_baseline_prints_one_line_and_no_report(tmp_path: Path):

    summary = json.loads(runner.invoke(app, ["validate", str(SAMPLES), "-f", "json"]).stdout)["summary"]
    target = tmp_path / "known.json"
    result = runner.invoke(app, ["validate", str(SAMPLES), "--write-baseline", str(target)])
    assert result.exit_code == 0
    assert result.stdout == ""
    count = summary["violations"]
    skipped = summary["blank_lines"] + summary["invalid_lines"]
    assert result.stderr == (f"wrote {count} violations to the baseline {target} ({summary['files']} files, "
                             f"{summary['lines']:,} lines, {summary['events']:,} events, {skipped} lines skipped "
                             f"({summary['blank_lines']} blank, {summary['invalid_lines']} invalid), "
                             f"{summary['matches']} matches ({summary['valid_matches']} valid), "
                             f"{summary['errors']} errors, {summary['warnings']} warnings)\n")
    assert len(json.loads(target.read_text())["violations"]) > 0
    quiet = runner.invoke(app, ["validate", str(SAMPLES), "--write-baseline", str(target), "-q"])
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
    both = runner.invoke(app, ["validate", str(SAMPLES), "--write-baseline", str(target), "-o", str(tmp_path / "r")])
    assert both.exit_code == 2 and "drop -o FILE" in both.output and not (tmp_path / "r").exists()


# -- rule: a compact listing --------------------------------------------------------------------------

def test_rule_concise_lists_every_rule_one_a_line():
    from drawlog.check.rules import RULES

    listed = runner.invoke(app, ["rule", "--format", "concise"])
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    assert len(lines) == len(RULES) and [line.split()[0] for line in lines] == [rule.code for rule in RULES]
    assert lines[0] == ("F001  invalid-json                error             A line is not valid JSON (or not "
                        "UTF-8, or longer than 1 MiB, 1,048,576 bytes).")
    assert "W403  variant-not-replayed        warning, retired  Retired:" in listed.stdout
    assert runner.invoke(app, ["rule", "--all", "--format", "concise"]).stdout == listed.stdout
    one = runner.invoke(app, ["rule", "M205", "--format", "concise"])
    assert one.stdout.startswith("M205  illegal-draw  error  A draw where no draw is allowed.")
    assert one.stdout.count("\n") == 1


# -- concise output in file:line order -----------------------------------------------------------------

def test_concise_output_is_in_file_line_order():
    result = runner.invoke(app, ["validate", str(SAMPLES), "-f", "concise", "-q"])
    places = [(line.split(":")[0], int(line.split(":")[1])) for line in result.stdout.splitlines()]
    files = list(dict.fromkeys(file for file, _ in places))
    assert places == sorted(places, key=lambda place: (files.index(place[0]), place[1]))
    lines = result.stdout.splitlines()
    at = lines.index(f"{EVERY}:205: F006 match F006-m1: input ended inside match F006-m1: no match_end")
    assert lines[at - 1].startswith(f"{EVERY}:1") and int(lines[at - 1].split(":")[1]) < 205  # (was after 1435)
    assert int(lines[at + 1].split(":")[1]) > 205


def test_line_order_spills_to_files_and_merges_stably():
    from drawlog.check.violations import Violation
    from drawlog.views.line_order import LineOrder

    def made(line: int | None, code: str) -> Violation:
        return Violation(file="a", line=line, match=None, round=None, player=None, code=code, severity="error",
                         message="m")

    order = LineOrder(limit=3)
    found = [made(5, "A"), made(2, "B"), made(9, "C"), made(5, "D"), made(None, "E"), made(2, "F"), made(1, "G")]
    for violation in found:
        order.add(violation)
    assert [violation.code for violation in order.drain()] == ["E", "G", "B", "F", "A", "D", "C"]
    assert list(order.drain()) == []


# -- JUnit: a test case per violation -------------------------------------------------------------------

def test_junit_gives_each_error_a_test_case_of_its_own():
    import xml.etree.ElementTree as ET

    found = json.loads(runner.invoke(app, ["validate", str(EVERY), "-f", "json"]).stdout)
    errors, warnings = found["summary"]["errors"], found["summary"]["warnings"]
    first_error = next(v for v in found["violations"] if v["severity"] == "error")
    result = runner.invoke(app, ["validate", str(EVERY), "-f", "junit"])
    suite = ET.fromstring(result.stdout).find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    failing = [case for case in cases if case.find("failure") is not None]
    assert len(failing) == int(suite.get("failures", "")) == errors
    assert all(len(case.findall("failure")) <= 1 for case in cases) and len(cases) == errors + warnings
    first = failing[0]
    line = first_error["line"]
    assert (first.get("name"), first.get("file"), first.get("line")) == \
        (f"{EVERY}:{line}: {first_error['code']}", str(EVERY), str(line))
