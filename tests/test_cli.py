"""The ``drawlog`` command line: output writers, filters, exit status, ``rule``, ``schema``, ``--version``.

Faulty logs are made here by damaging a clean simulated match:
  * a ``play`` turned into a ``pass`` -> M207 + M208 (and what follows from it),
  * an unknown field -> W401, ``"target": 50`` -> W402,
  * a line that is not JSON -> F001 (match, round and player unknown).
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import traceback
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

import drawlog
from drawlog.check.rules import RULES, RULES_BY_CODE, find_rule
from drawlog.check.violations import Summary, Violation
from drawlog.cli import app
from drawlog.log.events import json_schema
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.views.writers import TextWriter

SUMMARY_KEYS = {"files", "lines", "events", "matches", "violations", "errors", "warnings"}
VIOLATION_KEYS = {"file", "line", "match", "round", "player", "code", "severity", "message", "follows"}  # the contract's, and follows (an addition)
CONTRACT_CODES = (
    [f"F00{n}" for n in range(1, 7)] + [f"S10{n}" for n in range(1, 6)] + [f"M20{n}" for n in range(1, 10)]
    + [f"R30{n}" for n in range(1, 8)] + ["W401", "W402"]
)
# Wide, colourless output so that rich never wraps or styles what the tests read.
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}

runner = CliRunner()


# -- helpers -------------------------------------------------------------------


def match_lines(match_id: str = "m1", seed: int = 1) -> list[bytes]:
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))


def edit(line: bytes, **changes: object) -> bytes:
    event = json.loads(line)
    event.update(changes)
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"


def first_play(lines: list[bytes]) -> int:
    """Index of the first ``play``: the opening tile of round 1 (stock well above two)."""
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "play")


def play_to_pass(lines: list[bytes], index: int) -> list[bytes]:
    event = json.loads(lines[index])
    assert event["type"] == "play"
    lines = list(lines)
    lines[index] = json.dumps({"type": "pass", "match": event["match"], "player": event["player"]}).encode() + b"\n"
    return lines


def faulty_lines(match_id: str = "m1") -> tuple[list[bytes], int]:
    """A match with W401 + W402 on line 1, M207 + M208 on the first play, F001 on a last line.

    Returns the lines and the 1-based line of the turned pass.
    """
    lines = match_lines(match_id)
    index = first_play(lines)
    lines = play_to_pass(lines, index)
    lines[0] = edit(lines[0], colour="red", target=50)
    lines.append(b"this is not json\n")
    return lines, index + 1


def warning_only_lines(match_id: str = "m1") -> list[bytes]:
    """A match whose only faults are warnings: W401 and W402 (a target the match still fits)."""
    for seed in range(1, 50):
        lines = match_lines(match_id, seed)
        target = max(json.loads(lines[-1])["scores"].values())
        if target != 100:
            lines[0] = edit(lines[0], target=target)
            lines[1] = edit(lines[1], table=7)
            return lines
    raise AssertionError("no seed gave a final score other than 100")


def write(path: Path, lines: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    return path


def cli(*args: object, env: dict | None = None):  # noqa: ANN201
    result = runner.invoke(app, [str(arg) for arg in args], env={**ENV, **(env or {})})
    exc = result.exception
    detail = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    assert exc is None or isinstance(exc, SystemExit), f"uncaught exception:\n{detail}"
    assert "Traceback" not in result.output
    return result


def validate_json(*args: object) -> tuple[int, dict]:
    result = cli("validate", *args, "--format", "json")
    document = json.loads(result.stdout)
    summary = document["summary"]
    assert summary["lines"] == summary["events"] + summary["blank_lines"] + summary["invalid_lines"], summary
    return result.exit_code, document


def strip_colours(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.fixture
def faulty(tmp_path: Path) -> tuple[Path, int]:
    lines, pass_line = faulty_lines()
    return write(tmp_path / "faulty.jsonl", lines), pass_line


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return write(tmp_path / "clean.jsonl", match_lines("c1", seed=5))


@pytest.fixture
def warnings_only(tmp_path: Path) -> Path:
    return write(tmp_path / "warnings.jsonl", warning_only_lines())


# -- --format json ---------------------------------------------------------------


def test_json_is_one_document_with_the_contract_keys(faulty: tuple[Path, int]) -> None:
    path, pass_line = faulty
    result = cli("validate", path, "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)  # fails on anything but exactly one JSON document
    assert set(document) >= {"summary", "violations"}
    summary, violations = document["summary"], document["violations"]
    assert set(summary) >= SUMMARY_KEYS
    assert all(isinstance(summary[key], int) for key in SUMMARY_KEYS)
    assert (summary["files"], summary["matches"]) == (1, 1)
    assert summary["lines"] == len(path.read_bytes().splitlines())
    assert summary["violations"] == len(violations)
    assert summary["errors"] == sum(v["severity"] == "error" for v in violations)
    assert summary["warnings"] == sum(v["severity"] == "warning" for v in violations) == 2
    for v in violations:
        assert set(v) == VIOLATION_KEYS
        assert v["file"] == str(path)
        assert isinstance(v["line"], int) and v["line"] >= 1
        assert v["match"] is None or isinstance(v["match"], str)
        assert v["round"] is None or isinstance(v["round"], int)
        assert v["player"] is None or isinstance(v["player"], str)
        assert v["severity"] == RULES_BY_CODE[v["code"]].severity
        assert isinstance(v["message"], str) and v["message"]

    def where(code: str) -> tuple:
        v = next(v for v in violations if v["code"] == code)
        return v["line"], v["match"], v["round"], v["player"]

    player = json.loads(path.read_bytes().splitlines()[pass_line - 1])["player"]
    assert where("W401") == (1, "m1", None, None)
    assert where("W402") == (1, "m1", None, None)
    assert where("M207") == (pass_line, "m1", 1, player)
    assert where("M208") == (pass_line, "m1", 1, player)
    assert where("F001") == (summary["lines"], None, None, None)  # nulls where unknown


def test_json_clean_log(clean: Path) -> None:
    status, document = validate_json(clean)
    assert status == 0
    assert document["violations"] == []
    assert document["summary"]["errors"] == document["summary"]["warnings"] == 0


# -- --format jsonl --------------------------------------------------------------


def test_jsonl_is_one_violation_object_per_line(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path)
    result = cli("validate", path, "--format", "jsonl")
    assert result.exit_code == 1
    *rows, last = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(set(row) == VIOLATION_KEYS for row in rows)
    assert rows == document["violations"]
    assert last == {"summary": document["summary"]}  # the last line is the summary record


def test_jsonl_clean_log_prints_only_the_summary(clean: Path) -> None:
    result = cli("validate", clean, "--format", "jsonl")
    assert result.exit_code == 0
    [line] = result.stdout.splitlines()
    assert json.loads(line)["summary"]["violations"] == 0


# -- --format github -------------------------------------------------------------

GITHUB_LINE = re.compile(
    r"^::(?P<level>error|warning) file=(?P<file>[^,:\n]*),line=(?P<line>\d+),"
    r"title=(?P<code>[A-Z]\d{3}) (?P<name>[a-z0-9-]+)::(?P<message>.*)$"
)


def gh_property(text: str) -> str:
    """GitHub's escaping of a workflow-command property value."""
    return (text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            .replace(":", "%3A").replace(",", "%2C"))


def test_github_annotations(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path)
    result = cli("validate", path, "--format", "github")
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    assert len(out) == len(document["violations"])
    for line, v in zip(out, document["violations"]):
        found = GITHUB_LINE.match(line)
        assert found, line
        assert found["level"] == v["severity"]
        assert found["file"] == gh_property(str(path))
        assert int(found["line"]) == v["line"]
        assert found["code"] == v["code"]
        assert found["name"] == RULES_BY_CODE[v["code"]].name
        assert v["message"] in found["message"]
    assert any(line.startswith("::warning ") for line in out)
    assert any(line.startswith("::error ") for line in out)


def test_github_escapes_properties_and_message(tmp_path: Path) -> None:
    path = tmp_path / "odd%name,with:chars.jsonl"
    lines = match_lines("m1")
    lines[0] = edit(lines[0], colour="red")  # W401
    lines.append(b'{"type":"play","match":"x%y\\nz","player":"p1","tile":[1,2]}\n')  # F004 naming that match
    write(path, lines)
    result = cli("validate", path, "--format", "github")
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    assert len(out) == 2, out  # the newline inside the message did not split the annotation
    warning, error = out
    escaped_file = gh_property(str(path))
    assert "%25" in escaped_file and "%2C" in escaped_file and "%3A" in escaped_file
    assert warning.startswith(f"::warning file={escaped_file},line=1,title=W401 unknown-field::")
    assert error.startswith(f"::error file={escaped_file},line={len(lines)},title=F004 outside-match-or-round::")
    message = error.split("::", 2)[2]
    assert "x%25y%0Az" in message
    assert re.search(r"%(?![0-9A-F]{2})", message) is None, "every % is escaped"


# -- default text output ---------------------------------------------------------------


def table_rows(text: str) -> list[tuple[int, str]]:
    """(line, code) of each violation row of the rich tables."""
    return [(int(m[1]), m[2]) for m in re.finditer(r"^│\s*(\d+)\s*│\s*([A-Z]\d{3})\s*│", text, re.MULTILINE)]


def test_text_groups_by_file_and_ends_with_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.jsonl", faulty_lines("ma")[0])
    write(tmp_path / "b.jsonl", warning_only_lines("mb"))
    write(tmp_path / "c.jsonl", match_lines("mc", seed=9))
    _, document = validate_json("a.jsonl", "b.jsonl", "c.jsonl")
    result = cli("validate", "a.jsonl", "b.jsonl", "c.jsonl")
    assert result.exit_code == 1
    text = strip_colours(result.stdout)
    lines = [line.rstrip() for line in text.splitlines()]
    # each file with violations is named once, on its own line, above its rows
    assert lines.count("a.jsonl") == 1 and lines.count("b.jsonl") == 1
    assert "c.jsonl" not in text, "a clean file has no block"
    title_a, title_b = lines.index("a.jsonl"), lines.index("b.jsonl")
    assert title_a < title_b
    block_a = "\n".join(lines[title_a:title_b])
    block_b = "\n".join(lines[title_b:])
    by_file = {name: [(v["line"], v["code"]) for v in document["violations"] if v["file"] == name]
               for name in ("a.jsonl", "b.jsonl")}
    assert table_rows(block_a) == by_file["a.jsonl"]
    assert table_rows(block_b) == by_file["b.jsonl"]
    # ends with one summary line
    summary = document["summary"]
    last = [line for line in lines if line.strip()][-1]
    assert last.startswith("errors found:")
    assert "3 files" in last
    assert f"{summary['errors']} errors" in last and f"{summary['warnings']} warnings" in last
    assert f"{summary['lines']:,} lines" in last


def test_text_clean_run_is_one_summary_line(clean: Path) -> None:
    result = cli("validate", clean)
    assert result.exit_code == 0
    lines = [line for line in strip_colours(result.stdout).splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("no errors:") and "1 file" in lines[0] and "0 errors" in lines[0]


def test_text_prints_a_long_file_name_whole(tmp_path: Path) -> None:
    path = write(tmp_path / ("long-folder-name-" * 4) / "some-tournament-table-7.jsonl", warning_only_lines())
    result = cli("validate", path)
    assert str(path) in strip_colours(result.stdout).splitlines()[0]


def markup_lines() -> tuple[list[bytes], int]:
    """A faulty match (M207 + M208 on the returned 1-based line) whose ids look like rich markup.

    p1 is ``[bot] ann``, p2 is ``[/]`` and the match is ``[bold]m1``.
    """
    lines, pass_line = faulty_lines("m1")
    renamed = [line.replace(b'"p1"', b'"[bot] ann"').replace(b'"p2"', b'"[/]"').replace(b'"m1"', b'"[bold]m1"')
               for line in lines]
    return renamed, pass_line


def test_text_prints_values_from_the_log_literally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    lines, pass_line = markup_lines()
    write(tmp_path / "[red]a[/].jsonl", lines)
    _, document = validate_json("[red]a[/].jsonl", "[/]missing.jsonl")
    player = next(v["player"] for v in document["violations"] if v["code"] == "M207")
    result = cli("validate", "[red]a[/].jsonl", "[/]missing.jsonl")
    assert result.exit_code == 1
    text = strip_colours(result.stdout)
    lines_out = [line.rstrip() for line in text.splitlines()]
    assert "[red]a[/].jsonl" in lines_out and "[/]missing.jsonl" in lines_out
    row = next(line for line in lines_out if re.match(rf"^│\s*{pass_line}\s*│\s*M207\s*│", line))
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert cells[2:5] == ["[bold]m1", "1", player]
    assert player in ("[bot] ann", "[/]")
    assert table_rows(text) == [(v["line"], v["code"]) for v in document["violations"] if v["line"]]
    unreadable = next(v for v in document["violations"] if v["code"] == "F007")
    assert re.search(rf"^│\s*│ F007 │.*│ {re.escape(unreadable['message'])}\s*│$", text, re.M)


def test_text_prints_a_long_file_in_tables_of_bounded_rows(tmp_path: Path) -> None:
    path = write(tmp_path / "junk.jsonl", [b"x\n"] * 2_500)
    result = cli("validate", path)
    assert result.exit_code == 1
    text = strip_colours(result.stdout)
    assert table_rows(text) == [(line, "F001") for line in range(1, 2_501)]
    assert text.count("┏") == 3, "tables of 1,000, 1,000 and 500 rows"
    assert [line.rstrip() for line in text.splitlines()].count(str(path)) == 1, "the file is named once"


def test_text_writer_prints_each_full_table_as_it_comes() -> None:
    stream = io.StringIO()
    writer = TextWriter(stream, rows_per_table=3)
    for line in range(1, 5):
        writer.add(Violation(file="log.jsonl", line=line, match=None, round=None, player=None, code="F001",
                             severity="error", message="not valid JSON"))
        printed = table_rows(strip_colours(stream.getvalue()))
        assert printed == [(n, "F001") for n in range(1, 4)] if line >= 3 else printed == []
    writer.finish(Summary(files=1, lines=4, errors=4))
    text = strip_colours(stream.getvalue())
    assert table_rows(text) == [(n, "F001") for n in range(1, 5)]
    assert text.splitlines().count("log.jsonl") == 1 and text.count("┏") == 2


def test_text_summary_is_one_line_at_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.jsonl", faulty_lines("ma")[0])
    result = cli("validate", "a.jsonl", "missing.jsonl", env={"COLUMNS": "80"})
    last = [line for line in strip_colours(result.stdout).splitlines() if line.strip()][-1]
    assert last.startswith("errors found:") and last.rstrip().endswith("warnings")


# -- --statistics ----------------------------------------------------------------


def test_statistics_text(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path)
    counts = Counter(v["code"] for v in document["violations"])
    result = cli("validate", path, "--statistics")
    assert result.exit_code == 1
    text = strip_colours(result.stdout)
    rows = {m[2]: (int(m[1]), m[3], m[4])
            for m in re.finditer(r"^│\s*(\d+)\s*│\s*([A-Z]\d{3})\s*│\s*([a-z0-9-]+)\s*│\s*(\w+)\s*│", text, re.M)}
    assert {code: row[0] for code, row in rows.items()} == dict(counts)
    for code, (_, name, severity) in rows.items():
        assert (name, severity) == (RULES_BY_CODE[code].name, RULES_BY_CODE[code].severity)
    assert document["violations"][0]["message"] not in text, "counts, not each violation"
    last = [line for line in text.splitlines() if line.strip()][-1]
    assert f"{document['summary']['errors']} errors" in last


def test_statistics_json(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path)
    result = cli("validate", path, "--statistics", "--format", "json")
    assert result.exit_code == 1
    stats = json.loads(result.stdout)
    assert stats["summary"] == document["summary"]
    assert set(stats["summary"]) >= SUMMARY_KEYS
    assert {row["code"]: row["count"] for row in stats["statistics"]} == dict(
        Counter(v["code"] for v in document["violations"]))
    for row in stats["statistics"]:
        assert set(row) >= {"code", "count"}
        assert row.get("name", RULES_BY_CODE[row["code"]].name) == RULES_BY_CODE[row["code"]].name
    counts = [row["count"] for row in stats["statistics"]]
    assert counts == sorted(counts, reverse=True)


def test_statistics_with_github_format_is_a_usage_error(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    result = cli("validate", path, "--statistics", "--format", "github")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--statistics prints counts, not annotations: use --format text, json or jsonl" in result.stderr


def test_statistics_follow_select(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    result = cli("validate", path, "--statistics", "--format", "json", "--select", "W")
    assert result.exit_code == 0
    stats = json.loads(result.stdout)
    assert {row["code"]: row["count"] for row in stats["statistics"]} == {"W401": 1, "W402": 1}
    assert (stats["summary"]["errors"], stats["summary"]["warnings"]) == (0, 2)


# -- --select / --ignore ---------------------------------------------------------------


@pytest.mark.parametrize(("options", "keep"), [
    (["--select", "M2"], lambda code: code.startswith("M2")),
    (["--select", "m2"], lambda code: code.startswith("M2")),
    (["--select", "M205,F"], lambda code: code == "M205" or code.startswith("F")),
    (["--select", "M205", "--select", "F"], lambda code: code == "M205" or code.startswith("F")),
    (["--select", "M207"], lambda code: code == "M207"),
    (["--ignore", "W"], lambda code: not code.startswith("W")),
    (["--ignore", "M,R"], lambda code: not code.startswith(("M", "R"))),
    (["--select", "M", "--ignore", "M20"], lambda code: code.startswith("M") and not code.startswith("M20")),
    (["--select", "W"], lambda code: code.startswith("W")),
], ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_select_and_ignore_filter_report_and_summary(faulty: tuple[Path, int], options: list[str], keep) -> None:  # noqa: ANN001
    path, _ = faulty
    _, everything = validate_json(path)
    status, document = validate_json(path, *options)
    expected = [v for v in everything["violations"] if keep(v["code"])]
    assert document["violations"] == expected
    assert expected or options[-1] == "M20", "the filter leaves something to compare"
    summary = document["summary"]
    assert summary["violations"] == len(expected)
    assert summary["errors"] == sum(v["severity"] == "error" for v in expected)
    assert summary["warnings"] == sum(v["severity"] == "warning" for v in expected)
    for key in ("files", "lines", "events", "matches"):  # what was read does not change
        assert summary[key] == everything["summary"][key]
    assert status == (1 if summary["errors"] else 0)


def test_select_with_f_keeps_f001(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path, "--select", "M205,F")
    assert "F001" in {v["code"] for v in document["violations"]}


@pytest.mark.parametrize("options", [
    ["--select", "Q"], ["--select", "X999"], ["--select", "M9"], ["--select", "M2,ZZ"], ["--ignore", "W5"],
])
def test_unknown_prefix_is_a_usage_error(faulty: tuple[Path, int], options: list[str]) -> None:
    path, _ = faulty
    result = cli("validate", path, *options, "--format", "json")
    assert result.exit_code == 2
    assert result.stdout == "", "no report when the command cannot run"
    assert options[-1].split(",")[-1].upper() in result.stderr


# -- --fail-fast -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_fail_fast_stops_after_the_first_error(faulty: tuple[Path, int], fmt: str) -> None:
    path, pass_line = faulty
    _, everything = validate_json(path)
    first_error = next(i for i, v in enumerate(everything["violations"]) if v["severity"] == "error")
    result = cli("validate", path, "--fail-fast", "--format", fmt)
    assert result.exit_code == 1
    if fmt == "json":
        reported = json.loads(result.stdout)["violations"]
    else:
        *reported, last = [json.loads(line) for line in result.stdout.splitlines()]
        assert last["summary"]["errors"] == 1
    assert reported == everything["violations"][: first_error + 1]
    assert sum(v["severity"] == "error" for v in reported) == 1
    assert reported[-1]["line"] == pass_line


def test_fail_fast_stops_reading(faulty: tuple[Path, int]) -> None:
    path, pass_line = faulty
    status, document = validate_json(path, "--fail-fast")
    assert status == 1
    assert document["summary"]["lines"] == pass_line


def test_fail_fast_stops_at_the_first_file(tmp_path: Path) -> None:
    first = write(tmp_path / "1.jsonl", faulty_lines("m1")[0])
    second = write(tmp_path / "2.jsonl", faulty_lines("m2")[0])
    _, document = validate_json(first, second, "--fail-fast")
    assert {v["file"] for v in document["violations"]} == {str(first)}


def test_fail_fast_summary_counts_what_was_reported(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    _, document = validate_json(path, "--fail-fast")
    violations, summary = document["violations"], document["summary"]
    assert summary["violations"] == len(violations)
    assert summary["errors"] == 1
    assert summary["warnings"] == sum(v["severity"] == "warning" for v in violations)


# -- exit status: warnings, --strict, --exit-zero -------------------------------------


def test_warnings_alone_exit_0_and_1_with_strict(warnings_only: Path) -> None:
    status, document = validate_json(warnings_only)
    assert status == 0
    assert sorted(v["code"] for v in document["violations"]) == ["W401", "W402"]
    assert document["summary"]["errors"] == 0
    assert validate_json(warnings_only, "--strict")[0] == 1
    assert cli("validate", warnings_only, "--strict").exit_code == 1  # text output too
    assert validate_json(warnings_only, "--strict", "--exit-zero")[0] == 0
    assert validate_json(warnings_only, "--strict", "--ignore", "W")[0] == 0


def test_clean_log_exits_0_even_with_strict(clean: Path) -> None:
    assert validate_json(clean)[0] == 0
    assert validate_json(clean, "--strict")[0] == 0


def test_exit_zero(faulty: tuple[Path, int], tmp_path: Path) -> None:
    path, _ = faulty
    status, document = validate_json(path, "--exit-zero")
    assert status == 0
    assert document["summary"]["errors"] > 0, "errors are still reported"
    assert cli("validate", path, "--exit-zero").exit_code == 0
    assert cli("validate", path, "--exit-zero", "--format", "github").exit_code == 0
    # 2 still means nothing could be read
    assert validate_json(tmp_path / "missing.jsonl", "--exit-zero")[0] == 2


def test_errors_exit_1_in_every_format(faulty: tuple[Path, int]) -> None:
    path, _ = faulty
    for fmt in ("text", "json", "jsonl", "github"):
        assert cli("validate", path, "--format", fmt).exit_code == 1, fmt


@pytest.mark.parametrize("args", [
    ["validate"], ["validate", "x.jsonl", "--format", "xml"], ["validate", "x.jsonl", "--no-such-option"],
    ["no-such-command"],
])
def test_bad_arguments_exit_2(args: list[str]) -> None:
    assert cli(*args).exit_code == 2


# -- drawlog rule ------------------------------------------------------------------------


def test_rule_by_code() -> None:
    rule = RULES_BY_CODE["M205"]
    result = cli("rule", "M205")
    assert result.exit_code == 0
    text = strip_colours(result.stdout)
    assert "M205" in text and "illegal-draw" in text and "error" in text
    assert rule.bad in text and rule.good in text  # both examples, verbatim (wide terminal)


def test_rule_examples_at_80_columns() -> None:
    rule = RULES_BY_CODE["M205"]
    text = strip_colours(cli("rule", "M205", env={"COLUMNS": "80"}).stdout)
    for example in (rule.bad, rule.good):
        assert example.split("   (")[0] in text  # the JSON of each example is whole


def test_rule_by_name_and_any_case() -> None:
    by_code = cli("rule", "M205").stdout
    assert cli("rule", "illegal-draw").stdout == by_code
    assert cli("rule", "m205").stdout == by_code


def test_rule_all_lists_every_code() -> None:
    result = cli("rule", "--all")
    assert result.exit_code == 0
    text = strip_colours(result.stdout)
    for rule in RULES:
        assert re.search(rf"\b{rule.code}\b", text), rule.code
        assert rule.name in text
    headers = re.findall(r"^\s*([A-Z]\d{3}) ([a-z0-9-]+) \((error|warning)(, retired)?\)\s*$", text, re.M)
    assert [code for code, _, _, _ in headers] == [rule.code for rule in RULES]
    assert [code for code, _, _, retired in headers if retired] == [rule.code for rule in RULES if rule.retired]


def test_rule_catalog_covers_the_contract() -> None:
    assert set(CONTRACT_CODES) <= set(RULES_BY_CODE)
    assert RULES_BY_CODE["W401"].severity == RULES_BY_CODE["W402"].severity == "warning"
    assert all(RULES_BY_CODE[code].severity == "error" for code in CONTRACT_CODES if not code.startswith("W"))
    assert len({rule.name for rule in RULES}) == len(RULES), "names are unique"


@pytest.mark.parametrize("args", [["rule", "X999"], ["rule", "no-such-rule"], ["rule"]])
def test_rule_unknown_is_a_usage_error(args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert result.stdout == ""


def test_rule_code_with_all_is_a_usage_error() -> None:
    result = cli("rule", "M205", "--all")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "give a rule code (M205) or --all, not both" in result.stderr


def test_rule_json() -> None:
    result = cli("rule", "M205", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data == dataclasses.asdict(find_rule("M205"))
    assert (data["code"], data["name"], data["severity"]) == ("M205", "illegal-draw", "error")
    assert data["bad"] and data["good"]


def test_rule_all_json() -> None:
    data = json.loads(cli("rule", "--all", "--format", "json").stdout)
    assert [item["code"] for item in data] == [rule.code for rule in RULES]


def test_rule_unknown_format_is_a_usage_error() -> None:
    assert cli("rule", "M205", "--format", "xml").exit_code == 2


# -- drawlog schema, --version ----------------------------------------------------------


def test_schema_prints_the_json_schema() -> None:
    result = cli("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json_schema()


def test_version() -> None:
    result = cli("--version")
    assert result.exit_code == 0
    engine = "compiled" if drawlog.COMPILED else "pure-Python"
    assert result.stdout == f"drawlog {drawlog.__version__} ({engine} engine; log format 1.2)\n"
    from importlib.metadata import version

    assert drawlog.__version__ == version("drawlog")


def test_fail_fast_at_an_unreadable_first_input_is_an_error_not_a_failure_to_run(tmp_path: Path) -> None:
    """The unreadable input is reported and the run goes on to the first readable one, stopping at its first error."""
    good = write(tmp_path / "good.jsonl", faulty_lines("m1")[0])
    status, document = validate_json(tmp_path / "missing.jsonl", good, "--fail-fast")
    assert status == 1
    found = [(Path(v["file"]).name, v["code"]) for v in document["violations"]]
    assert found[0] == ("missing.jsonl", "F007")
    severities = [v["severity"] for v in document["violations"][1:]]
    assert {name for name, _ in found[1:]} == {"good.jsonl"} and severities[-1] == "error"
    assert set(severities[:-1]) <= {"warning"}
